package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/sim"
	v1 "k8s.io/api/core/v1"
)

// TestStopContainerSpread: with RuntimeDelays.StopContainerSpread each
// kill's StopContainer returns StopContainer plus a part drawn from
// [0, spread) after the process ended, one draw per kill, varying with
// the seed; without it every kill takes StopContainer exactly. The
// draws leave the kubelet's own choices alone: the StopContainer call
// itself comes at the same time with and without a spread.
func TestStopContainerSpread(t *testing.T) {
	del := int64(10)
	pod := apiPod("spread", v1.PodSpec{Containers: []v1.Container{{Name: "a", Image: "a"}, {Name: "b", Image: "b"}}})
	script := func(spread time.Duration) sim.Script {
		run := sim.Run{TermAfter: sec(0.5)}
		return sim.Script{
			Containers: map[string]sim.Behaviour{"a": {Runs: []sim.Run{run}}, "b": {Runs: []sim.Run{run}}},
			Runtime:    sim.RuntimeDelays{StopContainer: sim.Duration(100 * time.Millisecond), StopContainerSpread: sim.Duration(spread)},
		}
	}
	stops := func(seed uint64, spread time.Duration) (at []time.Duration, after []time.Duration) {
		tl := run(t, sim.Config{Seed: seed, For: sec(30)}, sim.PodInput{Pod: pod, Script: script(spread), Actions: []sim.Action{{At: sec(5), Delete: &del}}})
		for _, e := range tl.Entries {
			if e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" {
				at = append(at, e.Call.At)
				after = append(after, e.Call.AfterExit)
			}
		}
		if len(after) == 0 {
			t.Fatalf("seed %d: no StopContainer\n%s", seed, tl.Events())
		}
		return at, after
	}
	seen := map[time.Duration]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		at0, after0 := stops(seed, 0)
		for _, a := range after0 {
			if a != 100*time.Millisecond {
				t.Fatalf("seed %d, no spread: a stop returned %s after the exit, want 100ms", seed, a)
			}
		}
		at, after := stops(seed, 400*time.Millisecond)
		if len(at) != len(at0) {
			t.Fatalf("seed %d: %d stops with a spread, %d without", seed, len(at), len(at0))
		}
		for i := range at {
			if at[i] != at0[i] {
				t.Errorf("seed %d: stop %d called at %s with a spread, %s without: the spread must not move the kubelet's calls", seed, i, at[i], at0[i])
			}
			if after[i] < 100*time.Millisecond || after[i] >= 500*time.Millisecond {
				t.Errorf("seed %d: a stop returned %s after the exit, want within [100ms, 500ms)", seed, after[i])
			}
			if after[i] != after[0] {
				t.Errorf("seed %d: the stops of one kill returned %s and %s after their exits: want one draw per kill", seed, after[0], after[i])
			}
		}
		seen[after[0]] = true
	}
	if len(seen) < 10 {
		t.Errorf("20 seeds drew only %d distinct returns: want the draw to vary with the seed", len(seen))
	}
}

// TestStopContainerSpreadLeavesKubeletDraws: the spread's draws come from
// the script's own stream, so a spread too small to move anything (1 ns)
// leaves the whole timeline of a pod whose liveness kills lead to
// crash-loop back-offs (requeue jitter, probe start) exactly as it is.
func TestStopContainerSpreadLeavesKubeletDraws(t *testing.T) {
	one := int32(1)
	pod := apiPod("kills", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
		LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"check"}}}, PeriodSeconds: 2, FailureThreshold: one}}}})
	events := func(spread time.Duration) string {
		script := sim.Script{
			Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{TermAfter: sec(0.2), Liveness: []sim.ProbeStep{{At: sec(3), Result: "Failure"}}}}}},
			Runtime:    sim.RuntimeDelays{StopContainerSpread: sim.Duration(spread)},
		}
		return run(t, sim.Config{Seed: 7, For: sec(180)}, sim.PodInput{Pod: pod, Script: script}).Events()
	}
	without, with := events(0), events(1)
	if without != with {
		t.Errorf("a 1 ns StopContainer spread changed the timeline:\n--- without\n%s\n--- with\n%s", without, with)
	}
	if n := strings.Count(without, "StopContainer"); n < 3 {
		t.Errorf("want several liveness kills in 180 s, got %d StopContainer calls\n%s", n, without)
	}
}

// TestStopContainerSpreadOnTheDefault: a spread with StopContainer left
// out adds to StopContainer's default (30 ms), not to zero.
func TestStopContainerSpreadOnTheDefault(t *testing.T) {
	del := int64(10)
	pod := apiPod("spread", v1.PodSpec{Containers: []v1.Container{{Name: "a", Image: "a"}}})
	script := sim.Script{
		Containers: map[string]sim.Behaviour{"a": {Runs: []sim.Run{{TermAfter: sec(0.5)}}}},
		Runtime:    sim.RuntimeDelays{StopContainerSpread: sim.Duration(time.Millisecond)},
	}
	def := sim.DefaultRuntimeDelays().StopContainer.D()
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(30)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(5), Delete: &del}}})
		for _, e := range tl.Entries {
			if e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" && (e.Call.AfterExit < def || e.Call.AfterExit >= def+time.Millisecond) {
				t.Fatalf("seed %d: a stop returned %s after the exit, want within [%s, %s)", seed, e.Call.AfterExit, def, def+time.Millisecond)
			}
		}
	}
}
