package sim

import (
	"testing"
	"time"
)

// TestNodeLoopPhases: the status manager's full sweep (status_manager.go
// syncPeriod, 10 s; v1.37.2 pkg/kubelet/status/status_manager.go:215) has
// its phase drawn from the seed anywhere in its period, like the other
// loops; and Config.HousekeepingPhase places the sync loop's 1 s tick on
// housekeeping's sub-second phase, the two tickers being made together
// (syncLoop, pkg/kubelet/kubelet.go:2677-2679).
func TestNodeLoopPhases(t *testing.T) {
	var most time.Duration
	seen := map[time.Duration]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		d := NewNode(Config{Seed: seed}).st.clocks.StatusSync.Sub(DefaultStart)
		if d < 0 || d >= 10*time.Second {
			t.Fatalf("seed %d: status sweep phase %s, want in [0, 10s)", seed, d)
		}
		seen[d] = true
		most = max(most, d)
	}
	if len(seen) < 40 || most < 5*time.Second {
		t.Fatalf("status sweep phases over 40 seeds: %d distinct, the largest %s: not drawn over the 10 s period", len(seen), most)
	}
	for _, c := range []struct{ phase, housekeep, tick time.Duration }{
		{1300 * time.Millisecond, 1300 * time.Millisecond, 300 * time.Millisecond},
		{-500 * time.Millisecond, 1500 * time.Millisecond, 500 * time.Millisecond},
		{700 * time.Millisecond, 700 * time.Millisecond, 700 * time.Millisecond},
		// A whole period: phase 0, not 2 s (phaseIn is in [0, period)).
		{2 * time.Second, 0, 0},
		{-4 * time.Second, 0, 0},
	} {
		cl := NewNode(Config{Seed: 3, HousekeepingPhase: Duration(c.phase)}).st.clocks
		if h, k := cl.Housekeep.Sub(DefaultStart), cl.Tick.Sub(DefaultStart); h != c.housekeep || k != c.tick {
			t.Errorf("HousekeepingPhase %s: housekeeping at %s, sync tick at %s; want %s and %s", c.phase, h, k, c.housekeep, c.tick)
		}
	}
}

// TestSyncTicksHalves: the draw u in [0, 1) puts housekeeping on the sync
// tick itself for u in [0, 0.5) and a second after it for u in [0.5, 1),
// each half of the draws (0.5 is the first draw of the upper half).
func TestSyncTicksHalves(t *testing.T) {
	tick := DefaultStart.Add(300 * time.Millisecond)
	for _, c := range []struct {
		u     float64
		later bool
	}{{0, false}, {0.25, false}, {0.49999999999999994, false}, {0.5, true}, {0.75, true}, {0.9999999999999999, true}} {
		gotTick, hk := syncTicks(tick, c.u)
		want := tick
		if c.later {
			want = tick.Add(time.Second)
		}
		if !gotTick.Equal(tick) || !hk.Equal(want) {
			t.Errorf("u %v: tick %s, housekeeping %s; want %s and %s", c.u, gotTick.Sub(DefaultStart), hk.Sub(DefaultStart), tick.Sub(DefaultStart), want.Sub(DefaultStart))
		}
	}
}
