package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/vocab"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// Focused tests of single timing rules and status-manager behaviours, each
// with the timeline facts the kubelet v1.37.2 source gives; they were
// written against the bugs of tooling/mutation/bugs.txt (sim-*) the replay, the
// properties and the examples let through.

func run(t *testing.T, cfg sim.Config, in ...sim.PodInput) *sim.Timeline {
	t.Helper()
	tl, err := sim.Simulate(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func terminal(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }

// A pod past its activeDeadlineSeconds is synced by the sync loop's 1 s
// tick (kubelet.go getPodsToSync, active_deadline.go), not at its next
// requeue a minute away; SyncPod then stores phase Failed, reason
// DeadlineExceeded. The status manager holds that terminal phase back
// from the API while containers may run, and with it the reason and
// message (status_manager.go mergePodStatus): no API write shows a
// non-terminal phase with the deadline's reason.
func TestActiveDeadline(t *testing.T) {
	dl := int64(5)
	pod := apiPod("dl", v1.PodSpec{ActiveDeadlineSeconds: &dl, Containers: []v1.Container{{Name: "app", Image: "a"}}})
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(30)}, sim.PodInput{Pod: pod})
		e, ok := tl.First("dl", func(e sim.Entry) bool {
			return e.Kind == sim.KindStatus && e.Status.Status.Reason == "DeadlineExceeded"
		})
		// The start time is 0 s (the pod arrives at 0); the deadline
		// passes at 5 s, the next tick is within a second.
		if !ok || e.Status.By != "SyncPod" || e.Status.Status.Phase != v1.PodFailed || e.At < 5*time.Second || e.At > 6*time.Second {
			t.Fatalf("seed %d: want SyncPod to store Failed/DeadlineExceeded within (5 s, 6 s], got %+v (found %v)\n%s", seed, e, ok, tl.Events())
		}
		for _, e := range tl.Entries {
			if e.Kind != sim.KindAPI || e.Status == nil {
				continue
			}
			st := e.Status.Status
			if !terminal(st.Phase) && (st.Reason != "" || st.Message != "") {
				t.Fatalf("seed %d: at %s the API shows phase %s with reason %q: the reason is held back with the phase\n%s", seed, e.At, st.Phase, st.Reason, tl.Events())
			}
		}
		// The terminal phase reaches the API only once the container is
		// stopped and the worker knows it: when SyncTerminatingPod returns
		// (after its StopPodSandbox), before SyncTerminatedPod.
		failed, _ := tl.First("dl", func(e sim.Entry) bool {
			return e.Kind == sim.KindAPI && e.Status != nil && terminal(e.Status.Status.Phase)
		})
		stop, _ := tl.First("dl", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "StopPodSandbox" })
		done, _ := tl.First("dl", func(e sim.Entry) bool { return e.Kind == sim.KindSync && e.Message == "terminated" })
		if stop.At == 0 || done.At == 0 || failed.At < stop.Call.Done || failed.At >= done.At {
			t.Fatalf("seed %d: phase Failed written at %s, want once SyncTerminatingPod returned (its StopPodSandbox done at %s), before the terminated sync (%s)\n%s", seed, failed.At, stop.Call.Done, done.At, tl.Events())
		}
		_, last := tl.LastStatus("dl")
		if last == nil || last.Phase != v1.PodFailed || last.Reason != "DeadlineExceeded" {
			t.Fatalf("seed %d: last API status %+v, want Failed/DeadlineExceeded", seed, last)
		}
	}
}

// readinessEntries returns the committed readiness results of a pod.
func readinessEntries(tl *sim.Timeline, pod string) []sim.Entry {
	var out []sim.Entry
	for _, e := range tl.Entries {
		if e.Pod == pod && e.Kind == sim.KindProbe && e.Probe.Probe == "readiness" {
			out = append(out, e)
		}
	}
	return out
}

