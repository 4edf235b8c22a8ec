package apistatus_test

import (
	"fmt"
	"runtime"
	"testing"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Compute's allocations are deterministic, so they are pinned exactly:
// the number and the bytes (size classes included) over podgen's first
// 300 status cases, and for pods of 15, 16 and 17 containers (the
// stack-held index arrays hold 16). A change that allocates more, or
// less, fails here and updates the figures on purpose. Found by gremlins:
// the chunked state arrays, the ID string's size, the index arrays and
// the copies for the start-failure path allocate differently when
// mutated while every status stays equal.
func TestAllocationsPinned(t *testing.T) {
	const wantAllocs, wantBytes = 4136, 1523800
	gen := rapid.Custom(drawAliasInput)
	var allocs, bytes uint64
	for i := range 300 {
		in := gen.Example(i)
		a, b := measure(func() { apistatus.Compute(in.pod, in.st, in.opts) })
		allocs += a
		bytes += b
	}
	for _, n := range []int{15, 16, 17} {
		pod := &v1.Pod{}
		st := &runtimestate.Pod{}
		for i := range n {
			name := fmt.Sprintf("c%02d", i)
			pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: name, Image: "i"})
			st.Containers = append(st.Containers, runtimestate.Container{ID: "id" + name, Name: name, State: runtimestate.Running})
		}
		a, b := measure(func() { apistatus.Compute(pod, st, apistatus.Options{Features: features.V1_37()}) })
		allocs += a
		bytes += b
	}
	if allocs != wantAllocs || bytes != wantBytes {
		t.Errorf("Compute allocated %d times, %d bytes over the pinned inputs; pinned %d and %d", allocs, bytes, wantAllocs, wantBytes)
	}
}

// measure is the least allocation count and bytes of f over five runs of
// 20 calls each, per call (the runtime's own allocations only add).
func measure(f func()) (allocs, bytes uint64) {
	const n = 20
	f()
	allocs, bytes = ^uint64(0), ^uint64(0)
	for range 5 {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		for range n {
			f()
		}
		runtime.ReadMemStats(&b)
		allocs = min(allocs, (b.Mallocs-a.Mallocs)/n)
		bytes = min(bytes, (b.TotalAlloc-a.TotalAlloc)/n)
	}
	return allocs, bytes
}
