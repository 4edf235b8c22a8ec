package replay

import (
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/probe"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// TestReplayActions checks podactions.Compute step by step: whenever the
// runtime shows something new at step N+1 (a sandbox, or container
// instances), the decision computed from step N's runtime state must have
// asked for it. Several kubelet syncs can fall between two polls, so only
// the first new thing (by creation time) is checked against step N; the
// later ones were decided on states the poll did not see.
//
// The state the kubelet acted on is not exactly step N's: an instance may
// have exited (or been killed by hand) between the polls, and the kubelet
// saw that before it created the next one. The test therefore takes step N's
// instances and sandboxes with the state step N+1 reports for them (see
// actedOn); new instances of step N+1 are left out.
//
// Probe results are not observed. When an instance with a liveness or
// startup probe in the spec, running at step N, is replaced by a new
// instance of the same name and the harness did not kill it by hand, the
// kubelet killed it for that probe: the test then gives
// podactions that failure (liveness when the spec has one, else startup)
// for the old instance, on step N's state, and checks it was killed.
//
// When podactions resets the pod for RestartAllContainers and step N+1 no
// longer shows the reset instances, the kubelet went on in the next sync
// with them removed: the test predicts the first new instance from that
// state.
func TestReplayActions(t *testing.T) {
	for _, f := range loadFixtures(t) {
		t.Run(f.Scenario, func(t *testing.T) {
			removed := f.removedAt()
			checked := 0
			// Step -1 is the pod before the kubelet's first sync: the
			// runtime knows nothing about it.
			obs := append([]observation{{Time: f.Observations[0].Time, Until: f.Observations[0].Time,
				Runtime: &runtimestate.Pod{UID: f.Pod.UID}}}, f.Observations...)
			for n := 0; n+1 < len(obs); n++ {
				i := n - 1
				a, b := obs[n], obs[n+1]
				if !removed.IsZero() && !a.Until.Before(removed) {
					break
				}
				newSandbox, newCtrs := diffRuntime(a.Runtime, b.Runtime)
				if newSandbox == "" && len(newCtrs) == 0 {
					continue
				}
				acts, probeKilled := predict(f, a, b, newCtrs)
				where := a.Time.Format("15:04:05.000")
				if newSandbox != "" {
					if !acts.CreateSandbox {
						t.Errorf("step %d (%s): sandbox %s appeared, podactions did not create one:\n%s", i, where, newSandbox, acts)
					}
					checked++
					// The sync that creates a sandbox starts the first
					// containers in it.
					var inNew []runtimestate.Container
					for _, c := range newCtrs {
						if c.SandboxID == newSandbox {
							inNew = append(inNew, c)
						}
					}
					newCtrs = inNew
					if len(newCtrs) == 0 {
						continue
					}
				}
				first := newCtrs[0]
				if !predictsStart(acts, first.Name) {
					t.Errorf("step %d (%s): %s (%s) was created next, podactions predicted:\n%s", i, where, first.Name, first.ID, acts)
				}
				for _, id := range probeKilled {
					if !killsID(acts, id) {
						t.Errorf("step %d (%s): %s was replaced after a probe failure, podactions did not kill it:\n%s", i, where, id, acts)
					}
				}
				checked++
			}
			t.Logf("%d runtime changes checked", checked)
			if checked == 0 {
				t.Errorf("no runtime change to check")
			}
		})
	}
}

// diffRuntime returns the newest sandbox of b that a does not have (or "")
// and b's new container instances, oldest first.
func diffRuntime(a, b *runtimestate.Pod) (string, []runtimestate.Container) {
	sbs := map[string]bool{}
	for _, s := range a.Sandboxes {
		sbs[s.ID] = true
	}
	sb := ""
	for _, s := range b.Sandboxes {
		if !sbs[s.ID] {
			sb = s.ID
			break
		}
	}
	ids := map[string]bool{}
	for _, c := range a.Containers {
		ids[c.ID] = true
	}
	var out []runtimestate.Container
	for _, c := range b.Containers {
		if !ids[c.ID] {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return sb, out
}

func predictsStart(a podactions.Actions, name string) bool {
	for _, l := range [][]podactions.Ref{a.InitContainersToStart, a.ContainersToStart, a.EphemeralContainersToStart} {
		for _, r := range l {
			if r.Name == name {
				return true
			}
		}
	}
	return false
}

func killsID(a podactions.Actions, id string) bool {
	for _, k := range a.ContainersToKill {
		if k.ID == id {
			return true
		}
	}
	return false
}

// actedOn returns a's runtime state with every sandbox and instance that b
// still reports in the state b reports.
func actedOn(a, b *runtimestate.Pod) *runtimestate.Pod {
	st := a.DeepCopy()
	sbs := map[string]runtimestate.Sandbox{}
	for _, x := range b.Sandboxes {
		sbs[x.ID] = x
	}
	cs := map[string]runtimestate.Container{}
	for _, x := range b.Containers {
		cs[x.ID] = x
	}
	for i, x := range st.Sandboxes {
		if y, ok := sbs[x.ID]; ok {
			st.Sandboxes[i] = y
		}
	}
	for i, x := range st.Containers {
		if y, ok := cs[x.ID]; ok {
			st.Containers[i] = y
		}
	}
	return st
}

// harnessKilled reports whether the harness killed something by hand between
// the two observations.
func harnessKilled(f *fixture, a, b observation) bool {
	for _, e := range f.Events {
		if strings.HasPrefix(e.What, "kill-") && !strings.Contains(e.What, "nothing to kill") &&
			e.Time.After(a.Time) && !e.Time.After(b.Time) {
			return true
		}
	}
	return false
}

// predict returns what podactions decides for the step from a to b (see
// TestReplayActions), and the instances it was told a probe failed for.
func predict(f *fixture, a, b observation, newCtrs []runtimestate.Container) (podactions.Actions, []string) {
	gates := features.V1_37()
	opts := podactions.Options{Probes: map[string]podactions.Probes{}}
	var probeKilled []string
	if !harnessKilled(f, a, b) {
		for _, c := range newCtrs {
			old := a.Runtime.NewestActive(c.Name)
			spec := f.containerSpec(c.Name)
			if old == nil || old.State != runtimestate.Running || spec == nil {
				continue
			}
			switch {
			case spec.LivenessProbe != nil:
				opts.Probes[old.ID] = podactions.Probes{Liveness: probe.Failure}
			case spec.StartupProbe != nil:
				opts.Probes[old.ID] = podactions.Probes{Startup: probe.Failure}
			default:
				continue
			}
			probeKilled = append(probeKilled, old.ID)
		}
	}
	st := a.Runtime
	if len(probeKilled) == 0 {
		st = actedOn(a.Runtime, b.Runtime)
	}
	pod := f.podAt(b)
	mark := func(st *runtimestate.Pod, prev *v1.PodStatus) bool {
		// The RestartAllContainers mark is what the kubelet derives
		// from the status it generates at the start of the sync.
		ph := podstatus.Compute(pod, st, podstatus.Options{Features: gates, Cached: prev, Now: a.Time, RuntimeType: "containerd"}).Phase.Phase
		return restart.RestartingAllContainers(pod, st, prev, ph, gates)
	}
	opts.RestartAllContainers = mark(st, a.Status)
	opts.Features = gates
	acts := podactions.Compute(pod, st, opts)
	if len(acts.ContainersToReset) > 0 && len(newCtrs) > 0 {
		gone := map[string]bool{}
		for _, r := range acts.ContainersToReset {
			gone[r.ID] = true
		}
		for _, c := range b.Runtime.Containers {
			if gone[c.ID] {
				return acts, probeKilled
			}
		}
		after := st.DeepCopy()
		after.Containers = nil
		for _, c := range st.Containers {
			if !gone[c.ID] {
				after.Containers = append(after.Containers, c)
			}
		}
		opts.RestartAllContainers = mark(after, a.Status)
		acts = podactions.Compute(pod, after, opts)
	}
	return acts, probeKilled
}
