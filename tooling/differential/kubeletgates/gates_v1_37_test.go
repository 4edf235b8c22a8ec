package kubeletgates

import (
	"fmt"
	"os"
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/tooling/differential/internal/quietklog"
)

func TestMain(m *testing.M) {
	quietklog.Silence()
	os.Exit(m.Run())
}

// The gates the library models, with whether v1.37.2 locks them to their
// default (at the default emulation version 1.37).
var lockedAt137 = map[string]bool{
	"ContainerRestartRules":                        false,
	"RestartAllContainersOnContainerExits":         false,
	"ReduceDefaultCrashLoopBackOffDecay":           false,
	"KubeletCrashLoopBackOffMax":                   false,
	"InPlacePodVerticalScaling":                    true,
	"InPlacePodLevelResourcesVerticalScaling":      false,
	"InPlacePodVerticalScalingInitContainers":      true,
	"InPlacePodVerticalScalingMemoryBackedVolumes": false,
	"PodLevelResources":                            false,
	"ChangeContainerStatusOnKubeletRestart":        false,
	"PodReadyToStartContainersCondition":           true,
	"PodObservedGenerationTracking":                true,
	"NodeDeclaredFeatures":                         true,
}

func TestLockedGates(t *testing.T) {
	if got := EmulationVersion(); got != "1.37" {
		t.Fatalf("emulation version %s, want 1.37", got)
	}
	for name, wantLocked := range lockedAt137 {
		locked, _, err := LockedTo(name)
		if err != nil || locked != wantLocked {
			t.Errorf("LockedTo(%s) = %v, %v; want %v", name, locked, err, wantLocked)
		}
		// Flipping alone: allowed exactly when not locked (dependents of a
		// gate switched off are switched off too, so no dependency error).
		err = Validate(map[string]bool{name: !Enabled(name)})
		if (err == nil) == wantLocked {
			t.Errorf("Validate(flip %s) = %v; locked=%v", name, err, wantLocked)
		}
	}
}

type fakeTB struct {
	TB
	fatal string
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }

func TestSetRejectsLockedGateWithoutTouchingIt(t *testing.T) {
	ft := &fakeTB{TB: t}
	Set(ft, map[string]bool{"PodObservedGenerationTracking": false})
	if ft.fatal == "" {
		t.Fatal("Set accepted a change to a locked gate")
	}
	// The global gate is still usable afterwards.
	t.Run("still usable", func(t *testing.T) {
		Set(t, map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": true})
		if !Enabled("ReduceDefaultCrashLoopBackOffDecay") {
			t.Error("gate not set")
		}
	})
	if Enabled("ReduceDefaultCrashLoopBackOffDecay") {
		t.Error("gate not restored after subtest")
	}
}

func TestSetAndRestore(t *testing.T) {
	before := Snapshot("ContainerRestartRules", "RestartAllContainersOnContainerExits", "KubeletCrashLoopBackOffMax")
	t.Run("switch off a dependency", func(t *testing.T) {
		Set(t, map[string]bool{"ContainerRestartRules": false, "KubeletCrashLoopBackOffMax": false})
		if Enabled("ContainerRestartRules") || Enabled("KubeletCrashLoopBackOffMax") {
			t.Error("gates not switched off")
		}
		if Enabled("RestartAllContainersOnContainerExits") {
			t.Error("dependent RestartAllContainersOnContainerExits was not switched off with ContainerRestartRules")
		}
	})
	if after := Snapshot("ContainerRestartRules", "RestartAllContainersOnContainerExits", "KubeletCrashLoopBackOffMax"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("not restored: before %v, after %v", before, after)
	}
}

func TestDependencyConflictsAreRejected(t *testing.T) {
	for _, m := range []map[string]bool{
		{"ContainerRestartRules": false, "RestartAllContainersOnContainerExits": true},
		{"PodLevelResources": false, "InPlacePodLevelResourcesVerticalScaling": true},
	} {
		if err := Validate(m); err == nil {
			t.Errorf("Validate(%v) accepted a dependency conflict", m)
		}
	}
	for _, m := range []map[string]bool{
		{"ContainerRestartRules": false, "RestartAllContainersOnContainerExits": false},
		{"ContainerRestartRules": true, "RestartAllContainersOnContainerExits": false},
		{"PodLevelResources": false},
		{"InPlacePodVerticalScalingMemoryBackedVolumes": true},
	} {
		if err := Validate(m); err != nil {
			t.Errorf("Validate(%v) = %v", m, err)
		}
	}
}

func TestEmulationVersion136UnlocksGatesLockedIn137(t *testing.T) {
	SetEmulationVersion(t, "1.36")
	Set(t, map[string]bool{
		"PodReadyToStartContainersCondition":      false,
		"InPlacePodVerticalScalingInitContainers": false,
		"NodeDeclaredFeatures":                    false,
		// NodeDeclaredFeatures=false is only valid with its dependents off.
		"RestartAllContainersOnContainerExits":    false,
		"InPlacePodLevelResourcesVerticalScaling": false,
	})
	for _, n := range []string{"PodReadyToStartContainersCondition", "InPlacePodVerticalScalingInitContainers", "NodeDeclaredFeatures"} {
		if Enabled(n) {
			t.Errorf("%s still enabled", n)
		}
	}
	// Gates new in 1.37 do not exist at 1.36, and older locks stay.
	if err := Validate(map[string]bool{"InPlacePodVerticalScalingMemoryBackedVolumes": true}); err == nil {
		t.Error("InPlacePodVerticalScalingMemoryBackedVolumes settable at 1.36")
	}
	if err := Validate(map[string]bool{"InPlacePodVerticalScaling": false}); err == nil {
		t.Error("InPlacePodVerticalScaling settable at 1.36")
	}
}

func TestRapidIterationsRestore(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		v := rapid.Bool().Draw(rt, "reduced")
		Set(rt, map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": v})
		if Enabled("ReduceDefaultCrashLoopBackOffDecay") != v {
			rt.Fatalf("gate not set to %v", v)
		}
	})
	if Enabled("ReduceDefaultCrashLoopBackOffDecay") {
		t.Error("gate not restored after rapid.Check")
	}
}

