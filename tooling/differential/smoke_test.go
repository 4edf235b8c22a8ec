//go:build kubeletlogic_overlay

package differential

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/flowcontrol"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletgates"
)

func smokePod(policy v1.RestartPolicy, containers ...v1.Container) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: "uid-1", Name: "smoke", Namespace: "ns"},
		Spec:       v1.PodSpec{RestartPolicy: policy, Containers: containers},
	}
}

func readySandbox(id string, attempt uint32) *runtimeapi.PodSandboxStatus {
	return &runtimeapi.PodSandboxStatus{
		Id:       id,
		State:    runtimeapi.PodSandboxState_SANDBOX_READY,
		Metadata: &runtimeapi.PodSandboxMetadata{Name: "smoke", Namespace: "ns", Uid: "uid-1", Attempt: attempt},
		Network:  &runtimeapi.PodSandboxNetworkStatus{Ip: "10.0.0.1"},
	}
}

func TestSmokeComputePodActionsNoSandbox(t *testing.T) {
	pod := smokePod(v1.RestartPolicyAlways, v1.Container{Name: "app", Image: "busybox"})
	status := &kubecontainer.PodStatus{ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}

	got := kuberuntime.KLComputePodActions(pod, status, nil, nil, false)
	if !got.KillPod || !got.CreateSandbox || got.Attempt != 0 || got.SandboxID != "" {
		t.Errorf("sandbox fields: got KillPod=%v CreateSandbox=%v Attempt=%d SandboxID=%q", got.KillPod, got.CreateSandbox, got.Attempt, got.SandboxID)
	}
	if diff := cmp.Diff([]int{0}, got.ContainersToStart); diff != "" {
		t.Errorf("ContainersToStart (-want +got):\n%s", diff)
	}
	if got.InitContainersToStart != nil || len(got.ContainersToKill) != 0 || got.ContainersToReset != nil {
		t.Errorf("unexpected actions: %+v", got)
	}
}

func TestSmokeComputePodActionsLivenessFailure(t *testing.T) {
	app := v1.Container{Name: "app", Image: "busybox"}
	pod := smokePod(v1.RestartPolicyAlways, app)
	id := kubecontainer.ContainerID{Type: "containerd", ID: "c1"}
	status := &kubecontainer.PodStatus{
		ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		SandboxStatuses: []*runtimeapi.PodSandboxStatus{readySandbox("sb1", 0)},
		ContainerStatuses: []*kubecontainer.Status{{
			ID: id, Name: "app", State: kubecontainer.ContainerStateRunning,
			Hash: kubecontainer.HashContainer(&pod.Spec.Containers[0]),
		}},
	}
	status.ActiveContainerStatuses = status.ContainerStatuses

	got := kuberuntime.KLComputePodActions(pod, status, map[string]string{id.String(): "Failure"}, nil, false)
	if got.KillPod || got.CreateSandbox || got.SandboxID != "sb1" {
		t.Errorf("sandbox fields: %+v", got)
	}
	if diff := cmp.Diff([]int{0}, got.ContainersToStart); diff != "" {
		t.Errorf("ContainersToStart (-want +got):\n%s", diff)
	}
	kill, ok := got.ContainersToKill[id.String()]
	if !ok {
		t.Fatalf("ContainersToKill has no entry for %s: %+v", id, got.ContainersToKill)
	}
	if kill.Name != "app" || kill.Reason != "LivenessProbe" || kill.Message != "Container app failed liveness probe, will be restarted" || kill.Container != &pod.Spec.Containers[0] {
		t.Errorf("kill info: %+v", kill)
	}

	// The probe result must not leak into the next call.
	again := kuberuntime.KLComputePodActions(pod, status, nil, nil, false)
	if again.KillPod || len(again.ContainersToKill) != 0 || len(again.ContainersToStart) != 0 {
		t.Errorf("probe result leaked into the next call: %+v", again)
	}
}

func TestSmokeComputePodActionsRestartAll(t *testing.T) {
	// NodeDeclaredFeatures: RestartAllContainersOnContainerExits depends on
	// it, and kubelet v1.35 has it off by default (v1.37 locks it on).
	kubeletgates.Set(t, map[string]bool{"NodeDeclaredFeatures": true, "RestartAllContainersOnContainerExits": true})
	src := v1.Container{Name: "src", Image: "busybox", RestartPolicyRules: []v1.ContainerRestartRule{{
		Action:    v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}},
	}}}
	pod := smokePod(v1.RestartPolicyAlways, v1.Container{Name: "victim", Image: "busybox"}, src)
	victimID := kubecontainer.ContainerID{Type: "containerd", ID: "v1"}
	srcID := kubecontainer.ContainerID{Type: "containerd", ID: "s1"}
	status := &kubecontainer.PodStatus{
		ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		SandboxStatuses: []*runtimeapi.PodSandboxStatus{readySandbox("sb1", 0)},
		ContainerStatuses: []*kubecontainer.Status{
			{ID: srcID, Name: "src", State: kubecontainer.ContainerStateExited, ExitCode: 42},
			{ID: victimID, Name: "victim", State: kubecontainer.ContainerStateRunning},
		},
	}
	got := kuberuntime.KLComputePodActions(pod, status, nil, nil, true)
	want := []kuberuntime.KLContainerToReset{
		{ContainerID: victimID.String(), Container: &pod.Spec.Containers[0], Kill: true},
		{ContainerID: srcID.String(), Container: &pod.Spec.Containers[1], Kill: false},
	}
	if diff := cmp.Diff(want, got.ContainersToReset); diff != "" {
		t.Errorf("ContainersToReset (-want +got):\n%s", diff)
	}
}

