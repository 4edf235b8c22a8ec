package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	v1 "k8s.io/api/core/v1"
)

// TerminatePod (status_manager.go) marks unknown only the init containers
// up to the last one that left the waiting state or has a last
// termination (initializedContainers): of a done, a running and a waiting
// init container, the running one is marked, the waiting one is not.
func TestTerminatePodInitPrefix(t *testing.T) {
	pod := testPod(v1.PodSpec{InitContainers: []v1.Container{{Name: "i0", Image: "x"}, {Name: "i1", Image: "x"}, {Name: "i2", Image: "x"}},
		Containers: []v1.Container{{Name: "app", Image: "x"}}})
	waiting := v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "PodInitializing"}}
	st := v1.PodStatus{Phase: v1.PodPending, InitContainerStatuses: []v1.ContainerStatus{
		{Name: "i0", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}},
		{Name: "i1", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}},
		{Name: "i2", State: waiting},
	}, ContainerStatuses: []v1.ContainerStatus{{Name: "app", State: waiting}}}
	got := terminatePod(pod, st).InitContainerStatuses
	if got[1].State.Terminated == nil || got[1].State.Terminated.Reason != "ContainerStatusUnknown" {
		t.Errorf("running init container: %+v, want terminated ContainerStatusUnknown", got[1].State)
	}
	if got[2].State.Waiting == nil {
		t.Errorf("waiting init container after the last started: %+v, want left waiting", got[2].State)
	}
}

// hasPodInitialized (status_manager.go) with init containers reads the
// pod's own status: a regular container still waiting, with no last
// termination, and no init container status, is not initialized; a
// running regular container is.
func TestPodInitializedRegularContainers(t *testing.T) {
	pod := testPod(v1.PodSpec{InitContainers: []v1.Container{{Name: "init", Image: "x"}}, Containers: []v1.Container{{Name: "app", Image: "x"}}})
	pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "PodInitializing"}}}}
	if podInitialized(pod) {
		t.Errorf("a waiting regular container, no init status: initialized, want not")
	}
	pod.Status.ContainerStatuses[0].State = v1.ContainerState{Running: &v1.ContainerStateRunning{}}
	if !podInitialized(pod) {
		t.Errorf("a running regular container: not initialized, want initialized")
	}
}

// An exec preStop hook longer than the grace period is cut when the
// killed container exits (the runtime ends the exec with it): the
// ExecSync call of SyncTerminatingPod's kill is done at the exit, not at
// the end of the hook's 10 s.
func TestSyncTerminatingPreStopCutAtExit(t *testing.T) {
	g := int64(5)
	pod := testPod(v1.PodSpec{TerminationGracePeriodSeconds: &g, Containers: []v1.Container{{Name: "app", Image: "web:1",
		Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}}}})
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
		Containers: []runtimestate.Container{{ID: "a1", Name: "app", SandboxID: "s1", State: runtimestate.Running, CreatedAt: t0.Add(-50 * time.Second), StartedAt: t0.Add(-50 * time.Second)}}}
	w := &termination.WorkerState{TerminatingAt: t0, Deleted: true, GracePeriod: 5}
	out := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0, Memory: Memory{Worker: w}, Grace: 5,
		Containers: map[string]Run{"a1": {IgnoreSIGTERM: true, PreStop: Duration(10 * time.Second)}}})
	var hook, stop *Call
	for i := range out.Calls {
		switch out.Calls[i].Method {
		case "ExecSync":
			hook = &out.Calls[i]
		case "StopContainer":
			stop = &out.Calls[i]
		}
	}
	if hook == nil || stop == nil {
		t.Fatalf("calls %s, want an ExecSync and a StopContainer", methods(out.Calls))
	}
	exit := stop.Done - stop.AfterExit
	if hook.Done != exit || hook.Done-hook.At >= 10*time.Second {
		t.Errorf("preStop ExecSync %s to %s; want it cut at the container's exit %s", hook.At, hook.Done, exit)
	}
}

// hasPodInitialized with a sidecar last among the init containers: the
// pod is initialized once the sidecar runs and its startup is done
// (started), not before.
func TestPodInitializedSidecarStarted(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	pod := testPod(v1.PodSpec{InitContainers: []v1.Container{{Name: "side", Image: "x", RestartPolicy: &always}}, Containers: []v1.Container{{Name: "app", Image: "x"}}})
	pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "PodInitializing"}}}}
	yes, no := true, false
	for _, c := range []struct {
		running bool
		started *bool
		want    bool
	}{{true, &yes, true}, {true, &no, false}, {true, nil, false}, {false, &no, false}} {
		cs := v1.ContainerStatus{Name: "side", Started: c.started}
		if c.running {
			cs.State.Running = &v1.ContainerStateRunning{}
		} else {
			cs.State.Waiting = &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}
		}
		pod.Status.InitContainerStatuses = []v1.ContainerStatus{cs}
		if got := podInitialized(pod); got != c.want {
			t.Errorf("sidecar running %v started %v: initialized %v, want %v", c.running, c.started, got, c.want)
		}
	}
}

