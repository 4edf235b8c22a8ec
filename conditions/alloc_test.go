package conditions_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// allocCase is a pod, its runtime state, the previous status and the status
// the kubelet has just generated for it (podstatus.Compute).
type allocCase struct {
	pod       *v1.Pod
	st        *runtimestate.Pod
	prev      *v1.PodStatus
	generated *v1.PodStatus
	f         features.Set
}

func allocCases(n int) []allocCase {
	gen := rapid.Custom(func(t *rapid.T) allocCase {
		c := podgen.StatusCases(podgen.CaseOptions{}).Draw(t, "case")
		c.Pod.Spec.ReadinessGates = podgen.ReadinessGates().Draw(t, "readiness gates")
		r := podstatus.Compute(c.Pod, c.State, podstatus.Options{Features: c.Features, Cached: c.Previous})
		prev := c.Previous
		if prev == nil {
			prev = &c.Pod.Status
		}
		return allocCase{pod: c.Pod, st: c.State, prev: prev, generated: &r.Status, f: c.Features}
	})
	out := make([]allocCase, n)
	for i := range out {
		out[i] = gen.Example(i)
	}
	return out
}

// Allocation budgets (issue 13): each condition generator allocates at most
// once, for its message (the kubelet's fmt.Sprintf and strings.Join text,
// built in one piece up to 512 bytes from the containers' positions, kept
// as bits up to 64 containers; at most twice beyond 512 bytes, and a list
// per set of names beyond 64 containers); PodReadyToStartContainers,
// AllContainersRestarting and the
// predicates allocate nothing. Generate allocates the list it returns plus
// the messages of Initialized, ContainersReady (which Ready shares) and of
// the readiness gates: at most 4. Counts do not depend on the machine, so
// they are checked exactly.
func TestAllocationBudgets(t *testing.T) {
	messages := 0
	for i, c := range allocCases(300) {
		s := c.generated
		all := append(append([]v1.ContainerStatus{}, s.InitContainerStatuses...), s.ContainerStatuses...)
		msg := func(cond v1.PodCondition) float64 {
			if cond.Message != "" {
				messages++
				return 1
			}
			return 0
		}
		cr := conditions.ContainersReady(c.pod, c.prev, all, s.Phase, c.f)
		rd := conditions.Ready(c.pod, c.prev, s.Conditions, all, s.Phase, c.f)
		in := conditions.Initialized(c.pod, c.prev, all, s.Phase, c.f)
		for _, b := range []struct {
			name string
			want float64
			run  func()
		}{
			{"ContainersReady", msg(cr), func() { conditions.ContainersReady(c.pod, c.prev, all, s.Phase, c.f) }},
			{"Ready", msg(rd), func() { conditions.Ready(c.pod, c.prev, s.Conditions, all, s.Phase, c.f) }},
			{"Initialized", msg(in), func() { conditions.Initialized(c.pod, c.prev, all, s.Phase, c.f) }},
			{"PodReadyToStartContainers", 0, func() { conditions.PodReadyToStartContainers(c.pod, c.prev, c.st, c.f) }},
			{"AllContainersRestarting", 0, func() { conditions.AllContainersRestarting(c.pod, c.st, c.prev, s.Phase, c.f) }},
			{"HasAnyRegularContainerStarted, OwnedByKubelet", 0, func() {
				conditions.HasAnyRegularContainerStarted(&c.pod.Spec, all)
				for _, cond := range s.Conditions {
					conditions.OwnedByKubelet(cond.Type, c.f)
				}
			}},
			{"Generate", 4, func() {
				conditions.Generate(c.pod, s, conditions.Options{Features: c.f, Cached: c.prev, Runtime: c.st})
			}},
		} {
			n := testing.AllocsPerRun(3, b.run)
			if b.name == "Generate" && n > b.want || b.name != "Generate" && n != b.want {
				t.Errorf("case %d: %s allocates %v times per call, want %v", i, b.name, n, b.want)
			}
		}
	}
	if messages == 0 {
		t.Error("no condition had a message: the cases no longer reach the message paths")
	}
}

func BenchmarkGenerate(b *testing.B) {
	cases := allocCases(500)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := &cases[i%len(cases)]
		conditions.Generate(c.pod, c.generated, conditions.Options{Features: c.f, Cached: c.prev, Runtime: c.st})
	}
}
