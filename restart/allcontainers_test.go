package restart

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

func restartAllPod() *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{
		RestartPolicy:  v1.RestartPolicyAlways,
		InitContainers: []v1.Container{{Name: "prepare"}, {Name: "sidecar", RestartPolicy: policyPtr(v1.ContainerRestartPolicyAlways)}},
		Containers: []v1.Container{{Name: "app", RestartPolicy: policyPtr(v1.ContainerRestartPolicyAlways),
			RestartPolicyRules: []v1.ContainerRestartRule{rule(v1.ContainerRestartRuleActionRestartAllContainers, v1.ContainerRestartRuleOnExitCodesOpIn, 42)}}},
	}}
}

func TestRestartingAllContainers(t *testing.T) {
	def := features.V1_37()
	off := gatesOff(t, features.RestartAllContainersOnContainerExits)
	exited42 := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "a2", Name: "app", State: runtimestate.Exited, ExitCode: 42},
		{ID: "s1", Name: "sidecar", State: runtimestate.Running},
		{ID: "p1", Name: "prepare", State: runtimestate.Exited},
	}}
	exited1 := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "a2", Name: "app", State: runtimestate.Exited, ExitCode: 1}}}
	empty := &runtimestate.Pod{}
	sticky := &v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.AllContainersRestarting, Status: v1.ConditionTrue}}}
	apiTerminated := &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 42}}}}}
	noRules := restartAllPod()
	noRules.Spec.Containers[0].RestartPolicyRules = nil

	for _, tc := range []struct {
		name  string
		pod   *v1.Pod
		st    *runtimestate.Pod
		prev  *v1.PodStatus
		phase v1.PodPhase
		f     features.Set
		want  bool
	}{
		{"exit 42 fires", restartAllPod(), exited42, nil, v1.PodRunning, def, true},
		{"exit 1 does not", restartAllPod(), exited1, nil, v1.PodRunning, def, false},
		{"gate off", restartAllPod(), exited42, nil, v1.PodRunning, off, false},
		{"terminal phase", restartAllPod(), exited42, nil, v1.PodSucceeded, def, false},
		{"no rule in the pod", noRules, exited42, sticky, v1.PodRunning, def, false},
		{"sticky condition keeps it going", restartAllPod(), exited1, sticky, v1.PodRunning, def, true},
		{"cleaned up ends it", restartAllPod(), empty, sticky, v1.PodRunning, def, false},
		{"API status terminated with 42", restartAllPod(), exited1, apiTerminated, v1.PodRunning, def, true},
	} {
		if got := RestartingAllContainers(tc.pod, tc.st, tc.prev, tc.phase, tc.f); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	// nil prev means the kubelet has no cache and reads pod.Status.
	p := restartAllPod()
	p.Status = *sticky
	if !RestartingAllContainers(p, exited1, nil, v1.PodRunning, def) {
		t.Error("nil prev must fall back to pod.Status")
	}
}

// Found by the differential suite: the kubelet reads the previous API status
// of a container only when its newest runtime instance has exited.
func TestShouldAllContainersRestartSkipsPrevWithoutExitedInstance(t *testing.T) {
	pod := restartAllPod()
	pod.Spec.Containers[0].RestartPolicyRules = []v1.ContainerRestartRule{rule(v1.ContainerRestartRuleActionRestartAllContainers, v1.ContainerRestartRuleOnExitCodesOpIn, 0)}
	prev := &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0}}}}}
	running := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "a", Name: "app", State: runtimestate.Running}}}
	if ShouldAllContainersRestart(pod, &runtimestate.Pod{}, prev) || ShouldAllContainersRestart(pod, running, prev) {
		t.Error("prev must not count for a container without an exited instance")
	}
	exited := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "a", Name: "app", State: runtimestate.Exited, ExitCode: 3}}}
	if !ShouldAllContainersRestart(pod, exited, prev) || !ShouldAllContainersRestart(pod, nil, prev) {
		t.Error("prev counts after an exit that fired nothing, and when there is no runtime state")
	}
}