// A readiness worker reports Success only after successThreshold
// consecutive successes (prober/worker.go doProbe). The first run is when
// the worker first sees the running container (it sets the initial
// Failure then), the second is the manual trigger of the SyncPod that
// Failure causes (prober_manager.go UpdatePodStatus), the third a period
// later: with successThreshold 3 and periodSeconds 10 the container is
// ready one period after it was first seen.
func TestReadinessSuccessThreshold(t *testing.T) {
	pod := apiPod("rd", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
		ReadinessProbe: &v1.Probe{ProbeHandler: execCheck, PeriodSeconds: 10, SuccessThreshold: 3, FailureThreshold: 3, TimeoutSeconds: 1}}}})
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(40)}, sim.PodInput{Pod: pod})
		r := readinessEntries(tl, "rd")
		if len(r) != 2 || r[0].Probe.Result != vocab.ProbeFailure || r[1].Probe.Result != vocab.ProbeSuccess {
			t.Fatalf("seed %d: want readiness Failure then Success, got %v\n%s", seed, r, tl.Events())
		}
		if d := r[1].At - r[0].At; d < 10*time.Second || d > 11*time.Second {
			t.Fatalf("seed %d: ready %s after the initial Failure, want one period (10 s) plus the trigger's delay\n%s", seed, d, tl.Events())
		}
		if seed == 1 && (r[0].At != 368*time.Millisecond || r[1].At.Round(time.Millisecond) != 11243*time.Millisecond) {
			t.Fatalf("seed 1: readiness Failure at %s and Success at %s, want 0.368 s and 11.243 s\n%s", r[0].At, r[1].At, tl.Events())
		}
	}
}

// A readiness worker starts a new container at Failure (its initial
// value), and probes only once the container's age, counted from its
// whole-second startedAt and cut to whole seconds, reaches
// initialDelaySeconds (prober/worker.go: int32(time.Since(startedAt).Seconds())
// < initialDelaySeconds). So the container becomes ready in
// [startedAt+5 s, startedAt+6 s) with initialDelaySeconds 5 and
// periodSeconds 1, and no status shows it ready before.
func TestReadinessInitialDelay(t *testing.T) {
	pod := apiPod("rd", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
		ReadinessProbe: &v1.Probe{ProbeHandler: execCheck, InitialDelaySeconds: 5, PeriodSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3, TimeoutSeconds: 1}}}})
	for seed := uint64(1); seed <= 4; seed++ {
		for k := 0; k < 10; k++ {
			tl := run(t, sim.Config{Seed: seed, For: sec(15)}, sim.PodInput{Pod: pod, At: sec(0.1 * float64(k))})
			var started time.Time
			for _, e := range tl.Entries {
				if e.Kind != sim.KindStatus || len(e.Status.Status.ContainerStatuses) == 0 {
					continue
				}
				cs := e.Status.Status.ContainerStatuses[0]
				if cs.State.Running != nil && started.IsZero() {
					started = cs.State.Running.StartedAt.Time
				}
				if cs.Ready && (started.IsZero() || tl.Start.Add(e.At).Before(started.Add(5*time.Second))) {
					t.Fatalf("seed %d, at %s: ready at %s, before startedAt %s + initialDelaySeconds\n%s", seed, sec(0.1*float64(k)), e.At, started, tl.Events())
				}
			}
			r := readinessEntries(tl, "rd")
			if len(r) != 2 || r[0].Probe.Result != vocab.ProbeFailure || r[1].Probe.Result != vocab.ProbeSuccess {
				t.Fatalf("seed %d: want readiness Failure then Success, got %v\n%s", seed, r, tl.Events())
			}
			ready := tl.Start.Add(r[1].At)
			if ready.Before(started.Add(5*time.Second)) || !ready.Before(started.Add(6*time.Second)) {
				t.Fatalf("seed %d, at %s: ready at %s, want in [startedAt+5s, startedAt+6s) (startedAt %s)\n%s", seed, sec(0.1*float64(k)), r[1].At, started, tl.Events())
			}
		}
	}
}

