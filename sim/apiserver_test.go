package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

func i64(v int64) *int64 { return &v }

// apiEventAt is when the timeline first shows the API event ev of pod name
// (-1: never).
func apiEventAt(tl *sim.Timeline, name string, ev sim.APIEvent) time.Duration {
	e, ok := tl.First(name, func(x sim.Entry) bool { return x.Kind == sim.KindAPI && x.API == ev })
	if !ok {
		return -1
	}
	return e.At
}

// A pod already Succeeded, deleted through the API with its default grace,
// is gone at once: CheckGracefulDelete gives a terminal pod grace 0, and
// the store deletes an object with grace 0 and no finalizer at once.
func TestAPIDeleteTerminalPodGoneAtOnce(t *testing.T) {
	pod := apiPod("done", v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, TerminationGracePeriodSeconds: i64(30),
		Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(2)}}}}}
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(60)}, sim.PodInput{Pod: pod, Script: script,
			Actions: []sim.Action{{At: sec(20), Delete: i64(-1)}}})
		if got := apiEventAt(tl, "done", sim.APIGone); got != 20*time.Second {
			t.Fatalf("seed %d: gone at %s, want at the delete (20s)\n%s", seed, got, tl.Events())
		}
		if at := apiEventAt(tl, "done", sim.APIDeleted); at >= 0 {
			t.Fatalf("seed %d: the kubelet deleted the object at %s: the API server had", seed, at)
		}
	}
}

// APIDeleteGrace follows CheckGracefulDelete.
func TestAPIDeleteGrace(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{NodeName: "n", TerminationGracePeriodSeconds: i64(20)}}
	unscheduled := &v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: i64(20)}}
	noGrace := &v1.Pod{Spec: v1.PodSpec{NodeName: "n"}}
	// A negative terminationGracePeriodSeconds (not defaulted) becomes 1.
	negative := &v1.Pod{Spec: v1.PodSpec{NodeName: "n", TerminationGracePeriodSeconds: i64(-5)}}
	for _, c := range []struct {
		pod   *v1.Pod
		phase v1.PodPhase
		req   int64
		want  int64
	}{
		{pod, v1.PodRunning, -1, 20},
		{pod, v1.PodRunning, 5, 5},
		{pod, v1.PodRunning, 0, 0},
		{noGrace, v1.PodRunning, -1, 30},
		{pod, v1.PodSucceeded, 5, 0},
		{pod, v1.PodFailed, -1, 0},
		{unscheduled, v1.PodPending, 7, 0},
		{negative, v1.PodRunning, -1, 1},
	} {
		if got := sim.APIDeleteGrace(c.pod, c.phase, c.req); got != c.want {
			t.Errorf("%s, phase %s, requested %d: grace %d, want %d", c.pod.Spec.NodeName, c.phase, c.req, got, c.want)
		}
	}
}

// A DELETE with grace 0 of an object with a finalizer leaves it, with
// deletionGracePeriodSeconds 0, until the finalizer goes; then the store
// deletes it at once, before the kubelet is done with it.
func TestAPIDeleteGraceZeroHeldByFinalizer(t *testing.T) {
	pod := apiPod("held", v1.PodSpec{TerminationGracePeriodSeconds: i64(30),
		Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	pod.Finalizers = []string{"example.com/hold"}
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{IgnoreSIGTERM: true}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script,
		Actions: []sim.Action{{At: sec(10), Delete: i64(0)}, {At: sec(10.5), RemoveFinalizers: true}}})
	if got := apiEventAt(tl, "held", sim.APIGone); got != 10500*time.Millisecond {
		t.Fatalf("gone at %s, want when the finalizer went (10.5s)\n%s", got, tl.Events())
	}
	if !strings.Contains(tl.Events(), "terminat") {
		t.Fatalf("the kubelet never terminated the pod\n%s", tl.Events())
	}
}
