package apistatus_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
)

// BenchmarkCompute times Compute over 500 generated cases at the v1.37.2
// defaults (tooling/differential/bench.sh compares it with the kubelet's
// convertToAPIContainerStatuses on the same generator).
func BenchmarkCompute(b *testing.B) {
	f := features.V1_37()
	gen := rapid.Custom(func(t *rapid.T) podgen.StatusCase {
		return podgen.StatusCases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")
	})
	cases := make([]podgen.StatusCase, 500)
	for i := range cases {
		cases[i] = gen.Example(i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := &cases[i%len(cases)]
		apistatus.Compute(c.Pod, c.State, apistatus.Options{Features: f, Cached: c.Previous})
	}
}
