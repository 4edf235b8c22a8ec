package apistatus

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// The code-only differences between kubelet versions in
// convertToAPIContainerStatuses, built from the example inputs of
// shared/kubelet-versions.md (D7, D8) and answered under every version.
func TestComputeVersions(t *testing.T) {
	// D7: a static pod after a kubelet restart: the init container's
	// instance is gone, the app runs.
	initPod := pod(v1.RestartPolicyAlways, []v1.Container{{Name: "setup", Image: "img:setup"}}, "app")
	completed := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: Completed, Message: MessageInitAssumedCompleted}}
	for _, tc := range []struct {
		f    features.Set
		want v1.ContainerState
	}{
		{features.V1_35(), waiting(PodInitializing)},
		{features.V1_36(), completed},
		{features.V1_37(), completed},
	} {
		got := Compute(initPod, rstate(running("c2", "app", 30, 0)), Options{Features: tc.f})
		if d := diff(tc.want, got.InitContainerStatuses[0].State); d != "" {
			t.Errorf("D7 %s: setup state (-want +got):\n%s", tc.f.Version(), d)
		}
	}

	// D8: the previous status had app terminated (exit 42, ID A); the
	// runtime now has only a new instance B running (A was removed by a
	// RestartAllContainers reset). Only v1.36 on carries A's termination
	// into lastState, and only with the RestartAllContainers gate on, which
	// v1.35 has off by default: turned on here, v1.35 still does not.
	app := pod(v1.RestartPolicyAlways, nil, "app")
	prev := &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://A",
		State: v1.ContainerState{Terminated: terminatedAPI("A", 10, 42, "Error")}}}}
	v135on, _ := features.V1_35().With(features.RestartAllContainersOnContainerExits, true)
	v137off, _ := features.V1_37().With(features.RestartAllContainersOnContainerExits, false)
	for _, tc := range []struct {
		f     features.Set
		carry bool
	}{
		{features.V1_35(), false},
		{v135on, false},
		{features.V1_36(), true},
		{features.V1_37(), true},
		{v137off, false},
	} {
		got := Compute(app, rstate(running("B", "app", 30, 0)), Options{Features: tc.f, Cached: prev})
		last := got.ContainerStatuses[0].LastTerminationState.Terminated
		if carried := last != nil && last.ExitCode == 42; carried != tc.carry {
			t.Errorf("D8 %s: lastState.terminated = %+v, want carried over: %v", tc.f, last, tc.carry)
		}
	}
}
