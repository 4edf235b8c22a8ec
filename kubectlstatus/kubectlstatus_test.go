package kubectlstatus

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ptr[E any](v E) *E { return &v }

func running(name string, ready bool) v1.ContainerStatus {
	return v1.ContainerStatus{Name: name, Ready: ready, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}
}

func waiting(name, reason string) v1.ContainerStatus {
	return v1.ContainerStatus{Name: name, State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: reason}}}
}

func terminated(name string, code int32, reason string) v1.ContainerStatus {
	return v1.ContainerStatus{Name: name, State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: code, Reason: reason}}}
}

func cond(t v1.PodConditionType, s v1.ConditionStatus) v1.PodCondition {
	return v1.PodCondition{Type: t, Status: s}
}

func TestCompute(t *testing.T) {
	initSpec := []v1.Container{{Name: "init-a"}, {Name: "init-b"}}
	sidecarSpec := []v1.Container{{Name: "side", RestartPolicy: ptr(v1.ContainerRestartPolicyAlways)}, {Name: "init"}}
	deleted := &metav1.Time{}

	tests := []struct {
		name string
		pod  *v1.Pod
		want string
	}{
		{"nil pod", nil, ""},
		// Fact 16 (docs/real-cluster-facts.md#fact-16): exit 1 under Always, restarted 6 times: phase Running,
		// the container waiting in back-off.
		{"fact 16: crash loop", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodRunning,
			ContainerStatuses: []v1.ContainerStatus{{Name: "app", RestartCount: 6,
				State:                v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}}}, "CrashLoopBackOff"},
		{"fact 16: between back-offs the terminated reason shows", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodRunning,
			ContainerStatuses: []v1.ContainerStatus{terminated("app", 1, "Error")}}}, "Error"},
		// Fact 17 (docs/real-cluster-facts.md#fact-17): scheduled, containers not started yet.
		{"fact 17: container creating", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodPending,
			Conditions:        []v1.PodCondition{cond(v1.PodScheduled, v1.ConditionTrue)},
			ContainerStatuses: []v1.ContainerStatus{waiting("app", "ContainerCreating")}}}, "ContainerCreating"},
		// Fact 18 (docs/real-cluster-facts.md#fact-18): a running, ready nginx.
		{"fact 18: running", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodRunning,
			Conditions:        []v1.PodCondition{cond(v1.PodScheduled, v1.ConditionTrue), cond(v1.PodReady, v1.ConditionTrue)},
			ContainerStatuses: []v1.ContainerStatus{running("nginx", true)}}}, "Running"},
		{"pending without statuses shows the phase", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodPending}}, "Pending"},
		{"reason replaces the phase", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodFailed, Reason: "Evicted"}}, "Evicted"},
		{"scheduling gated", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodPending,
			Conditions: []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonSchedulingGated}}}}, "SchedulingGated"},
		{"first init container running: Init:0/2", &v1.Pod{Spec: v1.PodSpec{InitContainers: initSpec}, Status: v1.PodStatus{Phase: v1.PodPending,
			InitContainerStatuses: []v1.ContainerStatus{running("init-a", false), waiting("init-b", "PodInitializing")},
			ContainerStatuses:     []v1.ContainerStatus{waiting("app", "PodInitializing")}}}, "Init:0/2"},
		{"second init container: Init:1/2", &v1.Pod{Spec: v1.PodSpec{InitContainers: initSpec}, Status: v1.PodStatus{Phase: v1.PodPending,
			InitContainerStatuses: []v1.ContainerStatus{terminated("init-a", 0, "Completed"), waiting("init-b", "PodInitializing")}}}, "Init:1/2"},
		{"the first unfinished init container decides", &v1.Pod{Spec: v1.PodSpec{InitContainers: initSpec}, Status: v1.PodStatus{Phase: v1.PodPending,
			InitContainerStatuses: []v1.ContainerStatus{waiting("init-a", ""), terminated("init-b", 1, "Error")}}}, "Init:0/2"},
		{"init crash loop", &v1.Pod{Spec: v1.PodSpec{InitContainers: initSpec}, Status: v1.PodStatus{Phase: v1.PodPending,
			InitContainerStatuses: []v1.ContainerStatus{waiting("init-a", "CrashLoopBackOff")}}}, "Init:CrashLoopBackOff"},
		{"init failed without reason shows the exit code", &v1.Pod{Spec: v1.PodSpec{InitContainers: initSpec}, Status: v1.PodStatus{Phase: v1.PodFailed,
			InitContainerStatuses: []v1.ContainerStatus{terminated("init-a", 3, "")}}}, "Init:ExitCode:3"},
		{"init killed by a signal", &v1.Pod{Spec: v1.PodSpec{InitContainers: initSpec}, Status: v1.PodStatus{Phase: v1.PodFailed,
			InitContainerStatuses: []v1.ContainerStatus{{Name: "init-a", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 137, Signal: 9}}}}}}, "Init:Signal:9"},
		{"started sidecar is skipped; the regular init container shows", &v1.Pod{Spec: v1.PodSpec{InitContainers: sidecarSpec}, Status: v1.PodStatus{Phase: v1.PodPending,
			InitContainerStatuses: []v1.ContainerStatus{{Name: "side", Started: ptr(true), State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}, running("init", false)}}}, "Init:1/2"},
		{"sidecar not started yet", &v1.Pod{Spec: v1.PodSpec{InitContainers: sidecarSpec}, Status: v1.PodStatus{Phase: v1.PodPending,
			InitContainerStatuses: []v1.ContainerStatus{{Name: "side", Started: ptr(false), State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}}}, "Init:0/2"},
		{"Initialized=True lets the containers decide despite an init status", &v1.Pod{Spec: v1.PodSpec{InitContainers: initSpec}, Status: v1.PodStatus{Phase: v1.PodRunning,
			Conditions:            []v1.PodCondition{cond(v1.PodInitialized, v1.ConditionTrue)},
			InitContainerStatuses: []v1.ContainerStatus{waiting("init-a", "CrashLoopBackOff")},
			ContainerStatuses:     []v1.ContainerStatus{waiting("app", "ImagePullBackOff")}}}, "ImagePullBackOff"},
		{"PodInitializing is the containers' waiting reason once init is done", &v1.Pod{Spec: v1.PodSpec{InitContainers: initSpec}, Status: v1.PodStatus{Phase: v1.PodPending,
			InitContainerStatuses: []v1.ContainerStatus{terminated("init-a", 0, "Completed"), terminated("init-b", 0, "Completed")},
			ContainerStatuses:     []v1.ContainerStatus{waiting("app", "PodInitializing")}}}, "PodInitializing"},
		{"the first container in the list decides (read last to first)", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodRunning,
			ContainerStatuses: []v1.ContainerStatus{waiting("a", "ErrImagePull"), waiting("b", "CrashLoopBackOff")}}}, "ErrImagePull"},
		{"completed", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodSucceeded,
			ContainerStatuses: []v1.ContainerStatus{terminated("a", 0, "Completed")}}}, "Completed"},
		{"completed with another container running and Ready: Running", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodRunning,
			Conditions:        []v1.PodCondition{cond(v1.PodReady, v1.ConditionTrue)},
			ContainerStatuses: []v1.ContainerStatus{terminated("a", 0, "Completed"), running("b", true)}}}, "Running"},
		{"completed with another container running, pod not Ready: NotReady", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodRunning,
			ContainerStatuses: []v1.ContainerStatus{terminated("a", 0, "Completed"), running("b", true)}}}, "NotReady"},
		{"completed with another that failed: the failure's reason", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodFailed,
			ContainerStatuses: []v1.ContainerStatus{terminated("a", 0, "Completed"), terminated("b", 2, "Error")}}}, "Error"},
		{"terminated without reason", &v1.Pod{Status: v1.PodStatus{Phase: v1.PodFailed,
			ContainerStatuses: []v1.ContainerStatus{terminated("a", 7, "")}}}, "ExitCode:7"},
		{"deleted while running: Terminating", &v1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: deleted}, Status: v1.PodStatus{Phase: v1.PodRunning,
			ContainerStatuses: []v1.ContainerStatus{running("a", true)}}}, "Terminating"},
		{"deleted after success: the terminal status shows", &v1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: deleted}, Status: v1.PodStatus{Phase: v1.PodSucceeded,
			ContainerStatuses: []v1.ContainerStatus{terminated("a", 0, "Completed")}}}, "Completed"},
		{"deleted on a lost node: Unknown", &v1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: deleted}, Status: v1.PodStatus{Phase: v1.PodRunning, Reason: NodeLost}}, "Unknown"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Compute(tc.pod); got != tc.want {
				t.Errorf("Compute = %q, want %q", got, tc.want)
			}
		})
	}
}
