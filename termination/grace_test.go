package termination

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

func i64(v int64) *int64 { return &v }

// Written from the intent of TestKillContainerGracePeriod
// (pkg/kubelet/kuberuntime/kuberuntime_container_test.go).
func TestContainerGracePeriod(t *testing.T) {
	f := features.V1_37()
	probe := func(g *int64) *v1.Probe { return &v1.Probe{TerminationGracePeriodSeconds: g} }
	tests := []struct {
		name     string
		deletion *int64
		spec     *int64
		liveness *v1.Probe
		startup  *v1.Probe
		reason   vocab.KillReason
		want     int64
	}{
		{name: "nothing set: the 2 s minimum", reason: vocab.ReasonUnknown, want: 2},
		{name: "pod grace", spec: i64(30), reason: vocab.ReasonUnknown, want: 30},
		{name: "pod grace 0 is kept here (raised later)", spec: i64(0), reason: vocab.ReasonUnknown, want: 0},
		{name: "deletion grace wins over pod grace", deletion: i64(5), spec: i64(30), reason: vocab.ReasonUnknown, want: 5},
		{name: "deletion grace wins over the probe's", deletion: i64(5), spec: i64(30), liveness: probe(i64(100)), reason: vocab.ReasonLivenessProbe, want: 5},
		{name: "deletion grace without pod grace", deletion: i64(7), reason: vocab.ReasonUnknown, want: 7},
		{name: "liveness kill takes the liveness probe's grace", spec: i64(30), liveness: probe(i64(10)), reason: vocab.ReasonLivenessProbe, want: 10},
		{name: "liveness probe grace larger than the pod's", spec: i64(30), liveness: probe(i64(100)), reason: vocab.ReasonLivenessProbe, want: 100},
		{name: "startup kill takes the startup probe's grace", spec: i64(30), startup: probe(i64(12)), reason: vocab.ReasonStartupProbe, want: 12},
		{name: "startup kill ignores the liveness probe's grace", spec: i64(30), liveness: probe(i64(10)), reason: vocab.ReasonStartupProbe, want: 30},
		{name: "liveness kill ignores the startup probe's grace", spec: i64(30), startup: probe(i64(12)), reason: vocab.ReasonLivenessProbe, want: 30},
		{name: "probe without its own grace", spec: i64(30), liveness: probe(nil), reason: vocab.ReasonLivenessProbe, want: 30},
		{name: "other reasons ignore probe grace", spec: i64(30), liveness: probe(i64(10)), reason: vocab.ReasonFailedPostStartHook, want: 30},
		{name: "probe grace needs the pod grace set", liveness: probe(i64(10)), reason: vocab.ReasonLivenessProbe, want: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{}
			pod.DeletionGracePeriodSeconds = tc.deletion
			pod.Spec.TerminationGracePeriodSeconds = tc.spec
			c := &v1.Container{Name: "app", LivenessProbe: tc.liveness, StartupProbe: tc.startup}
			pod.Spec.Containers = []v1.Container{*c}
			if got := ContainerGracePeriod(pod, c, tc.reason, f); got != tc.want {
				t.Errorf("ContainerGracePeriod = %d, want %d", got, tc.want)
			}
		})
	}
	if got := ContainerGracePeriod(nil, nil, vocab.ReasonLivenessProbe, f); got != 2 {
		t.Errorf("nil pod: %d, want 2", got)
	}
	if got := ContainerGracePeriod(&v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: i64(9)}}, nil, vocab.ReasonLivenessProbe, f); got != 9 {
		t.Errorf("nil container: %d, want 9", got)
	}
}

