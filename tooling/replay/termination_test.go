package replay

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// TestReplayTermination checks, for every pod whose manifest was removed
// (or whose activeDeadlineSeconds ran out, see terminatingAt) while
// containers ran, the StopContainer calls the kubelet made against
// termination.Plan: one call per running instance, each with the timeout
// Plan computes, and the calls in Plan's order (sidecars after the
// containers they wait for).
//
// Plan's inputs are read from the capture: the grace period is the pod
// worker's (EffectiveGracePeriod with no override: removing a static pod's
// manifest kills it with its terminationGracePeriodSeconds); how long each
// preStop hook ran is the duration of its ExecSync call; how long each
// process took to exit is its finishedAt minus its StopContainer call.
// The timeouts are whole seconds deducted from wall-clock durations, so a
// hook that ran n s plus a few ms deducts n s both in the kubelet and in Plan.
const removalSlack = 200 * time.Millisecond

func TestReplayTermination(t *testing.T) {
	gates := features.V1_37()
	withStops := 0
	for _, f := range loadFixtures(t) {
		t.Run(f.Scenario, func(t *testing.T) {
			removed := f.terminatingAt()
			if removed.IsZero() {
				t.Errorf("manifest never removed")
				return
			}
			var st *runtimestate.Pod
			pod := f.Pod
			for _, o := range f.Observations {
				if o.Time.Before(removed.Add(-removalSlack)) {
					st, pod = o.Runtime, f.podAt(o)
				}
			}
			running := map[string]runtimestate.Container{}
			for _, c := range st.Containers {
				if c.State == runtimestate.Running {
					running[c.ID] = c
				}
			}
			if len(running) == 0 {
				// Removed during a back-off or after the pod finished:
				// the kubelet has no container to stop.
				for _, c := range f.CRICalls {
					if c.Method == "StopContainer" && !c.Time.Before(removed.Add(-removalSlack)) {
						t.Errorf("nothing ran at removal, yet StopContainer %s was called", c.ID)
					}
				}
				t.Logf("nothing running at removal; no StopContainer call")
				return
			}
			withStops++
			inst := f.instances()
			var stops []criCall
			opts := termination.Options{Features: gates, PreStop: map[string]time.Duration{}, ExitAfter: map[string]time.Duration{}}
			// The event is stamped just after the manifest was removed; the
			// kubelet may react first.
			cutoff := removed.Add(-removalSlack)
			for _, c := range f.CRICalls {
				if c.Time.Before(cutoff) {
					continue
				}
				switch c.Method {
				case "StopContainer":
					if _, ok := running[c.ID]; ok {
						stops = append(stops, c)
						if fin := inst[c.ID].FinishedAt; !fin.IsZero() {
							opts.ExitAfter[running[c.ID].Name] = fin.Sub(c.Time)
						}
					}
				case "ExecSync":
					if r, ok := running[c.ID]; ok {
						spec := f.containerSpec(r.Name)
						if spec != nil && spec.Lifecycle != nil && spec.Lifecycle.PreStop != nil && spec.Lifecycle.PreStop.Exec != nil &&
							slices.Equal(spec.Lifecycle.PreStop.Exec.Command, c.Cmd) {
							opts.PreStop[r.Name] = c.Done.Sub(c.Time)
						}
					}
				}
			}
			grace, _ := termination.EffectiveGracePeriod(0, pod, nil, gates)
			opts.GracePeriodOverride = &grace
			plan := termination.Plan(pod, st, opts)
			got := map[string]int64{}
			var gotOrder []string
			for _, c := range stops {
				if c.Timeout != nil {
					got[running[c.ID].Name] = *c.Timeout
				}
				gotOrder = append(gotOrder, running[c.ID].Name)
			}
			want := map[string]int64{}
			type call struct {
				name string
				at   time.Duration
			}
			var wantCalls []call
			for _, cs := range plan.Containers {
				want[cs.Name] = cs.Stop.Timeout
				wantCalls = append(wantCalls, call{cs.Name, cs.StopCall})
			}
			sort.SliceStable(wantCalls, func(i, j int) bool { return wantCalls[i].at < wantCalls[j].at })
			for name, w := range want {
				g, ok := got[name]
				if !ok {
					t.Errorf("no StopContainer call for %s; plan:\n%s", name, plan)
					continue
				}
				if g != w {
					t.Errorf("StopContainer %s: kubelet timeout %d s, Plan %d s; plan:\n%s", name, g, w, plan)
				}
			}
			// Order: only calls Plan separates by at least a second are
			// compared (simultaneous kills race in the kubelet).
			for i := 0; i < len(wantCalls); i++ {
				for j := i + 1; j < len(wantCalls); j++ {
					if wantCalls[j].at-wantCalls[i].at < time.Second {
						continue
					}
					if slices.Index(gotOrder, wantCalls[i].name) > slices.Index(gotOrder, wantCalls[j].name) {
						t.Errorf("StopContainer order %v; Plan calls %s before %s", gotOrder, wantCalls[i].name, wantCalls[j].name)
					}
				}
			}
			// StopPodSandbox comes after every kill returned (Plan's
			// SandboxStop is after every Exit).
			var lastStopDone time.Time
			for _, c := range stops {
				if c.Done.After(lastStopDone) {
					lastStopDone = c.Done
				}
			}
			sawSandboxStop := false
			for _, c := range f.CRICalls {
				if c.Method == "StopPodSandbox" && !c.Time.Before(cutoff) {
					sawSandboxStop = true
					if c.Time.Before(lastStopDone) {
						t.Errorf("StopPodSandbox at %s, before the last StopContainer returned at %s",
							c.Time.Format("15:04:05.000"), lastStopDone.Format("15:04:05.000"))
					}
				}
			}
			if !sawSandboxStop {
				t.Errorf("no StopPodSandbox after the removal")
			}
			t.Logf("grace %d s, preStop %v, StopContainer %v (order %s)", grace, opts.PreStop, got, strings.Join(gotOrder, ", "))
		})
	}
	if withStops == 0 {
		t.Errorf("no fixture stopped a running container")
	}
}
