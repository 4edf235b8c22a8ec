package replay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// apiTimeline is what a watcher of a deleted pod's API object sees, as
// times from the scenario's zero: when the terminal phase first shows
// (-1: never) and when the object is gone (-1: never).
type apiTimeline struct {
	terminal, gone time.Duration
}

func (a apiTimeline) String() string {
	return fmt.Sprintf("terminal phase at %.2fs, gone at %.2fs (phase visible %.2fs)", a.terminal.Seconds(), a.gone.Seconds(), (a.gone - a.terminal).Seconds())
}

// realAPITimeline reads the capture's polls of the API object (every
// 250 ms) and the objects the harness's own requests got (an event's
// object: a write's answer, or the poll of DeleteOnPhase every 50 ms; the
// 250 ms poll may miss a terminal phase the harness's DELETE ends at once,
// as in api-delete-succeeded), and its first 404 after the DELETE
// (WatchGone, every 50 ms), whichever came first.
func realAPITimeline(f *fixture, zero time.Time) apiTimeline {
	out := apiTimeline{terminal: -1, gone: -1}
	for _, e := range f.Events {
		at := e.Time.Sub(zero)
		if strings.HasPrefix(e.What, "pod gone from the API") && (out.gone < 0 || at < out.gone) {
			out.gone = at
		}
		if o := e.Object; o != nil && !o.Gone && (o.Status.Phase == v1.PodSucceeded || o.Status.Phase == v1.PodFailed) && (out.terminal < 0 || at < out.terminal) {
			out.terminal = at
		}
	}
	for _, o := range f.Observations {
		if o.API == nil {
			continue
		}
		at := o.Time.Sub(zero)
		if o.API.Gone {
			if out.gone < 0 || at < out.gone {
				out.gone = at
			}
			continue
		}
		if ph := o.API.Status.Phase; (out.terminal < 0 || at < out.terminal) && (ph == v1.PodSucceeded || ph == v1.PodFailed) {
			out.terminal = at
		}
	}
	return out
}

// simAPITimeline reads the same from a simulated timeline.
func simAPITimeline(tl *sim.Timeline) apiTimeline {
	out := apiTimeline{terminal: -1, gone: -1}
	for _, e := range tl.Entries {
		if e.Kind != sim.KindAPI {
			continue
		}
		switch {
		case e.API == sim.APIGone && out.gone < 0:
			out.gone = e.At
		case e.API == sim.APIStatus && out.terminal < 0 && e.Status != nil &&
			(e.Status.Status.Phase == v1.PodSucceeded || e.Status.Status.Phase == v1.PodFailed):
			out.terminal = e.At
		}
	}
	return out
}

// tolVisible is how far the time the last phase stays visible may be off:
// the poll (250 ms) on each end and the runtime's call-time jitter. A
// phase the capture saw for at least one poll must be visible in the
// simulation for some time (not written and deleted at once).
const tolVisible = 750 * time.Millisecond

// TestReplayAPITimeline compares, for the captured pods deleted through
// the API server, what a watcher of the API object sees: when the terminal
// phase first shows, when the object is gone, and how long the terminal
// phase stays visible in between (the kubelet deletes the object only
// after SyncTerminatedPod, which waits for a relist newer than the end of
// SyncTerminatingPod; the terminal phase is written once the pod worker
// completed SyncTerminatingPod). A seed matches when both times are within
// tolStatus of the capture and the visible time within tolVisible (and not
// zero where the capture saw the phase); at
// least one seed of 64 must match, and the count and largest error are
// logged.
func TestReplayAPITimeline(t *testing.T) {
	for _, f := range loadFixtures(t) {
		if len(f.Observations) == 0 || f.Observations[0].API == nil {
			continue
		}
		if _, skip := notSimulated[f.Scenario]; skip {
			continue
		}
		t.Run(f.Scenario, func(t *testing.T) {
			in, zero := simInput(t, f)
			in.At = sim.Duration(kubeletAdd(t, f, zero))
			real := realAPITimeline(f, zero)
			if real.terminal < 0 || real.gone < 0 {
				t.Fatalf("capture: %s", real)
			}
			end := f.Observations[len(f.Observations)-1].Time.Sub(zero) + time.Second
			matched, bestErr, best := 0, time.Duration(-1), ""
			var first string
			for seed := uint64(1); seed <= seeds; seed++ {
				cfg := sim.Config{Seed: seed, For: sim.Duration(end), Kubelet: sim.Kubelet{BackOff: f.backOffSettings(t)}, KubeletUptime: kubeletUptime(t, f, zero)}
				tl, err := sim.Simulate(cfg, []sim.PodInput{forSeed(t, f, zero, in, seed)})
				if err != nil {
					t.Fatal(err)
				}
				got := simAPITimeline(tl)
				eT, eG := absDur(got.terminal-real.terminal), absDur(got.gone-real.gone)
				eV := absDur((got.gone - got.terminal) - (real.gone - real.terminal))
				flat := real.gone-real.terminal >= 250*time.Millisecond && got.gone <= got.terminal
				if got.terminal < 0 || got.gone < 0 || flat || eT > tolStatus || eG > tolStatus || eV > tolVisible {
					if first == "" {
						first = fmt.Sprintf("seed %d: %s", seed, got)
					}
					continue
				}
				matched++
				if w := max(eT, eG); bestErr < 0 || w < bestErr {
					bestErr, best = w, fmt.Sprintf("seed %d: %s", seed, got)
				}
			}
			if matched == 0 {
				t.Fatalf("capture: %s; no seed of %d matches; %s", real, seeds, first)
			}
			t.Logf("capture: %s; %d of %d seeds match; closest %s (largest time error %.2fs)", real, matched, seeds, best, bestErr.Seconds())
		})
	}
}
