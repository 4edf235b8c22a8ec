package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// A runtime instance whose name is no container of the pod (a typo in a
// hand-written state) is ignored, as the kubelet ignores it, and Next says
// so first in its messages, naming the nearest container; an instance of
// a spec container gives no such message.
func TestNextSaysOfStrayInstances(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	st := &runtimestate.Pod{
		Sandboxes:  []runtimestate.Sandbox{{ID: "s1", Ready: true, CreatedAt: t0}},
		Containers: []runtimestate.Container{{ID: "c1", Name: "ap", State: runtimestate.Running, CreatedAt: t0, StartedAt: t0}},
	}
	r := sim.Next(pod, st, sim.NextOptions{Now: t0.Add(time.Minute)})
	if len(r.Messages) == 0 || !strings.Contains(r.Messages[0], `runtime instance c1: "ap" is not a container of pod`) || !strings.Contains(r.Messages[0], `did you mean "app"`) {
		t.Fatalf("messages %q: want the stray instance named first", r.Messages)
	}
	st.Containers[0].Name = "app"
	r = sim.Next(pod, st, sim.NextOptions{Now: t0.Add(time.Minute)})
	for _, m := range r.Messages {
		if strings.Contains(m, "not a container") {
			t.Fatalf("a spec container's instance: %q", m)
		}
	}
}
