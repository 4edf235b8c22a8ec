package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

func TestSyncInputValidate(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c-2", Name: "app", State: runtimestate.Running, CreatedAt: t0.Add(time.Minute)},
		{ID: "c-1", Name: "app", State: runtimestate.Exited, CreatedAt: t0},
	}}
	good := sim.SyncInput{Pod: pod, Runtime: st,
		Memory:     sim.Memory{Probes: map[string]vocab.ProbeResults{"c-2": {}, "c-gone": {}}},
		Containers: map[string]sim.Run{"c-2": {}}, Logs: map[string]int{"app": 1}, Created: map[string]int{"app": 2}}
	if err := good.Validate(); err != nil {
		t.Fatalf("valid input: %v", err)
	}
	if err := (sim.SyncInput{}).Validate(); err != nil {
		t.Fatalf("nil pod: %v", err)
	}
	for _, tc := range []struct {
		name string
		in   sim.SyncInput
		want string
	}{
		{"probes keyed by name", sim.SyncInput{Memory: sim.Memory{Probes: map[string]vocab.ProbeResults{"app": {Liveness: vocab.ProbeFailure}}}},
			`Memory.Probes["app"]: keyed by name "app", want instance ID "c-2"`},
		{"containers keyed by name", sim.SyncInput{Containers: map[string]sim.Run{"app": {}}},
			`Containers["app"]: keyed by name "app", want instance ID "c-2"`},
		{"containers: unknown ID", sim.SyncInput{Containers: map[string]sim.Run{"c-3": {}}},
			`Containers["c-3"]: no container instance in the runtime state has ID "c-3"`},
		{"logs misspelt", sim.SyncInput{Logs: map[string]int{"ap": 0}}, `Logs["ap"]`},
		{"created misspelt", sim.SyncInput{Created: map[string]int{"apq": 0}}, `Created["apq"]`},
		{"start failures misspelt", sim.SyncInput{Memory: sim.Memory{StartFailures: map[string]vocab.StartFailure{"App": {}}}}, `Memory.StartFailures["App"]`},
		{"actuated misspelt", sim.SyncInput{Memory: sim.Memory{Actuated: podactions.Actuated{Containers: map[string]v1.ResourceRequirements{"pp": {}}}}},
			`Actuated.Containers["pp"]`},
	} {
		tc.in.Pod, tc.in.Runtime = pod, st
		err := tc.in.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSimulateTwoPodsSameName: Simulate refuses a second pod of a name
// already given (checked with a set of the names seen, not a scan), also
// when another pod comes between the two.
func TestSimulateTwoPodsSameName(t *testing.T) {
	spec := v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}}
	pods := []sim.PodInput{{Pod: apiPod("a", spec)}, {Pod: apiPod("b", spec)}, {Pod: apiPod("c", spec)}}
	if _, err := sim.Simulate(sim.Config{Seed: 1, For: sim.Duration(time.Second)}, pods); err != nil {
		t.Fatalf("three names: %v", err)
	}
	pods[2].Pod = apiPod("a", spec)
	_, err := sim.Simulate(sim.Config{Seed: 1, For: sim.Duration(time.Second)}, pods)
	if err == nil || !strings.Contains(err.Error(), "two pods named") || !strings.Contains(err.Error(), "/a") {
		t.Fatalf("a, b, a: got %v, want two pods named …/a", err)
	}
}

// A name the runtime shows but the spec no longer has (a container removed
// from an ephemeral list, an instance left from an older spec) is a known
// name for Logs, Created and StartFailures; without a runtime state only
// the spec's names are known, and Validate does not fail on the nil state.
func TestSyncInputValidateRuntimeNames(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	st := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c-9", Name: "old", State: runtimestate.Exited, CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
	}}
	in := sim.SyncInput{Pod: pod, Runtime: st, Logs: map[string]int{"old": 0}, Created: map[string]int{"old": 1}}
	if err := in.Validate(); err != nil {
		t.Errorf("a name of the runtime state: %v", err)
	}
	in.Runtime = nil
	if err := in.Validate(); err == nil || !strings.Contains(err.Error(), `Logs["old"]`) {
		t.Errorf("no runtime state: %v, want Logs[\"old\"] refused", err)
	}
	in.Logs, in.Created = map[string]int{"app": 0}, nil
	if err := in.Validate(); err != nil {
		t.Errorf("no runtime state, a spec name: %v", err)
	}
}