// A liveness worker that reported a failure is on hold until the
// container has a new ID (prober/worker.go onHold): while the failed
// instance takes its whole grace period to die (it ignores SIGTERM) and
// its probe recovers, no further result is reported for it. The results
// are the initial Success of each instance and the one Failure.
func TestLivenessHold(t *testing.T) {
	pod := apiPod("lv", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
		LivenessProbe: &v1.Probe{ProbeHandler: execCheck, PeriodSeconds: 1, SuccessThreshold: 1, FailureThreshold: 1, TimeoutSeconds: 1}}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{
		{IgnoreSIGTERM: true, Liveness: []sim.ProbeStep{{At: sec(5), Result: vocab.ProbeFailure}, {At: sec(7), Result: vocab.ProbeSuccess}}},
		{},
	}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script})
	var got []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindProbe {
			got = append(got, fmt.Sprintf("%s %s %s %s", fmtSec(e.At), e.Probe.ID, e.Probe.Probe, e.Probe.Result))
		}
	}
	want := []string{
		"1.000 lv-app-0 liveness Success",  // initial value, first run of the worker after the container started
		"6.000 lv-app-0 liveness Failure",  // age 5.6 s
		"37.000 lv-app-1 liveness Success", // the next instance, started at 36.011 s after the 30 s kill
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("liveness results:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), tl.Events())
	}
}

func fmtSec(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// When SyncPod generates a status in which a started, running container is
// not ready, the probe manager triggers its readiness worker at once
// (prober_manager.go UpdatePodStatus): with periodSeconds 10 the
// container is ready at the SyncPod that first sees it running, not at the
// worker's next tick.
func TestReadinessTrigger(t *testing.T) {
	pod := apiPod("rd", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
		ReadinessProbe: &v1.Probe{ProbeHandler: execCheck, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3, TimeoutSeconds: 1}}}})
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(30)}, sim.PodInput{Pod: pod})
		running, ok := tl.First("rd", func(e sim.Entry) bool {
			return e.Kind == sim.KindStatus && len(e.Status.Status.ContainerStatuses) == 1 && e.Status.Status.ContainerStatuses[0].State.Running != nil
		})
		if !ok || running.Status.By != "SyncPod" {
			t.Fatalf("seed %d: no SyncPod status with the container running\n%s", seed, tl.Events())
		}
		r := readinessEntries(tl, "rd")
		if len(r) != 2 || r[0].Probe.Result != vocab.ProbeFailure || r[1].Probe.Result != vocab.ProbeSuccess || r[0].At != running.At || r[1].At != running.At {
			t.Fatalf("seed %d: want readiness Failure (initial) and Success at %s, when SyncPod first saw the container running; got %v\n%s", seed, running.At, r, tl.Events())
		}
	}
}

// Readiness workers keep probing through the grace period; only liveness
// and startup workers stop when termination starts (prober/worker.go:
// "Graceful shutdown of the pod" applies to liveness and startup). A
// container that turns unready 15 s into its life while it ignores
// SIGTERM for its 30 s grace is reported not ready at once (0/1
// Terminating), not only when it is killed at 40 s.
func TestReadinessDuringTermination(t *testing.T) {
	del := int64(-1)
	pod := apiPod("rt", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
		ReadinessProbe: &v1.Probe{ProbeHandler: execCheck, PeriodSeconds: 1, SuccessThreshold: 1, FailureThreshold: 1, TimeoutSeconds: 1}}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{
		{IgnoreSIGTERM: true, Readiness: []sim.ProbeStep{{At: sec(15), Result: vocab.ProbeFailure}}}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(10), Delete: &del}}})
	var got []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindProbe {
			got = append(got, fmt.Sprintf("%s %s %s", fmtSec(e.At), e.Probe.Probe, e.Probe.Result))
		}
	}
	want := []string{"0.368 readiness Failure", "0.368 readiness Success", "15.368 readiness Failure"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("readiness results:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), tl.Events())
	}
	e, ok := tl.First("rt", func(e sim.Entry) bool {
		return e.Kind == sim.KindStatus && e.Status.By == "SetContainerReadiness" && e.At == 15368*time.Millisecond
	})
	if !ok || e.Status.Ready != "0/1" || e.Status.Column != "Terminating" {
		t.Fatalf("want SetContainerReadiness to store 0/1 Terminating at 15.368 s, got %+v\n%s", e.Status, tl.Events())
	}
	if exit, _ := tl.First("rt", func(e sim.Entry) bool { return e.Kind == sim.KindExit }); exit.Exit.Ended != 40*time.Second || exit.At != exit.Exit.Ended+30*time.Millisecond {
		t.Fatalf("the container exited at %s (seen at %s), want 40 s (SIGKILL after the 30 s grace), seen when StopContainer returns 30 ms later", exit.Exit.Ended, exit.At)
	}
}

