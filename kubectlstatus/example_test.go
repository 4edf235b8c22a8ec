package kubectlstatus_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
)

// A container in crash-loop back-off: the phase stays Running, kubectl
// shows the waiting reason.
func ExampleCompute() {
	pod := &v1.Pod{Status: v1.PodStatus{
		Phase: v1.PodRunning,
		ContainerStatuses: []v1.ContainerStatus{{
			Name:         "app",
			RestartCount: 6,
			State:        v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		}},
	}}
	fmt.Println(pod.Status.Phase, kubectlstatus.Compute(pod))
	// Output: Running CrashLoopBackOff
}
