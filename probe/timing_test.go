package probe

import (
	"math"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func sec(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func TestTimingOfDefaults(t *testing.T) {
	got := TimingOf(&v1.Probe{})
	want := Timing{Period: 10 * time.Second, Timeout: time.Second, SuccessThreshold: 1, FailureThreshold: 3}
	if got != want {
		t.Fatalf("TimingOf(empty) = %+v, want %+v", got, want)
	}
	if got := TimingOf(nil); got != want {
		t.Fatalf("TimingOf(nil) = %+v, want %+v", got, want)
	}
	g := int64(7)
	got = TimingOf(&v1.Probe{InitialDelaySeconds: 2, PeriodSeconds: 5, TimeoutSeconds: 3, SuccessThreshold: 2, FailureThreshold: 4, TerminationGracePeriodSeconds: &g})
	if got.InitialDelay != 2*time.Second || got.Period != 5*time.Second || got.Timeout != 3*time.Second ||
		got.SuccessThreshold != 2 || got.FailureThreshold != 4 || got.Grace == nil || *got.Grace != 7 {
		t.Fatalf("TimingOf = %+v", got)
	}
}

// The worker's ticks: from its start, or after a random part of the
// period when the kubelet started less than a period before it.
func TestClockTicks(t *testing.T) {
	c := Clock{Start: sec(1), KubeletUp: time.Hour, Jitter: 0.5}
	if got := c.First(5 * time.Second); !got.Equal(sec(1)) {
		t.Fatalf("first tick %v, want +1s (kubelet up for long: no jitter)", got.Sub(t0))
	}
	c.KubeletUp = 2 * time.Second
	if got := c.First(5 * time.Second); !got.Equal(sec(3.5)) {
		t.Fatalf("first tick %v, want +3.5s (half of a 5s period)", got.Sub(t0))
	}
	for _, tc := range []struct{ at, want float64 }{{0, 3.5}, {3.5, 3.5}, {3.6, 8.5}, {8.5, 8.5}, {20, 23.5}} {
		if got := c.TickAtOrAfter(5*time.Second, sec(tc.at)); !got.Equal(sec(tc.want)) {
			t.Errorf("tick at or after +%gs = %v, want +%gs", tc.at, got.Sub(t0), tc.want)
		}
	}
}

// initialDelaySeconds counts from the whole-second startedAt; a tick
// before the status shows the container probes nothing.
func TestFirstProbe(t *testing.T) {
	tm := TimingOf(&v1.Probe{PeriodSeconds: 5, InitialDelaySeconds: 3})
	c := Clock{Start: sec(0), KubeletUp: time.Hour}
	// startedAt 0.9 counts as 0: the probe may run from +3s, the tick at +5s.
	if got := FirstProbe(tm, c, Instance{StartedAt: sec(0.9), Seen: sec(1)}); !got.Equal(sec(5)) {
		t.Fatalf("first probe %v, want +5s", got.Sub(t0))
	}
	// startedAt 2.1 counts as 2: from +5s, the tick at +5s.
	if got := FirstProbe(tm, c, Instance{StartedAt: sec(2.1), Seen: sec(2.2)}); !got.Equal(sec(5)) {
		t.Fatalf("first probe %v, want +5s", got.Sub(t0))
	}
	// startedAt 2.1, seen only at 5.2: the tick at +10s.
	if got := FirstProbe(tm, c, Instance{StartedAt: sec(2.1), Seen: sec(5.2)}); !got.Equal(sec(10)) {
		t.Fatalf("first probe %v, want +10s", got.Sub(t0))
	}
	if got := EarliestProbe(tm, Instance{StartedAt: sec(2.1)}); !got.Equal(sec(5)) {
		t.Fatalf("earliest probe %v, want +5s", got.Sub(t0))
	}
}

// A probe that hangs fails at its timeout; a probe longer than the period
// makes the next start as it ends.
func TestCommit(t *testing.T) {
	tm := TimingOf(&v1.Probe{PeriodSeconds: 5, TimeoutSeconds: 1, FailureThreshold: 3})
	for _, tc := range []struct {
		took time.Duration
		want float64
	}{{0, 20}, {time.Second, 21}, {10 * time.Second, 21}, {300 * time.Millisecond, 20.3}} {
		if got := Commit(tm, sec(10), 3, tc.took); !got.Equal(sec(tc.want)) {
			t.Errorf("3 probes from +10s taking %s: committed at %v, want +%gs", tc.took, got.Sub(t0), tc.want)
		}
	}
	long := TimingOf(&v1.Probe{PeriodSeconds: 2, TimeoutSeconds: 3, FailureThreshold: 3})
	if got := Commit(long, sec(10), 3, 3*time.Second); !got.Equal(sec(19)) {
		t.Errorf("3 hanging 3s probes every 2s from +10s: committed at %v, want +19s (back to back)", got.Sub(t0))
	}
	if got := Commit(long, sec(10), 3, 0); !got.Equal(sec(14)) {
		t.Errorf("3 quick probes every 2s from +10s: committed at %v, want +14s", got.Sub(t0))
	}
	s := ScheduleOf(TimingOf(&v1.Probe{PeriodSeconds: 5, FailureThreshold: 3}), Clock{Start: sec(0), KubeletUp: time.Hour}, Instance{StartedAt: sec(0.3), Seen: sec(0.37)})
	if !s.FirstProbe.Equal(sec(5)) || !s.Fail.Equal(sec(15)) || !s.FailHanging.Equal(sec(16)) || !s.Succeed.Equal(sec(5)) {
		t.Errorf("schedule %+v: want first probe +5s, fail +15s, hanging +16s, succeed +5s", s)
	}
}

// No input makes the timing functions panic or loop for long, and a tick
// is never before the time asked for (within what a Duration holds).
func TestTimingAnyInput(t *testing.T) {
	times := []time.Time{{}, t0, t0.Add(-1), time.Unix(1<<40, 0), time.Unix(-1<<40, 0)}
	for _, p := range []*v1.Probe{nil, {}, {PeriodSeconds: -5, TimeoutSeconds: -1, FailureThreshold: -3, SuccessThreshold: 1 << 30, InitialDelaySeconds: 1<<31 - 1}, {PeriodSeconds: 1<<31 - 1, FailureThreshold: 1<<31 - 1, TimeoutSeconds: 1<<31 - 1}} {
		tm := TimingOf(p)
		for _, a := range times {
			for _, b := range times {
				for _, j := range []float64{-1, 0, 0.5, 2, math.NaN()} {
					c := Clock{Start: a, KubeletUp: time.Duration(j * float64(time.Hour)), Jitter: j}
					if got := c.TickAtOrAfter(tm.Period, b); got.Before(b) && got.Before(c.First(tm.Period)) {
						t.Errorf("tick %v before %v", got, b)
					}
					s := ScheduleOf(tm, c, Instance{StartedAt: b, Seen: a})
					if got := Commit(tm, s.FirstProbe, 1<<31-1, time.Duration(j*float64(time.Minute))); got.Before(s.FirstProbe) {
						t.Errorf("commit %v before the first probe %v", got, s.FirstProbe)
					}
				}
			}
		}
	}
}
