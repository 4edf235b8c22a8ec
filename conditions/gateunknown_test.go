package conditions_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/features"
)

// TestReadyGateUnknown: a readiness gate is met only by a condition with
// status True; Unknown, like False, keeps the pod not ready. (The mutation
// run's conditions-readiness-gate-unknown was caught only by the
// differential suite, after 497 cases.)
func TestReadyGateUnknown(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{
		Containers:     []v1.Container{{Name: "app"}},
		ReadinessGates: []v1.PodReadinessGate{{ConditionType: "example.com/lb"}},
	}}
	statuses := []v1.ContainerStatus{{Name: "app", Ready: true, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}
	for _, s := range []v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown} {
		conds := []v1.PodCondition{{Type: "example.com/lb", Status: s}}
		got := conditions.Ready(pod, nil, conds, statuses, v1.PodRunning, features.V1_37())
		want := v1.ConditionFalse
		if s == v1.ConditionTrue {
			want = v1.ConditionTrue
		}
		if got.Status != want {
			t.Errorf("gate condition %s: Ready %s (%s), want %s", s, got.Status, got.Reason, want)
		}
	}
}
