package phase_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/podgen"
)

// Allocation budgets (issue 13): Compute at most 2 per call, and in fact 0
// (the statuses are searched where they are, not copied into one list);
// Resolve, IsStaticPod, PastActiveDeadline and
// HasAnyActiveRegularContainerStarted 0. Allocation counts do not depend
// on the machine, so these are exact; timings are left to the benchmarks.
func TestAllocationBudgets(t *testing.T) {
	gen := rapid.Custom(func(t *rapid.T) podgen.Case {
		c := podgen.Cases(podgen.CaseOptions{}).Draw(t, "case")
		c.Pod.Status = *podgen.APIStatus(c.Pod, podgen.APIStatusOptions{}).Draw(t, "status")
		return c
	})
	now := podgen.Epoch.Add(time.Hour)
	for i := range 300 {
		c := gen.Example(i)
		pod, st, f := c.Pod, c.State, c.Features
		for _, b := range []struct {
			name string
			max  float64
			run  func()
		}{
			{"Compute", 0, func() {
				phase.Compute(pod, &pod.Status, phase.Options{Features: f, PodHasInitialized: true})
				phase.Compute(pod, &pod.Status, phase.Options{Features: f, PodIsTerminal: true})
			}},
			{"Resolve", 0, func() { phase.Resolve(pod, "Running", phase.ResolveOptions{Now: now}) }},
			{"IsStaticPod", 0, func() { phase.IsStaticPod(pod) }},
			{"PastActiveDeadline", 0, func() { phase.PastActiveDeadline(pod, nil, now) }},
			{"HasAnyActiveRegularContainerStarted", 0, func() { phase.HasAnyActiveRegularContainerStarted(pod, st) }},
		} {
			if n := testing.AllocsPerRun(3, b.run); n > b.max {
				t.Errorf("case %d: %s allocates %v times per call, budget %v\n%s", i, b.name, n, b.max, c)
			}
		}
	}
}

func BenchmarkCompute(b *testing.B) {
	gen := rapid.Custom(func(t *rapid.T) podgen.Case {
		c := podgen.Cases(podgen.CaseOptions{}).Draw(t, "case")
		c.Pod.Status = *podgen.APIStatus(c.Pod, podgen.APIStatusOptions{}).Draw(t, "status")
		return c
	})
	cases := make([]podgen.Case, 500)
	for i := range cases {
		cases[i] = gen.Example(i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := &cases[i%len(cases)]
		phase.Compute(c.Pod, &c.Pod.Status, phase.Options{Features: c.Features})
	}
}
