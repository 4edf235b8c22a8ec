package sim_test

import (
	"fmt"
	"strings"
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

// The startup manager's result reaches the status manager as started =
// (result == Success) (kubelet.go syncLoopIteration, the startupManager
// case: SetContainerStartup): app's startup worker seeds Unknown at 2 s,
// which leaves it not started (no store), and succeeds at 7.243 s (its first run at the first sync, 1.243 s, then every 2 s), when
// SetContainerStartup stores app started, before the sync writes the
// status again. Plant: started := r != ProbeSuccess (prober.go:432).
func TestStartupResultSetsStarted(t *testing.T) {
	exec := v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}
	sp := &v1.Probe{ProbeHandler: exec, PeriodSeconds: 2, FailureThreshold: 30}
	pod := apiPod("p", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox", StartupProbe: sp}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{Startup: []sim.ProbeStep{
		{At: 0, Result: vocab.ProbeFailure}, {At: sec(5), Result: vocab.ProbeSuccess}}}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(20)}, sim.PodInput{Pod: pod, Script: script})
	var got []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindStatus && e.Status != nil && e.Status.By == "SetContainerStartup" {
			cs := e.Status.Status.ContainerStatuses
			got = append(got, fmt.Sprintf("%s started %v", e.At, len(cs) == 1 && cs[0].Started != nil && *cs[0].Started))
		}
	}
	if strings.Join(got, "; ") != "6s started true" {
		t.Errorf("SetContainerStartup stored: %v, want app started at 6s only\n%s", got, tl.Events())
	}
}

// The readiness manager's result reaches the status manager as ready =
// (result == Success) (kubelet.go syncLoopIteration, the readinessManager
// case: SetContainerReadiness, which sets the container's ready and the
// ContainersReady and Ready conditions): app's readiness worker seeds
// Failure, which leaves it not ready (no store), and succeeds at 7.243 s (its first run at the first sync, 1.243 s, then every 2 s),
// when SetContainerReadiness stores app ready and the pod Ready, before
// the sync writes the status again.
func TestReadinessResultSetsReady(t *testing.T) {
	exec := v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}
	rp := &v1.Probe{ProbeHandler: exec, PeriodSeconds: 2}
	pod := apiPod("p", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox", ReadinessProbe: rp}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{Readiness: []sim.ProbeStep{
		{At: 0, Result: vocab.ProbeFailure}, {At: sec(5), Result: vocab.ProbeSuccess}}}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(20)}, sim.PodInput{Pod: pod, Script: script})
	var got []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindStatus && e.Status != nil && e.Status.By == "SetContainerReadiness" {
			st := e.Status.Status
			conds := map[v1.PodConditionType]v1.ConditionStatus{}
			for _, c := range st.Conditions {
				conds[c.Type] = c.Status
			}
			got = append(got, fmt.Sprintf("%s ready %v, ContainersReady %s, Ready %s, Initialized %s", e.At.Round(time.Millisecond),
				len(st.ContainerStatuses) == 1 && st.ContainerStatuses[0].Ready, conds[v1.ContainersReady], conds[v1.PodReady], conds[v1.PodInitialized]))
		}
	}
	if strings.Join(got, "; ") != "7.243s ready true, ContainersReady True, Ready True, Initialized True" {
		t.Errorf("SetContainerReadiness stored: %v\n%s", got, tl.Events())
	}
}

// A readiness result of an instance that is no longer in the status (its
// probe ran while the container exited and was restarted) changes no
// container's ready: the status manager's SetContainerReadiness finds no
// status with that container ID and does nothing (status_manager.go:
// "Container readiness changed for unknown container"). Plant: patchStatus
// starting from index 1 instead of -1 (prober.go:452).
func TestReadinessResultOfReplacedInstance(t *testing.T) {
	exec := v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}
	rp := &v1.Probe{ProbeHandler: exec, PeriodSeconds: 10, TimeoutSeconds: 10}
	pod := apiPod("p", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox", ReadinessProbe: rp}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{
		{ExitAfter: sec(2), ExitCode: 1, Readiness: []sim.ProbeStep{{At: 0, Result: vocab.ProbeSuccess, Takes: sec(5)}}},
		{Readiness: []sim.ProbeStep{{At: 0, Result: vocab.ProbeFailure}}}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(9)}, sim.PodInput{Pod: pod, Script: script})
	old, ok := tl.First("p", func(x sim.Entry) bool {
		return x.Kind == sim.KindProbe && x.Probe != nil && x.Probe.ID == "p-app-0" && x.Probe.Result == vocab.ProbeSuccess
	})
	if !ok {
		t.Fatalf("no Success of p-app-0's readiness probe\n%s", tl.Events())
	}
	if started, ok := tl.First("p", func(x sim.Entry) bool {
		return x.Kind == sim.KindCRI && x.Call.Method == "StartContainer" && x.At > 0 && x.Message != "StartContainer app p-app-0"
	}); !ok || started.At >= old.At {
		t.Fatalf("app not restarted before p-app-0's probe returned at %s\n%s", old.At, tl.Events())
	}
	for _, e := range tl.Entries {
		if e.Kind == sim.KindStatus && e.Status.By == "SetContainerReadiness" {
			t.Errorf("%s: SetContainerReadiness stored a status: %+v\n%s", e.At, e.Status.Status.ContainerStatuses, tl.Events())
		}
		if e.Kind == sim.KindStatus && e.Status.Ready != "0/1" {
			t.Errorf("%s: app shown ready %s\n%s", e.At, e.Status.Ready, tl.Events())
		}
	}
}
