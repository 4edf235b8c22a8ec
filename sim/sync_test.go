package sim

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/features"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

var t0 = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

func testPod(spec v1.PodSpec) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u1",
		Annotations: map[string]string{"kubernetes.io/config.source": "api"}}, Spec: spec}
	apidefaults.Pod(p)
	return p
}

func methods(calls []Call) string {
	var s []string
	for _, c := range calls {
		s = append(s, c.Method+" "+c.Name)
	}
	return strings.Join(s, ", ")
}

func TestSyncNewPod(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	out := Sync(SyncInput{Pod: pod, Now: t0})
	if got, want := methods(out.Calls), "RunPodSandbox , CreateContainer app, StartContainer app"; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
	if out.Work != termination.SyncPod || out.Requeue != RequeueSuccess || out.Result.Err || !out.ActedOnRuntime {
		t.Errorf("work %v requeue %v result %+v acted %v", out.Work, out.Requeue, out.Result, out.ActedOnRuntime)
	}
	// SyncPod stores the Pending status, then OnPodSandboxReady's.
	if len(out.Statuses) != 2 || out.Statuses[0].By != "SyncPod" || out.Statuses[1].By != "OnPodSandboxReady" {
		t.Fatalf("statuses %+v", out.Statuses)
	}
	if p := out.Statuses[0].Status.Phase; p != v1.PodPending {
		t.Errorf("phase %s", p)
	}
	if d := out.Statuses[1].At; d != DefaultRuntimeDelays().RunPodSandbox.D() {
		t.Errorf("OnPodSandboxReady at %s, want when RunPodSandbox returned", d)
	}
	if out.Duration != out.Calls[2].Done+syncOverhead {
		t.Errorf("duration %s, last call done %s", out.Duration, out.Calls[2].Done)
	}
	// Kubelet v1.35 has no OnPodSandboxReady (D11): only SyncPod's status.
	old := Sync(SyncInput{Pod: pod, Now: t0, Kubelet: Kubelet{Features: features.V1_35()}})
	if len(old.Statuses) != 1 || old.Statuses[0].By != "SyncPod" {
		t.Errorf("v1.35: statuses %+v, want SyncPod's only", old.Statuses)
	}
}

func TestSyncCrashLoopBackOff(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}
	// Two exits: the first restart was immediate and set a 10 s back-off.
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
		Containers: []runtimestate.Container{
			{ID: "c2", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 1, Reason: "Error", RestartCount: 1,
				CreatedAt: t0.Add(-10 * time.Second), StartedAt: t0.Add(-10 * time.Second), FinishedAt: t0.Add(-8 * time.Second)},
			{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 1, Reason: "Error",
				CreatedAt: t0.Add(-20 * time.Second), StartedAt: t0.Add(-20 * time.Second), FinishedAt: t0.Add(-18 * time.Second)},
		}}
	first := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0.Add(-17 * time.Second)})
	// A sync 2 s after the second exit: in back-off until exit + 10 s.
	mem := Memory{}
	cfgKey := ""
	for k := range first.Memory.BackOff {
		cfgKey = k
	}
	if cfgKey == "" {
		t.Fatalf("the restart after the first exit recorded no back-off: %+v", first.Memory)
	}
	mem.BackOff = first.Memory.BackOff
	before := mem.clone()
	out := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0.Add(-6 * time.Second), Memory: mem})
	if len(out.Calls) != 0 {
		t.Errorf("calls during back-off: %s", methods(out.Calls))
	}
	if out.Requeue != RequeueBackOff || !out.Result.Err {
		t.Errorf("requeue %v, result %+v", out.Requeue, out.Result)
	}
	if want := t0.Add(-8 * time.Second).Add(10 * time.Second); !out.BackOffUntil.Equal(want) {
		t.Errorf("back-off until %s, want %s", out.BackOffUntil, want)
	}
	f, ok := out.Memory.StartFailures["app"]
	if !ok || f.Reason != "CrashLoopBackOff" || !strings.HasPrefix(f.Message, "back-off 10s restarting failed container=app pod=web_default(u1)") {
		t.Errorf("reason cache %+v", out.Memory.StartFailures)
	}
	if !reflect.DeepEqual(mem.clone(), before) {
		t.Errorf("Sync changed its input memory")
	}
	// After the back-off the container starts, with the next restart count.
	out = Sync(SyncInput{Pod: pod, Runtime: st, Now: t0.Add(3 * time.Second), Memory: out.Memory})
	if got := methods(out.Calls); got != "CreateContainer app, StartContainer app" {
		t.Errorf("calls after the back-off: %s", got)
	}
	if out.Calls[0].RestartCount != 2 {
		t.Errorf("restart count %d, want 2", out.Calls[0].RestartCount)
	}
	if _, ok := out.Memory.StartFailures["app"]; ok {
		t.Errorf("a successful start keeps the reason-cache entry")
	}
}

