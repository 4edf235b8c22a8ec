package node

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// TestApplyReadinessGate drives the engine through the driver's apply as
// the watch would: a pod with a readiness gate runs (Ready False,
// ReadinessGatesNotReady); another client sets the gate's condition True
// in the status (the only change of the object): the kubelet then writes
// Ready True (HandlePodReconcile, NeedToReconcilePodReadiness); set False,
// Ready False again.
func TestApplyReadinessGate(t *testing.T) {
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	d := &podDriver{s: &Standalone{o: Options{Logf: t.Logf}}, pods: map[types.UID]*drivenPod{}, ips: map[string]bool{}, cidr: nodePodCIDR(0), start: start,
		eng: sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond), Parallelism: 1})}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "u1"},
		Spec: v1.PodSpec{ReadinessGates: []v1.PodReadinessGate{{ConditionType: "example.com/gate"}},
			Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	d.apply(podChange{at: start, kind: podAdded, pod: pod})
	var tr podTrack
	ready := func(until time.Duration) *v1.PodCondition {
		var last *v1.PodCondition
		for at := d.eng.Now(); !at.After(start.Add(until)); at = at.Add(100 * time.Millisecond) {
			w := translate(pod, d.eng.Advance(at).Entries, start, &tr)
			if w.Status != nil {
				for i, c := range w.Status.Conditions {
					if c.Type == v1.PodReady {
						last = &w.Status.Conditions[i]
					}
				}
				pod = pod.DeepCopy()
				pod.Status = *w.Status.DeepCopy()
			}
		}
		return last
	}
	if r := ready(5 * time.Second); r == nil || r.Status != v1.ConditionFalse || r.Reason != "ReadinessGatesNotReady" {
		t.Fatalf("before the gate: Ready %+v", r)
	}
	for i, want := range []v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse} {
		next := pod.DeepCopy()
		next.Status.Conditions = append(next.Status.Conditions, v1.PodCondition{Type: "example.com/gate", Status: want})
		if i > 0 {
			next.Status.Conditions = next.Status.Conditions[:len(next.Status.Conditions)-1]
			for k := range next.Status.Conditions {
				if next.Status.Conditions[k].Type == "example.com/gate" {
					next.Status.Conditions[k].Status = want
				}
			}
		}
		d.apply(podChange{at: d.eng.Now(), kind: podUpdated, pod: next})
		d.pods["u1"].pod = next
		pod = next
		if r := ready(time.Duration(10*(i+1)) * time.Second); r == nil || r.Status != want {
			t.Errorf("gate set %s: Ready %+v: want %s", want, r, want)
		}
	}
}
