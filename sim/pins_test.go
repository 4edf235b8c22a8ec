package sim

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Tests that pin rules the seeded timelines reach too rarely for the other
// tests to see them changed (tooling/mutation/simtime.md lists the planted
// bug each one catches).

// Housekeeping marks the worker of a pod that left the kubelet's
// configuration deleted while it is not finished yet (pod_workers.go
// SyncKnownPods -> removeTerminatedWorker: "all orphaned pods are
// considered deleted"), so that its content may be removed
// (ShouldPodContentBeRemoved: deleted and terminated) by the container GC
// before the worker is forgotten. Plant: sim-housekeeping-not-deleted.
func TestHousekeepingMarksOrphanDeleted(t *testing.T) {
	now := tick0.Add(10 * time.Second)
	_, p := timerNode(now)
	p.mem.Worker = &termination.WorkerState{TerminatingAt: tick0.Add(5 * time.Second), TerminatedAt: tick0.Add(9 * time.Second)}
	before := termination.Query(p.mem.Worker, true, features.V1_37()).ShouldPodContentBeRemoved
	p.housekeep()
	if p.mem.Worker == nil || p.forgotten {
		t.Fatalf("housekeeping forgot a worker that has not finished")
	}
	if !p.mem.Worker.Deleted {
		t.Errorf("housekeeping left the orphaned worker not deleted: %+v", *p.mem.Worker)
	}
	if after := termination.Query(p.mem.Worker, true, features.V1_37()).ShouldPodContentBeRemoved; before || !after {
		t.Errorf("ShouldPodContentBeRemoved before housekeeping %v, after %v; want false, true", before, after)
	}
	if got := scheduled(p); len(got) != 1 || got[0] != 12*time.Second {
		t.Errorf("next housekeeping at %v, want [12s] (every 2 s until the worker finishes)", got)
	}
}

// A liveness worker on hold after a failure leaves the hold when the
// container gets a new ID (prober/worker.go doProbe: onHold cleared when
// the container ID changes), so the restarted instance is probed and
// killed again when its own liveness fails. Plant: sim-probe-hold-kept.
func TestLivenessHoldEndsWithNewInstance(t *testing.T) {
	one := int32(1)
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1",
		LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"check"}}},
			PeriodSeconds: 1, SuccessThreshold: one, FailureThreshold: one, TimeoutSeconds: one}}}})
	fail := []ProbeStep{{At: Duration(5 * time.Second), Result: vocab.ProbeFailure}}
	script := Script{Containers: map[string]Behaviour{"app": {Runs: []Run{{Liveness: fail}, {Liveness: fail}, {}}}}}
	tl, err := Simulate(Config{Seed: 1, For: Duration(2 * time.Minute)}, []PodInput{{Pod: pod, Script: script}})
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	for _, e := range tl.Entries {
		if e.Kind == KindProbe && e.Probe.Probe == "liveness" && e.Probe.Result == vocab.ProbeFailure {
			failed[e.Probe.ID] = true
		}
	}
	if len(failed) != 2 {
		t.Fatalf("liveness failures reported for %d instances %v, want 2 (the first two runs each fail)\n%s", len(failed), failed, tl.Events())
	}
}
