package sim

import (
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// TestNextProbeStart: the worker's loop waits on a fixed ticker
// (prober/worker.go run): a probe that takes no time or less than the
// rest of the period leaves the next one on the ticker's times; a probe
// during which a tick fell is followed by the next one as soon as it
// returns; and once probes are quick again they are back on the ticker's
// times (anchor + k*period), not end + period.
func TestNextProbeStart(t *testing.T) {
	a := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := func(f float64) time.Time { return a.Add(time.Duration(f * float64(time.Second))) }
	p := 3 * time.Second
	for _, c := range []struct{ start, end, want float64 }{
		{0, 0, 3},     // no time: the next tick
		{0, 1, 3},     // quicker than the period: the next tick
		{0, 3, 3},     // returns on the tick: at once
		{0, 4, 4},     // a tick fell meanwhile: at once when it returns
		{0, 7.5, 7.5}, // two ticks fell: one kept, at once
		{4, 4.5, 6},   // started off the ticker (late tick), quick: back on the ticker at 6, not 7.5
		{4, 4, 6},     // the same with no time
		{6, 6, 9},
		{7.5, 8, 9},
	} {
		if got := nextProbeStart(a, p, s(c.start), s(c.end)); !got.Equal(s(c.want)) {
			t.Errorf("probe from %v to %v: next at %v, want %v", c.start, c.end, got.Sub(a).Seconds(), c.want)
		}
	}
}

// TestOutcomeFromStepAge: a step holds from its age on, that age included;
// before the first step the probe succeeds at once; the last step reached
// decides, with its time.
func TestOutcomeFromStepAge(t *testing.T) {
	steps := []ProbeStep{{At: Duration(10 * time.Second), Result: vocab.ProbeFailure, Takes: Duration(time.Second)},
		{At: Duration(20 * time.Second), Result: vocab.ProbeSuccess}}
	for _, tc := range []struct {
		age   time.Duration
		r     vocab.ProbeResult
		takes time.Duration
	}{
		{0, vocab.ProbeSuccess, 0},
		{10*time.Second - 1, vocab.ProbeSuccess, 0},
		{10 * time.Second, vocab.ProbeFailure, time.Second},
		{19 * time.Second, vocab.ProbeFailure, time.Second},
		{20 * time.Second, vocab.ProbeSuccess, 0},
	} {
		if r, takes := outcome(steps, tc.age); r != tc.r || takes != tc.takes {
			t.Errorf("age %s: %s taking %s, want %s taking %s", tc.age, r, takes, tc.r, tc.takes)
		}
	}
}
