package sim

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// TestNextResultString: the text names the sync function, the decision,
// each CRI call (or that there is none) and the phase stored; a nil pod
// says so; Removed lists the containers RemoveContainer acts on.
func TestNextResultString(t *testing.T) {
	if got := Next(nil, nil, NextOptions{}).String(); got != "no pod: nothing to do\n" {
		t.Errorf("nil pod: %q", got)
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", UID: "u"},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := Next(pod, &runtimestate.Pod{}, NextOptions{Now: now})
	s := r.String()
	for _, want := range []string{"SyncPod\n", "  CRI RunPodSandbox", "  CRI StartContainer app", "stores status: phase Pending\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("first sync: %q lacks %q", s, want)
		}
	}
	if strings.Contains(s, "no runtime call") {
		t.Errorf("first sync says no runtime call: %q", s)
	}
	quiet := NextResult{SyncOutput: SyncOutput{Work: r.Work}, Input: r.Input}
	if got := quiet.String(); got != "SyncPod\n  no runtime call\n" {
		t.Errorf("a sync with nothing: %q", got)
	}
	out := SyncOutput{Calls: []Call{{Method: "RemoveContainer", Name: "old"}, {Method: "StartContainer", Name: "app"}, {Method: "RemoveContainer", Name: "init"}}}
	if got := out.Removed(); len(got) != 2 || got[0] != "old" || got[1] != "init" {
		t.Errorf("Removed %v, want [old init]", got)
	}
}

// TestLatestTime: with no Now, Next starts at the latest time its inputs
// show: the runtime's times, the status's (a terminated state's start and
// finish, a previous run's too), and a deletion request (the deletion
// timestamp less the grace period).
func TestLatestTime(t *testing.T) {
	at := func(s int) metav1.Time { return metav1.NewTime(time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC)) }
	grace := int64(30)
	del := at(100)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &del, DeletionGracePeriodSeconds: &grace},
		Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app",
			State:                v1.ContainerState{Terminated: &v1.ContainerStateTerminated{StartedAt: at(20), FinishedAt: at(40)}},
			LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{StartedAt: at(5), FinishedAt: at(10)}}}}}}
	if got := latestTime(pod, nil); !got.Equal(at(70).Time) {
		t.Errorf("deletion at 100 s with grace 30: latest %s, want 70 s", got)
	}
	pod.DeletionTimestamp = nil
	if got := latestTime(pod, nil); !got.Equal(at(40).Time) {
		t.Errorf("terminated at 40 s: latest %s", got)
	}
	pod.Status.ContainerStatuses[0].State = v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: at(50)}}
	if got := latestTime(pod, &runtimestate.Pod{Timestamp: at(60).Time}); !got.Equal(at(60).Time) {
		t.Errorf("runtime read at 60 s: latest %s", got)
	}
}
