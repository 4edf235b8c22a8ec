package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// A process that would exit on SIGTERM exactly when the stop timeout runs
// out is SIGKILLed (exit code 137), whichever path stops it: the kill of a
// liveness failure inside SyncPod (stopInstance) and the pod's deletion
// (termination.Plan: a process exits on its own only strictly before the
// timeout). Half a second earlier it exits on its own with its code. The
// runtime's race at the tie has no kubelet rule; the two paths must agree.
// Plant: stopInstance's exitAfterSignal letting the tie exit on its own.
func TestStopTimeoutTieKilledOnBothPaths(t *testing.T) {
	lp := &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}, PeriodSeconds: 1, FailureThreshold: 1}
	pod := apiPod("p", v1.PodSpec{TerminationGracePeriodSeconds: i64(3), Containers: []v1.Container{{Name: "app", Image: "busybox", LivenessProbe: lp}}})
	firstExit := func(tl *sim.Timeline) string {
		e, ok := tl.First("p", func(x sim.Entry) bool { return x.Kind == sim.KindExit })
		if !ok {
			t.Fatalf("no exit\n%s", tl.Events())
		}
		return e.Message
	}
	for _, tc := range []struct {
		term time.Duration
		want string
	}{{3 * time.Second, "code 137"}, {2500 * time.Millisecond, "code 0"}} {
		// The liveness kill.
		live := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{
			{TermAfter: sim.Duration(tc.term), Liveness: []sim.ProbeStep{{At: sec(5), Result: vocab.ProbeFailure}}}, {}}}}}
		tl := run(t, sim.Config{Seed: 1, For: sec(20)}, sim.PodInput{Pod: pod, Script: live})
		if got := firstExit(tl); !strings.Contains(got, tc.want) {
			t.Fatalf("liveness kill, exit %s after SIGTERM, timeout 3s: %q, want %s\n%s", tc.term, got, tc.want, tl.Events())
		}
		// The deletion.
		del := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{TermAfter: sim.Duration(tc.term)}}}}}
		tl = run(t, sim.Config{Seed: 1, For: sec(20)}, sim.PodInput{Pod: pod, Script: del, Actions: []sim.Action{{At: sec(5), Delete: i64(-1)}}})
		if got := firstExit(tl); !strings.Contains(got, tc.want) {
			t.Fatalf("deletion, exit %s after SIGTERM, timeout 3s: %q, want %s\n%s", tc.term, got, tc.want, tl.Events())
		}
	}
}
