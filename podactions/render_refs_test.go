package podactions_test

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podactions"
)

// refsLine is the "start" line as fmt writes it: the reference the
// in-place rendering of Actions.String must agree with.
func refsLine(what string, rs []podactions.Ref) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s (#%d)", r.Name, r.Index)
	}
	return fmt.Sprintf("start %s: %s", what, strings.Join(parts, ", "))
}

// TestActionsStringStartLines checks the start lines of every kind, alone
// and after other lines, against the fmt form, over any names (empty, with
// '%', multi-byte) and indices (negative and large included).
func TestActionsStringStartLines(t *testing.T) {
	drawRefs := func(t *rapid.T, label string) []podactions.Ref {
		var rs []podactions.Ref
		for i := range rapid.IntRange(0, 3).Draw(t, label) {
			rs = append(rs, podactions.Ref{
				Name:  rapid.SampledFrom([]string{"", "app", "%d", "ü-0", "a, b"}).Draw(t, fmt.Sprint(label, " name ", i)),
				Index: rapid.SampledFrom([]int{0, 1, 9, 10, -1, 1 << 40, -1 << 62}).Draw(t, fmt.Sprint(label, " index ", i)),
			})
		}
		return rs
	}
	rapid.Check(t, func(t *rapid.T) {
		a := podactions.Actions{
			CreateSandbox:              rapid.Bool().Draw(t, "sandbox"),
			SandboxMessage:             "m",
			EphemeralContainersToStart: drawRefs(t, "ephemeral"),
			InitContainersToStart:      drawRefs(t, "init"),
			ContainersToStart:          drawRefs(t, "regular"),
		}
		var want []string
		if a.CreateSandbox {
			want = append(want, "create sandbox attempt 0: m")
		}
		for _, l := range []struct {
			what string
			rs   []podactions.Ref
		}{{"ephemeral containers", a.EphemeralContainersToStart}, {"init containers", a.InitContainersToStart}, {"containers", a.ContainersToStart}} {
			if len(l.rs) > 0 {
				want = append(want, refsLine(l.what, l.rs))
			}
		}
		if len(want) == 0 {
			want = []string{"keep the pod as it is"}
		}
		if got := a.String(); got != strings.Join(want, "\n") {
			t.Fatalf("String() = %q, want %q", got, strings.Join(want, "\n"))
		}
	})
}

// TestActionsStringStartAllocs guards the allocations of rendering start
// lines: the builder's growth only, no text per container.
func TestActionsStringStartAllocs(t *testing.T) {
	a := podactions.Actions{
		InitContainersToStart: []podactions.Ref{{Index: 0, Name: "init-0"}},
		ContainersToStart:     []podactions.Ref{{Index: 0, Name: "app-0"}, {Index: 1, Name: "app-1"}, {Index: 2, Name: "app-2"}},
	}
	if n := testing.AllocsPerRun(20, func() { _ = a.String() }); n > 5 {
		t.Errorf("String() of start lines allocates %v times, budget 5 (17 with fmt)", n)
	}
}
