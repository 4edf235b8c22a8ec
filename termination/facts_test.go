package termination

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// The pod of the real-cluster facts (docs/real-cluster-facts.md): a
// regular init container (prepare, exited), a native sidecar and an app,
// deleted with the given grace.
func factPod(grace int64, appHook bool) (*v1.Pod, *runtimestate.Pod) {
	always := v1.ContainerRestartPolicyAlways
	req := metav1.NewTime(time.Date(2026, 11, 29, 15, 43, 2, 0, time.UTC))
	ts := metav1.NewTime(req.Add(time.Duration(grace) * time.Second))
	app := v1.Container{Name: "app"}
	if appHook {
		app.Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 4}}}
	}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "u1", DeletionTimestamp: &ts, DeletionGracePeriodSeconds: &grace, Finalizers: []string{"example.com/hold"}},
		Spec: v1.PodSpec{
			TerminationGracePeriodSeconds: &grace,
			InitContainers:                []v1.Container{{Name: "prepare"}, {Name: "sidecar", RestartPolicy: &always}},
			Containers:                    []v1.Container{app},
		},
	}
	st := &runtimestate.Pod{
		UID:       "u1",
		Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true}},
		Containers: []runtimestate.Container{
			{ID: "c3", Name: "app", SandboxID: "s1", State: runtimestate.Running},
			{ID: "c2", Name: "sidecar", SandboxID: "s1", State: runtimestate.Running},
			{ID: "c1", Name: "prepare", SandboxID: "s1", State: runtimestate.Exited},
		},
	}
	return pod, st
}

func find(t *testing.T, tl Timeline, name string) ContainerStop {
	t.Helper()
	for _, c := range tl.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no kill of %s in\n%s", name, tl)
	return ContainerStop{}
}

// Fact 10 (docs/real-cluster-facts.md#fact-10): grace 20 s, app preStop about 4 s: StopContainer(app, 16).
func TestFact10PreStopDeducted(t *testing.T) {
	f := features.V1_37()
	pod, st := factPod(20, true)
	grace, _ := EffectiveGracePeriod(0, pod, nil, f)
	tl := Plan(pod, st, Options{Features: f, GracePeriodOverride: &grace,
		PreStop:   map[string]time.Duration{"app": 4*time.Second + 30*time.Millisecond},
		ExitAfter: map[string]time.Duration{"app": 10 * time.Millisecond, "sidecar": 10 * time.Millisecond}})
	if app := find(t, tl, "app"); app.Stop.Timeout != 16 {
		t.Errorf("app StopContainer timeout %d, want 16\n%s", app.Stop.Timeout, tl)
	}
}

// Fact 11 (docs/real-cluster-facts.md#fact-11): the app finished stopping first, the sidecar 18 ms later, and
// StopPodSandbox came after both.
func TestFact11SidecarAfterApp(t *testing.T) {
	f := features.V1_37()
	pod, st := factPod(20, true)
	grace, _ := EffectiveGracePeriod(0, pod, nil, f)
	tl := Plan(pod, st, Options{Features: f, GracePeriodOverride: &grace,
		PreStop:   map[string]time.Duration{"app": 4 * time.Second},
		ExitAfter: map[string]time.Duration{"app": 20 * time.Millisecond, "sidecar": 18 * time.Millisecond}})
	app, sc := find(t, tl, "app"), find(t, tl, "sidecar")
	if !tl.Ordered || sc.StopCall < app.Exit || sc.Exit <= app.Exit {
		t.Errorf("sidecar must be stopped after the app has exited\n%s", tl)
	}
	if sc.Exit-app.Exit != 18*time.Millisecond {
		t.Errorf("sidecar ended %v after the app, want 18ms\n%s", sc.Exit-app.Exit, tl)
	}
	if tl.SandboxStop != max(app.Exit, sc.Exit) || len(tl.Sandboxes) != 1 {
		t.Errorf("StopPodSandbox at %v, want after both (%v)\n%s", tl.SandboxStop, max(app.Exit, sc.Exit), tl)
	}
	for _, c := range tl.Containers {
		if c.Name == "prepare" {
			t.Errorf("exited init container killed again\n%s", tl)
		}
	}
}

// Fact 12 (docs/real-cluster-facts.md#fact-12): a deleted pod with a finalizer: the kubelet sends its final
// delete (grace 0) once the API shows Succeeded and the pod worker has
// finished; finalizers play no part in that decision.
func TestFact12FinalDelete(t *testing.T) {
	pod, _ := factPod(20, false)
	if got := pod.DeletionTimestamp.Sub(time.Date(2026, 11, 29, 15, 43, 2, 0, time.UTC)); got != 20*time.Second {
		t.Fatalf("fixture: deletionTimestamp is request + %v", got)
	}
	pod.Status.Phase = v1.PodRunning
	if CanBeDeleted(pod, nil, &WorkerState{Finished: true}).Delete {
		t.Errorf("deleted before the API phase is terminal")
	}
	pod.Status.Phase = v1.PodSucceeded
	if CanBeDeleted(pod, nil, &WorkerState{Finished: false}).Delete {
		t.Errorf("deleted before SyncTerminatedPod finished")
	}
	if !CanBeDeleted(pod, nil, &WorkerState{Finished: true}).Delete {
		t.Errorf("not deleted once Succeeded and finished, despite the finalizer")
	}
}

// Fact 19 (docs/real-cluster-facts.md#fact-19): grace 5 s and a 4 s sleep preStop on a container that ignores
// SIGTERM: StopContainer got 2 s and the container was killed 2 s later.
func TestFact19MinimumKept(t *testing.T) {
	f := features.V1_37()
	grace := int64(5)
	hook := &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 4}}}
	pod := &v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{Name: "app", Lifecycle: hook}}}}
	st := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true}},
		Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Running}}}
	tl := Plan(pod, st, Options{Features: f, GracePeriodOverride: &grace, PreStop: map[string]time.Duration{"app": 4 * time.Second}})
	app := find(t, tl, "app")
	if app.Stop.Timeout != 2 || !app.Killed || app.Exit-app.StopCall != 2*time.Second || app.StopCall != 4*time.Second {
		t.Errorf("want StopContainer at 4s with 2 s and SIGKILL 2 s later\n%s", tl)
	}
}
