package termination

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Written from the intent of TestDeletePodBeforeFinished,
// TestDeletePodFinished and TestDoNotDeleteMirrorPods
// (pkg/kubelet/status/status_manager_test.go).
func TestCanBeDeleted(t *testing.T) {
	ts := metav1.NewTime(time.Date(2026, 11, 29, 15, 43, 22, 0, time.UTC))
	pod := func(deleted bool, phase v1.PodPhase, mirror bool) *v1.Pod {
		p := &v1.Pod{Status: v1.PodStatus{Phase: phase}}
		if deleted {
			p.DeletionTimestamp = &ts
		}
		if mirror {
			p.Annotations = map[string]string{MirrorPodAnnotation: "x"}
		}
		return p
	}
	tests := []struct {
		name     string
		pod      *v1.Pod
		finished bool
		want     bool
	}{
		{"not deleted", pod(false, v1.PodSucceeded, false), true, false},
		{"deleted, terminal, finished", pod(true, v1.PodSucceeded, false), true, true},
		{"deleted, failed, finished", pod(true, v1.PodFailed, false), true, true},
		{"deleted, terminal, not finished", pod(true, v1.PodSucceeded, false), false, false},
		{"deleted, running, finished: wait for a terminal API phase", pod(true, v1.PodRunning, false), true, false},
		{"deleted, no phase", pod(true, "", false), true, false},
		{"mirror pod", pod(true, v1.PodSucceeded, true), true, false},
		{"nil pod", nil, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CanBeDeleted(tc.pod, nil, &WorkerState{Finished: tc.finished}).Delete; got != tc.want {
				t.Errorf("CanBeDeleted = %v, want %v", got, tc.want)
			}
		})
	}
}
