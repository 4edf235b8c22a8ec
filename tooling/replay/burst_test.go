package replay

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// burstStarts simulates the thirteen burst pods together on one node (each
// at its own SyncLoop ADD, the runtime's default delays) and returns, per
// pod, when its app's StartContainer returned (from the first manifest's
// write), and the durations of the calls by method, for one seed and a
// RuntimeContention setting.
func burstStarts(t *testing.T, fs []*fixture, zero time.Time, seed uint64, contention sim.Duration) (map[string]time.Duration, map[string][]time.Duration) {
	t.Helper()
	var pods []sim.PodInput
	for _, f := range fs {
		in, z := simInput(t, f)
		in.At = sim.Duration(z.Sub(zero) + kubeletAdd(t, f, z))
		pods = append(pods, in)
	}
	// The node numbers pods in the order they arrive.
	sort.SliceStable(pods, func(i, j int) bool { return pods[i].At < pods[j].At })
	cfg := sim.Config{Seed: seed, For: sim.Duration(40 * time.Second), RuntimeContention: contention}
	tl, err := sim.Simulate(cfg, pods)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]time.Duration{}
	durs := map[string][]time.Duration{}
	for _, e := range tl.Entries {
		if e.Call == nil {
			continue
		}
		durs[e.Call.Method] = append(durs[e.Call.Method], e.Call.Done-e.Call.At)
		if _, ok := out[e.Pod]; !ok && e.Call.Method == "StartContainer" {
			out[e.Pod] = e.Call.Done
		}
	}
	return out, durs
}

// median is the middle of ds (sorted in place).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// TestReplayBurstContention replays the burst captures as they ran: the
// thirteen pods on one node at once (burst-01 to burst-13, manifests
// written at one instant on a 2-core node; each app's StartContainer
// returned 1.11 to 1.44 s after the manifests, where a pod alone takes
// about 0.4 s). Simulated together with the runtime shared
// (sim.DefaultRuntimeContention), over 8 seeds every pod's start is within
// 0.3 s of its capture, the mean error is under 0.12 s, and the median
// RunPodSandbox, CreateContainer, StartContainer and StopPodSandbox take
// within 0.12 s of the captured medians; with every call taking its delay
// alone (RuntimeContention -1) the pods start about 0.8 s early, which the
// test also checks, so that it fails if the contention model stops
// acting.
func TestReplayBurstContention(t *testing.T) {
	var fs []*fixture
	for _, f := range loadFixtures(t) {
		if strings.HasPrefix(f.Scenario, "burst-") {
			fs = append(fs, f)
		}
	}
	if len(fs) != 13 {
		t.Fatalf("%d burst captures, want 13", len(fs))
	}
	var zero time.Time
	real := map[string]time.Duration{}
	for _, f := range fs {
		_, z := simInput(t, f)
		if zero.IsZero() || z.Before(zero) {
			zero = z
		}
	}
	for _, f := range fs {
		for _, c := range f.CRICalls {
			if c.Method == "StartContainer" && c.Error == "" {
				real[f.Pod.Name] = c.Done.Sub(zero)
				break
			}
		}
	}
	measure := func(contention sim.Duration) (mean, worst time.Duration, table string) {
		var sum time.Duration
		var b strings.Builder
		n := 0
		for seed := uint64(1); seed <= 8; seed++ {
			got, _ := burstStarts(t, fs, zero, seed, contention)
			if len(got) != len(fs) {
				t.Fatalf("seed %d: %d pods started, want %d", seed, len(got), len(fs))
			}
			names := make([]string, 0, len(real))
			for name := range real {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				r := real[name]
				e := got[name] - r
				if e < 0 {
					e = -e
				}
				sum += e
				n++
				worst = max(worst, e)
				if seed == 1 {
					fmt.Fprintf(&b, "  %s: captured %.2fs, simulated %.2fs\n", name, r.Seconds(), got[name].Seconds())
				}
			}
		}
		return sum / time.Duration(n), worst, b.String()
	}
	mean, worst, table := measure(0)
	t.Logf("shared runtime: mean error %s, largest %s (8 seeds); seed 1:\n%s", mean.Round(time.Millisecond), worst.Round(time.Millisecond), table)
	if mean > 120*time.Millisecond || worst > 300*time.Millisecond {
		t.Errorf("shared runtime: mean error %s (want under 0.12 s), largest %s (want under 0.3 s)", mean, worst)
	}
	// The calls one by one: the median of each kind, simulated (seed 1,
	// the whole run: the manifests are removed at 30 s) and captured.
	_, durs := burstStarts(t, fs, zero, 1, 0)
	captured := map[string][]time.Duration{}
	for _, f := range fs {
		for _, c := range f.CRICalls {
			if c.Error == "" {
				captured[c.Method] = append(captured[c.Method], c.Done.Sub(c.Time))
			}
		}
	}
	for _, m := range []string{"RunPodSandbox", "CreateContainer", "StartContainer", "StopPodSandbox"} {
		sm, cm := median(durs[m]), median(captured[m])
		t.Logf("%s: median %s simulated, %s captured (%d, %d calls)", m, sm.Round(time.Millisecond), cm.Round(time.Millisecond), len(durs[m]), len(captured[m]))
		if d := sm - cm; d > 120*time.Millisecond || d < -120*time.Millisecond {
			t.Errorf("%s: median %s simulated, %s captured", m, sm, cm)
		}
	}
	aloneMean, aloneWorst, _ := measure(-1)
	t.Logf("calls alone: mean error %s, largest %s", aloneMean.Round(time.Millisecond), aloneWorst.Round(time.Millisecond))
	if aloneMean < 500*time.Millisecond || math.IsNaN(float64(aloneMean)) {
		t.Errorf("calls alone: mean error %s; the burst should start about 0.8 s early without contention", aloneMean)
	}
}