func TestSyncTerminating(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	grace := int64(20)
	pod := testPod(v1.PodSpec{TerminationGracePeriodSeconds: &grace,
		InitContainers: []v1.Container{{Name: "sidecar", Image: "log:1", RestartPolicy: &always}},
		Containers: []v1.Container{{Name: "app", Image: "web:1",
			Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}}}})
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
		Containers: []runtimestate.Container{
			{ID: "a1", Name: "app", SandboxID: "s1", State: runtimestate.Running, CreatedAt: t0.Add(-50 * time.Second), StartedAt: t0.Add(-50 * time.Second)},
			{ID: "s1c", Name: "sidecar", SandboxID: "s1", State: runtimestate.Running, CreatedAt: t0.Add(-55 * time.Second), StartedAt: t0.Add(-55 * time.Second)},
		}}
	w := &termination.WorkerState{TerminatingAt: t0, Deleted: true, GracePeriod: 20}
	out := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0, Memory: Memory{Worker: w}, Grace: 20,
		Containers: map[string]Run{"a1": {IgnoreSIGTERM: true, PreStop: Duration(4 * time.Second)}, "s1c": {TermAfter: Duration(100 * time.Millisecond)}}})
	if out.Work != termination.TerminatingPod {
		t.Fatalf("work %v", out.Work)
	}
	want := []struct {
		method, name string
		at           time.Duration
		timeout      int64
		killed       bool
	}{
		// The exec preStop hook is an ExecSync call, from the start of
		// the kill for the hook's 4 s.
		{"ExecSync", "app", 0, 0, false},
		{"StopContainer", "app", 4 * time.Second, 16, true},
		{"StopContainer", "sidecar", 20 * time.Second, 2, false},
		// The sidecar exits 100 ms after its signal; its StopContainer
		// returns 30 ms later (RuntimeDelays.StopContainer), and the
		// sandbox is stopped then.
		{"StopPodSandbox", "", 20*time.Second + 130*time.Millisecond, 0, false},
	}
	if len(out.Calls) != len(want) {
		t.Fatalf("calls %s", methods(out.Calls))
	}
	for i, w := range want {
		c := out.Calls[i]
		timeout := int64(0)
		if c.Timeout != nil {
			timeout = *c.Timeout
		}
		if c.Method != w.method || c.Name != w.name || c.At != w.at || timeout != w.timeout || c.Killed != w.killed {
			t.Errorf("call %d: %s %s at %s timeout %d killed %v; want %+v", i, c.Method, c.Name, c.At, timeout, c.Killed, w)
		}
	}
	if h := out.Calls[0]; h.Hook != "preStop" || h.Done != 4*time.Second {
		t.Errorf("preStop ExecSync: hook %q done at %s; want preStop, done at 4s", h.Hook, h.Done)
	}
	if out.Calls[1].PreStop != 4*time.Second || out.Calls[2].Waited != 20*time.Second {
		t.Errorf("app waited %s for its preStop hook (want 4s); the sidecar %s for its turn (want 20s: the app exits at 20 s)", out.Calls[1].PreStop, out.Calls[2].Waited)
	}
	last := out.Statuses[len(out.Statuses)-1]
	if last.By != "SyncTerminatingPod" || last.Status.Phase != v1.PodFailed {
		t.Errorf("last status by %s, phase %s (app killed: Failed)", last.By, last.Status.Phase)
	}
	if out.Requeue != RequeueNow {
		t.Errorf("requeue %v", out.Requeue)
	}
}

