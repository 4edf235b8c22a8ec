package termination

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Written from the intent of TestUpdatePod, TestTerminalPhaseTransition and
// TestUpdatePodForRuntimePod (pkg/kubelet/pod_workers_test.go): a pod walks
// sync -> terminating -> terminated -> finished.
func TestWorkerLifecycle(t *testing.T) {
	f := features.V1_37()
	t0 := time.Date(2026, 11, 29, 15, 43, 2, 0, time.UTC)
	grace := int64(20)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u1"}, Spec: v1.PodSpec{TerminationGracePeriodSeconds: &grace}}

	r := UpdatePod(nil, Update{Type: UpdateCreate, Pod: pod}, t0, f)
	if r.State.WorkType() != SyncPod || r.Outcome != Queued || r.BecameTerminating {
		t.Fatalf("create: %+v %v", r, r.State)
	}
	s := r.State

	// A kill request while syncing that is not a deletion is still a kill.
	del := pod.DeepCopy()
	ts := metav1.NewTime(t0.Add(20 * time.Second))
	del.DeletionTimestamp, del.DeletionGracePeriodSeconds = &ts, &grace
	r = UpdatePod(s, Update{Type: UpdateUpdate, Pod: del}, t0.Add(time.Second), f)
	if r.State.WorkType() != TerminatingPod || !r.BecameTerminating || !r.State.Deleted || !r.CancelsSync ||
		r.GracePeriodOverride == nil || *r.GracePeriodOverride != 20 {
		t.Fatalf("delete: %+v %v", r, r.State)
	}
	s = r.State
	if q := Query(s, true, f); !q.IsPodTerminationRequested || q.ShouldPodContainersBeTerminating || !q.CouldHaveRunningContainers {
		t.Errorf("terminating queries: %+v", q)
	}
	// An eviction shortens the grace and cancels the running termination.
	r = UpdatePod(s, Update{Type: UpdateKill, Pod: del, Kill: &KillRequest{GracePeriodOverride: i64(1), Evict: true, HasStatusFunc: true}}, t0.Add(2*time.Second), f)
	if !r.GracePeriodShortened || *r.GracePeriodOverride != 1 || r.State.Evicted || !r.StatusFuncKept || !r.CancelsSync {
		t.Errorf("eviction while terminating: %+v %v (evicted is set only when the kill starts termination)", r, r.State)
	}
	s = AcknowledgeTerminating(r.State)
	if !s.StartedTerminating {
		t.Errorf("acknowledge: %v", s)
	}
	if got := Complete(s, SyncResult{Err: true}, false, t0.Add(3*time.Second), f); got.WorkType() != TerminatingPod {
		t.Errorf("failed SyncTerminatingPod moved the pod: %v", got)
	}
	s = Complete(s, SyncResult{}, false, t0.Add(3*time.Second), f)
	if s.WorkType() != TerminatedPod {
		t.Fatalf("after SyncTerminatingPod: %v", s)
	}
	r = UpdatePod(s, Update{Type: UpdateKill, Pod: del, Kill: &KillRequest{}}, t0.Add(4*time.Second), f)
	if !r.KillCompleted || r.GracePeriodOverride != nil {
		t.Errorf("kill of a terminated pod: %+v", r)
	}
	if q := Query(s, true, f); !q.ShouldPodContentBeRemoved || q.CouldHaveRunningContainers || q.ShouldPodBeFinished {
		t.Errorf("terminated queries: %+v", q)
	}
	s = Complete(s, SyncResult{}, false, t0.Add(5*time.Second), f)
	if !s.Finished || !Query(s, true, f).ShouldPodBeFinished {
		t.Fatalf("after SyncTerminatedPod: %v", s)
	}
	if r = UpdatePod(s, Update{Type: UpdateUpdate, Pod: del}, t0.Add(6*time.Second), f); r.Outcome != IgnoredFinished {
		t.Errorf("update of a finished pod: %+v", r)
	}
}

