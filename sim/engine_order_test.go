package sim

import (
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/sim/internal/engine"
)

// TestEngineSameTimeInScheduleOrder: a pod's events of one instant run in
// the order they were scheduled, whether by At or by AtCall (engine.Loop),
// so that a simulation is the same run after run; the sim package's
// tests run the engine (its mutants are run against them).
func TestEngineSameTimeInScheduleOrder(t *testing.T) {
	t0 := time.Unix(100, 0)
	for _, c := range []struct {
		name string
		atFn []bool // true: At, false: AtCall
	}{
		{"At", []bool{true, true, true, true}},
		{"AtCall", []bool{false, false, false, false}},
		{"mixed", []bool{true, false, true, false, false, true}},
	} {
		var l engine.Loop
		l.Now = t0
		var got []int64
		rec := func(a int64) { got = append(got, a) }
		for i, at := range c.atFn {
			when := t0.Add(time.Second)
			if i == 0 {
				// An event of a later time scheduled first.
				when = t0.Add(2 * time.Second)
			}
			if at {
				i := int64(i)
				l.At(when, func() { rec(i) })
			} else {
				l.AtCall(when, rec, int64(i))
			}
		}
		for l.RunNext(t0.Add(time.Hour)) {
		}
		if len(got) != len(c.atFn) {
			t.Fatalf("%s: %d events ran, want %d", c.name, len(got), len(c.atFn))
		}
		for i := range got {
			want := int64(i + 1)
			if i == len(got)-1 {
				want = 0
			}
			if got[i] != want {
				t.Fatalf("%s: events ran in the order %v, want 1 to %d, then 0 (the later time)", c.name, got, len(c.atFn)-1)
			}
		}
	}
}
