package conditions_test

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// The conditions of a running pod whose app container is not ready yet;
// the status manager then fills in lastTransitionTime.
func Example() {
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "nginx"}}}}
	generated := &v1.PodStatus{Phase: v1.PodRunning, ContainerStatuses: []v1.ContainerStatus{{
		Name: "app", Ready: false,
		State: v1.ContainerState{Running: &v1.ContainerStateRunning{}},
	}}}
	st := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.244.1.6"}}}

	conds := conditions.Generate(pod, generated, conditions.Options{Features: features.V1_37(), Runtime: st})
	conds = conditions.KeepTransitionTimes(conds, &pod.Status, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, c := range conds {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s=%s %s %s", c.Type, c.Status, c.Reason, c.Message)))
	}
	// Output:
	// PodReadyToStartContainers=True
	// Initialized=True
	// Ready=False ContainersNotReady containers with unready status: [app]
	// ContainersReady=False ContainersNotReady containers with unready status: [app]
	// PodScheduled=True
}
