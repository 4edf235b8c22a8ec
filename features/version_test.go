package features

import (
	"strings"
	"testing"
)

// The defaults, gate presence and locks per version, as the differences
// document (shared/kubelet-versions.md) reads them from each version's
// kube_features.go. The differential suite of each version checks the same
// against that kubelet's registry on every run.
func TestVersionTables(t *testing.T) {
	type row struct {
		has, on, locked bool
	}
	want := map[Version]map[Gate]row{
		V1_35_4: {
			ContainerRestartRules:                        {true, true, false},
			RestartAllContainersOnContainerExits:         {true, false, false},
			ReduceDefaultCrashLoopBackOffDecay:           {true, false, false},
			KubeletCrashLoopBackOffMax:                   {true, true, false},
			InPlacePodVerticalScaling:                    {true, true, true},
			InPlacePodLevelResourcesVerticalScaling:      {true, false, false},
			InPlacePodVerticalScalingInitContainers:      {false, false, false},
			InPlacePodVerticalScalingMemoryBackedVolumes: {false, false, false},
			PodLevelResources:                            {true, true, false},
			ChangeContainerStatusOnKubeletRestart:        {true, false, false},
			PodReadyToStartContainersCondition:           {true, true, false},
			PodObservedGenerationTracking:                {true, true, true},
			NodeDeclaredFeatures:                         {true, false, false},
		},
		V1_36_3: {
			ContainerRestartRules:                        {true, true, false},
			RestartAllContainersOnContainerExits:         {true, true, false},
			ReduceDefaultCrashLoopBackOffDecay:           {true, false, false},
			KubeletCrashLoopBackOffMax:                   {true, true, false},
			InPlacePodVerticalScaling:                    {true, true, true},
			InPlacePodLevelResourcesVerticalScaling:      {true, true, false},
			InPlacePodVerticalScalingInitContainers:      {true, true, false},
			InPlacePodVerticalScalingMemoryBackedVolumes: {false, false, false},
			PodLevelResources:                            {true, true, false},
			ChangeContainerStatusOnKubeletRestart:        {true, false, false},
			PodReadyToStartContainersCondition:           {true, true, false},
			PodObservedGenerationTracking:                {true, true, true},
			NodeDeclaredFeatures:                         {true, true, false},
		},
		V1_37_2: {
			ContainerRestartRules:                        {true, true, false},
			RestartAllContainersOnContainerExits:         {true, true, false},
			ReduceDefaultCrashLoopBackOffDecay:           {true, false, false},
			KubeletCrashLoopBackOffMax:                   {true, true, false},
			InPlacePodVerticalScaling:                    {true, true, true},
			InPlacePodLevelResourcesVerticalScaling:      {true, true, false},
			InPlacePodVerticalScalingInitContainers:      {true, true, true},
			InPlacePodVerticalScalingMemoryBackedVolumes: {true, false, false},
			PodLevelResources:                            {true, true, false},
			ChangeContainerStatusOnKubeletRestart:        {true, false, false},
			PodReadyToStartContainersCondition:           {true, true, true},
			PodObservedGenerationTracking:                {true, true, true},
			NodeDeclaredFeatures:                         {true, true, true},
		},
	}
	for _, v := range Versions() {
		if len(want[v]) != len(Gates()) {
			t.Fatalf("%s: %d gates listed here, %d in Gates()", v, len(want[v]), len(Gates()))
		}
		s, err := ForVersion(v)
		if err != nil || s.Version() != v {
			t.Fatalf("ForVersion(%s) = %v, %v", v, s, err)
		}
		for g, w := range want[v] {
			if got := (row{v.Has(g), v.Default(g), v.Locked(g)}); got != w {
				t.Errorf("%s %s: has/default/locked = %v, want %v", v, g, got, w)
			}
			if s.Enabled(g) != w.on {
				t.Errorf("%s: Enabled(%s) = %v, want %v", v, g, s.Enabled(g), w.on)
			}
		}
	}
	if V1_35() != (Set{ver: V1_35_4}) || V1_36() != (Set{ver: V1_36_3}) {
		t.Error("V1_35/V1_36 do not carry their version")
	}
}

// A gate a version lacks cannot be turned on, reads as off, and is left
// out of Map; turning it off is a no-op.
func TestVersionLacksGate(t *testing.T) {
	s := V1_35()
	if _, err := s.With(InPlacePodVerticalScalingInitContainers, true); err == nil || !strings.Contains(err.Error(), "v1.35.4") {
		t.Errorf("turning on a gate v1.35 lacks: err %v", err)
	}
	if off, err := s.With(InPlacePodVerticalScalingInitContainers, false); err != nil || off != s {
		t.Errorf("turning it off: %v, %v", off, err)
	}
	if _, ok := s.Map()[string(InPlacePodVerticalScalingMemoryBackedVolumes)]; ok {
		t.Error("Map lists a gate v1.35 lacks")
	}
	if _, err := ParseFor(V1_36_3, "InPlacePodVerticalScalingMemoryBackedVolumes=true"); err == nil {
		t.Error("ParseFor accepted a gate v1.36 lacks")
	}
	if _, err := ForVersion(Version(3)); err == nil {
		t.Error("ForVersion accepted an unknown version")
	}
	for _, g := range Gates() {
		if Version(9).Has(g) || Version(9).Default(g) || Version(9).Locked(g) {
			t.Errorf("unknown version claims gate %s", g)
		}
	}
}

// Flipping gates of an older version, rendering and parsing back.
func TestVersionFlipAndString(t *testing.T) {
	s := V1_35()
	if s.String() != "v1.35.4 defaults" {
		t.Errorf("String = %q", s)
	}
	s, _ = s.With(RestartAllContainersOnContainerExits, true)
	s, _ = s.With(NodeDeclaredFeatures, true)
	if !s.Enabled(RestartAllContainersOnContainerExits) || s.Version() != V1_35_4 {
		t.Fatalf("flip: %v", s)
	}
	if got := s.String(); got != "v1.35.4 defaults with NodeDeclaredFeatures=true,RestartAllContainersOnContainerExits=true" {
		t.Errorf("String = %q", got)
	}
	back, err := ParseFor(s.Version(), strings.Join(s.Diff(), ","))
	if err != nil || back != s {
		t.Errorf("ParseFor(Diff) = %v, %v; want %v", back, err, s)
	}
	// The same gate values at v1.37.2 are its defaults: a different Set.
	if s37, _ := Parse("RestartAllContainersOnContainerExits=true"); s37 == s {
		t.Error("a v1.35 Set equals a v1.37 one")
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{"1.35": V1_35_4, "v1.35": V1_35_4, "1.35.4": V1_35_4, "v1.36.3": V1_36_3, " 1.37 ": V1_37_2, "v1.37.2": V1_37_2} {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1.34", "1.35.2", "v1.37.0", "1.3", "1", "latest", "1.35.4.1"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
	if _, err := ParseVersion("1.35.2"); err == nil || !strings.Contains(err.Error(), "v1.35.4") {
		t.Errorf("another patch: %v", err)
	}
	for _, v := range Versions() {
		if got, err := ParseVersion(v.String()); err != nil || got != v {
			t.Errorf("round trip %s: %v %v", v, got, err)
		}
	}
	if V1_35_4.Minor() != 35 || V1_37_2.Minor() != 37 || Version(7).Minor() != 0 {
		t.Error("Minor")
	}
}
