package features

import (
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// drawSet draws a Set of any modelled version with any gates flipped that
// the version lets With flip.
func drawSet(t *rapid.T) Set {
	v := rapid.SampledFrom(Versions()).Draw(t, "version")
	s, err := ForVersion(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range Gates() {
		if !v.Has(g) || !rapid.Bool().Draw(t, "flip "+string(g)) {
			continue
		}
		if s, err = s.With(g, !s.Enabled(g)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestTextRoundTrip: every Set, written as text and read back, is the same
// Set (==), and so is one written as JSON; the text starts with the
// version and lists exactly the changed gates.
func TestTextRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawSet(t)
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Join(append([]string{s.Version().String()}, s.Diff()...), ",")
		if string(b) != want {
			t.Fatalf("MarshalText = %q, want %q", b, want)
		}
		var got Set
		if err := got.UnmarshalText(b); err != nil {
			t.Fatalf("UnmarshalText(%q): %v", b, err)
		}
		if got != s {
			t.Fatalf("%q read back as %v, want %v", b, got, s)
		}
		for _, g := range Gates() {
			if got.Enabled(g) != s.Enabled(g) {
				t.Fatalf("%q: gate %s %t, want %t", b, g, got.Enabled(g), s.Enabled(g))
			}
		}
		j, err := json.Marshal(struct{ F Set }{s})
		if err != nil {
			t.Fatal(err)
		}
		var back struct{ F Set }
		if err := json.Unmarshal(j, &back); err != nil || back.F != s {
			t.Fatalf("JSON %s read back as %v (%v), want %v", j, back.F, err, s)
		}
	})
}

func TestTextForms(t *testing.T) {
	for _, tc := range []struct {
		s    Set
		want string
	}{
		{V1_37(), "v1.37.2"},
		{V1_36(), "v1.36.3"},
		{V1_35(), "v1.35.4"},
	} {
		b, err := tc.s.MarshalText()
		if err != nil || string(b) != tc.want {
			t.Errorf("%v: MarshalText = %q, %v; want %q", tc.s, b, err, tc.want)
		}
	}
	off, _ := V1_35().With(PodLevelResources, false)
	on, _ := off.With(ReduceDefaultCrashLoopBackOffDecay, true)
	if b, _ := on.MarshalText(); string(b) != "v1.35.4,PodLevelResources=false,ReduceDefaultCrashLoopBackOffDecay=true" {
		t.Errorf("MarshalText = %q", b)
	}
	read := func(text string) (Set, error) {
		var s Set
		err := s.UnmarshalText([]byte(text))
		return s, err
	}
	// What reads as what: no version is v1.37.2, the minor alone is the
	// modelled patch, spaces and empty items are allowed.
	decay, _ := V1_37().With(ReduceDefaultCrashLoopBackOffDecay, true)
	for text, want := range map[string]Set{
		"":        V1_37(),
		"v1.37.2": V1_37(),
		"1.36":    V1_36(),
		" v1.35.4 , PodLevelResources = false ,ReduceDefaultCrashLoopBackOffDecay=true,": on,
		"ReduceDefaultCrashLoopBackOffDecay=true":                                        decay,
	} {
		if got, err := read(text); err != nil || got != want {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
	for text, wantErr := range map[string]string{
		"v1.37.2,ContainerRestartRule=false": `unknown gate "ContainerRestartRule" (did you mean "ContainerRestartRules"?)`,
		"PodLevelResource=true":              `did you mean "PodLevelResources"?`,
		"NoSuchThing=true":                   `unknown gate "NoSuchThing" (known:`,
		"v1.38":                              `not modelled`,
		"v1.37.1":                            `only v1.37.2`,
		"v1.37.2,PodLevelResources":          `want Name=true or Name=false`,
		"PodLevelResources=yes":              `true or false`,
		"PodLevelResources=1":                `true or false`,
		"PodLevelResources=false,PodLevelResources=true":            `given twice`,
		"v1.35.4,InPlacePodVerticalScalingMemoryBackedVolumes=true": `has no gate`,
	} {
		s := decay
		err := s.UnmarshalText([]byte(text))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("UnmarshalText(%q): error %v, want one saying %q", text, err, wantErr)
		}
		if s != decay {
			t.Errorf("UnmarshalText(%q) failed and changed the Set to %v", text, s)
		}
	}
	if _, err := (Set{ver: 7}).MarshalText(); err == nil {
		t.Error("a Set of an unknown version written as text")
	}
}
