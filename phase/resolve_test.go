package phase

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func apiPod(st v1.PodStatus, deadline *int64) *v1.Pod {
	p := pod(v1.RestartPolicyAlways, nil, ctr("app"))
	p.Status = st
	p.Spec.ActiveDeadlineSeconds = deadline
	return p
}

func ptr[T any](v T) *T { return &v }

func startAt(d time.Duration) *metav1.Time { t := metav1.NewTime(t0.Add(d)); return &t }

func TestResolve(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		computed v1.PodPhase
		opts     ResolveOptions
		want     Status
	}{
		{"computed phase stands", apiPod(v1.PodStatus{Phase: v1.PodPending}, nil), v1.PodRunning,
			ResolveOptions{}, Status{Phase: v1.PodRunning}},
		{"reason and message kept while the phase stays", apiPod(v1.PodStatus{Phase: v1.PodRunning, Reason: "R", Message: "M"}, nil), v1.PodRunning,
			ResolveOptions{}, Status{Phase: v1.PodRunning, Reason: "R", Message: "M"}},
		{"a phase change clears reason and message", apiPod(v1.PodStatus{Phase: v1.PodPending, Reason: "R", Message: "M"}, nil), v1.PodRunning,
			ResolveOptions{}, Status{Phase: v1.PodRunning}},
		{"cached reason first, API reason as fallback", apiPod(v1.PodStatus{Phase: v1.PodRunning, Reason: "api", Message: "api msg"}, nil), v1.PodRunning,
			ResolveOptions{Cached: &v1.PodStatus{Phase: v1.PodRunning, Reason: "cached"}}, Status{Phase: v1.PodRunning, Reason: "cached", Message: "api msg"}},
		{"cached phase differs: reason cleared even if the API phase matches", apiPod(v1.PodStatus{Phase: v1.PodRunning, Reason: "api"}, nil), v1.PodRunning,
			ResolveOptions{Cached: &v1.PodStatus{Phase: v1.PodPending, Reason: "cached"}}, Status{Phase: v1.PodRunning}},
		{"terminal cached phase is kept", apiPod(v1.PodStatus{Phase: v1.PodRunning}, nil), v1.PodRunning,
			ResolveOptions{Cached: &v1.PodStatus{Phase: v1.PodFailed, Reason: "Evicted", Message: "low on memory"}},
			Status{Phase: v1.PodFailed, Reason: "Evicted", Message: "low on memory"}},
		{"terminal API phase is kept when nothing is cached", apiPod(v1.PodStatus{Phase: v1.PodSucceeded}, nil), v1.PodRunning,
			ResolveOptions{}, Status{Phase: v1.PodSucceeded}},
		{"terminal API phase wins over another terminal computed phase", apiPod(v1.PodStatus{Phase: v1.PodSucceeded, Reason: "x"}, nil), v1.PodFailed,
			ResolveOptions{}, Status{Phase: v1.PodSucceeded}},
		{"cached terminal phase comes before the API one", apiPod(v1.PodStatus{Phase: v1.PodSucceeded}, nil), v1.PodPending,
			ResolveOptions{Cached: &v1.PodStatus{Phase: v1.PodFailed, Reason: "r"}}, Status{Phase: v1.PodSucceeded, Reason: "r"}},
		{"active deadline exceeded", apiPod(v1.PodStatus{Phase: v1.PodRunning, StartTime: startAt(0)}, ptr(int64(30))), v1.PodRunning,
			ResolveOptions{Now: t0.Add(30 * time.Second)}, Status{Phase: v1.PodFailed, Reason: ReasonDeadlineExceeded, Message: MessageDeadlineExceeded}},
		{"active deadline not yet", apiPod(v1.PodStatus{Phase: v1.PodRunning, StartTime: startAt(0)}, ptr(int64(30))), v1.PodRunning,
			ResolveOptions{Now: t0.Add(29 * time.Second)}, Status{Phase: v1.PodRunning}},
		{"active deadline reads the cached start time", apiPod(v1.PodStatus{Phase: v1.PodRunning, StartTime: startAt(0)}, ptr(int64(30))), v1.PodRunning,
			ResolveOptions{Cached: &v1.PodStatus{Phase: v1.PodRunning, StartTime: startAt(20 * time.Second)}, Now: t0.Add(40 * time.Second)},
			Status{Phase: v1.PodRunning}},
		{"active deadline without a start time", apiPod(v1.PodStatus{Phase: v1.PodRunning}, ptr(int64(1))), v1.PodRunning,
			ResolveOptions{Now: t0}, Status{Phase: v1.PodRunning}},
		{"active deadline cannot move a Succeeded pod", apiPod(v1.PodStatus{Phase: v1.PodSucceeded, StartTime: startAt(0)}, ptr(int64(1))), v1.PodSucceeded,
			ResolveOptions{Now: t0.Add(time.Hour)}, Status{Phase: v1.PodSucceeded, Reason: ReasonDeadlineExceeded, Message: MessageDeadlineExceeded}},
		{"nil pod", nil, v1.PodPending, ResolveOptions{}, Status{Phase: v1.PodPending}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resolve(tt.pod, tt.computed, tt.opts)
			got.Why = ""
			if got != tt.want {
				t.Errorf("Resolve = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestKillApply(t *testing.T) {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	old := metav1.NewTime(t0.Add(-time.Hour))
	base := &v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{
		{Type: v1.PodReady, Status: v1.ConditionTrue},
	}}
	withDT := base.DeepCopy()
	withDT.Conditions = append(withDT.Conditions, v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, LastTransitionTime: old})
	succeeded := base.DeepCopy()
	succeeded.Phase = v1.PodSucceeded

	tests := []struct {
		name            string
		kill            PodKill
		in              *v1.PodStatus
		phase           v1.PodPhase
		reason, message string
		cond            *v1.PodCondition
	}{
		{"eviction", PodKill{Kind: KillEviction, Message: "The node was low on resource: memory."}, base,
			v1.PodFailed, ReasonEvicted, "The node was low on resource: memory.",
			&v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: ReasonTerminationByKubelet,
				Message: "The node was low on resource: memory.", ObservedGeneration: 3, LastTransitionTime: metav1.NewTime(t0)}},
		{"eviction over a local-storage limit has no condition", PodKill{Kind: KillEviction, Message: "m", NoDisruptionCondition: true}, base,
			v1.PodFailed, ReasonEvicted, "m", nil},
		{"preemption keeps an earlier DisruptionTarget's time", PodKill{Kind: KillPreemption}, withDT,
			v1.PodFailed, ReasonPreempting, MessagePreempting,
			&v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: ReasonTerminationByKubelet,
				Message: MessagePreemptionDisruption, ObservedGeneration: 3, LastTransitionTime: old}},
		{"node shutdown keeps Succeeded", PodKill{Kind: KillNodeShutdown}, succeeded,
			v1.PodSucceeded, ReasonNodeShutdown, MessageNodeShutdown,
			&v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: ReasonTerminationByKubelet,
				Message: MessageNodeShutdown, ObservedGeneration: 3, LastTransitionTime: metav1.NewTime(t0)}},
		{"node shutdown fails a running pod", PodKill{Kind: KillNodeShutdown}, base,
			v1.PodFailed, ReasonNodeShutdown, MessageNodeShutdown,
			&v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: ReasonTerminationByKubelet,
				Message: MessageNodeShutdown, ObservedGeneration: 3, LastTransitionTime: metav1.NewTime(t0)}},
		{"unknown kind changes nothing", PodKill{Kind: "Other"}, base, v1.PodRunning, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.in.DeepCopy()
			got := tt.kill.Apply(tt.in, p, t0, features.V1_37())
			if got.Phase != tt.phase || got.Reason != tt.reason || got.Message != tt.message {
				t.Errorf("Apply = %s %q %q, want %s %q %q", got.Phase, got.Reason, got.Message, tt.phase, tt.reason, tt.message)
			}
			var dt *v1.PodCondition
			n := 0
			for i := range got.Conditions {
				if got.Conditions[i].Type == v1.DisruptionTarget {
					dt = &got.Conditions[i]
					n++
				}
			}
			switch {
			case tt.cond == nil && dt != nil && before.Conditions[len(before.Conditions)-1].Type != v1.DisruptionTarget:
				t.Errorf("unexpected DisruptionTarget %+v", *dt)
			case tt.cond != nil && (dt == nil || *dt != *tt.cond):
				t.Errorf("DisruptionTarget = %+v, want %+v", dt, *tt.cond)
			case n > 1:
				t.Errorf("%d DisruptionTarget conditions", n)
			}
			if len(tt.in.Conditions) != len(before.Conditions) || tt.in.Phase != before.Phase {
				t.Error("Apply changed its input")
			}
		})
	}
	if got := (PodKill{Kind: KillPreemption}).Apply(nil, nil, t0, features.V1_37()); got.Phase != v1.PodFailed || len(got.Conditions) != 1 || got.Conditions[0].ObservedGeneration != 0 {
		t.Errorf("nil status and pod: %+v", got)
	}
	off := features.V1_37()
	off, _ = off.With(features.PodObservedGenerationTracking, false)
	if got := (PodKill{Kind: KillPreemption}).Apply(base, p, t0, off); got.Conditions[1].ObservedGeneration != 0 {
		t.Errorf("tracking off, no earlier generation: observedGeneration %d", got.Conditions[1].ObservedGeneration)
	}
}

