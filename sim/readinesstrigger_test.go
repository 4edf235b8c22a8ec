package sim_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// The status manager's sync triggers a readiness probe only for a started
// container (prober_manager.go UpdatePodStatus skips a container whose
// startup probe has not succeeded): while app's startup probe fails, its
// readiness worker runs on its own ticker only, so it first sees the new
// container, and seeds its initial result, at its tick 7 s after its
// first run at the pod's first sync, not at a sync right after the
// container started. Plant: triggerReadiness ignoring Started.
func TestReadinessNotTriggeredBeforeStarted(t *testing.T) {
	exec := v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}
	sp := &v1.Probe{ProbeHandler: exec, PeriodSeconds: 10, FailureThreshold: 30}
	rp := &v1.Probe{ProbeHandler: exec, PeriodSeconds: 7}
	pod := apiPod("p", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox", StartupProbe: sp, ReadinessProbe: rp}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{Startup: []sim.ProbeStep{
		{At: 0, Result: vocab.ProbeFailure}, {At: sec(25), Result: vocab.ProbeSuccess}}}}}}}
	for seed := uint64(1); seed <= 6; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(40)}, sim.PodInput{Pod: pod, Script: script})
		e, ok := tl.First("p", func(x sim.Entry) bool {
			return x.Kind == sim.KindProbe && x.Probe != nil && x.Probe.Probe == "readiness" && x.Probe.Initial
		})
		if !ok || e.At != 7*time.Second {
			t.Fatalf("seed %d: readiness's initial result at %s (found %v), want at the worker's tick at 7s\n%s", seed, e.At, ok, tl.Events())
		}
	}
}
