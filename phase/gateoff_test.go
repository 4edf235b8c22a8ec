package phase

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// rulesOff is a node with ContainerRestartRules off (and the gate that
// depends on it): getPhase then decides from the pod's restartPolicy alone.
func rulesOff(t *testing.T) features.Set {
	t.Helper()
	f, err := features.V1_37().With(features.RestartAllContainersOnContainerExits, false)
	if err == nil {
		f, err = f.With(features.ContainerRestartRules, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestComputeRestartRulesOff covers the branch getPhase takes with
// ContainerRestartRules off, once every container has stopped: Always
// keeps the pod Running, all succeeded gives Succeeded, and a failure gives
// Running under OnFailure and Failed under Never.
func TestComputeRestartRulesOff(t *testing.T) {
	f := rulesOff(t)
	terminated := func(code int32) v1.ContainerStatus {
		return v1.ContainerStatus{Name: "app", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: code}}}
	}
	for _, tc := range []struct {
		policy v1.RestartPolicy
		code   int32
		want   v1.PodPhase
	}{
		{v1.RestartPolicyAlways, 0, v1.PodRunning},
		{v1.RestartPolicyAlways, 1, v1.PodRunning},
		{v1.RestartPolicyOnFailure, 0, v1.PodSucceeded},
		{v1.RestartPolicyOnFailure, 1, v1.PodRunning},
		{v1.RestartPolicyNever, 0, v1.PodSucceeded},
		{v1.RestartPolicyNever, 1, v1.PodFailed},
	} {
		pod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: tc.policy, Containers: []v1.Container{{Name: "app"}}}}
		st := &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{terminated(tc.code)}}
		got := Compute(pod, st, Options{Features: f, PodHasInitialized: true})
		if got.Phase != tc.want {
			t.Errorf("restartPolicy %s, exit %d: phase %s, want %s (%s)", tc.policy, tc.code, got.Phase, tc.want, got)
		}
	}
}
