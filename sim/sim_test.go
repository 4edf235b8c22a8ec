package sim_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// Focused tests of single timing rules and status-manager behaviours, each
// with the timeline facts the kubelet v1.37.2 source gives; they were
// written against the bugs of mutation/bugs.txt (sim-*) the replay, the
// properties and the examples let through.

func run(t *testing.T, cfg sim.Config, in ...sim.PodInput) *sim.Timeline {
	t.Helper()
	tl, err := sim.Simulate(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func terminal(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }

// A pod past its activeDeadlineSeconds is synced by the sync loop's 1 s
// tick (kubelet.go getPodsToSync, active_deadline.go), not at its next
// requeue a minute away; SyncPod then stores phase Failed, reason
// DeadlineExceeded. The status manager holds that terminal phase back
// from the API while containers may run, and with it the reason and
// message (status_manager.go mergePodStatus): no API write shows a
// non-terminal phase with the deadline's reason.
func TestActiveDeadline(t *testing.T) {
	dl := int64(5)
	pod := apiPod("dl", v1.PodSpec{ActiveDeadlineSeconds: &dl, Containers: []v1.Container{{Name: "app", Image: "a"}}})
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(30)}, sim.PodInput{Pod: pod})
		e, ok := tl.First("dl", func(e sim.Entry) bool {
			return e.Kind == sim.KindStatus && e.Status.Status.Reason == "DeadlineExceeded"
		})
		// The start time is 0 s (the pod arrives at 0); the deadline
		// passes at 5 s, the next tick is within a second.
		if !ok || e.Status.By != "SyncPod" || e.Status.Status.Phase != v1.PodFailed || e.At < 5*time.Second || e.At > 6*time.Second {
			t.Fatalf("seed %d: want SyncPod to store Failed/DeadlineExceeded within (5 s, 6 s], got %+v (found %v)\n%s", seed, e, ok, tl.Events())
		}
		for _, e := range tl.Entries {
			if e.Kind != sim.KindAPI || e.Status == nil {
				continue
			}
			st := e.Status.Status
			if !terminal(st.Phase) && (st.Reason != "" || st.Message != "") {
				t.Fatalf("seed %d: at %s the API shows phase %s with reason %q: the reason is held back with the phase\n%s", seed, e.At, st.Phase, st.Reason, tl.Events())
			}
		}
		_, last := tl.LastStatus("dl")
		if last == nil || last.Phase != v1.PodFailed || last.Reason != "DeadlineExceeded" {
			t.Fatalf("seed %d: last API status %+v, want Failed/DeadlineExceeded", seed, last)
		}
	}
}
