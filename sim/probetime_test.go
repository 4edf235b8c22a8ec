package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// probeResults are the committed (not initial) results of one probe kind,
// as times since the first one's worker started probing the container.
func probeResults(tl *sim.Timeline, pod, kind string) []sim.Entry {
	var out []sim.Entry
	for _, e := range tl.Entries {
		if e.Pod == pod && e.Kind == sim.KindProbe && e.Probe != nil && e.Probe.Probe == kind && !e.Probe.Initial {
			out = append(out, e)
		}
	}
	return out
}

// firstProbeRun is when the worker first probed the container: the time of
// its initial result for the container's first instance.
func firstProbeRun(t *testing.T, tl *sim.Timeline, pod, kind string) time.Duration {
	t.Helper()
	e, ok := tl.First(pod, func(e sim.Entry) bool {
		return e.Kind == sim.KindProbe && e.Probe != nil && e.Probe.Probe == kind && e.Probe.Initial
	})
	if !ok {
		t.Fatalf("no initial %s result\n%s", kind, tl.Events())
	}
	return e.At
}

// TestProbeTimeout: a probe whose command outlives timeoutSeconds fails
// when the timeout runs out (prober.go runProbe, exec.go Probe), not when
// the command would have answered, and not at once; one that answers
// within the timeout gives its own result when it answers.
func TestProbeTimeout(t *testing.T) {
	for _, c := range []struct {
		takes, timeout float64
		want           vocab.ProbeResult
		after          time.Duration
	}{
		{takes: 5, timeout: 2, want: vocab.ProbeFailure, after: 2 * time.Second}, // timed out
		{takes: 2, timeout: 2, want: vocab.ProbeFailure, after: 2 * time.Second}, // reaches the timeout
		{takes: 0.5, timeout: 2, want: vocab.ProbeSuccess, after: 500 * time.Millisecond},
	} {
		// Readiness: its first committed result is a change (the initial
		// one is Failure) only when the probe succeeds; liveness: a
		// failure. Use readiness for Success and liveness for Failure.
		kind := "liveness"
		probe := &v1.Probe{ProbeHandler: execCheck, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 1, TimeoutSeconds: int32(c.timeout)}
		ctr := v1.Container{Name: "app", Image: "a", LivenessProbe: probe}
		if c.want == vocab.ProbeSuccess {
			kind = "readiness"
			ctr = v1.Container{Name: "app", Image: "a", ReadinessProbe: probe}
		}
		pod := apiPod("pt", v1.PodSpec{Containers: []v1.Container{ctr}})
		step := sim.ProbeStep{At: 0, Result: vocab.ProbeSuccess, Takes: sec(c.takes)}
		r := sim.Run{}
		if kind == "liveness" {
			r.Liveness = []sim.ProbeStep{step}
		} else {
			r.Readiness = []sim.ProbeStep{step}
		}
		script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{r}}}}
		tl := run(t, sim.Config{Seed: 3, For: sec(30)}, sim.PodInput{Pod: pod, Script: script})
		first := firstProbeRun(t, tl, "pt", kind)
		got := probeResults(tl, "pt", kind)
		if len(got) == 0 {
			t.Fatalf("takes %v timeout %v: no %s result\n%s", c.takes, c.timeout, kind, tl.Events())
		}
		if got[0].Probe.Result != c.want || got[0].At-first != c.after {
			t.Fatalf("takes %v timeout %v: first %s result %s %s after the probe started, want %s %s\n%s",
				c.takes, c.timeout, kind, got[0].Probe.Result, got[0].At-first, c.want, c.after, tl.Events())
		}
		if timedOut := strings.Contains(got[0].Message, "timed out after"); timedOut != (c.want == vocab.ProbeFailure) {
			t.Fatalf("takes %v timeout %v: entry %q should say whether the probe timed out", c.takes, c.timeout, got[0].Message)
		}
	}
}

