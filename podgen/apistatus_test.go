package podgen

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"
)

// TestAPIStatusShapes draws API statuses and fails when a shape the
// phase and condition decisions branch on never appears.
func TestAPIStatusShapes(t *testing.T) {
	type pair struct {
		pod *v1.Pod
		st  *v1.PodStatus
	}
	anyStatus := func(p pair, fn func(cs *v1.ContainerStatus) bool) bool {
		for _, list := range [][]v1.ContainerStatus{p.st.InitContainerStatuses, p.st.ContainerStatuses} {
			for i := range list {
				if fn(&list[i]) {
					return true
				}
			}
		}
		return false
	}
	shapes := []struct {
		name string
		has  func(p pair) bool
	}{
		{"a container without a status", func(p pair) bool {
			return len(p.st.InitContainerStatuses)+len(p.st.ContainerStatuses) < len(p.pod.Spec.InitContainers)+len(p.pod.Spec.Containers)
		}},
		{"waiting", func(p pair) bool {
			return anyStatus(p, func(cs *v1.ContainerStatus) bool { return cs.State.Waiting != nil })
		}},
		{"running", func(p pair) bool {
			return anyStatus(p, func(cs *v1.ContainerStatus) bool { return cs.State.Running != nil })
		}},
		{"terminated non-zero", func(p pair) bool {
			return anyStatus(p, func(cs *v1.ContainerStatus) bool {
				return cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0
			})
		}},
		{"no state", func(p pair) bool {
			return anyStatus(p, func(cs *v1.ContainerStatus) bool {
				return cs.State.Waiting == nil && cs.State.Running == nil && cs.State.Terminated == nil
			})
		}},
		{"waiting after a termination", func(p pair) bool {
			return anyStatus(p, func(cs *v1.ContainerStatus) bool {
				return cs.State.Waiting != nil && cs.LastTerminationState.Terminated != nil
			})
		}},
		{"terminated RestartingAllContainers", func(p pair) bool {
			return anyStatus(p, func(cs *v1.ContainerStatus) bool {
				return cs.State.Terminated != nil && cs.State.Terminated.Reason == "RestartingAllContainers"
			})
		}},
		{"started nil", func(p pair) bool { return anyStatus(p, func(cs *v1.ContainerStatus) bool { return cs.Started == nil }) }},
		{"started false", func(p pair) bool {
			return anyStatus(p, func(cs *v1.ContainerStatus) bool { return cs.Started != nil && !*cs.Started })
		}},
		{"ready", func(p pair) bool { return anyStatus(p, func(cs *v1.ContainerStatus) bool { return cs.Ready }) }},
		{"a stranger", func(p pair) bool {
			return anyStatus(p, func(cs *v1.ContainerStatus) bool { return cs.Name == "stranger" })
		}},
		{"Initialized=True", func(p pair) bool {
			for _, c := range p.st.Conditions {
				if c.Type == v1.PodInitialized && c.Status == v1.ConditionTrue {
					return true
				}
			}
			return false
		}},
		{"terminal phase", func(p pair) bool { return p.st.Phase == v1.PodSucceeded || p.st.Phase == v1.PodFailed }},
	}
	seen := make([]bool, len(shapes))
	rapid.Check(t, func(rt *rapid.T) {
		// Five pods per case, so that the rarest shapes (about 5% of
		// pods) all but surely appear in a run.
		for range 5 {
			pod := Pod(PodOptions{}).Draw(rt, "pod")
			p := pair{pod, APIStatus(pod, APIStatusOptions{}).Draw(rt, "status")}
			for i, s := range shapes {
				if s.has(p) {
					seen[i] = true
				}
			}
		}
	})
	for i, s := range shapes {
		if !seen[i] {
			t.Errorf("shape %q never drawn", s.name)
		}
	}
	// A nil pod still gives a status.
	rapid.Check(t, func(rt *rapid.T) {
		if APIStatus(nil, APIStatusOptions{NoStrangers: true}).Draw(rt, "status") == nil {
			rt.Fatal("nil status")
		}
	})
}