func TestWorkerTransitions(t *testing.T) {
	f := features.V1_37()
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	pod := func(phase v1.PodPhase) *v1.Pod { return &v1.Pod{Status: v1.PodStatus{Phase: phase}} }
	running := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c", Name: "a", State: runtimestate.Running}}}
	terminatingState := &WorkerState{TerminatingAt: t0}
	tests := []struct {
		name string
		prev *WorkerState
		u    Update
		want WorkType
		out  UpdateOutcome
		chk  func(UpdateResult) bool
	}{
		{"terminal phase starts termination", nil, Update{Type: UpdateSync, Pod: pod(v1.PodSucceeded), Cached: running}, TerminatingPod, Queued,
			func(r UpdateResult) bool { return r.BecameTerminating && !r.State.Deleted }},
		{"terminal phase and nothing cached: already terminated (kubelet restart)", nil, Update{Type: UpdateSync, Pod: pod(v1.PodFailed)}, TerminatedPod, Queued,
			func(r UpdateResult) bool { return r.State.StartedTerminating && !r.State.Finished }},
		{"terminal phase, cache error: terminating", nil, Update{Type: UpdateSync, Pod: pod(v1.PodFailed), CacheErr: true}, TerminatingPod, Queued, nil},
		{"kill without eviction", nil, Update{Type: UpdateKill, Pod: pod(v1.PodRunning)}, TerminatingPod, Queued,
			func(r UpdateResult) bool { return !r.State.Evicted && *r.GracePeriodOverride == 1 }},
		{"eviction", nil, Update{Type: UpdateKill, Pod: pod(v1.PodRunning), Kill: &KillRequest{Evict: true, GracePeriodOverride: i64(0)}}, TerminatingPod, Queued,
			func(r UpdateResult) bool { return r.State.Evicted && *r.GracePeriodOverride == 1 }},
		{"kill options dropped while syncing", nil, Update{Type: UpdateUpdate, Pod: pod(v1.PodRunning), Kill: &KillRequest{}}, SyncPod, Queued,
			func(r UpdateResult) bool { return r.KillCompleted }},
		{"orphan runtime pod", nil, Update{Type: UpdateKill, RuntimeOnly: true}, TerminatingPod, Queued,
			func(r UpdateResult) bool { return r.State.Deleted && r.State.ObservedRuntime }},
		{"orphan update that is not a kill", nil, Update{Type: UpdateSync, RuntimeOnly: true}, SyncPod, IgnoredRuntimeNotKill,
			func(r UpdateResult) bool { return r.State == nil }},
		{"create while terminating", terminatingState, Update{Type: UpdateCreate, Pod: pod(v1.PodRunning)}, TerminatingPod, IgnoredRestartRequested,
			func(r UpdateResult) bool { return r.State.RestartRequested }},
		{"runtime kill of a terminated pod", &WorkerState{TerminatingAt: t0, TerminatedAt: t0}, Update{Type: UpdateKill, RuntimeOnly: true}, TerminatedPod, IgnoredTerminatedRuntimeKill, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := UpdatePod(tc.prev, tc.u, t0, f)
			if r.State.WorkType() != tc.want || r.Outcome != tc.out || (tc.chk != nil && !tc.chk(r)) {
				t.Errorf("UpdatePod = %+v, state %v; want %v, %q", r, r.State, tc.want, tc.out)
			}
		})
	}
	// SyncPod reporting a terminal pod moves it to terminating.
	s := Complete(&WorkerState{}, SyncResult{Terminal: true}, false, t0, f)
	if s.WorkType() != TerminatingPod || !s.StartedTerminating {
		t.Errorf("completeSync: %v", s)
	}
	if Complete(&WorkerState{TerminatingAt: t0}, SyncResult{}, true, t0, f) != nil {
		t.Errorf("an orphan is forgotten once terminated")
	}
	if q := Query(nil, false, f); !q.CouldHaveRunningContainers || q.ShouldPodBeFinished {
		t.Errorf("unknown pod before sync: %+v", q)
	}
}

func TestQueriesString(t *testing.T) {
	if got := (Queries{}).String(); got != "none" {
		t.Errorf("zero Queries = %q", got)
	}
	q := Queries{CouldHaveRunningContainers: true, ShouldPodContainersBeTerminating: true}
	if got := q.String(); got != "CouldHaveRunningContainers, ShouldPodContainersBeTerminating" {
		t.Errorf("String() = %q", got)
	}
}
