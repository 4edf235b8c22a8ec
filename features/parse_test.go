package features

import "testing"

// Parse reads --feature-gates as the kubelet does (component-base
// featuregate Set): spaces around each name and each value are trimmed, and
// empty items are skipped.
func TestParseSpacingAndEmptyItems(t *testing.T) {
	want, err := V1_37().With(ContainerRestartRules, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{
		"ContainerRestartRules=false",
		"ContainerRestartRules= false",
		"ContainerRestartRules =false ",
		" ContainerRestartRules = false",
		"ContainerRestartRules=false,",
		",ContainerRestartRules=false",
		"ContainerRestartRules=false,,",
		"ContainerRestartRules=\tfalse\t",
	} {
		got, err := Parse(spec)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", spec, got, err, want)
		}
	}
}
