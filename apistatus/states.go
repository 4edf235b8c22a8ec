package apistatus

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// states hands out the state objects of the statuses one Compute builds,
// and the empty resources of the containers that set none, rather than
// allocating them one by one. The first come from one array of sets, made
// at the first object, with enough sets for chunk terminated states (a
// Compute of one or two containers mostly allocates its states once).
// Further objects of a kind come from arrays of chunk objects of that
// kind. No two statuses share an object, so the result stays free to
// change; the objects merely sit side by side in memory.
type states struct {
	chunk int // terminated states the sets hold at least; objects per array
	sets  []stateSet
	// The objects of each kind taken from sets.
	nw, nr, nt, nres int
	w                []v1.ContainerStateWaiting
	r                []v1.ContainerStateRunning
	t                []v1.ContainerStateTerminated
	res              []v1.ResourceRequirements
	// resChunk is the number of containers of the pod's spec that set no
	// resources and have an instance: no status needs more empty
	// ResourceRequirements than that, so one array beyond the sets is
	// enough.
	resChunk int
}

// stateSet is a unit of states' first array, about what one status takes:
// a status holds at most two state objects (its state and its last
// state), the last state mostly terminated; and, when its container sets
// no resources, one empty ResourceRequirements.
type stateSet struct {
	w   [1]v1.ContainerStateWaiting
	r   [1]v1.ContainerStateRunning
	t   [terminatedPerSet]v1.ContainerStateTerminated
	res v1.ResourceRequirements
}

const terminatedPerSet = 2

// memoryFor returns the statuses of a pod of n containers and, for one
// or two containers (most pods), the sets of their states: both in one
// allocation, the states being needed for every status but one reused
// whole. Larger pods get their sets at the first state (inSets).
func (m *states) memoryFor(n int) ([]v1.ContainerStatus, []stateSet) {
	sets := (m.chunk + terminatedPerSet - 1) / terminatedPerSet
	switch {
	case n == 1 && sets == 1:
		mem := new(struct {
			statuses [1]v1.ContainerStatus
			sets     [1]stateSet
		})
		return mem.statuses[:], mem.sets[:]
	case n == 2 && sets == 2:
		mem := new(struct {
			statuses [2]v1.ContainerStatus
			sets     [2]stateSet
		})
		return mem.statuses[:], mem.sets[:]
	}
	return make([]v1.ContainerStatus, n), nil
}

// inSets returns the set holding the next object of a kind of which each
// set holds per, *taken of them taken already, and its index there, and
// counts it taken; nil once the sets hold no more.
func (m *states) inSets(taken *int, per int) (*stateSet, int) {
	if m.sets == nil {
		m.sets = make([]stateSet, (m.chunk+terminatedPerSet-1)/terminatedPerSet)
	}
	k := *taken
	if k == per*len(m.sets) {
		return nil, 0
	}
	*taken = k + 1
	return &m.sets[k/per], k % per
}

// inArray stores v in the next element of *arr, first made an array of n
// when it is full, and returns the element.
func inArray[T any](arr *[]T, n int, v T) *T {
	if len(*arr) == cap(*arr) {
		*arr = make([]T, 0, n)
	}
	*arr = append(*arr, v)
	return &(*arr)[len(*arr)-1]
}

// withoutResources counts the containers of pod's spec that set no
// requests, limits or claims and have an instance in st.
func withoutResources(pod *v1.Pod, st *runtimestate.Pod) int {
	n := 0
	count := func(name string, r *v1.ResourceRequirements) {
		if r.Limits != nil || r.Requests != nil || r.Claims != nil {
			return
		}
		for i := range st.Containers {
			if st.Containers[i].Name == name {
				n++
				return
			}
		}
	}
	for i := range pod.Spec.InitContainers {
		count(pod.Spec.InitContainers[i].Name, &pod.Spec.InitContainers[i].Resources)
	}
	for i := range pod.Spec.Containers {
		count(pod.Spec.Containers[i].Name, &pod.Spec.Containers[i].Resources)
	}
	for i := range pod.Spec.EphemeralContainers {
		count(pod.Spec.EphemeralContainers[i].Name, &pod.Spec.EphemeralContainers[i].Resources)
	}
	return n
}

// noResources is a new empty ResourceRequirements: resourcesOf's answer
// for a container whose spec sets no requests, limits or claims.
func (m *states) noResources() *v1.ResourceRequirements {
	if s, _ := m.inSets(&m.nres, 1); s != nil {
		return &s.res
	}
	return inArray(&m.res, max(1, m.resChunk-len(m.sets)), v1.ResourceRequirements{})
}

func (m *states) waiting(v v1.ContainerStateWaiting) *v1.ContainerStateWaiting {
	if s, i := m.inSets(&m.nw, 1); s != nil {
		s.w[i] = v
		return &s.w[i]
	}
	return inArray(&m.w, m.chunk, v)
}

func (m *states) running(v v1.ContainerStateRunning) *v1.ContainerStateRunning {
	if s, i := m.inSets(&m.nr, 1); s != nil {
		s.r[i] = v
		return &s.r[i]
	}
	return inArray(&m.r, m.chunk, v)
}

func (m *states) terminated(v v1.ContainerStateTerminated) *v1.ContainerStateTerminated {
	if s, i := m.inSets(&m.nt, terminatedPerSet); s != nil {
		s.t[i] = v
		return &s.t[i]
	}
	return inArray(&m.t, m.chunk, v)
}
