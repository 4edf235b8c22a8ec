package termination

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// The kubelet runs a sleep preStop hook itself (runSleepHandler): it takes
// its Seconds whether or not the caller lists it in Options.PreStop. Found
// by the real-time differential test against killPodWithSyncResult: Plan
// used to treat an unlisted sleep hook as one that returns at once.
func TestPlanSleepHookRunsItsSeconds(t *testing.T) {
	grace := int64(3)
	always := v1.ContainerRestartPolicyAlways
	sleep := &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 1}}}
	exec := &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}
	pod := &v1.Pod{Spec: v1.PodSpec{
		TerminationGracePeriodSeconds: &grace,
		InitContainers:                []v1.Container{{Name: "sidecar", RestartPolicy: &always, Lifecycle: exec}},
		Containers:                    []v1.Container{{Name: "app", Lifecycle: sleep}},
	}}
	st := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c2", Name: "app", State: runtimestate.Running},
		{ID: "c1", Name: "sidecar", State: runtimestate.Running},
	}}
	ms := time.Millisecond
	tl := Plan(pod, st, Options{Features: features.V1_37(), ExitAfter: map[string]time.Duration{"app": 300 * ms}})
	app, side := tl.Containers[0], tl.Containers[1]
	if app.PreStopEnd != time.Second || app.Stop.PreStopDeducted != 1 || app.Stop.Timeout != 2 || app.Exit != 1300*ms {
		t.Errorf("app: %+v", app)
	}
	// The exec hook is not listed: it returns at once; the sidecar then
	// waits for the app (1.3 s, 1 s deducted).
	if side.PreStopEnd != 0 || side.WaitEnd != 1300*ms || side.Stop.WaitDeducted != 1 || side.Stop.Timeout != 2 {
		t.Errorf("sidecar: %+v", side)
	}
	// A listed duration wins (a hook cut short).
	tl = Plan(pod, st, Options{Features: features.V1_37(), PreStop: map[string]time.Duration{"app": 200 * ms}})
	if got := tl.Containers[0].PreStopEnd; got != 200*ms {
		t.Errorf("listed sleep hook: preStop end %v, want 200ms", got)
	}
}

// A StopContainer error: the kill fails when the call returns, the
// containers waiting for it are not released and wait out their grace.
func TestPlanStopFails(t *testing.T) {
	grace := int64(3)
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{Spec: v1.PodSpec{
		TerminationGracePeriodSeconds: &grace,
		InitContainers:                []v1.Container{{Name: "sidecar", RestartPolicy: &always}},
		Containers:                    []v1.Container{{Name: "app"}},
	}}
	st := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1"}}, Containers: []runtimestate.Container{
		{ID: "c2", Name: "app", State: runtimestate.Running},
		{ID: "c1", Name: "sidecar", State: runtimestate.Running},
	}}
	ms := time.Millisecond
	tl := Plan(pod, st, Options{Features: features.V1_37(), StopFails: map[string]bool{"app": true},
		ExitAfter: map[string]time.Duration{"app": 300 * ms, "sidecar": 400 * ms}})
	app, side := tl.Containers[0], tl.Containers[1]
	if !app.StopFailed || app.Killed || app.Exit != 0 || app.Deadline() != 0 || app.Stop.Timeout != 3 {
		t.Errorf("app: %+v", app)
	}
	if side.StopFailed || side.WaitEnd != 3*time.Second || side.Stop.Timeout != 2 || side.Exit != 3400*ms {
		t.Errorf("sidecar: %+v", side)
	}
	if tl.SandboxStop != 3400*ms {
		t.Errorf("sandbox stop %v, want 3.4s", tl.SandboxStop)
	}
}

// killContainer releases the containers waiting for it when StopContainer
// returns, after the runtime has handled the process's exit: with
// StopReturnAfter the sidecar's turn and the sandbox stop come that much
// later than the app's exit; the exit itself does not move.
func TestPlanStopReturnAfter(t *testing.T) {
	grace := int64(10)
	pod := sidecarPod([]string{"sidecar"}, []string{"app"})
	pod.Spec.TerminationGracePeriodSeconds = &grace
	st := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1"}}, Containers: []runtimestate.Container{
		{ID: "c2", Name: "app", State: runtimestate.Running},
		{ID: "c1", Name: "sidecar", State: runtimestate.Running},
	}}
	ms := time.Millisecond
	exits := map[string]time.Duration{"app": time.Second, "sidecar": 200 * ms}
	for _, tc := range []struct {
		after                          time.Duration
		appReturn, sideCall, sandboxAt time.Duration
	}{
		{0, time.Second, time.Second, 1200 * ms},
		{500 * ms, 1500 * ms, 1500 * ms, 2200 * ms},
		{-time.Second, time.Second, time.Second, 1200 * ms}, // negative: none
	} {
		tl := Plan(pod, st, Options{Features: features.V1_37(), ExitAfter: exits, StopReturnAfter: tc.after})
		app, side := tl.Containers[0], tl.Containers[1]
		if app.Exit != time.Second || app.Return != tc.appReturn {
			t.Errorf("after %v: app exit %v return %v, want 1s and %v", tc.after, app.Exit, app.Return, tc.appReturn)
		}
		if side.StopCall != tc.sideCall || side.Exit != tc.sideCall+200*ms {
			t.Errorf("after %v: sidecar called %v exits %v, want %v and 200ms later", tc.after, side.StopCall, side.Exit, tc.sideCall)
		}
		if tl.SandboxStop != tc.sandboxAt {
			t.Errorf("after %v: sandbox stop %v, want %v", tc.after, tl.SandboxStop, tc.sandboxAt)
		}
	}
	tl := Plan(pod, st, Options{Features: features.V1_37(), ExitAfter: exits, StopReturnAfter: 500 * ms})
	if s := tl.String(); !strings.Contains(s, "exits at 1s, the call returns at 1.5s") {
		t.Errorf("String does not name the return:\n%s", s)
	}
}