// TestSlowProbeTicker: the worker's ticker keeps its period while a probe
// runs (prober/worker.go run: time.Ticker, one pending tick kept for a
// late receiver). With period 2 s and a probe that takes 3 s (timeout 5
// s), each probe starts when the previous returns (a tick fell meanwhile),
// so with failureThreshold 3 the liveness failure is committed 9 s after
// the first probe started. A worker that waited a whole period after each
// probe returned would commit it at 13 s; one that skipped to the next
// tick after the probe returned, at 11 s; probes that take no time, at 4 s.
func TestSlowProbeTicker(t *testing.T) {
	pod := apiPod("st", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
		LivenessProbe: &v1.Probe{ProbeHandler: execCheck, PeriodSeconds: 2, SuccessThreshold: 1, FailureThreshold: 3, TimeoutSeconds: 5}}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{
		{Liveness: []sim.ProbeStep{{At: 0, Result: vocab.ProbeFailure, Takes: sec(3)}}},
	}}}}
	for seed := uint64(1); seed <= 3; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(40)}, sim.PodInput{Pod: pod, Script: script})
		first := firstProbeRun(t, tl, "st", "liveness")
		got := probeResults(tl, "st", "liveness")
		if len(got) == 0 || got[0].Probe.Result != vocab.ProbeFailure || got[0].At-first != 9*time.Second {
			t.Fatalf("seed %d: want the liveness failure committed 9s after the first probe started\n%s", seed, tl.Events())
		}
	}
}

// TestTermSpread: a run's TermSpread adds to TermAfter a part drawn for
// each instance from the seed: the StopContainer calls last from TermAfter
// to TermAfter + TermSpread, differ between seeds, and are the same for the
// same seed.
func TestTermSpread(t *testing.T) {
	pod := apiPod("ts", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{TermAfter: sec(0.2), TermSpread: sec(1)}}}}}
	in := sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(10), Remove: true}}}
	seen := map[time.Duration]bool{}
	for seed := uint64(1); seed <= 12; seed++ {
		var took time.Duration
		for i := 0; i < 2; i++ {
			stops := calls(run(t, sim.Config{Seed: seed, For: sec(30)}, in), "StopContainer", "app")
			if len(stops) != 1 {
				t.Fatalf("seed %d: %d StopContainer calls", seed, len(stops))
			}
			d := stops[0].Ended() - stops[0].At
			if d < 200*time.Millisecond || d >= 1200*time.Millisecond {
				t.Fatalf("seed %d: the process took %s to exit on SIGTERM, want [0.2s, 1.2s)", seed, d)
			}
			if i == 1 && d != took {
				t.Fatalf("seed %d: %s then %s: not the same for the same seed", seed, took, d)
			}
			took = d
		}
		seen[took] = true
	}
	if len(seen) < 6 {
		t.Fatalf("12 seeds gave %d different exit times: the spread is not drawn", len(seen))
	}
}

// TestTermSpreadSeedStable: the spread a seed draws for a pod is the same
// from one version of the simulator to the next (the stream of what the
// script leaves random is seeded from the seed and the pod's index alone),
// so a timeline shared with its seed replays as it was: seed 1, the first
// and second pod of the node.
func TestTermSpreadSeedStable(t *testing.T) {
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{TermAfter: sec(0.2), TermSpread: sec(1)}}}}}
	var in []sim.PodInput
	for _, name := range []string{"ts0", "ts1"} {
		in = append(in, sim.PodInput{Pod: apiPod(name, v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}}),
			Script: script, Actions: []sim.Action{{At: sec(10), Remove: true}}})
	}
	tl := run(t, sim.Config{Seed: 1, For: sec(30)}, in...)
	// Measured on 6eb74be.
	want := map[string]time.Duration{"ts0": 708909600, "ts1": 617305723}
	for _, name := range []string{"ts0", "ts1"} {
		stops := 0
		for _, e := range tl.Entries {
			if e.Pod == name && e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" {
				stops++
				if d := e.Call.Ended() - e.Call.At; d != want[name] {
					t.Errorf("seed 1, pod %s: the process took %s to exit on SIGTERM, %s before", name, d, want[name])
				}
			}
		}
		if stops != 1 {
			t.Errorf("pod %s: %d StopContainer calls, want 1", name, stops)
		}
	}
}
