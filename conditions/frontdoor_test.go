package conditions_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/features"
)

// Issue 10, item 2: Options without Features is a v1.37.2 node, so the
// AllContainersRestarting condition (gate RestartAllContainersOnContainerExits,
// on by default) does not silently vanish.
func TestOptionsWithoutFeaturesAreV1_37(t *testing.T) {
	restartAll := v1.ContainerRestartRule{Action: v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}
	never := v1.ContainerRestartPolicyNever
	pod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{
		{Name: "app", Image: "busybox", RestartPolicy: &never, RestartPolicyRules: []v1.ContainerRestartRule{restartAll}},
	}}}
	status := &v1.PodStatus{Phase: v1.PodRunning}
	has := func(conds []v1.PodCondition) bool {
		for _, c := range conds {
			if c.Type == v1.AllContainersRestarting {
				return true
			}
		}
		return false
	}
	if !has(conditions.Generate(pod, status, conditions.Options{})) {
		t.Error("Options{}: no AllContainersRestarting condition; the zero gate set must be v1.37.2's defaults")
	}
	off, _ := features.V1_37().With(features.RestartAllContainersOnContainerExits, false)
	if has(conditions.Generate(pod, status, conditions.Options{Features: off})) {
		t.Error("gate off: AllContainersRestarting condition still written")
	}
}
