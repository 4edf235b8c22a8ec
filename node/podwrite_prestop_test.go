package node

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// TestTranslateKillingAtPreStop runs the engine on a pod whose container
// has an exec preStop hook of 4 s, deleted at 10 s: the driver records
// the one Killing event at the deletion, when the kubelet's killContainer
// records it (before executePreStopHook), not 4 s later at StopContainer.
func TestTranslateKillingAtPreStop(t *testing.T) {
	grace := int64(20)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "u1"},
		Spec: v1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{Name: "app", Image: "busybox",
			Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"sleep", "4"}}}}}}}}
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	n := sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond), Parallelism: 1})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{PreStop: sim.Duration(4 * time.Second)}}}}}
	if err := n.AddPod(start, simPod(pod), script); err != nil {
		t.Fatal(err)
	}
	var tr podTrack
	var killing []time.Duration
	for at := start; !at.After(start.Add(20 * time.Second)); at = at.Add(100 * time.Millisecond) {
		if at.Equal(start.Add(10 * time.Second)) {
			del := pod.DeepCopy()
			ts := metav1.NewTime(at.Add(20 * time.Second))
			del.DeletionTimestamp, del.DeletionGracePeriodSeconds = &ts, &grace
			if err := n.UpdatePod(at, simPod(del), nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range translate(pod, n.Advance(at).Entries, start, &tr).Events {
			if e.Reason == reasonKilling {
				killing = append(killing, e.At.Sub(start))
			}
		}
	}
	if len(killing) != 1 || killing[0] < 10*time.Second || killing[0] > 10*time.Second+500*time.Millisecond {
		t.Errorf("Killing events at %v: want one, at the deletion (10 s)", killing)
	}
}
