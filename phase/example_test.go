package phase_test

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/phase"
)

// A bare pod with restartPolicy Never whose only container exited 7 fails
// (real-cluster fact 9, docs/real-cluster-facts.md#fact-9). Once the API says Failed, the phase never moves,
// even when a later status reads differently: with no status cached, the
// API status is the kubelet's previous status.
func Example() {
	pod := &v1.Pod{Spec: v1.PodSpec{
		RestartPolicy: v1.RestartPolicyNever,
		Containers:    []v1.Container{{Name: "app", Image: "busybox"}},
	}}
	status := &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{
		Name:  "app",
		State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 7, Reason: "Error"}},
	}}}
	gates := features.V1_37()

	r := phase.Compute(pod, status, phase.Options{Features: gates})
	fmt.Println(r.Phase, "-", r.Why)

	pod.Status.Phase = v1.PodFailed
	status.ContainerStatuses[0].State = v1.ContainerState{Running: &v1.ContainerStateRunning{}}
	r = phase.Compute(pod, status, phase.Options{Features: gates})
	s := phase.Resolve(pod, r.Phase, phase.ResolveOptions{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	fmt.Println(r.Phase, "->", s.Phase, "-", s.Why)
	// Output:
	// Failed - every container stopped, one failed, and none will restart
	// Running -> Failed - the previous status was terminal
}