func TestStopTimeout(t *testing.T) {
	f := features.V1_37()
	s := time.Second
	tests := []struct {
		name       string
		grace      int64
		override   *int64
		hasPreStop bool
		preStop    time.Duration
		ordered    bool
		turn       time.Duration
		want       Stop
	}{
		{name: "no hook, no ordering", grace: 30, want: Stop{Grace: 30, Timeout: 30}},
		{name: "override replaces the grace, even when larger", grace: 30, override: i64(60), want: Stop{Grace: 60, Timeout: 60}},
		{name: "override 0 gives the minimum", grace: 30, override: i64(0), hasPreStop: true, preStop: s, want: Stop{Grace: 0, Timeout: 2}},
		{name: "override 1 gives the minimum", grace: 30, override: i64(1), want: Stop{Grace: 1, Timeout: 2}},
		{name: "preStop whole seconds deducted", grace: 20, hasPreStop: true, preStop: 4*s + 900*time.Millisecond,
			want: Stop{Grace: 20, PreStopRan: true, PreStopElapsed: 4*s + 900*time.Millisecond, PreStopDeducted: 4, Timeout: 16}},
		{name: "preStop longer than the grace", grace: 5, hasPreStop: true, preStop: time.Minute,
			want: Stop{Grace: 5, PreStopRan: true, PreStopElapsed: 5 * s, PreStopDeducted: 5, Timeout: 2}},
		{name: "negative grace skips the hook", grace: -3, hasPreStop: true, preStop: s, want: Stop{Grace: -3, Timeout: 2}},
		{name: "wait deducted after the hook", grace: 10, hasPreStop: true, preStop: 2 * s, ordered: true, turn: 3*s + 500*time.Millisecond,
			want: Stop{Grace: 10, PreStopRan: true, PreStopElapsed: 2 * s, PreStopDeducted: 2, Waited: true, WaitElapsed: 3*s + 500*time.Millisecond, WaitDeducted: 3, Timeout: 5}},
		{name: "wait limited by what the hook left", grace: 10, hasPreStop: true, preStop: 4 * s, ordered: true, turn: -1,
			want: Stop{Grace: 10, PreStopRan: true, PreStopElapsed: 4 * s, PreStopDeducted: 4, Waited: true, WaitElapsed: 6 * s, WaitDeducted: 6, Timeout: 2}},
		{name: "no wait when the hook used everything", grace: 3, hasPreStop: true, preStop: 3 * s, ordered: true, turn: -1,
			want: Stop{Grace: 3, PreStopRan: true, PreStopElapsed: 3 * s, PreStopDeducted: 3, Timeout: 2}},
		{name: "2.9 s over the grace", grace: 5, hasPreStop: true, preStop: 4*s + 900*time.Millisecond, ordered: true, turn: -1,
			want: Stop{Grace: 5, PreStopRan: true, PreStopElapsed: 4*s + 900*time.Millisecond, PreStopDeducted: 4, Waited: true, WaitElapsed: s, WaitDeducted: 1, Timeout: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StopTimeout(tc.grace, StopOptions{Features: f, GracePeriodOverride: tc.override, HasPreStop: tc.hasPreStop, PreStop: tc.preStop, Ordered: tc.ordered, TurnAfter: tc.turn}); got != tc.want {
				t.Errorf("StopTimeout =\n %+v\nwant\n %+v", got, tc.want)
			}
		})
	}
}

// Written from the intent of Test_calculateEffectiveGracePeriod
// (pkg/kubelet/pod_workers_test.go).
func TestEffectiveGracePeriod(t *testing.T) {
	f := features.V1_37()
	pod := func(deletion, spec *int64) *v1.Pod {
		p := &v1.Pod{}
		p.DeletionGracePeriodSeconds = deletion
		p.Spec.TerminationGracePeriodSeconds = spec
		return p
	}
	tests := []struct {
		name          string
		previous      int64
		pod           *v1.Pod
		override      *int64
		want          int64
		wantShortened bool
	}{
		{name: "no grace anywhere: 1", pod: pod(nil, nil), want: 1},
		{name: "spec grace when nothing else", pod: pod(nil, i64(30)), want: 30},
		{name: "spec grace 0 is raised to 1", pod: pod(nil, i64(0)), want: 1},
		{name: "deletion grace over spec grace", pod: pod(i64(20), i64(30)), want: 20},
		{name: "deletion grace 0 is raised to 1", pod: pod(i64(0), i64(30)), want: 1},
		{name: "override over spec grace", pod: pod(nil, i64(30)), override: i64(10), want: 10},
		{name: "override larger than the deletion grace is ignored", pod: pod(i64(20), i64(30)), override: i64(25), want: 20},
		{name: "override smaller than the deletion grace", pod: pod(i64(20), i64(30)), override: i64(1), want: 1},
		{name: "override larger than spec grace still wins (spec is only a default)", pod: pod(nil, i64(30)), override: i64(60), want: 60},
		{name: "previous kept when nothing is shorter", previous: 10, pod: pod(i64(20), i64(30)), want: 10},
		{name: "previous shortened by the deletion grace", previous: 30, pod: pod(i64(5), i64(30)), want: 5, wantShortened: true},
		{name: "previous shortened by an override", previous: 30, pod: pod(nil, i64(30)), override: i64(1), want: 1, wantShortened: true},
		{name: "previous never grows", previous: 5, pod: pod(nil, i64(30)), override: i64(60), want: 5},
		{name: "negative override raised to 1", previous: 5, pod: pod(nil, i64(30)), override: i64(-1), want: 1, wantShortened: true},
		{name: "nil pod", pod: nil, override: i64(3), want: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, shortened := EffectiveGracePeriod(tc.previous, tc.pod, tc.override, f)
			if got != tc.want || shortened != tc.wantShortened {
				t.Errorf("EffectiveGracePeriod = %d %v, want %d %v", got, shortened, tc.want, tc.wantShortened)
			}
		})
	}
}

// Written from the intent of the eviction manager's tests of the grace it
// asks for (TestMemoryPressure_VerifyPodStatus and neighbours).
func TestEvictionGracePeriod(t *testing.T) {
	f := features.V1_37()
	withGrace := &v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: i64(30)}}
	tests := []struct {
		name string
		pod  *v1.Pod
		hard bool
		max  int64
		want int64
	}{
		{"hard threshold", withGrace, true, 60, 1},
		{"soft: the smaller of max and the pod's", withGrace, false, 10, 10},
		{"soft: pod grace below max", withGrace, false, 60, 30},
		{"soft: pod without grace takes max", &v1.Pod{}, false, 60, 60},
		{"soft: unset max is 0", withGrace, false, 0, 0},
		{"nil pod", nil, false, 5, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EvictionGracePeriod(tc.pod, tc.hard, tc.max, f); got != tc.want {
				t.Errorf("EvictionGracePeriod = %d, want %d", got, tc.want)
			}
		})
	}
}