// A deletion that arrives while SyncPod runs makes the worker terminating;
// when SyncPod returns, the worker completes the work it ran (a sync that
// was not terminal: no transition) and then runs SyncTerminatingPod, which
// stops the containers that SyncPod started (pod_workers.go podWorkerLoop
// completes by update.WorkType, the work it picked up). The pod is
// deleted at 0.1 s, inside its first SyncPod (0 to 0.368 s).
func TestDeleteDuringSync(t *testing.T) {
	del := int64(-1)
	pod := apiPod("dd", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(60)}, sim.PodInput{Pod: pod, Actions: []sim.Action{{At: sec(0.1), Delete: &del}}})
		var syncs []string
		for _, e := range tl.Entries {
			if e.Kind == sim.KindSync && (e.Message == "terminating" || e.Message == "terminated") {
				syncs = append(syncs, e.Message)
			}
		}
		if strings.Join(syncs, ",") != "terminating,terminated" {
			t.Fatalf("seed %d: sync functions after the first: %v, want terminating then terminated\n%s", seed, syncs, tl.Events())
		}
		stop, ok := tl.First("dd", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" })
		exit, exited := tl.First("dd", func(e sim.Entry) bool { return e.Kind == sim.KindExit })
		gone, deleted := tl.First("dd", func(e sim.Entry) bool { return e.Kind == sim.KindAPI && e.Message == "API object deleted" })
		if !ok || !exited || !deleted || stop.At < 368*time.Millisecond || exit.At < stop.At || gone.At < exit.At {
			t.Fatalf("seed %d: want StopContainer after the first sync (0.368 s), the exit, then the deletion; got stop %v at %s, exit %v at %s, deleted %v at %s\n%s",
				seed, ok, stop.At, exited, exit.At, deleted, gone.At, tl.Events())
		}
	}
}

// The grace period SyncTerminatingPod kills with is the pod worker's
// (pod_workers.go calculateEffectiveGracePeriod: at least 1 s), passed to
// killPodWithSyncResult as an override, not the pod's own
// terminationGracePeriodSeconds (0 here). The native sidecars stop in
// reverse order: sidecar-1 (which ignores SIGTERM; StopContainer's
// timeout is floored at 2 s) first, and sidecar-0 when the 1 s budget for
// waiting on it has run out, at 11 s; with the pod's 0 s it would not
// wait at all. sidecar-1's turn comes when the app's StopContainer returns,
// 30 ms (RuntimeDelays.StopContainer) after the app exited on its signal.
func TestRemoveGraceOverride(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	zero := int64(0)
	pod := &v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: &zero,
		InitContainers: []v1.Container{{Name: "sidecar-0", Image: "a", RestartPolicy: &always}, {Name: "sidecar-1", Image: "a", RestartPolicy: &always}},
		Containers:     []v1.Container{{Name: "app", Image: "a"}}}}
	pod.Name = "static"
	pod.Annotations = map[string]string{"kubernetes.io/config.source": "file"}
	script := sim.Script{Containers: map[string]sim.Behaviour{"sidecar-1": {Runs: []sim.Run{{IgnoreSIGTERM: true}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(10), Remove: true}}})
	var got []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" {
			got = append(got, fmt.Sprintf("%s %s timeout %d", fmtSec(e.At), e.Call.Name, *e.Call.Timeout))
		}
	}
	want := []string{"10.000 app timeout 2", "10.030 sidecar-1 timeout 2", "11.000 sidecar-0 timeout 2"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("StopContainer calls:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), tl.Events())
	}
}

