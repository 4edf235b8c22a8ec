package sim

import (
	"testing"
	"time"
)

// TestDrawRunDrawsOnlyForASpread: a run without TermSpread, and a sync
// without StopContainerSpread, take no draw from the stream of what the
// script leaves random, so the draws after them (another run's spread, a
// sync's StopContainerSpread) are those a pod without them would get; a
// run with a spread takes one, in
// [TermAfter, TermAfter + TermSpread).
func TestDrawRunDrawsOnlyForASpread(t *testing.T) {
	fresh := func() *podSim { return &podSim{node: &nodeState{cfg: Config{Seed: 7}}, index: 2} }
	ref := fresh()
	first, second := ref.procDraw(), ref.procDraw()

	p := fresh()
	p.script.Runtime = RuntimeDelays{StopContainer: Duration(30 * time.Millisecond)}
	if d := p.syncDelays(); d.StopContainer != Duration(30*time.Millisecond) {
		t.Fatalf("a sync without StopContainerSpread: StopContainer %s", d.StopContainer)
	}
	if r := p.drawRun(Run{TermAfter: Duration(5 * time.Second)}); r.TermAfter != Duration(5*time.Second) || r.TermSpread != 0 {
		t.Fatalf("a run without spread drawn as %+v", r)
	}
	if got := p.procDraw(); got != first {
		t.Fatalf("after a run without spread the next draw is %v, want the stream's first %v", got, first)
	}

	q := fresh()
	r := q.drawRun(Run{TermAfter: Duration(time.Second), TermSpread: Duration(2 * time.Second)})
	if want := Duration(time.Second) + Duration(first*float64(2*time.Second)); r.TermAfter != want || r.TermSpread != 0 {
		t.Fatalf("a run with spread drawn as %+v, want termAfter %s and no spread", r, want)
	}
	if got := q.procDraw(); got != second {
		t.Fatalf("after a run with spread the next draw is %v, want the stream's second %v", got, second)
	}
}
