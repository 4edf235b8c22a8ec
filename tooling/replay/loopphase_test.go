package replay

import (
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// processLoops are kubelet processes' loop phases, as clock times of the
// capture's day (seconds since midnight, UTC).
type processLoops struct {
	housekeeping float64 // a housekeeping tick
	relist       float64 // a global relist
	relistEvery  float64 // the relist's period plus its duration
}

// loopsByProcess places the relist and housekeeping of the kubelet
// processes whose captures show them (TestLoopPhasesMeasured), instead of
// drawing them per seed: one kubelet process ran all of a round's pods at
// once, so they shared one relist and one housekeeping. Round 1
// (1129/30823): a relist at 40408.402 (startup's deletor call; the
// deletor calls of its twelve captures lie on a grid of 1.0039 s, within
// 0.04 s), the sync tick at .04 s past the second (crashloop's restarts
// after back-off), and housekeeping on odd seconds (the deletor removed
// all dead containers at the sandbox's death in sandboxkill and
// readiness, none in appkilled and startup). With these phases drawn,
// 30% to 60% of seeds of most round-1 scenarios removed the dead
// container at the sandbox's death where the real kubelet did not, or
// the reverse. The other processes' captures show too few deletor calls
// on a grid (round 2 ran on a loaded machine) to place them; they stay
// drawn.
var loopsByProcess = map[string]processLoops{
	"1129/30823": {housekeeping: 40387.04, relist: 40408.402, relistEvery: 1.0039},
}

// loopPhases sets cfg's relist and housekeeping phases for f's kubelet
// process, when known.
func loopPhases(f *fixture, zero time.Time, cfg *sim.Config) {
	l, ok := loopsByProcess[kubeletProcess(f)]
	if !ok {
		return
	}
	y, m, d := zero.Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	z := zero.Sub(midnight).Seconds()
	h := mod(l.housekeeping-z, 2)
	r := mod(l.relist-z, l.relistEvery)
	if h == 0 {
		h = 2
	}
	if r == 0 {
		r = l.relistEvery
	}
	cfg.HousekeepingPhase = secs(h)
	cfg.RelistPhase = secs(r)
}

func mod(a, b float64) float64 {
	for a < 0 {
		a += b
	}
	for a >= b {
		a -= b
	}
	return a
}

// clockOf is t as seconds since its day's midnight (UTC).
func clockOf(t time.Time) float64 {
	y, m, d := t.Date()
	return t.Sub(time.Date(y, m, d, 0, 0, 0, 0, time.UTC)).Seconds()
}

// TestLoopPhasesMeasured checks loopsByProcess against the captures of
// round 1's kubelet process, on which twelve scenarios ran at once:
//   - relist: the container deletor's RemoveContainer calls (those of no
//     GC pass) come from the relist's ContainerDied events, so they lie
//     just after a relist of the grid: at least 80% of them within
//     [-0.03 s, +0.05 s] (the rest: SyncPod's pruning of init containers);
//   - sync tick: a crash-looping container restarts at the first 1 s sync
//     tick after its back-off, so crashloop's CreateContainer calls after
//     the first lie within 0.03 s after a tick (housekeeping's phase
//     modulo 1 s);
//   - housekeeping (which of the two ticks of its 2 s): a removed static
//     pod's worker is marked deleted only at the next housekeeping, and
//     the deletor removes every dead container at the relist that sees the
//     sandbox die only once it is: sandboxkill and readiness lost every
//     container at that relist (a housekeeping tick lies between the
//     removal and that relist), appkilled and startup kept their newest
//     dead containers until the GC (none lies there).
func TestLoopPhasesMeasured(t *testing.T) {
	all := loadFixtures(t)
	const proc = "1129/30823"
	l := loopsByProcess[proc]
	onGrid := func(x float64) float64 { // x's offset from the relist before it
		return mod(x-l.relist, l.relistEvery)
	}
	near, total := 0, 0
	byName := map[string]*fixture{}
	for _, f := range all {
		if kubeletProcess(f) != proc {
			continue
		}
		byName[f.Scenario] = f
		var gc []time.Time
		for _, c := range f.CRICalls {
			if c.Method == "RemovePodSandbox" {
				gc = append(gc, c.Time)
			}
		}
	calls:
		for _, c := range f.CRICalls {
			if c.Method != "RemoveContainer" {
				continue
			}
			for _, g := range gc {
				if d := g.Sub(c.Time); d >= 0 && d <= 2*time.Second {
					continue calls
				}
			}
			total++
			if o := onGrid(clockOf(c.Time)); o <= 0.05 || o >= l.relistEvery-0.03 {
				near++
			}
		}
	}
	if total < 20 || float64(near) < 0.8*float64(total) {
		t.Errorf("relist: %d of %d deletor calls within [-0.03 s, +0.05 s] of the grid, want 80%% of at least 20", near, total)
	}

	crash := byName["crashloop"]
	if crash == nil {
		t.Fatal("no crashloop capture on round 1's kubelet process")
	}
	creates := 0
	for _, c := range crash.CRICalls {
		if c.Method != "CreateContainer" {
			continue
		}
		creates++
		if creates <= 2 {
			continue // the first start and the restart after no back-off
		}
		if o := mod(clockOf(c.Time)-l.housekeeping, 1); o > 0.03 {
			t.Errorf("sync tick: crashloop's restart at clock %.3f is %.3f s after a tick, want at most 0.03 s", clockOf(c.Time), o)
		}
	}
	if creates < 4 {
		t.Fatalf("crashloop: %d CreateContainer calls, want at least 4", creates)
	}

	// housekeepingBetween: is there a housekeeping tick in [a, b]?
	housekeepingBetween := func(a, b float64) bool {
		return mod(a-l.housekeeping, 2) == 0 || mod(a-l.housekeeping, 2)+(b-a) >= 2
	}
	for name, removeAll := range map[string]bool{"sandboxkill": true, "readiness": true, "appkilled": false, "startup": false} {
		f := byName[name]
		if f == nil {
			t.Fatalf("no %s capture on round 1's kubelet process", name)
		}
		removed := clockOf(f.removedAt())
		var sandboxDown float64
		for _, c := range f.CRICalls {
			if c.Method == "StopPodSandbox" && clockOf(c.Time) >= removed && sandboxDown == 0 {
				sandboxDown = clockOf(c.Done)
			}
		}
		if sandboxDown == 0 {
			t.Fatalf("%s: no StopPodSandbox after the removal", name)
		}
		relist := sandboxDown + l.relistEvery - onGrid(sandboxDown)
		if got := housekeepingBetween(removed, relist); got != removeAll {
			t.Errorf("%s: removed at clock %.3f, sandbox's death seen by the relist at %.3f: housekeeping between them %v, want %v (the deletor removed all at once: %v)",
				name, removed, relist, got, removeAll, removeAll)
		}
	}
}
