package podstatus_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// TestReadyAcrossKubeletRestart: with ChangeContainerStatusOnKubeletRestart
// off (the default), a running container with a readiness probe and no
// result yet keeps Ready=True from the pod's status only when it started
// more than 10 s before the kubelet (the prober manager) started; one that
// started 7 s before is a fresh container and not ready. (The mutation run's
// podstatus-restart-grace-5s was caught only by the differential suite,
// after 12,732 cases.)
func TestReadyAcrossKubeletRestart(t *testing.T) {
	proberStart := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1",
		ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"check"}}}}}}}}
	pod.Name, pod.Namespace, pod.UID = "web", "default", "u1"
	apidefaults.Pod(pod)
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
	for _, tc := range []struct {
		before time.Duration
		want   bool
	}{{7 * time.Second, false}, {12 * time.Second, true}} {
		started := proberStart.Add(-tc.before)
		st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
			Sandboxes:  []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.0.0.2", CreatedAt: started.Add(-time.Second)}},
			Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Running, Image: "web:1", CreatedAt: started, StartedAt: started}}}
		r := podstatus.Compute(pod, st, podstatus.Options{ProberStart: proberStart, Now: proberStart.Add(time.Second)})
		if len(r.Status.ContainerStatuses) != 1 {
			t.Fatalf("statuses: %+v", r.Status.ContainerStatuses)
		}
		if got := r.Status.ContainerStatuses[0].Ready; got != tc.want {
			t.Errorf("started %s before the kubelet: ready %v, want %v", tc.before, got, tc.want)
		}
	}
}
