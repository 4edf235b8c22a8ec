package apistatus

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// TestInstancesOldestFirst: the kubelet orders a pod's instances newest
// first by creation time before converting them
// (convertToAPIContainerStatuses sorts them so), whatever order the
// runtime listed them in: the newest gives the state, the one before it
// the last termination state.
func TestInstancesOldestFirst(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "nginx"}}}}
	st := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "old", Name: "app", Image: "nginx", State: runtimestate.Exited, ExitCode: 1, CreatedAt: t0, StartedAt: t0, FinishedAt: t0.Add(5 * time.Second)},
		{ID: "new", Name: "app", Image: "nginx", State: runtimestate.Running, CreatedAt: t0.Add(10 * time.Second), StartedAt: t0.Add(10 * time.Second)},
	}}
	got := Compute(pod, st, Options{})
	if len(got.ContainerStatuses) != 1 {
		t.Fatalf("%d statuses", len(got.ContainerStatuses))
	}
	cs := got.ContainerStatuses[0]
	if cs.State.Running == nil || cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 1 {
		t.Errorf("want running with the exited instance as last state, got %+v", cs)
	}
}
