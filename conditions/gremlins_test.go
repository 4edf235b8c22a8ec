package conditions_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/conditions"
)

// The tests in this file kill mutants gremlins left alive in conditions
// (tooling/mutation/gremlins/triage/conditions.md).

func runningPod() (*v1.Pod, *v1.PodStatus) {
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	status := &v1.PodStatus{Phase: v1.PodRunning, ContainerStatuses: []v1.ContainerStatus{{
		Name: "app", Ready: true, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}},
	}}}
	return pod, status
}

// TestGenerateListRoom: Generate makes room for every condition it may add,
// so the resize conditions and a DisruptionTarget appended from the cached
// status cost no allocation beyond the list itself.
func TestGenerateListRoom(t *testing.T) {
	pod, status := runningPod()
	resize := []v1.PodCondition{
		{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: "Deferred"},
		{Type: v1.PodResizeInProgress, Status: v1.ConditionTrue},
	}
	cached := &v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: "TerminationByKubelet"}}}
	allocs := func(opts conditions.Options) float64 {
		return testing.AllocsPerRun(5, func() { conditions.Generate(pod, status, opts) })
	}
	base := allocs(conditions.Options{})
	for _, tc := range []struct {
		name string
		opts conditions.Options
		want int // conditions in the list
	}{
		{"two resize conditions", conditions.Options{ResizeConditions: resize}, 7},
		{"a cached DisruptionTarget", conditions.Options{Cached: cached}, 6},
		{"both", conditions.Options{ResizeConditions: resize, Cached: cached}, 8},
	} {
		if n := len(conditions.Generate(pod, status, tc.opts)); n != tc.want {
			t.Errorf("%s: %d conditions, want %d", tc.name, n, tc.want)
		}
		if got := allocs(tc.opts); got != base {
			t.Errorf("%s: %v allocations, want %v as without them (the list grew)", tc.name, got, base)
		}
	}
}

// TestGenerateDisruptionTargetFirst: a DisruptionTarget that is the pod's
// first condition is replaced in place by the previous status's one, not
// listed twice.
func TestGenerateDisruptionTargetFirst(t *testing.T) {
	pod, status := runningPod()
	pod.Status.Conditions = []v1.PodCondition{
		{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: "EvictionByEvictionAPI"},
		{Type: "example.com/gate", Status: v1.ConditionTrue},
	}
	cached := &v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: "TerminationByKubelet"}}}
	out := conditions.Generate(pod, status, conditions.Options{Cached: cached})
	n := 0
	for _, c := range out {
		if c.Type == v1.DisruptionTarget {
			n++
		}
	}
	if n != 1 || out[0].Type != v1.DisruptionTarget || out[0].Reason != "TerminationByKubelet" {
		t.Errorf("conditions %+v: want one DisruptionTarget, first, the cached one", out)
	}
}
