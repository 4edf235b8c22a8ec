package replay

import (
	"strings"
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
// least. Zero (drawn from the seed) when no other capture shows a pass.
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
		return 0
	}
	d := best.Sub(zero) % time.Minute
	if d == 0 {
		d = time.Minute
	}
	return sim.Duration(d)
}
