package restart

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// TestShouldContainerBeRestartedRulesOff covers the restartPolicy switch
// ShouldContainerBeRestarted takes with ContainerRestartRules off: Never
// never restarts, OnFailure restarts on a non-zero exit code only, Always
// always.
func TestShouldContainerBeRestartedRulesOff(t *testing.T) {
	f, err := features.V1_37().With(features.RestartAllContainersOnContainerExits, false)
	if err == nil {
		f, err = f.With(features.ContainerRestartRules, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		policy v1.RestartPolicy
		code   int
		want   bool
	}{
		{v1.RestartPolicyNever, 0, false},
		{v1.RestartPolicyNever, 1, false},
		{v1.RestartPolicyOnFailure, 0, false},
		{v1.RestartPolicyOnFailure, 1, true},
		{v1.RestartPolicyOnFailure, 137, true},
		{v1.RestartPolicyAlways, 0, true},
		{v1.RestartPolicyAlways, 1, true},
	} {
		pod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: tc.policy, Containers: []v1.Container{{Name: "app"}}}}
		st := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c1", Name: "app", State: runtimestate.Exited, ExitCode: tc.code}}}
		if got := ShouldContainerBeRestarted(&pod.Spec.Containers[0], pod, st, f); got != tc.want {
			t.Errorf("restartPolicy %s, exit %d: restart %v, want %v", tc.policy, tc.code, got, tc.want)
		}
	}
}
