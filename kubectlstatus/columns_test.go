package kubectlstatus

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// restarted gives s a restart count and a last termination finished at t.
func restarted(s v1.ContainerStatus, n int32, t time.Time) v1.ContainerStatus {
	s.RestartCount = n
	s.LastTerminationState.Terminated = &v1.ContainerStateTerminated{ExitCode: 1, FinishedAt: metav1.NewTime(t)}
	return s
}

func started(s v1.ContainerStatus) v1.ContainerStatus {
	s.Started = ptr(true)
	return s
}

// TestColumns checks READY and RESTARTS against printPod's rules: native
// sidecars count in the total and, started and ready, in the ready count,
// but only up to the init container that holds the pod in initialisation;
// regular containers count only after initialisation, and only running
// and ready; while the pod initialises RESTARTS sums the init containers
// walked, afterwards only the sidecars and the regular containers.
func TestColumns(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	always := ptr(v1.ContainerRestartPolicyAlways)
	spec := v1.PodSpec{
		InitContainers: []v1.Container{{Name: "setup"}, {Name: "side", RestartPolicy: always}, {Name: "migrate"}, {Name: "late", RestartPolicy: always}},
		Containers:     []v1.Container{{Name: "app"}, {Name: "web"}},
	}
	initialized := []v1.PodCondition{cond(v1.PodInitialized, v1.ConditionTrue), cond(v1.PodReady, v1.ConditionTrue)}
	tests := []struct {
		name           string
		status         v1.PodStatus
		ready          string
		restarts       string
		count          int
		deletedCreated bool
	}{
		{"nothing started: sidecars count in the total", v1.PodStatus{Phase: v1.PodPending}, "0/4", "0", 0, false},
		{"init crash loop: init restarts count, with the last one's age", v1.PodStatus{Phase: v1.PodPending,
			InitContainerStatuses: []v1.ContainerStatus{restarted(waiting("setup", "CrashLoopBackOff"), 3, now.Add(-90*time.Second)),
				waiting("side", "PodInitializing"), waiting("migrate", "PodInitializing"), waiting("late", "PodInitializing")},
			ContainerStatuses: []v1.ContainerStatus{restarted(waiting("app", "PodInitializing"), 7, now.Add(-time.Second))}},
			"0/4", "3 (90s ago)", 3, false},
		{"a started ready sidecar before a running init container counts; one after it does not", v1.PodStatus{Phase: v1.PodPending,
			InitContainerStatuses: []v1.ContainerStatus{restarted(terminated("setup", 0, "Completed"), 1, now.Add(-10*time.Minute)),
				restarted(started(running("side", true)), 2, now.Add(-5*time.Minute)), running("migrate", false), started(running("late", true))}},
			"1/4", "3 (5m ago)", 3, false},
		{"initialised: completed init restarts drop out, sidecars and regular ones count", v1.PodStatus{Phase: v1.PodRunning, Conditions: initialized,
			InitContainerStatuses: []v1.ContainerStatus{restarted(terminated("setup", 0, "Completed"), 4, now.Add(-time.Hour)),
				restarted(started(running("side", true)), 2, now.Add(-20*time.Minute)), terminated("migrate", 0, "Completed"), started(running("late", true))},
			ContainerStatuses: []v1.ContainerStatus{restarted(running("app", true), 1, now.Add(-3*time.Minute)), running("web", true)}},
			"4/4", "3 (3m ago)", 3, false},
		{"a sidecar not started is not ready, whatever its flag", v1.PodStatus{Phase: v1.PodRunning, Conditions: initialized,
			InitContainerStatuses: []v1.ContainerStatus{terminated("setup", 0, "Completed"), running("side", true), terminated("migrate", 0, "Completed"), started(running("late", false))},
			ContainerStatuses:     []v1.ContainerStatus{running("app", true), running("web", false)}},
			"1/4", "0", 0, false},
		{"a ready flag on a waiting or terminated container does not count", v1.PodStatus{Phase: v1.PodRunning, Conditions: initialized,
			InitContainerStatuses: []v1.ContainerStatus{terminated("setup", 0, "Completed"), started(running("side", true)), terminated("migrate", 0, "Completed"), started(running("late", true))},
			ContainerStatuses: []v1.ContainerStatus{func() v1.ContainerStatus { s := waiting("app", "CrashLoopBackOff"); s.Ready = true; return s }(),
				func() v1.ContainerStatus { s := terminated("web", 1, "Error"); s.Ready = true; return s }()}},
			"2/4", "0", 0, false},
		{"restarts without a known time show no age", v1.PodStatus{Phase: v1.PodRunning, Conditions: initialized,
			ContainerStatuses: []v1.ContainerStatus{func() v1.ContainerStatus { s := running("app", true); s.RestartCount = 5; return s }()}},
			"1/4", "5", 5, false},
		{"the AGE of a pod created 2 days ago", v1.PodStatus{Phase: v1.PodPending}, "0/4", "0", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: spec, Status: tc.status}
			wantAge := "<unknown>"
			if tc.deletedCreated {
				pod.CreationTimestamp = metav1.NewTime(now.Add(-49 * time.Hour))
				wantAge = "2d1h"
			}
			row := Columns(pod, now)
			want := Row{Name: "p", Ready: tc.ready, Status: Compute(pod), Restarts: tc.restarts, Age: wantAge}
			if row != want {
				t.Errorf("Columns = %+v, want %+v", row, want)
			}
			if n, _ := RestartCount(pod); n != tc.count {
				t.Errorf("RestartCount = %d, want %d", n, tc.count)
			}
		})
	}
	if Columns(nil, now) != (Row{}) || Ready(nil) != "" || Restarts(nil, now) != "" {
		t.Error("a nil pod gives cells")
	}
}
