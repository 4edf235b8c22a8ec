package sim

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// One SyncPod with a failing postStart hook on the first of two regular
// containers: the hook's ExecSync, the kill, then the second container
// (regular containers go on after a failed start); the sync fails with
// PostStartHookError in the reason cache and is requeued as an error
// (J(10 s)), not as a back-off; it lasts past the hook and the kill.
func TestSyncPostStartFailure(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{
		{Name: "app", Image: "web:1", Lifecycle: &v1.Lifecycle{PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"check"}}}}},
		{Name: "side", Image: "side:1"},
	}})
	beh := map[string]Behaviour{"app": {Runs: []Run{{PostStart: Duration(3 * time.Second), PostStartFails: true, TermAfter: Duration(time.Second)}}}}
	out := Sync(SyncInput{Pod: pod, Now: t0, Behaviours: beh})
	if got, want := methods(out.Calls), "RunPodSandbox , CreateContainer app, StartContainer app, ExecSync app, StopContainer app, CreateContainer side, StartContainer side"; got != want {
		t.Fatalf("calls %q, want %q", got, want)
	}
	ex, stop := out.Calls[3], out.Calls[4]
	if ex.At != out.Calls[2].Done || ex.Done-ex.At != 3*time.Second || !ex.HookFailed || ex.Hook != "postStart" {
		t.Errorf("ExecSync %+v: want the failed postStart hook, 3 s from StartContainer's return", ex)
	}
	if stop.At != ex.Done || stop.Ended()-stop.At != time.Second || stop.AfterExit != 30*time.Millisecond || stop.Timeout == nil || *stop.Timeout != 30 {
		t.Errorf("StopContainer %+v: want it when the hook fails, timeout 30 s, 1 s to exit", stop)
	}
	if !out.Result.Err || out.Requeue != RequeueError || !out.BackOffUntil.IsZero() {
		t.Errorf("result %+v requeue %v: want an error, requeued after J(10 s)", out.Result, out.Requeue)
	}
	if f := out.Memory.StartFailures["app"]; f.Reason != "PostStartHookError" {
		t.Errorf("reason cache %+v, want PostStartHookError", f)
	}
	if _, ok := out.Memory.StartFailures["side"]; ok {
		t.Errorf("side started: no reason-cache entry")
	}
	if out.Duration < out.Calls[6].Done {
		t.Errorf("the sync ends at %s, before its last call", out.Duration)
	}
	// With no behaviour the hook succeeds at once.
	out = Sync(SyncInput{Pod: pod, Now: t0})
	if out.Result.Err || out.Requeue != RequeueSuccess || len(out.Calls) != 6 {
		t.Errorf("unscripted hook: %s, result %+v", methods(out.Calls), out.Result)
	}

	// A sidecar whose hook fails does not stop the starts: with both
	// sidecars exited and restarting, the second still starts.
	always := v1.ContainerRestartPolicyAlways
	hook := &v1.Lifecycle{PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"check"}}}}
	p := testPod(v1.PodSpec{InitContainers: []v1.Container{{Name: "first", Image: "i:1", RestartPolicy: &always, Lifecycle: hook}, {Name: "second", Image: "s:1", RestartPolicy: &always}},
		Containers: []v1.Container{{Name: "app", Image: "a:1"}}})
	at := t0.Add(-time.Minute)
	st := &runtimestate.Pod{UID: p.UID, Name: p.Name, Namespace: p.Namespace, Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: at}},
		Containers: []runtimestate.Container{
			{ID: "f1", Name: "first", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 1, CreatedAt: at, StartedAt: at, FinishedAt: at.Add(time.Second)},
			{ID: "s2", Name: "second", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 1, CreatedAt: at, StartedAt: at, FinishedAt: at.Add(time.Second)},
			{ID: "a1", Name: "app", SandboxID: "s1", State: runtimestate.Running, CreatedAt: at, StartedAt: at},
		}}
	out = Sync(SyncInput{Pod: p, Runtime: st, Now: t0, Behaviours: map[string]Behaviour{"first": {Runs: []Run{{PostStartFails: true}}}}})
	if got, want := methods(out.Calls), "CreateContainer first, StartContainer first, ExecSync first, StopContainer first, CreateContainer second, StartContainer second"; got != want {
		t.Errorf("calls %q, want %q (decision: %s)", got, want, out.Decision)
	}
}

// A postStart hook that took time is said in the sync's messages (the
// kubelet waits for it, kuberuntime_container.go:319-320 in v1.37.2);
// one that returned at once is not.
func TestSyncPostStartWaitMessage(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{
		{Name: "app", Image: "web:1", Lifecycle: &v1.Lifecycle{PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"warm"}}}}},
	}})
	said := func(out SyncOutput) []string {
		var ms []string
		for _, m := range out.Messages {
			if strings.Contains(m, "postStart hook ran") {
				ms = append(ms, m)
			}
		}
		return ms
	}
	beh := map[string]Behaviour{"app": {Runs: []Run{{PostStart: Duration(3 * time.Second)}}}}
	if ms := said(Sync(SyncInput{Pod: pod, Now: t0, Behaviours: beh})); len(ms) != 1 || ms[0] != "app: postStart hook ran 3s; the kubelet waited for it" {
		t.Errorf("a 3 s hook: messages %q, want one saying the kubelet waited 3s", ms)
	}
	if ms := said(Sync(SyncInput{Pod: pod, Now: t0})); len(ms) != 0 {
		t.Errorf("a hook that returned at once: messages %q, want none", ms)
	}
}

// An exec preStop hook lasts from its start for its time, or until the
// container exits, whichever comes first (the command dies with the
// container): an exit at the very instant the hook starts ends it at once.
func TestPreStopExecEndsAtExit(t *testing.T) {
	c := &v1.Container{Name: "app", Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}}
	s := &syncer{}
	for _, tc := range []struct{ exitAt, want time.Duration }{
		{5 * time.Second, 5 * time.Second}, // exits as the hook starts
		{6 * time.Second, 6 * time.Second}, // during the hook
		{8 * time.Second, 8 * time.Second}, // as the hook ends
		{9 * time.Second, 8 * time.Second}, // after it
		{4 * time.Second, 8 * time.Second}, // before it started: not this hook's exit
	} {
		hc, ok := s.preStopExec(c, "app", "a1", 5*time.Second, 3*time.Second, tc.exitAt)
		if !ok || hc.At != 5*time.Second || hc.Done != tc.want || hc.Hook != "preStop" {
			t.Errorf("exit at %s: %+v, want the preStop ExecSync from 5s to %s", tc.exitAt, hc, tc.want)
		}
	}
}