// kubectl delete --grace-period=5 of a pod whose spec allows 30 s: the
// container that ignores SIGTERM gets StopContainer with timeout 5 s and
// is SIGKILLed 5 s later (the deletion's grace, which both the pod worker
// and killContainer read from deletionGracePeriodSeconds).
func TestDeleteGracePeriod(t *testing.T) {
	del := int64(5)
	pod := apiPod("gp", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{IgnoreSIGTERM: true}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(10), Delete: &del}}})
	stop, ok := tl.First("gp", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" })
	if !ok || stop.At != 10*time.Second || stop.Call.Timeout == nil || *stop.Call.Timeout != 5 || !stop.Call.Killed {
		t.Fatalf("want StopContainer at 10 s with timeout 5 s ending in SIGKILL, got %+v\n%s", stop.Call, tl.Events())
	}
	exit, _ := tl.First("gp", func(e sim.Entry) bool { return e.Kind == sim.KindExit })
	if exit.Exit.Ended != 15*time.Second || !strings.HasSuffix(exit.Message, "code 137") {
		t.Fatalf("want the exit at 15 s with code 137, got %q at %s", exit.Message, exit.Exit.Ended)
	}
}

// The status manager deletes the API object only once TerminatePod stored
// the final status (status_manager.go canBeDeleted: podIsFinished), even
// when SyncTerminatedPod wrote a terminal phase the moment before: the
// final version is written, then the object is deleted. Here
// SyncTerminatedPod stores a status of its own: the container ignores
// SIGTERM and exits on its own (code 2) during its grace period, which
// the sim's SyncTerminatingPod status does not know yet (it assumes the
// SIGKILL at the end of the grace period); the relisted cache does. If
// that is modelled one day, this test needs another way to make
// SyncTerminatedPod write a terminal phase before TerminatePod.
func TestDeleteAfterTerminatePod(t *testing.T) {
	del := int64(10)
	pod := apiPod("fx", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{IgnoreSIGTERM: true, ExitAfter: sec(4), ExitCode: 2}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(1), Delete: &del}}})
	final, deleted := false, false
	var lastAPI *v1.PodStatus
	for _, e := range tl.Entries {
		switch {
		case e.Kind == sim.KindStatus && e.Status.By == "TerminatePod":
			final = true
		case e.Kind == sim.KindAPI && e.Status != nil:
			st := e.Status.Status
			lastAPI = &st
		case e.Kind == sim.KindAPI && strings.HasPrefix(e.Message, "kubelet deleted"):
			if !final {
				t.Fatalf("the kubelet deleted the API object at %s before TerminatePod\n%s", e.At, tl.Events())
			}
			deleted = true
		}
	}
	if !deleted {
		t.Fatalf("the kubelet never deleted the API object\n%s", tl.Events())
	}
	if !final || lastAPI == nil || lastAPI.Phase != v1.PodFailed {
		t.Fatalf("want TerminatePod and a last API status Failed, got %v %+v\n%s", final, lastAPI, tl.Events())
	}
	if cs := lastAPI.ContainerStatuses; len(cs) != 1 || cs[0].State.Terminated == nil || cs[0].State.Terminated.ExitCode != 2 {
		t.Fatalf("want the container's own exit code 2 in the last API status, got %+v", cs)
	}
}

// Finalizers: the kubelet's final delete (grace 0) leaves an object with
// finalizers in place until they are removed; finalizers removed before
// the kubelet is done do not delete the object early (the API server
// waits for the kubelet's delete, the deletion's grace period being
// unfinished). Both pods are deleted with grace 5 s at 10 s; their
// container ignores SIGTERM, so the kubelet is done at about 15.3 s.
func TestFinalizers(t *testing.T) {
	del := int64(5)
	pods := []sim.PodInput{}
	for _, p := range []struct {
		name string
		at   float64
	}{{"held", 30}, {"early", 12}} {
		pod := apiPod(p.name, v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
		pod.Finalizers = []string{"example.com/hold"}
		script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{IgnoreSIGTERM: true}}}}}
		pods = append(pods, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(10), Delete: &del}, {At: sec(p.at), RemoveFinalizers: true}}})
	}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, pods...)
	api := func(pod string) []string {
		var out []string
		for _, e := range tl.Entries {
			if e.Pod == pod && e.Kind == sim.KindAPI && e.Status == nil {
				out = append(out, fmtSec(e.At)+" "+e.Message)
			}
		}
		return out
	}
	for pod, want := range map[string][]string{
		"held":  {"15.306 kubelet deleted the API object (grace 0); finalizers hold it", "30.000 API object deleted"},
		"early": {"15.306 kubelet deleted the API object (grace 0)", "15.306 API object deleted"},
	} {
		if got := api(pod); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: API object events:\n%s\nwant:\n%s\n%s", pod, strings.Join(got, "\n"), strings.Join(want, "\n"), tl.Events())
		}
	}
}

