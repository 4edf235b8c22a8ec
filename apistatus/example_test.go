package apistatus_test

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// A container that keeps exiting 1 under restartPolicy Always, while the
// kubelet waits out the crash-loop back-off: the reason cache holds
// CrashLoopBackOff, so the status is waiting, and the last exit is the
// last state.
func ExampleCompute() {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := &v1.Pod{Spec: v1.PodSpec{
		RestartPolicy: v1.RestartPolicyAlways,
		Containers:    []v1.Container{{Name: "app", Image: "busybox"}},
	}}
	st := &runtimestate.Pod{
		Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.244.1.6"}},
		Containers: []runtimestate.Container{
			{ID: "c7", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 1, Reason: "Error",
				RestartCount: 6, CreatedAt: t0.Add(8 * time.Minute), StartedAt: t0.Add(8 * time.Minute), FinishedAt: t0.Add(8 * time.Minute)},
			{ID: "c6", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 1, Reason: "Error",
				RestartCount: 5, CreatedAt: t0.Add(5 * time.Minute), StartedAt: t0.Add(5 * time.Minute), FinishedAt: t0.Add(5 * time.Minute)},
		},
	}
	s := apistatus.Compute(pod, st, apistatus.Options{
		Features:      features.V1_37(),
		StartFailures: map[string]vocab.StartFailure{"app": {Reason: "CrashLoopBackOff", Message: "back-off 2m40s restarting failed container=app"}},
	})
	fmt.Print(s)
	// Output: container app: waiting CrashLoopBackOff (back-off 2m40s restarting failed container=app); last terminated exit 1 Error; restarts 6; ready false; started nil; id containerd://c7
}
