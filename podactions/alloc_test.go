package podactions_test

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
)

// resultAllocs is what an answer needs allocated: each list it holds (the
// kills and the updates start with room for two and grow as append grows
// them; the others are made once with room for every container that could
// join them) and each kill message that names its container ("Init
// container app-0 definition changed"; the others are constants).
func resultAllocs(a podactions.Actions) float64 {
	n := 0
	for _, l := range []int{len(a.InitContainersToStart), len(a.ContainersToStart), len(a.EphemeralContainersToStart),
		len(a.ContainersToReset), len(a.VolumesToUpsize), len(a.VolumesToDownsize)} {
		if l > 0 {
			n++
		}
	}
	n += grown[podactions.Kill](len(a.ContainersToKill))
	n += grown[podactions.Update](len(a.MemoryUpdates))
	n += grown[podactions.Update](len(a.CPUUpdates))
	for _, k := range a.ContainersToKill {
		if k.Name != "" && strings.Contains(k.Message, " "+k.Name+" ") {
			n++
		}
	}
	return float64(n)
}

// grown is how many allocations a list of n values made with room for two
// and grown by append takes (none for an empty list).
func grown[T any](n int) int {
	if n == 0 {
		return 0
	}
	s, allocs := make([]T, 0, 2), 1
	for range n {
		if len(s) == cap(s) {
			allocs++
		}
		var v T
		s = append(s, v)
	}
	return allocs
}

// Allocation budgets (issue 13): Compute allocates the lists of its answer
// and the kill messages that name a container, nothing else: no map, no
// copy of the pod or of the runtime state, no list grown twice (the
// kubelet's computePodActions: 16 on the benchmark's pods, 113 on those
// that resize). Counts do not depend on the machine, so they are checked
// exactly, on 500 generated cases and on 100 that resize in place.
func TestAllocationBudgets(t *testing.T) {
	gen := rapid.Custom(func(t *rapid.T) podgen.Case {
		return podgen.Cases(podgen.CaseOptions{}).Draw(t, "case")
	})
	resizes := 0
	for i := 0; i < 500 || resizes < 100 && i < 20000; i++ {
		c := gen.Example(i)
		opts := podgen.PodActionsOptions(c).Example(i)
		opts.Features = c.Features
		a := podactions.Compute(c.Pod, c.State, opts)
		resize := len(a.MemoryUpdates)+len(a.CPUUpdates) > 0 || a.UpdatePodResources || a.UpdatePodLevelResources
		if i >= 500 && !resize {
			continue
		}
		if resize {
			resizes++
		}
		want := resultAllocs(a)
		if a.KillPod && !a.CreateSandbox && len(c.Pod.Spec.InitContainers) > 0 {
			// The init containers to start may have been listed before
			// the pod turned out to be stopped, and the list dropped (as
			// the kubelet drops it).
			if n := testing.AllocsPerRun(3, func() { podactions.Compute(c.Pod, c.State, opts) }); n != want && n != want+1 {
				t.Errorf("case %d: Compute allocates %v times, want %v or %v\n%+v", i, n, want, want+1, a)
			}
			continue
		}
		if n := testing.AllocsPerRun(3, func() { podactions.Compute(c.Pod, c.State, opts) }); n != want {
			t.Errorf("case %d: Compute allocates %v times, want %v (the lists and messages of its answer)\n%+v", i, n, want, a)
		}
	}
	if resizes < 100 {
		t.Errorf("only %d cases resize", resizes)
	}
}