// TerminatePod's final version (status_manager.go TerminatePod): a pod
// that is not static is given phase Failed; a static pod keeps its phase
// (TODO #116484 in the kubelet). Regular containers with no terminated
// state become ContainerStatusUnknown only once the pod has initialized,
// which hasPodInitialized reads from the API status: an init container
// that exits 0 on SIGTERM counts as completed (ib0), one that exits 143
// does not (ib143), and its app container stays waiting.
func TestTerminatePod(t *testing.T) {
	del := int64(5)
	static := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}}}
	static.Name = "st"
	static.Annotations = map[string]string{"kubernetes.io/config.source": "file"}
	in := []sim.PodInput{{Pod: static, Actions: []sim.Action{{At: sec(10), Remove: true}}}}
	for _, code := range []int32{0, 143} {
		pod := apiPod(fmt.Sprintf("ib%d", code), v1.PodSpec{InitContainers: []v1.Container{{Name: "wait", Image: "a"}}, Containers: []v1.Container{{Name: "app", Image: "a"}}})
		in = append(in, sim.PodInput{Pod: pod, Actions: []sim.Action{{At: sec(10), Delete: &del}},
			Script: sim.Script{Containers: map[string]sim.Behaviour{"wait": {Runs: []sim.Run{{TermExitCode: code}}}}}})
	}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, in...)
	final := func(pod string) v1.PodStatus {
		for i := len(tl.Entries) - 1; i >= 0; i-- {
			if e := tl.Entries[i]; e.Pod == pod && e.Kind == sim.KindStatus && e.Status.By == "TerminatePod" {
				return e.Status.Status
			}
		}
		t.Fatalf("%s: no TerminatePod status\n%s", pod, tl.Events())
		return v1.PodStatus{}
	}
	if st := final("st"); st.Phase != v1.PodRunning {
		t.Errorf("static pod: TerminatePod phase %s, want Running (kept)", st.Phase)
	}
	app := func(st v1.PodStatus) v1.ContainerState { return st.ContainerStatuses[0].State }
	if st := final("ib0"); st.Phase != v1.PodFailed || app(st).Terminated == nil || app(st).Terminated.Reason != "ContainerStatusUnknown" {
		t.Errorf("ib0: TerminatePod phase %s, app %+v; want Failed and ContainerStatusUnknown", st.Phase, app(st))
	}
	if st := final("ib143"); st.Phase != v1.PodFailed || app(st).Waiting == nil || app(st).Waiting.Reason != "PodInitializing" {
		t.Errorf("ib143: TerminatePod phase %s, app %+v; want Failed and app still waiting (PodInitializing)", st.Phase, app(st))
	}
}

// resetPod is an init container, a sidecar and an app whose rule resets
// the pod on exit code 42; the app exits 42 in its first run, 1 in its
// second, and runs in its third.
func resetPod() (*v1.Pod, sim.Script) {
	always := v1.ContainerRestartPolicyAlways
	pod := apiPod("ra", v1.PodSpec{
		InitContainers: []v1.Container{{Name: "prepare", Image: "a"}, {Name: "sidecar", Image: "a", RestartPolicy: &always}},
		Containers: []v1.Container{{Name: "app", Image: "a", RestartPolicy: &always, RestartPolicyRules: []v1.ContainerRestartRule{{
			Action: "RestartAllContainers", ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}}},
	})
	script := sim.Script{Containers: map[string]sim.Behaviour{
		"prepare": {Runs: []sim.Run{{ExitAfter: sec(1)}}},
		"app":     {Runs: []sim.Run{{ExitAfter: sec(5), ExitCode: 42}, {ExitAfter: sec(5), ExitCode: 1}, {}}},
	}}
	return pod, script
}

// A RestartAllContainers reset removes every container but keeps their
// log files; each container is then created with the restart count
// after its newest log file (kuberuntime_container.go: with no instance
// left, the restart count comes from the log directory), one more than
// before the reset. The app exits 42 (the rule's code) in its first run,
// 1 in its second (a plain restart), and runs in its third.
func TestRestartCountFromLogs(t *testing.T) {
	pod, script := resetPod()
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script})
	var got []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindCRI && e.Call.Method == "CreateContainer" {
			got = append(got, fmt.Sprintf("%s %d", e.Call.Name, e.Call.RestartCount))
		}
	}
	want := []string{"prepare 0", "sidecar 0", "app 0", "prepare 1", "sidecar 1", "app 1", "app 2"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("CreateContainer restart counts: %s, want %s\n%s", strings.Join(got, ", "), strings.Join(want, ", "), tl.Events())
	}
	_, last := tl.LastStatus("ra")
	if last == nil || len(last.ContainerStatuses) != 1 || last.ContainerStatuses[0].RestartCount != 2 {
		t.Fatalf("want the app's restart count 2 in the last status, got %+v", last)
	}
}