func TestSmokeDoBackOff(t *testing.T) {
	clock := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	backOff := flowcontrol.NewFakeBackOff(10*time.Second, 300*time.Second, clock)
	pod := smokePod(v1.RestartPolicyAlways, v1.Container{Name: "app", Image: "busybox"})
	status := &kubecontainer.PodStatus{
		ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		ContainerStatuses: []*kubecontainer.Status{{
			ID: kubecontainer.ContainerID{Type: "containerd", ID: "c1"}, Name: "app",
			State: kubecontainer.ContainerStateExited, ExitCode: 1, FinishedAt: clock.Now(),
		}},
	}
	c := &pod.Spec.Containers[0]

	if in, msg, err := kuberuntime.KLDoBackOff(pod, c, status, backOff); in || msg != "" || err != nil {
		t.Fatalf("first exit: got (%v, %q, %v), want no back-off", in, msg, err)
	}
	in, msg, err := kuberuntime.KLDoBackOff(pod, c, status, backOff)
	wantMsg := "back-off 10s restarting failed container=app pod=smoke_ns(uid-1)"
	if !in || msg != wantMsg || err == nil || err.Error() != "CrashLoopBackOff" {
		t.Fatalf("second call: got (%v, %q, %v), want (true, %q, CrashLoopBackOff)", in, msg, err, wantMsg)
	}
	clock.Step(11 * time.Second)
	if in, _, _ := kuberuntime.KLDoBackOff(pod, c, status, backOff); in {
		t.Fatalf("after 11s: still in back-off")
	}
	if got := backOff.Get(kuberuntime.GetBackoffKey(pod, c)); got != 20*time.Second {
		t.Errorf("backoff after second Next = %v, want 20s", got)
	}
}

func TestSmokeIsInitContainerFailed(t *testing.T) {
	for _, tc := range []struct {
		st   kubecontainer.Status
		want bool
	}{
		{kubecontainer.Status{State: kubecontainer.ContainerStateExited, ExitCode: 1}, true},
		{kubecontainer.Status{State: kubecontainer.ContainerStateExited, ExitCode: 0}, false},
		{kubecontainer.Status{State: kubecontainer.ContainerStateUnknown}, true},
		{kubecontainer.Status{State: kubecontainer.ContainerStateRunning, Reason: "OOMKilled"}, true},
		{kubecontainer.Status{State: kubecontainer.ContainerStateRunning}, false},
	} {
		if got := kuberuntime.KLIsInitContainerFailed(&tc.st); got != tc.want {
			t.Errorf("KLIsInitContainerFailed(%+v) = %v, want %v", tc.st, got, tc.want)
		}
	}
}

func TestSmokeNewCrashLoopBackOff(t *testing.T) {
	d := func(x time.Duration) *time.Duration { return &x }
	check := func(t *testing.T, maxPeriod *time.Duration, wantMax, wantInitial time.Duration) {
		t.Helper()
		gotMax, gotInitial := kubelet.KLNewCrashLoopBackOffForMax(maxPeriod)
		if gotMax != wantMax || gotInitial != wantInitial {
			t.Errorf("newCrashLoopBackOff(max=%v) = (max %v, initial %v), want (%v, %v)", maxPeriod, gotMax, gotInitial, wantMax, wantInitial)
		}
	}
	t.Run("defaults", func(t *testing.T) { check(t, d(300*time.Second), 300*time.Second, 10*time.Second) })
	t.Run("configured 2s", func(t *testing.T) { check(t, d(2*time.Second), 2*time.Second, 2*time.Second) })
	t.Run("reduced decay", func(t *testing.T) {
		kubeletgates.Set(t, map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": true})
		check(t, d(300*time.Second), 300*time.Second, time.Second)
	})
	t.Run("max gate off, reduced decay", func(t *testing.T) {
		kubeletgates.Set(t, map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": true, "KubeletCrashLoopBackOffMax": false})
		check(t, nil, 60*time.Second, time.Second)
	})
	t.Run("max gate off", func(t *testing.T) {
		kubeletgates.Set(t, map[string]bool{"KubeletCrashLoopBackOffMax": false})
		check(t, d(2*time.Second), 300*time.Second, 10*time.Second)
	})
}