// SyncTerminatingPod kills the running containers at once, their
// StopContainer calls listed in the runtime's order (newest first) when
// they start together: ordering the calls by time keeps that order.
func TestSyncTerminatingStopsInRuntimeOrder(t *testing.T) {
	g := int64(30)
	pod := testPod(v1.PodSpec{TerminationGracePeriodSeconds: &g, Containers: []v1.Container{{Name: "old", Image: "x"}, {Name: "new", Image: "x"}}})
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
		Containers: []runtimestate.Container{
			{ID: "n1", Name: "new", SandboxID: "s1", State: runtimestate.Running, CreatedAt: t0.Add(-40 * time.Second), StartedAt: t0.Add(-40 * time.Second)},
			{ID: "o1", Name: "old", SandboxID: "s1", State: runtimestate.Running, CreatedAt: t0.Add(-50 * time.Second), StartedAt: t0.Add(-50 * time.Second)},
		}}
	w := &termination.WorkerState{TerminatingAt: t0, Deleted: true, GracePeriod: 30}
	out := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0, Memory: Memory{Worker: w}, Grace: 30,
		Containers: map[string]Run{"n1": {TermAfter: Duration(100 * time.Millisecond)}, "o1": {TermAfter: Duration(100 * time.Millisecond)}}})
	if got := strings.TrimSpace(methods(out.Calls)); got != "StopContainer new, StopContainer old, StopPodSandbox" {
		t.Errorf("calls %s, want StopContainer new, StopContainer old, StopPodSandbox", got)
	}
}

// A container that exited during its exec postStart hook is killed
// (FailedPostStartHook) with its process already gone: an exec preStop
// hook fails at once (no time in the container), a sleep preStop hook,
// run by the kubelet, still sleeps its seconds.
func TestPostStartDiedPreStop(t *testing.T) {
	for _, c := range []struct {
		name    string
		preStop v1.LifecycleHandler
		want    time.Duration
	}{
		{"exec", v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}, 0},
		{"sleep", v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 3}}, 3 * time.Second},
	} {
		pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1", Lifecycle: &v1.Lifecycle{
			PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"warm"}}}, PreStop: &c.preStop}}}})
		beh := map[string]Behaviour{"app": {Runs: []Run{{ExitAfter: Duration(time.Second), PostStart: Duration(5 * time.Second), PreStop: Duration(4 * time.Second)}}}}
		out := Sync(SyncInput{Pod: pod, Now: t0, Behaviours: beh})
		var stop *Call
		for i := range out.Calls {
			if out.Calls[i].Method == "StopContainer" {
				stop = &out.Calls[i]
			}
		}
		if stop == nil || stop.PreStop != c.want {
			t.Errorf("%s preStop: StopContainer %+v, want its preStop %s", c.name, stop, c.want)
		}
	}
}

// A container whose postStart hook fails is killed in the sync that
// started it: its TermStep steps count from that sync's StartContainer.
// Started, hook failing 2 s later, TermStep 5 s and TermAfter 1 s: the
// SIGTERM falls 2 s into a step, so the process exits 3 s + 1 s after it.
func TestPostStartKillTermStepFromThisStart(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1", Lifecycle: &v1.Lifecycle{
		PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"warm"}}}}}}})
	beh := map[string]Behaviour{"app": {Runs: []Run{{PostStart: Duration(2 * time.Second), PostStartFails: true,
		TermStep: Duration(5 * time.Second), TermAfter: Duration(time.Second)}}}}
	out := Sync(SyncInput{Pod: pod, Now: t0, Behaviours: beh})
	var stop *Call
	for i := range out.Calls {
		if out.Calls[i].Method == "StopContainer" {
			stop = &out.Calls[i]
		}
	}
	if stop == nil {
		t.Fatalf("calls %s, want a StopContainer", methods(out.Calls))
	}
	if exit := stop.Done - stop.AfterExit - stop.At; exit != 4*time.Second {
		t.Errorf("StopContainer %+v: process exited %s after the signal, want 4s", stop, exit)
	}
}