// Two resets in a row leave two log files of the app (each reset keeps
// them): the next instance's restart count follows the newest, 2, not 1.
func TestRestartCountFromNewestLog(t *testing.T) {
	pod, script := resetPod()
	script.Containers["app"] = sim.Behaviour{Runs: []sim.Run{{ExitAfter: sec(5), ExitCode: 42}, {ExitAfter: sec(5), ExitCode: 42}, {}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script})
	var got []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindCRI && e.Call.Method == "CreateContainer" && e.Call.Name == "app" {
			got = append(got, fmt.Sprint(e.Call.RestartCount))
		}
	}
	if want := "0, 1, 2"; strings.Join(got, ", ") != want {
		t.Fatalf("app's CreateContainer restart counts: %s, want %s\n%s", strings.Join(got, ", "), want, tl.Events())
	}
}

// execCheck is a probe handler: the API server requires one.
var execCheck = v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"check"}}}

// The same reset under each kubelet version (D1, D12 of
// shared/kubelet-versions.md): v1.35 has RestartAllContainersOnContainerExits
// off by default, so the rule does nothing and the app restarts alone;
// with the gate (and NodeDeclaredFeatures, which it needs) turned on,
// v1.35 resets but removes the log files with the containers, so the
// restart counts start again from 0; v1.36 keeps them, as v1.37 does.
func TestResetVersions(t *testing.T) {
	pod, script := resetPod()
	v135on, err := features.ParseFor(features.V1_35_4, "RestartAllContainersOnContainerExits=true,NodeDeclaredFeatures=true")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f        features.Set
		creates  string
		keepLogs bool // of every RemoveContainer, the reset's and the garbage collector's
	}{
		{features.V1_35(), "prepare 0, sidecar 0, app 0, app 1, app 2", false},
		{v135on, "prepare 0, sidecar 0, app 0, prepare 0, sidecar 0, app 0, app 1", false},
		{features.V1_36(), "prepare 0, sidecar 0, app 0, prepare 1, sidecar 1, app 1, app 2", true},
	} {
		tl := run(t, sim.Config{Seed: 1, For: sec(60), Kubelet: sim.Kubelet{Features: tc.f}}, sim.PodInput{Pod: pod, Script: script})
		var got []string
		removes := 0
		for _, e := range tl.Entries {
			if e.Kind != sim.KindCRI {
				continue
			}
			switch e.Call.Method {
			case "CreateContainer":
				got = append(got, fmt.Sprintf("%s %d", e.Call.Name, e.Call.RestartCount))
			case "RemoveContainer":
				if e.Call.KeepLogs != tc.keepLogs {
					t.Errorf("%s: RemoveContainer %s keepLogs %v, want %v", tc.f, e.Call.Name, e.Call.KeepLogs, tc.keepLogs)
				}
				removes++
			}
		}
		if strings.Join(got, ", ") != tc.creates {
			t.Errorf("%s: CreateContainer restart counts: %s, want %s\n%s", tc.f, strings.Join(got, ", "), tc.creates, tl.Events())
		}
		if removes == 0 {
			t.Errorf("%s: no RemoveContainer call", tc.f)
		}
	}
}
