package termination_test

import (
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Allocation budgets (issue 13): canBeDeleted and the grace arithmetic
// allocate nothing; NewOrdering allocates its result once for a pod of up
// to 10 containers with up to 6 sidecars and 30 waits (the Ordering with
// room for its signals, waits and indexes), and at most four times beyond
// (the kubelet's newTerminationOrdering: 14 on the benchmark's pods).
// Allocation counts do not depend on the machine, so they are checked
// exactly.
func TestAllocationBudgets(t *testing.T) {
	gen := podgen.Cases(podgen.CaseOptions{})
	grace := int64(30)
	for i := range 300 {
		c := gen.Example(i)
		pod, f := c.Pod, c.Features
		var running []string
		for _, in := range c.State.Containers {
			running = append(running, in.Name)
		}
		finished, notFinished := &termination.WorkerState{Finished: true}, &termination.WorkerState{TerminatingAt: podgen.Epoch}
		for _, b := range []struct {
			name string
			max  float64
			run  func()
		}{
			{"CanBeDeleted", 0, func() {
				termination.CanBeDeleted(pod, c.State, finished)
				termination.CanBeDeleted(pod, c.State, notFinished)
				termination.CanBeDeleted(pod, nil, nil)
			}},
			{"ContainerGracePeriod, StopTimeout, EffectiveGracePeriod, EvictionGracePeriod, HasSidecars", 0, func() {
				for j := range pod.Spec.Containers {
					g := termination.ContainerGracePeriod(pod, &pod.Spec.Containers[j], vocab.ReasonLivenessProbe, f)
					termination.StopTimeout(g, termination.StopOptions{Features: f, HasPreStop: true, PreStop: 3 * time.Second, Ordered: true, TurnAfter: 5 * time.Second})
					termination.StopTimeout(g, termination.StopOptions{Features: f, GracePeriodOverride: &grace})
				}
				termination.EffectiveGracePeriod(0, pod, nil, f)
				termination.EffectiveGracePeriod(30, pod, &grace, f)
				termination.EvictionGracePeriod(pod, false, 60, f)
				termination.HasSidecars(pod)
			}},
		} {
			if n := testing.AllocsPerRun(3, b.run); n > b.max {
				t.Errorf("case %d: %s allocates %v times per call, budget %v", i, b.name, n, b.max)
			}
		}
		sidecars := 0
		for j := range pod.Spec.InitContainers {
			if restart.IsSidecar(&pod.Spec.InitContainers[j]) {
				sidecars++
			}
		}
		nSignals := len(pod.Spec.Containers) + len(pod.Spec.InitContainers)
		budget := 0.0
		switch {
		case sidecars == 0:
		case nSignals <= 10 && sidecars <= 6 && sidecars*(len(pod.Spec.Containers)+1) <= 30:
			budget = 1
		default:
			budget = 4
		}
		if n := testing.AllocsPerRun(3, func() { termination.NewOrdering(pod, running, f) }); n > budget {
			t.Errorf("case %d: NewOrdering allocates %v times, budget %v (%d containers, %d sidecars)", i, n, budget, nSignals, sidecars)
		}
	}
}
