package replay

import (
	"math"
	"sort"
	"testing"
	"time"
)

// trapLoopStops are, for f's stopped instances whose scripted run is a
// trap loop (sim.Run.TermStep set), the length of one step (the
// instance's life, startedAt to finishedAt, over the whole number of steps
// nearest to it) and how long after the process's exit its StopContainer
// returned. The runtime reports the times; the kubelet decides neither.
func trapLoopStops(f *fixture) (steps, stopReturns []time.Duration) {
	type life struct{ created, started, finished time.Time }
	byID := map[string]*life{}
	names := map[string]string{}
	for _, o := range f.Observations {
		if o.Runtime == nil {
			continue
		}
		for _, c := range o.Runtime.Containers {
			l := byID[c.ID]
			if l == nil {
				l = &life{}
				byID[c.ID] = l
				names[c.ID] = c.Name
			}
			if !c.CreatedAt.IsZero() {
				l.created = c.CreatedAt
			}
			if !c.StartedAt.IsZero() {
				l.started = c.StartedAt
			}
			if !c.FinishedAt.IsZero() {
				l.finished = c.FinishedAt
			}
		}
	}
	// The run of each instance: its index among the container's instances
	// by creation (the last run repeats).
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return byID[ids[i]].created.Before(byID[ids[j]].created) })
	index := map[string]int{}
	run := map[string]int{}
	for _, id := range ids {
		run[id] = index[names[id]]
		index[names[id]]++
	}
	for _, c := range f.CRICalls {
		l := byID[c.ID]
		if c.Method != "StopContainer" || l == nil || l.started.IsZero() || l.finished.IsZero() {
			continue
		}
		runs := scripts[f.Scenario][names[c.ID]].Runs
		if len(runs) == 0 {
			continue
		}
		r := runs[min(run[c.ID], len(runs)-1)]
		if r.TermStep == 0 {
			continue
		}
		d := l.finished.Sub(l.started)
		if n := math.Round(d.Seconds()); n >= 1 {
			steps = append(steps, time.Duration(float64(d)/n))
		}
		stopReturns = append(stopReturns, c.Done.Sub(l.finished))
	}
	return steps, stopReturns
}

func medianDur(l []time.Duration) time.Duration {
	s := append([]time.Duration(nil), l...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestTrapLoopSlowStepMeasured: trapLoopSlowStep is the trap loop as the
// kubelet process of api-resize ran it: every scenario of that process
// scripts its trap loops with it, and its step and stop return are the
// medians over the stopped trap loops of that process's captures.
func TestTrapLoopSlowStepMeasured(t *testing.T) {
	all := loadFixtures(t)
	proc := kubeletProcess(fixtureByName(t, "api-resize"))
	var steps, returns []time.Duration
	scenarios := 0
	for _, f := range all {
		if kubeletProcess(f) != proc {
			continue
		}
		scenarios++
		for name, b := range scripts[f.Scenario] {
			for _, r := range b.Runs {
				if r.TermStep != 0 && (r.TermStep != trapLoopSlowStep.TermStep || r.TermAfter != trapLoopSlowStep.TermAfter) {
					t.Errorf("%s: %s's trap loop is %+v, not trapLoopSlowStep", f.Scenario, name, r)
				}
			}
		}
		s, r := trapLoopStops(f)
		steps, returns = append(steps, s...), append(returns, r...)
	}
	if scenarios < 2 || len(steps) < 4 {
		t.Fatalf("kubelet process %s: %d scenarios, %d stopped trap loops; want the 2 and 4 of the captures", proc, scenarios, len(steps))
	}
	step, ret := medianDur(steps), medianDur(returns)
	t.Logf("kubelet process %s: %d stopped trap loops, step %v (%v), stop return %v (%v)", proc, len(steps), step, steps, ret, returns)
	if absDur(step-time.Duration(trapLoopSlowStep.TermStep)) > 200*time.Microsecond {
		t.Errorf("trapLoopSlowStep.TermStep %v, measured %v", time.Duration(trapLoopSlowStep.TermStep), step)
	}
	if absDur(ret-time.Duration(trapLoopSlowStep.TermAfter)) > 10*time.Millisecond {
		t.Errorf("trapLoopSlowStep.TermAfter %v, measured %v", time.Duration(trapLoopSlowStep.TermAfter), ret)
	}
}
