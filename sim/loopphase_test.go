package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// Config.RelistPhase and Config.HousekeepingPhase place the PLEG's relist
// and housekeeping for every seed. A static pod whose manifest is removed
// while its container waits in back-off: its worker is marked deleted
// only by the next housekeeping (SyncKnownPods, removeTerminatedWorker),
// so the deletor removes the dead instance at the relist that sees the
// sandbox die when housekeeping came between the removal and that relist,
// and keeps it (for the container GC) when it came after (the round-1
// captures: sandboxkill and readiness the one way, appkilled and startup
// the other, on one kubelet process).
func TestLoopPhasesDecideDeletorOnRemoval(t *testing.T) {
	pod := staticPod("crash", v1.PodSpec{TerminationGracePeriodSeconds: i64(30),
		Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(1), ExitCode: 1}}}}}
	// Removed at 6.0 s (the container is in back-off): the sandbox stops
	// at once (StopPodSandbox is fast), a relist at 6.5 s + k·period sees
	// it die; housekeeping at 6.2 s (before that relist) or 6.8 s (after).
	for _, tc := range []struct {
		housekeeping float64
		removeAll    bool
	}{{0.2, true}, {0.8, false}} {
		for seed := uint64(1); seed <= 8; seed++ {
			cfg := sim.Config{Seed: seed, For: sec(20), ContainerGC: sec(50), RelistPhase: sec(0.5), HousekeepingPhase: sec(tc.housekeeping)}
			tl := run(t, cfg, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(6), Remove: true}}})
			died, ok := tl.First("crash", func(e sim.Entry) bool {
				return e.Kind == sim.KindPLEG && strings.HasPrefix(e.Message, "ContainerDied ") && strings.Contains(e.Message, "sandbox")
			})
			if !ok {
				t.Fatalf("seed %d: no relist saw the sandbox die\n%s", seed, tl.Events())
			}
			// The global relist that sees it: on the grid placed at 0.5 s.
			period := time.Second + sim.DefaultRuntimeDelays().Relist.D()
			if died.At < 6*time.Second || died.At > 7*time.Second || (died.At-500*time.Millisecond)%period != 0 {
				t.Fatalf("seed %d: the sandbox's death seen at %s, want the relist at 0.5 s + 6 periods of %s\n%s", seed, died.At, period, tl.Events())
			}
			removed, ok := tl.First("crash", func(e sim.Entry) bool {
				return e.Kind == sim.KindCRI && e.Call.Method == "RemoveContainer" && e.At >= died.At
			})
			got := ok && removed.At == died.At
			if got != tc.removeAll {
				t.Errorf("housekeeping at %.1f s + 2k s, seed %d: deletor removed the dead instance at the sandbox's death %v, want %v\n%s",
					6+tc.housekeeping, seed, got, tc.removeAll, tl.Events())
			}
		}
	}
}
