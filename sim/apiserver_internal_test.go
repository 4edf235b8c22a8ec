package sim

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A second DELETE may only shorten the grace (rest/delete.go BeforeDelete):
// a longer one, or one without a grace, changes nothing; a shorter one
// moves the deletion timestamp (start + the new grace) and sets the grace;
// one with grace 0 removes an object no finalizer holds.
func TestAPIDeleteSecondDeleteShortens(t *testing.T) {
	g := int64(60)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "slow", Annotations: map[string]string{"kubernetes.io/config.source": "api"}},
		Spec: v1.PodSpec{TerminationGracePeriodSeconds: &g, Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	script := Script{Containers: map[string]Behaviour{"app": {Runs: []Run{{IgnoreSIGTERM: true}}}}}
	n := NewNode(Config{Seed: 1})
	t0 := n.Start()
	if err := n.AddPod(t0, pod, script); err != nil {
		t.Fatal(err)
	}
	del := func(at float64, grace int64) {
		if err := n.DeletePod(t0.Add(time.Duration(at*float64(time.Second))), "", "slow", grace); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, wantTS time.Time, wantGrace int64) {
		t.Helper()
		p := n.pods["default/slow"]
		if p == nil || p.pod.DeletionTimestamp == nil || p.pod.DeletionGracePeriodSeconds == nil {
			t.Fatalf("%s: the object has no deletion recorded", what)
		}
		if !p.pod.DeletionTimestamp.Time.Equal(wantTS) || *p.pod.DeletionGracePeriodSeconds != wantGrace {
			t.Fatalf("%s: deletionTimestamp %s grace %d, want %s grace %d", what, p.pod.DeletionTimestamp.Time, *p.pod.DeletionGracePeriodSeconds, wantTS, wantGrace)
		}
	}
	del(10, -1)
	check("first delete", t0.Add(70*time.Second), 60)
	del(12, 90)
	check("a longer grace", t0.Add(70*time.Second), 60)
	del(13, -1)
	check("no grace given", t0.Add(70*time.Second), 60)
	del(14, 5)
	check("grace 5", t0.Add(15*time.Second), 5)
	del(15, 0)
	n.Advance(t0.Add(16 * time.Second))
	if p := n.pods["default/slow"]; p != nil && !p.apiGone {
		t.Fatalf("grace 0: the object is still there")
	}
}

// Node.UpdatePod reads a condition another client set in the object's
// status (one the kubelet does not own) as Action.SetCondition: the
// kubelet then reports Ready for the pod's readiness gate.
func TestNodeUpdatePodSetsCondition(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gated", Annotations: map[string]string{"kubernetes.io/config.source": "api"}},
		Spec: v1.PodSpec{ReadinessGates: []v1.PodReadinessGate{{ConditionType: "example.com/gate"}},
			Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	n := NewNode(Config{Seed: 1})
	t0 := n.Start()
	if err := n.AddPod(t0, pod, Script{}); err != nil {
		t.Fatal(err)
	}
	n.Advance(t0.Add(5 * time.Second))
	obj := pod.DeepCopy()
	obj.Status.Conditions = []v1.PodCondition{{Type: "example.com/gate", Status: v1.ConditionTrue}, {Type: v1.PodReady, Status: v1.ConditionTrue}}
	if err := n.UpdatePod(t0.Add(5*time.Second), obj, nil); err != nil {
		t.Fatal(err)
	}
	r := n.Advance(t0.Add(7 * time.Second))
	ready := false
	for _, e := range r.Entries {
		if e.Kind == KindAPI && e.API == APIStatus && e.Status != nil {
			for _, c := range e.Status.Status.Conditions {
				if c.Type == v1.PodReady && c.Status == v1.ConditionTrue {
					ready = true
				}
			}
		}
	}
	if !ready {
		t.Fatalf("the kubelet never wrote Ready True after the gate's condition came in an update: %+v", r.Entries)
	}
}

// slowDeletedNode is a node running one pod whose app ignores SIGTERM
// (grace 60, generation 3), deleted with grace deletes[i] at second
// at[i], advanced to second 20.
func slowDeletedNode(t *testing.T, at []float64, deletes []int64) *Node {
	t.Helper()
	g := int64(60)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "slow", Generation: 3, Annotations: map[string]string{"kubernetes.io/config.source": "api"}},
		Spec: v1.PodSpec{TerminationGracePeriodSeconds: &g, Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	script := Script{Containers: map[string]Behaviour{"app": {Runs: []Run{{IgnoreSIGTERM: true}}}}}
	n := NewNode(Config{Seed: 1})
	t0 := n.Start()
	if err := n.AddPod(t0, pod, script); err != nil {
		t.Fatal(err)
	}
	for i := range at {
		if err := n.DeletePod(t0.Add(time.Duration(at[i]*float64(time.Second))), "", "slow", deletes[i]); err != nil {
			t.Fatal(err)
		}
	}
	n.Advance(t0.Add(20 * time.Second))
	return n
}

// The first graceful DELETE bumps the object's generation by one
// (BeforeDelete, apiserver v0.37.2 pkg/registry/rest/delete.go:171); a
// second DELETE that shortens the grace does not (delete.go:108, the
// object is already being deleted).
func TestAPIDeleteBumpsGenerationOnce(t *testing.T) {
	n := slowDeletedNode(t, []float64{10}, []int64{-1})
	if p := n.pods["default/slow"]; p == nil || p.pod.Generation != 4 {
		t.Fatalf("after the first DELETE: %+v, want generation 4 (3 + 1)", p)
	}
	n = slowDeletedNode(t, []float64{10, 14}, []int64{-1, 5})
	if p := n.pods["default/slow"]; p == nil || p.pod.Generation != 4 {
		t.Fatalf("after a second, shorter DELETE: %+v, want generation 4 still", p)
	}
}

// A second DELETE whose shorter grace would put the deletion timestamp in
// the past (start + grace before now) sets it to now, and a grace other
// than 0 to 1 (BeforeDelete, apiserver v0.37.2 pkg/registry/rest/
// delete.go:135-144): the kubelet then kills with grace 1, not the grace
// asked for.
func TestAPIDeleteShortenedIntoThePast(t *testing.T) {
	n := slowDeletedNode(t, []float64{10, 14}, []int64{-1, 2})
	p := n.pods["default/slow"]
	if p == nil || p.pod.DeletionTimestamp == nil || p.pod.DeletionGracePeriodSeconds == nil {
		t.Fatalf("no deletion recorded: %+v", p)
	}
	if want := n.Start().Add(14 * time.Second); !p.pod.DeletionTimestamp.Time.Equal(want) || *p.pod.DeletionGracePeriodSeconds != 1 {
		t.Fatalf("deletionTimestamp %s grace %d, want %s (the second DELETE's time) grace 1",
			p.pod.DeletionTimestamp.Time, *p.pod.DeletionGracePeriodSeconds, want)
	}
}
