package podactions_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
)

// BenchmarkCompute times Compute over 500 generated cases at the v1.37.2
// defaults (tooling/differential/bench_v1_37_test.go compares it with the kubelet's
// computePodActions on the same generators: tooling/differential/bench.sh).
func BenchmarkCompute(b *testing.B) {
	benchCompute(b, 500, nil)
}

// BenchmarkComputeResize is BenchmarkCompute on the cases whose answer
// resizes something in place (tooling/differential/bench.sh's
// computePodActions(resize) row).
func BenchmarkComputeResize(b *testing.B) {
	benchCompute(b, 200, func(a podactions.Actions) bool {
		return len(a.MemoryUpdates)+len(a.CPUUpdates) > 0 || a.UpdatePodResources || a.UpdatePodLevelResources ||
			len(a.VolumesToUpsize)+len(a.VolumesToDownsize) > 0
	})
}

// benchCompute times Compute at the v1.37.2 defaults over the first n
// generated cases whose answer keep selects (every case when keep is nil),
// looking at no more than 100,000.
func benchCompute(b *testing.B, n int, keep func(podactions.Actions) bool) {
	f := features.V1_37()
	type tc struct {
		c    podgen.Case
		opts podactions.Options
	}
	gen := rapid.Custom(func(t *rapid.T) tc {
		c := podgen.Cases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")
		o := podgen.PodActionsOptions(c).Draw(t, "options")
		o.Features = f
		return tc{c, o}
	})
	var cases []tc
	for i := 0; len(cases) < n && i < 100000; i++ {
		c := gen.Example(i)
		if keep == nil || keep(podactions.Compute(c.c.Pod, c.c.State, c.opts)) {
			cases = append(cases, c)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := &cases[i%len(cases)]
		_ = podactions.Compute(c.c.Pod, c.c.State, c.opts)
	}
}
