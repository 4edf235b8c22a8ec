package probe

import (
	"testing"
	"time"
)

// A hand-built Timing that leaves a field out (zero or negative) reads as
// the API server's default for it (SetDefaults_Probe: period 10 s,
// timeout 1 s, successThreshold 1, failureThreshold 3; no initial delay):
// the schedule is the same as with the default written out, for every
// combination of fields left out.
func TestHandBuiltTimingLeftOutIsDefault(t *testing.T) {
	defaults := Timing{Period: 10 * time.Second, Timeout: time.Second, SuccessThreshold: 1, FailureThreshold: 3}
	c := Clock{Start: sec(0), KubeletUp: time.Hour}
	in := Instance{StartedAt: sec(0.4), Seen: sec(0.5)}
	want := ScheduleOf(defaults, c, in)
	for mask := 0; mask < 1<<5; mask++ {
		for _, missing := range []int64{0, -1} {
			tm := defaults
			if mask&1 != 0 {
				tm.Period = time.Duration(missing) * time.Second
			}
			if mask&2 != 0 {
				tm.Timeout = time.Duration(missing) * time.Second
			}
			if mask&4 != 0 {
				tm.SuccessThreshold = int32(missing)
			}
			if mask&8 != 0 {
				tm.FailureThreshold = int32(missing)
			}
			if mask&16 != 0 {
				tm.InitialDelay = time.Duration(missing) * time.Second
			}
			if got := ScheduleOf(tm, c, in); got != want {
				t.Errorf("ScheduleOf(%+v) = %+v, want the defaults' %+v", tm, got, want)
			}
		}
	}
	// The defaults themselves: first probe at the first tick (+10 s, after
	// the instance is seen), failure committed two periods later, a hanging
	// probe one timeout after that, success at the first probe.
	if want.FirstProbe != sec(10) || want.Fail != sec(30) || want.FailHanging != sec(31) || want.Succeed != sec(10) {
		t.Errorf("default schedule %+v: want first +10s, fail +30s, hanging +31s, succeed +10s", want)
	}
}

// The thresholds and the timeout of a hand-built Timing are kept: n
// results in a row take n probes, one per period (worker.go doProbe's
// resultRun against the thresholds); a hanging probe fails at its
// timeout.
func TestHandBuiltTimingKept(t *testing.T) {
	c := Clock{Start: sec(0), KubeletUp: time.Hour}
	in := Instance{StartedAt: sec(0)}
	for _, p := range []time.Duration{time.Second, 5 * time.Second, 10 * time.Second} {
		for succ := int32(1); succ <= 5; succ++ {
			for fail := int32(1); fail <= 5; fail++ {
				timeout := p / 2
				s := ScheduleOf(Timing{Period: p, Timeout: timeout, SuccessThreshold: succ, FailureThreshold: fail}, c, in)
				first := sec(0)
				want := Schedule{
					FirstProbe:  first,
					Fail:        first.Add(time.Duration(fail-1) * p),
					FailHanging: first.Add(time.Duration(fail-1)*p + timeout),
					Succeed:     first.Add(time.Duration(succ-1) * p),
				}
				if s != want {
					t.Errorf("period %s, thresholds %d/%d: %+v, want %+v", p, succ, fail, s, want)
				}
			}
		}
	}
}

// A worker sleeps a random part of the period only when the kubelet has
// been up for less than a period (worker.go run: probeTickerPeriod >
// time.Since(start)); a period left out is the default 10 s there too.
func TestClockJitterBoundaryAndDefaultPeriod(t *testing.T) {
	for _, p := range []time.Duration{time.Second, 5 * time.Second, 10 * time.Second} {
		at := Clock{Start: sec(0), KubeletUp: p, Jitter: 0.5}
		if got := at.First(p); got != sec(0) {
			t.Errorf("kubelet up exactly one period (%s): first tick %v, want +0s (no sleep)", p, got.Sub(t0))
		}
		under := Clock{Start: sec(0), KubeletUp: p - 1, Jitter: 0.5}
		if got := under.First(p); got != sec(0).Add(p/2) {
			t.Errorf("kubelet up 1ns short of one period (%s): first tick %v, want +%s", p, got.Sub(t0), p/2)
		}
	}
	c := Clock{Start: sec(0), KubeletUp: 3 * time.Second, Jitter: 0.5}
	for _, p := range []time.Duration{0, -time.Second} {
		if got := c.First(p); got != sec(5) {
			t.Errorf("First(%s) = %v, want +5s (half the default 10s period)", p, got.Sub(t0))
		}
		for _, at := range []float64{0, 5, 5.1, 15, 27} {
			if got, want := c.TickAtOrAfter(p, sec(at)), c.TickAtOrAfter(DefaultPeriod, sec(at)); got != want {
				t.Errorf("TickAtOrAfter(%s, +%gs) = %v, want the default period's %v", p, at, got.Sub(t0), want.Sub(t0))
			}
		}
	}
}

// Ticks and commits as far out as a Duration holds are still named: the
// last tick a Duration can reach from the first one, and n-1 periods whose
// product is exactly the largest multiple of the period in a Duration.
func TestTicksAtTheDurationLimit(t *testing.T) {
	const maxD = time.Duration(1<<63 - 1)
	for _, p := range []time.Duration{time.Second, 10 * time.Second, 7 * time.Second} {
		c := Clock{Start: sec(0), KubeletUp: time.Hour}
		k := maxD / p // the last tick a Duration reaches: first + k × p
		if got, want := c.TickAtOrAfter(p, sec(0).Add((k-1)*p+1)), sec(0).Add(k*p); got != want {
			t.Errorf("period %s: tick after %d periods and 1ns = %v, want %v", p, k-1, got, want)
		}
		tm := Timing{Period: p, Timeout: time.Second, SuccessThreshold: 1, FailureThreshold: 3}
		if int64(k)+1 > 1<<31-1 {
			continue // n is an int32
		}
		if got, want := Commit(tm, sec(0), int32(k)+1, 0), sec(0).Add(k*p); got != want {
			t.Errorf("period %s: %d probes committed at %v, want %v", p, k+1, got, want)
		}
	}
	// n-1 periods whose product is exactly the largest Duration a multiple
	// of n-1 can be: kept to the nanosecond, not held at the largest.
	for _, n := range []int32{2, 3, 4, 7} {
		p := maxD / time.Duration(n-1)
		tm := Timing{Period: p, Timeout: time.Second, SuccessThreshold: 1, FailureThreshold: 3}
		if got, want := Commit(tm, sec(0), n, 0), sec(0).Add(time.Duration(n-1)*p); got != want {
			t.Errorf("%d probes every %s: committed at %v, want %v", n, p, got, want)
		}
	}
}