func TestSyncTerminated(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	now := metav1.NewTime(t0)
	pod.DeletionTimestamp = &now
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		Sandboxes: []runtimestate.Sandbox{{ID: "s1", CreatedAt: t0.Add(-time.Minute)}},
		Containers: []runtimestate.Container{{ID: "a1", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 137, Reason: "Error",
			CreatedAt: t0.Add(-50 * time.Second), StartedAt: t0.Add(-50 * time.Second), FinishedAt: t0}}}
	w := &termination.WorkerState{TerminatingAt: t0, TerminatedAt: t0.Add(time.Second), Deleted: true, GracePeriod: 30}
	out := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0.Add(2 * time.Second), Memory: Memory{Worker: w}})
	if out.Work != termination.TerminatedPod || out.Requeue != RequeueNever || !out.Memory.Finished || len(out.Calls) != 0 {
		t.Fatalf("work %v requeue %v finished %v calls %s", out.Work, out.Requeue, out.Memory.Finished, methods(out.Calls))
	}
	last := out.Statuses[len(out.Statuses)-1]
	if last.By != "TerminatePod" || last.Status.Phase != v1.PodFailed {
		t.Errorf("last status by %s phase %s", last.By, last.Status.Phase)
	}
}

func TestSyncNilPod(t *testing.T) {
	out := Sync(SyncInput{})
	if out.Requeue != RequeueNever || len(out.Calls) != 0 {
		t.Errorf("nil pod: %+v", out)
	}
}

func TestTimelineJSON(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	tl, err := Simulate(Config{Seed: 3, For: Duration(30 * time.Second)}, []PodInput{{Pod: pod,
		Script: Script{Containers: map[string]Behaviour{"app": {Runs: []Run{{ExitAfter: Duration(2 * time.Second), ExitCode: 1}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tl)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"at":"289ms"`) {
		t.Errorf("times are not written as duration text: %.300s", b)
	}
	var back Timeline
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, e := range tl.Entries {
		switch {
		case e.Kind == KindExit && (e.Exit == nil || e.Exit.Container != "app" || e.Exit.ExitCode != 1):
			t.Errorf("exit entry without its exit: %+v", e)
		case e.Kind == KindCRI && e.Call.At != e.At:
			t.Errorf("a call's At is not the entry's time: %+v", e)
		case e.Kind == KindAPI && e.API == "":
			t.Errorf("API entry without its event: %+v", e)
		case e.Kind == KindSync && strings.Contains(e.Message, "\n"):
			t.Errorf("multi-line entry: %q", e.Message)
		}
	}
	if back.Watch() != tl.Watch() || back.Calls() != tl.Calls() || len(back.Entries) != len(tl.Entries) {
		t.Errorf("the timeline does not survive JSON:\n%s\n%s", back.Watch(), tl.Watch())
	}
}

// TestHousekeepingForgets: housekeeping (every 2 s) forgets the worker of
// a removed static pod within 2 s of SyncTerminatedPod.
func TestHousekeepingForgets(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
		pod.Annotations["kubernetes.io/config.source"] = "file"
		tl, err := Simulate(Config{Seed: seed, For: Duration(2 * time.Minute)}, []PodInput{{Pod: pod,
			Actions: []Action{{At: Duration(10 * time.Second), Remove: true}}}})
		if err != nil {
			t.Fatal(err)
		}
		done, ok1 := tl.First("web", func(e Entry) bool { return e.Work == "terminated" })
		gone, ok2 := tl.First("web", func(e Entry) bool { return e.Work == "forgotten" })
		if !ok1 || !ok2 {
			t.Fatalf("seed %d: terminated %v, forgotten %v\n%s", seed, ok1, ok2, tl.Events())
		}
		if d := gone.At - done.At; d < 0 || d > 2*time.Second {
			t.Errorf("seed %d: forgotten %s after SyncTerminatedPod, want within 2 s", seed, d)
		}
	}
}
