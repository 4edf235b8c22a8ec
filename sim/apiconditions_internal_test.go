package sim

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNeedToReconcileReadiness: a pod with readiness gates is synced again
// when the Ready condition of its API status differs from the generated
// one in status or in message, wherever Ready is in the list; never
// without gates or without a Ready condition.
func TestNeedToReconcileReadiness(t *testing.T) {
	gated := func(conds ...v1.PodCondition) *v1.Pod {
		return &v1.Pod{Spec: v1.PodSpec{ReadinessGates: []v1.PodReadinessGate{{ConditionType: "example.com/gate"}},
			Containers: []v1.Container{{Name: "app", Image: "busybox"}}},
			Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: conds,
				ContainerStatuses: []v1.ContainerStatus{{Name: "app", Ready: true, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}}}
	}
	k := Kubelet{}
	gateTrue := v1.PodCondition{Type: "example.com/gate", Status: v1.ConditionTrue}
	// With the gate True and the container ready, the generated Ready is
	// True with no message.
	want := v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue}
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		need bool
	}{
		{"Ready as generated, first", gated(want, gateTrue), false},
		{"Ready as generated, after the gate", gated(gateTrue, want), false},
		{"Ready False, first", gated(v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionFalse}, gateTrue), true},
		{"Ready False, after the gate", gated(gateTrue, v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionFalse}), true},
		{"Ready True with another message", gated(v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue, Message: "stale"}, gateTrue), true},
		{"no Ready condition", gated(gateTrue), false},
	} {
		if got := needToReconcileReadiness(tc.pod, k); got != tc.need {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.need)
		}
	}
	plain := gated(v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionFalse})
	plain.Spec.ReadinessGates = nil
	if needToReconcileReadiness(plain, k) {
		t.Error("a pod without readiness gates: true")
	}
}

// TestConditionActions: an update's status turns into SetCondition actions
// for the conditions the kubelet does not own that are new or changed
// status, wherever they are in the list; unchanged ones and the kubelet's
// own give none.
func TestConditionActions(t *testing.T) {
	with := func(conds ...v1.PodCondition) *v1.Pod { return &v1.Pod{Status: v1.PodStatus{Conditions: conds}} }
	gate := func(s v1.ConditionStatus) v1.PodCondition {
		return v1.PodCondition{Type: "example.com/gate", Status: s}
	}
	ready := v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue}
	for _, tc := range []struct {
		name      string
		cur, next *v1.Pod
		want      []v1.ConditionStatus
	}{
		{"unchanged, first", with(gate(v1.ConditionTrue), ready), with(gate(v1.ConditionTrue), ready), nil},
		{"unchanged, second", with(ready, gate(v1.ConditionTrue)), with(ready, gate(v1.ConditionTrue)), nil},
		{"changed, first", with(gate(v1.ConditionFalse)), with(gate(v1.ConditionTrue)), []v1.ConditionStatus{v1.ConditionTrue}},
		{"new", with(ready), with(ready, gate(v1.ConditionFalse)), []v1.ConditionStatus{v1.ConditionFalse}},
		{"the kubelet's own changed", with(ready), with(v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionFalse}), nil},
	} {
		got := conditionActions(tc.cur, tc.next, Kubelet{})
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d actions, want %d", tc.name, len(got), len(tc.want))
		}
		for i := range got {
			if got[i].SetCondition == nil || got[i].SetCondition.Status != tc.want[i] {
				t.Fatalf("%s: action %d %+v, want status %s", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}

// TestMergeDisruptionTarget: a status that takes the pod to a terminal
// phase carries the kubelet's DisruptionTarget into the API status once:
// it replaces the API's condition of that type (first in the list or
// not), keeping its transition time when the API's has the same status,
// taking now's otherwise.
func TestMergeDisruptionTarget(t *testing.T) {
	then := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC))
	now := time.Date(2026, 1, 1, 0, 1, 0, 300, time.UTC)
	dt := func(s v1.ConditionStatus, at metav1.Time) v1.PodCondition {
		return v1.PodCondition{Type: v1.DisruptionTarget, Status: s, Reason: "TerminationByKubelet", LastTransitionTime: at}
	}
	other := v1.PodCondition{Type: "example.com/gate", Status: v1.ConditionTrue}
	for _, tc := range []struct {
		name   string
		api    []v1.PodCondition
		want   metav1.Time
		others int
	}{
		{"same status, first", []v1.PodCondition{dt(v1.ConditionTrue, then), other}, then, 1},
		{"same status, second", []v1.PodCondition{other, dt(v1.ConditionTrue, then)}, then, 1},
		{"other status, first", []v1.PodCondition{dt(v1.ConditionFalse, then)}, metav1.NewTime(now.Truncate(time.Second)), 0},
		{"none", []v1.PodCondition{other}, metav1.NewTime(now.Truncate(time.Second)), 1},
	} {
		p := &podSim{node: &nodeState{}, api: &v1.PodStatus{Phase: v1.PodRunning, Conditions: tc.api}}
		p.loop.Now = now
		st := &v1.PodStatus{Phase: v1.PodFailed, Conditions: []v1.PodCondition{dt(v1.ConditionTrue, metav1.NewTime(now))}}
		p.mergeAPIConditions(st)
		n, others := 0, 0
		for _, c := range st.Conditions {
			switch c.Type {
			case v1.DisruptionTarget:
				n++
				if c.Status != v1.ConditionTrue || !c.LastTransitionTime.Equal(&tc.want) {
					t.Errorf("%s: DisruptionTarget %s at %s, want True at %s", tc.name, c.Status, c.LastTransitionTime, tc.want)
				}
			case "example.com/gate":
				others++
			}
		}
		if n != 1 || others != tc.others {
			t.Errorf("%s: %d DisruptionTarget conditions and %d others, want 1 and %d: %+v", tc.name, n, others, tc.others, st.Conditions)
		}
	}
}

