package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// The container garbage collector runs every minute from the kubelet's
// start (kubelet.go StartGarbageCollection), so its phase is a property of
// the node, like the runtime's speed: the same for every pod a kubelet
// process ran. The captures do not record when the kubelet started, but
// several scenarios were captured on one kubelet process, and the GC's
// passes show in their CRI calls: RemovePodSandbox is made by the GC
// alone. gcPhase places the simulated GC from the passes seen in the
// other captures of the same kubelet process (never the scenario's own),
// which is what the simulation is then compared with.

// kubeletProcess identifies the kubelet process of a capture: the day and
// the process ID of its log lines ("I1201 07:36:42.282990    3464 ...").
func kubeletProcess(f *fixture) string {
	for _, l := range f.KubeletLog {
		fields := strings.Fields(l)
		if len(fields) >= 3 && len(fields[0]) == 5 {
			return fields[0][1:] + "/" + fields[2]
		}
	}
	return ""
}

// gcPasses are the starts of the GC passes a capture shows: for each
// RemovePodSandbox, the earliest clean-up call (RemoveContainer,
// StopPodSandbox, RemovePodSandbox) in the 2 s before it.
func gcPasses(f *fixture) []time.Time {
	var out []time.Time
	for _, c := range f.CRICalls {
		if c.Method != "RemovePodSandbox" {
			continue
		}
		start := c.Time
		for _, d := range f.CRICalls {
			switch d.Method {
			case "RemoveContainer", "StopPodSandbox", "RemovePodSandbox":
				if d.Time.Before(start) && !d.Time.Before(c.Time.Add(-2*time.Second)) {
					start = d.Time
				}
			}
		}
		if len(out) == 0 || start.Sub(out[len(out)-1]) > 5*time.Second {
			out = append(out, start)
		}
	}
	return out
}

// gcPhase is sim.Config.ContainerGC for f's simulation (its zero is the
// simulation's start): the pass of another capture of the same kubelet
// process nearest to when f's pod was removed (or created), so that the
// GC's own duration, which lengthens each period a little, matters
// least. When no other capture shows a pass, the first pass is placed at
// the kubelet's start (kubeletStart): createAndInitKubelet
// (cmd/kubelet/app/server.go) starts the GC right after making the
// kubelet, and its wait.UntilWithContext runs a pass at once.
func gcPhase(f *fixture, all []*fixture, zero time.Time) sim.Duration {
	proc := kubeletProcess(f)
	ref := f.removedAt()
	if ref.IsZero() {
		ref = zero
	}
	var best time.Time
	for _, g := range all {
		if g == f || g.Scenario == f.Scenario || proc == "" || kubeletProcess(g) != proc {
			continue
		}
		for _, p := range gcPasses(g) {
			if best.IsZero() || absDur(p.Sub(ref)) < absDur(best.Sub(ref)) {
				best = p
			}
		}
	}
	if best.IsZero() {
		best = kubeletStart(f, all)
	}
	d := best.Sub(zero) % time.Minute
	if d <= 0 {
		d += time.Minute
	}
	return sim.Duration(d)
}

// harnessLead is how long before its first scenario the capture harness
// started the kubelet: the harness starts the scenarios once the kubelet's
// read-only port answers (../capture main.go run, polled every 250 ms),
// which startKubelet opens right after createAndInitKubelet ran the first
// GC pass. It is the median over the three kubelet processes whose
// captures show a GC pass placing their start (a pass 59.87 s, 59.74 s and
// 59.61 s after their first scenario: started 0.13 s, 0.26 s and 0.39 s
// before it).
const harnessLead = 260 * time.Millisecond

// createdAt is when the harness wrote f's pod (its manifest or its POST).
func createdAt(f *fixture) time.Time {
	for _, e := range f.Events {
		if e.What == "manifest written" || strings.HasPrefix(e.What, "pod created") {
			return e.Time
		}
	}
	return time.Time{}
}

// kubeletStart is when the kubelet process of f's capture started:
// harnessLead before the first pod any capture of that process created.
//
// It is not given to the simulation as Config.KubeletUptime (0.26 s in
// the first round): the probe workers, made within a probe period of the
// kubelet's start, then wait a random part of their period first
// (prober/worker.go run), as the captures show they did (liveness probed
// at 1.05 s + 2k s, not from its worker's creation at 0.13 s), but the
// simulated first container starts 0.6 s before the real one (thirteen
// pods started at once: runtime contention is not modelled), and with the
// probe phase drawn the liveness capture matches 9 of 64 seeds instead of
// 30. With the first start 0.6 s later it would match about as often
// either way (21% and 25% of 400 seeds).
func kubeletStart(f *fixture, all []*fixture) time.Time {
	proc := kubeletProcess(f)
	first := createdAt(f)
	for _, g := range all {
		if proc == "" || kubeletProcess(g) != proc {
			continue
		}
		if c := createdAt(g); !c.IsZero() && c.Before(first) {
			first = c
		}
	}
	return first.Add(-harnessLead)
}

// TestKubeletStartPlacesGC checks harnessLead against the GC passes the
// captures show, those of the process it was not measured on
// (api-readiness-gate's) included: in each kubelet process, the first pass
// after its first scenario (the earliest call of that pass in any of its
// captures: one pass serves every pod) comes a minute after
// kubeletStart, within the spread of the lead (0.13 s).
func TestKubeletStartPlacesGC(t *testing.T) {
	all := loadFixtures(t)
	first := map[string]time.Duration{}
	for _, f := range all {
		start := kubeletStart(f, all)
		for _, p := range gcPasses(f) {
			d := p.Sub(start)
			if d < time.Minute/2 || d > 3*time.Minute/2 {
				continue // a later pass: the sliding period's drift adds up
			}
			proc := kubeletProcess(f)
			if old, ok := first[proc]; !ok || d < old {
				first[proc] = d
			}
		}
	}
	if len(first) < 4 {
		t.Fatalf("GC passes of %d kubelet processes, want the 4 the captures show", len(first))
	}
	for proc, d := range first {
		if absDur(d-time.Minute) > 200*time.Millisecond {
			t.Errorf("kubelet process %s: first GC pass %.2fs after its start (kubeletStart), want 60s within 0.2s", proc, d.Seconds())
		}
	}
}