func TestEmulationVersion134(t *testing.T) {
	SetEmulationVersion(t, "1.34")
	for _, n := range []string{"InPlacePodVerticalScaling", "PodObservedGenerationTracking"} {
		if err := Validate(map[string]bool{n: false}); err != nil {
			t.Errorf("%s not settable at 1.34: %v", n, err)
		}
	}
	for _, n := range []string{"RestartAllContainersOnContainerExits", "InPlacePodLevelResourcesVerticalScaling", "InPlacePodVerticalScalingInitContainers", "NodeDeclaredFeatures"} {
		if Enabled(n) {
			t.Errorf("%s enabled at 1.34", n)
		}
		if err := Validate(map[string]bool{n: true}); err == nil {
			t.Errorf("%s can be enabled at 1.34", n)
		}
	}
	for _, n := range []string{"ContainerRestartRules", "KubeletCrashLoopBackOffMax"} {
		if Enabled(n) {
			t.Errorf("%s enabled by default at 1.34", n)
		}
	}
}

// A Switcher changes the gates case after case, switches off dependents of
// a gate switched off and brings them back when it is on again, refuses a
// locked gate, and the test's end restores everything.
func TestSwitcher(t *testing.T) {
	before := Snapshot("PodLevelResources", "InPlacePodLevelResourcesVerticalScaling", "ContainerRestartRules", "RestartAllContainersOnContainerExits")
	t.Run("switching", func(t *testing.T) {
		sw := NewSwitcher(t, []string{"PodLevelResources", "ContainerRestartRules"})
		if err := sw.Switch(map[string]bool{"PodLevelResources": false, "ContainerRestartRules": false}); err != nil {
			t.Fatal(err)
		}
		if Enabled("PodLevelResources") || Enabled("InPlacePodLevelResourcesVerticalScaling") || Enabled("ContainerRestartRules") || Enabled("RestartAllContainersOnContainerExits") {
			t.Fatalf("after switching off: %v", Snapshot("PodLevelResources", "InPlacePodLevelResourcesVerticalScaling", "ContainerRestartRules", "RestartAllContainersOnContainerExits"))
		}
		if err := sw.Switch(map[string]bool{"PodLevelResources": true, "ContainerRestartRules": true}); err != nil {
			t.Fatal(err)
		}
		if !Enabled("InPlacePodLevelResourcesVerticalScaling") || !Enabled("RestartAllContainersOnContainerExits") {
			t.Fatalf("dependents not back: %v", Snapshot("InPlacePodLevelResourcesVerticalScaling", "RestartAllContainersOnContainerExits"))
		}
		if err := sw.Switch(map[string]bool{"InPlacePodVerticalScaling": false}); err == nil {
			t.Fatal("a locked gate was switched")
		}
		if err := sw.Switch(map[string]bool{"PodLevelResources": false}); err != nil {
			t.Fatal(err)
		}
	})
	if after := Snapshot("PodLevelResources", "InPlacePodLevelResourcesVerticalScaling", "ContainerRestartRules", "RestartAllContainersOnContainerExits"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("not restored: %v, was %v", after, before)
	}
}
