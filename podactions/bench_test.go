package podactions_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
)

// BenchmarkCompute times Compute over 500 generated cases at the v1.37.2
// defaults (differential/bench_test.go compares it with the kubelet's
// computePodActions on the same generators: differential/bench.sh).
func BenchmarkCompute(b *testing.B) {
	f := features.V1_37()
	type tc struct {
		c    podgen.Case
		opts podactions.Options
	}
	gen := rapid.Custom(func(t *rapid.T) tc {
		c := podgen.Cases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")
		return tc{c, podgen.PodActionsOptions(c).Draw(t, "options")}
	})
	cases := make([]tc, 500)
	for i := range cases {
		cases[i] = gen.Example(i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := &cases[i%len(cases)]
		o := c.opts
		o.Features = f
		_ = podactions.Compute(c.c.Pod, c.c.State, o)
	}
}

// BenchmarkComputeResize is BenchmarkCompute on the cases whose answer
// resizes something in place (differential/bench.sh's
// computePodActions(resize) row).
func BenchmarkComputeResize(b *testing.B) {
	f := features.V1_37()
	type tc struct {
		c    podgen.Case
		opts podactions.Options
	}
	gen := rapid.Custom(func(t *rapid.T) tc {
		c := podgen.Cases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")
		return tc{c, podgen.PodActionsOptions(c).Draw(t, "options")}
	})
	var cases []tc
	for i := 0; len(cases) < 200 && i < 100000; i++ {
		c := gen.Example(i)
		o := c.opts
		o.Features = f
		a := podactions.Compute(c.c.Pod, c.c.State, o)
		if len(a.MemoryUpdates)+len(a.CPUUpdates) > 0 || a.UpdatePodResources || a.UpdatePodLevelResources ||
			len(a.VolumesToUpsize)+len(a.VolumesToDownsize) > 0 {
			cases = append(cases, c)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := &cases[i%len(cases)]
		o := c.opts
		o.Features = f
		_ = podactions.Compute(c.c.Pod, c.c.State, o)
	}
}