// With PodObservedGenerationTracking off the DisruptionTarget condition
// carries the pod's generation only when the status already had one of
// that type with a generation (CalculatePodConditionObservedGeneration);
// another condition's generation does not count.
func TestKillObservedGenerationGateOff(t *testing.T) {
	off, err := features.V1_37().With(features.PodObservedGenerationTracking, false)
	if err != nil {
		t.Fatal(err)
	}
	pod := &v1.Pod{}
	pod.Generation = 7
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		had  []v1.PodCondition
		want int64
	}{
		{"another type with a generation", []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue, ObservedGeneration: 5}}, 0},
		{"DisruptionTarget without one", []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue}}, 0},
		{"DisruptionTarget with one", []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, ObservedGeneration: 3}}, 7},
	} {
		st := &v1.PodStatus{Phase: v1.PodRunning, Conditions: tc.had}
		got := (PodKill{Kind: KillPreemption}).Apply(st, pod, t0, off)
		var dt *v1.PodCondition
		for i := range got.Conditions {
			if got.Conditions[i].Type == v1.DisruptionTarget {
				dt = &got.Conditions[i]
			}
		}
		if dt == nil || dt.ObservedGeneration != tc.want {
			t.Errorf("%s: DisruptionTarget %+v, want observedGeneration %d", tc.name, dt, tc.want)
		}
	}
}

// The one-line forms name reason, message and counts only when set.
func TestStrings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Status{Phase: v1.PodRunning, Why: "w"}.String(), "Running (w)"},
		{Status{Phase: v1.PodFailed, Reason: "Evicted", Why: "w"}.String(), "Failed reason=Evicted (w)"},
		{Status{Phase: v1.PodFailed, Message: "m", Why: "w"}.String(), `Failed message="m" (w)`},
		{Result{Phase: v1.PodPending, Why: "w"}.String(), "Pending (w)"},
		{Result{Phase: v1.PodRunning, Why: "w", Counts: Counts{Running: 2, Unknown: 1}}.String(), "Running (w; counted 2 running, 1 unknown)"},
		{Counts{}.String(), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}