// TestSetConditionSameStatusKeepsTime: another client setting a condition
// to the status it has keeps its transition time; a new status takes the
// time of the PATCH (whole seconds).
func TestSetConditionSameStatusKeepsTime(t *testing.T) {
	n := NewNode(Config{Seed: 1})
	t0 := n.Start()
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: map[string]string{"kubernetes.io/config.source": "api"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	if err := n.AddPod(t0, pod, Script{}); err != nil {
		t.Fatal(err)
	}
	set := func(at time.Duration, s v1.ConditionStatus) metav1.Time {
		t.Helper()
		if err := n.Do(t0.Add(at), "", "p", Action{SetCondition: &v1.PodCondition{Type: "example.com/mark", Status: s}}); err != nil {
			t.Fatal(err)
		}
		for _, c := range n.pods["default/p"].api.Conditions {
			if c.Type == "example.com/mark" {
				return c.LastTransitionTime
			}
		}
		t.Fatal("condition not set")
		return metav1.Time{}
	}
	first := set(10*time.Second, v1.ConditionTrue)
	if again := set(20500*time.Millisecond, v1.ConditionTrue); !again.Equal(&first) {
		t.Errorf("set True again: transition time %s, want %s kept", again, first)
	}
	if changed := set(30*time.Second, v1.ConditionFalse); !changed.Time.Equal(t0.Add(30 * time.Second).Truncate(time.Second)) {
		t.Errorf("set False: transition time %s, want %s", changed, t0.Add(30*time.Second))
	}
}

// TestCheckSetConditionStatus: True, False and Unknown are the statuses a
// condition can be set to; anything else is refused.
func TestCheckSetConditionStatus(t *testing.T) {
	p := &podSim{node: &nodeState{}}
	for s, ok := range map[v1.ConditionStatus]bool{v1.ConditionTrue: true, v1.ConditionFalse: true, v1.ConditionUnknown: true, "Maybe": false, "": false} {
		err := checkSetCondition(p, v1.PodCondition{Type: "example.com/gate", Status: s})
		if (err == nil) != ok {
			t.Errorf("status %q: error %v, want accepted %v", s, err, ok)
		}
	}
}
