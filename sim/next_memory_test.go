package sim

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Next's back-off record from a status: restartCount 5 gives the delay
// doubled up to the configured maximum (20 s here, not the default 300 s);
// a maximum the kubelet refuses (400 s) falls back to the default back-off.
func TestNextBackOffFromConfig(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	pod.Status = v1.PodStatus{Phase: v1.PodRunning, ContainerStatuses: []v1.ContainerStatus{{Name: "app", RestartCount: 5,
		State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(t0.Add(-5 * time.Second))}}}}}
	for _, tc := range []struct {
		max  time.Duration
		want time.Duration
	}{{20 * time.Second, 20 * time.Second}, {400 * time.Second, 160 * time.Second}} {
		max := tc.max
		r := Next(pod, nil, NextOptions{Now: t0, Kubelet: Kubelet{BackOff: restart.BackOffSettings{MaxContainerRestartPeriod: &max}}})
		e := r.Input.Memory.BackOff[restart.BackOffKey(pod, &pod.Spec.Containers[0])]
		if e.Delay != tc.want {
			t.Errorf("maxContainerRestartPeriod %s: back-off %+v, want delay %s", tc.max, e, tc.want)
		}
	}
}

// A status written before the runtime's latest restarts (restartCount 0,
// two exited instances in the runtime) is not where the back-off comes
// from: the history is replayed, so the container, exited 5 s ago after
// its first restart, waits out its 10 s back-off.
func TestNextBackOffFromHistoryWhenStatusBehind(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	pod.Status = v1.PodStatus{Phase: v1.PodRunning, ContainerStatuses: []v1.ContainerStatus{{Name: "app", ContainerID: "containerd://c1",
		State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(t0.Add(-30 * time.Second))}}}}}
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
		Containers: []runtimestate.Container{
			{ID: "c2", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 1, RestartCount: 1,
				CreatedAt: t0.Add(-9 * time.Second), StartedAt: t0.Add(-9 * time.Second), FinishedAt: t0.Add(-5 * time.Second)},
			{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 1,
				CreatedAt: t0.Add(-30 * time.Second), StartedAt: t0.Add(-30 * time.Second), FinishedAt: t0.Add(-10 * time.Second)},
		}}
	r := Next(pod, st, NextOptions{Now: t0})
	if e := r.Input.Memory.BackOff[restart.BackOffKey(pod, &pod.Spec.Containers[0])]; e.IsZero() {
		t.Errorf("no back-off record replayed from the runtime's history; memory %+v", r.Input.Memory.BackOff)
	}
	for _, c := range r.Calls {
		if c.Method == "CreateContainer" || c.Method == "StartContainer" {
			t.Errorf("%s during the back-off: %s", c.Method, methods(r.Calls))
			break
		}
	}
}

// Next with a memory given: the probe results given replace the memory's;
// none given, the memory's stay.
func TestNextProbesOverMemory(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	mine := map[string]vocab.ProbeResults{"c1": {}}
	given := map[string]vocab.ProbeResults{"c9": {}}
	r := Next(pod, nil, NextOptions{Now: t0, Memory: &Memory{Probes: mine}, Probes: given})
	if _, ok := r.Input.Memory.Probes["c9"]; !ok || len(r.Input.Memory.Probes) != 1 {
		t.Errorf("probes given: the sync read %v, want them", r.Input.Memory.Probes)
	}
	r = Next(pod, nil, NextOptions{Now: t0, Memory: &Memory{Probes: mine}})
	if _, ok := r.Input.Memory.Probes["c1"]; !ok || len(r.Input.Memory.Probes) != 1 {
		t.Errorf("no probes given: the sync read %v, want the memory's", r.Input.Memory.Probes)
	}
}
