package sim

import (
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	v1 "k8s.io/api/core/v1"
)

func stopTimeouts(out SyncOutput) []int64 {
	var got []int64
	for _, c := range out.Calls {
		if c.Method == "StopContainer" && c.Timeout != nil {
			got = append(got, *c.Timeout)
		}
	}
	return got
}

func terminatingInput(grace int64, observedRuntime bool) SyncInput {
	g := int64(20)
	pod := testPod(v1.PodSpec{TerminationGracePeriodSeconds: &g, Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
		Containers: []runtimestate.Container{
			{ID: "a1", Name: "app", SandboxID: "s1", State: runtimestate.Running, CreatedAt: t0.Add(-50 * time.Second), StartedAt: t0.Add(-50 * time.Second)},
		}}
	w := &termination.WorkerState{TerminatingAt: t0, Deleted: true, GracePeriod: grace, ObservedRuntime: observedRuntime}
	return SyncInput{Pod: pod, Runtime: st, Now: t0, Memory: Memory{Worker: w}, Grace: grace,
		Containers: map[string]Run{"a1": {IgnoreSIGTERM: true}}}
}

// SyncTerminatingPod given no grace period by the pod worker (0) kills
// with the pod's terminationGracePeriodSeconds (20 s), not with an
// override of 0 (raised to the 2 s minimum).
func TestSyncTerminatingNoGraceIsThePods(t *testing.T) {
	out := Sync(terminatingInput(0, false))
	if got := stopTimeouts(out); len(got) != 1 || got[0] != 20 {
		t.Errorf("StopContainer timeouts %v, want [20] (the pod's grace period)", got)
	}
}

// SyncTerminatingRuntimePod (kubelet.go) kills an orphan with a grace
// period override of 1 s whatever grace period the pod worker holds
// (it is given none): StopContainer's timeout is the 2 s minimum.
func TestSyncTerminatingRuntimeGraceIsOne(t *testing.T) {
	for _, g := range []int64{0, 1, 5, 30} {
		out := Sync(terminatingInput(g, true))
		if got := stopTimeouts(out); len(got) != 1 || got[0] != 2 {
			t.Errorf("grace %d: StopContainer timeouts %v, want [2] (the 1 s override, raised to 2 s)", g, got)
		}
	}
}
