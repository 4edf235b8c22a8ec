package features

import (
	"strings"
	"testing"
)

func TestWithEnabledAndString(t *testing.T) {
	def := V1_37()
	if def.String() != "v1.37.2 defaults" || len(def.Diff()) != 0 {
		t.Fatalf("defaults render as %q, diff %v", def, def.Diff())
	}
	for _, g := range Gates() {
		f, err := def.With(g, !def.Enabled(g))
		if err != nil {
			t.Fatal(err)
		}
		if f.Enabled(g) == def.Enabled(g) {
			t.Errorf("With(%s) did not flip it", g)
		}
		if d := f.Diff(); len(d) != 1 || !strings.HasPrefix(d[0], string(g)+"=") {
			t.Errorf("flipping %s: diff %v", g, d)
		}
		if f.String() == def.String() {
			t.Errorf("flipping %s: String unchanged", g)
		}
		if m := f.Map(); m[string(g)] != f.Enabled(g) || len(m) != len(Gates()) {
			t.Errorf("Map after flipping %s: %v", g, m)
		}
	}
	if _, err := def.With("NoSuchGate", true); err == nil {
		t.Error("unknown gate accepted")
	}
	if def.Enabled("NoSuchGate") {
		t.Error("unknown gate reads as on")
	}
}

// The defaults this package states, gate by gate, as kube_features.go of
// v1.37.2 sets them. (The differential suite also checks every gate of
// V1_37 against the real kubelet's registry on each run.)
func TestV1_37Defaults(t *testing.T) {
	on := []Gate{ContainerRestartRules, RestartAllContainersOnContainerExits, KubeletCrashLoopBackOffMax,
		InPlacePodVerticalScaling, InPlacePodLevelResourcesVerticalScaling, InPlacePodVerticalScalingInitContainers,
		PodLevelResources, PodReadyToStartContainersCondition, PodObservedGenerationTracking, NodeDeclaredFeatures}
	off := []Gate{ReduceDefaultCrashLoopBackOffDecay, InPlacePodVerticalScalingMemoryBackedVolumes, ChangeContainerStatusOnKubeletRestart}
	if len(on)+len(off) != len(Gates()) {
		t.Fatalf("%d gates listed here, %d in Gates()", len(on)+len(off), len(Gates()))
	}
	f := V1_37()
	for _, g := range on {
		if !f.Enabled(g) {
			t.Errorf("%s should default on", g)
		}
	}
	for _, g := range off {
		if f.Enabled(g) {
			t.Errorf("%s should default off", g)
		}
	}
	for _, g := range Gates() {
		if Locked(g) && !f.Enabled(g) {
			t.Errorf("locked gate %s must be on", g)
		}
	}
}

// The zero Set is v1.37.2 with its defaults: leaving Features out of an
// Options struct can never mean "every gate off".
func TestZeroSetIsV1_37Defaults(t *testing.T) {
	var zero Set
	if zero != V1_37() {
		t.Fatal("zero Set differs from V1_37()")
	}
	for _, g := range Gates() {
		if zero.Enabled(g) != Default(g) {
			t.Errorf("zero Set: %s = %v, default %v", g, zero.Enabled(g), Default(g))
		}
	}
	// Setting a gate to its default leaves an equal Set.
	for _, g := range Gates() {
		if s, _ := zero.With(g, Default(g)); s != zero {
			t.Errorf("With(%s, default) changed the Set: %v", g, s)
		}
		flipped, _ := zero.With(g, !Default(g))
		back, _ := flipped.With(g, Default(g))
		if back != zero {
			t.Errorf("flipping %s twice: %v", g, back)
		}
	}
}

func TestParse(t *testing.T) {
	s, err := Parse(" ContainerRestartRules=false, ReduceDefaultCrashLoopBackOffDecay=true ")
	if err != nil {
		t.Fatal(err)
	}
	if s.Enabled(ContainerRestartRules) || !s.Enabled(ReduceDefaultCrashLoopBackOffDecay) || !s.Enabled(PodLevelResources) {
		t.Errorf("Parse: %v", s)
	}
	if back, err := Parse(s.String()); err != nil || back != s {
		t.Errorf("Parse(String()) = %v, %v; want %v", back, err, s)
	}
	if d, err := Parse(""); err != nil || d != V1_37() {
		t.Errorf("Parse(\"\") = %v, %v", d, err)
	}
	for _, bad := range []string{"NoSuchGate=true", "ContainerRestartRules", "ContainerRestartRules=maybe"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// index is a switch for speed; it must give each gate its place in the
// table, and -1 for anything else.
func TestIndexMatchesTable(t *testing.T) {
	for i, e := range gates {
		if got := index(e.g); got != i {
			t.Errorf("index(%s) = %d, want %d", e.g, got, i)
		}
	}
	for _, g := range []Gate{"", "NoSuchGate", "containerRestartRules", ContainerRestartRules + " "} {
		if got := index(g); got != -1 {
			t.Errorf("index(%q) = %d, want -1", g, got)
		}
	}
}

// Enabled reads the bits of defaultBits: for every version and every set
// of flipped bits of two gates, it answers what the table says
// (gates[i].def != flipped), and false for gates not in the table.
func TestEnabledMatchesTable(t *testing.T) {
	for v := Version(0); v < numVersions; v++ {
		for i := range gates {
			for j := range gates {
				for _, flipped := range []uint32{0, 1 << i, 1 << j, 1<<i | 1<<j} {
					s := Set{flipped: flipped, ver: v}
					for k, e := range gates {
						if want := e.def[v] != (flipped&(1<<k) != 0); s.Enabled(e.g) != want {
							t.Fatalf("version %s, flipped %b: Enabled(%s) = %v, want %v", v, flipped, e.g, !want, want)
						}
					}
					for _, g := range []Gate{"", "NoSuchGate"} {
						if s.Enabled(g) {
							t.Fatalf("version %s, flipped %b: Enabled(%q) = true", v, flipped, g)
						}
					}
				}
			}
		}
	}
}

// Enabled, With and the zero Set allocate nothing.
func TestEnabledAllocatesNothing(t *testing.T) {
	var s Set
	if n := testing.AllocsPerRun(100, func() {
		for _, e := range gates {
			s.Enabled(e.g)
			s, _ = s.With(e.g, !s.Enabled(e.g))
		}
	}); n != 0 {
		t.Errorf("Enabled and With allocate %v times per round, want 0", n)
	}
}

func BenchmarkEnabled(b *testing.B) {
	s, _ := V1_37().With(ReduceDefaultCrashLoopBackOffDecay, true)
	n := 0
	for b.Loop() {
		for _, e := range gates {
			if s.Enabled(e.g) {
				n++
			}
		}
	}
	_ = n
}

func BenchmarkEnabledOne(b *testing.B) {
	var s Set
	n := 0
	for b.Loop() {
		if s.Enabled(RestartAllContainersOnContainerExits) {
			n++
		}
	}
	_ = n
}
