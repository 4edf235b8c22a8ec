package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

func staticPod(name string, spec v1.PodSpec) *v1.Pod {
	p := apiPod(name, spec)
	p.Annotations["kubernetes.io/config.source"] = "file"
	return p
}

func criCalls(tl *sim.Timeline, name string, from, to time.Duration) []string {
	var out []string
	for _, e := range tl.Entries {
		if e.Pod == name && e.Kind == sim.KindCRI && e.At >= from && e.At <= to {
			out = append(out, e.Message)
		}
	}
	return out
}

// A restart forgets the crash-loop back-off records
// (kuberuntime_manager.go doBackOff, a new flowcontrol.Backoff): a
// container waiting out a 40 s back-off is started by the new kubelet's
// first sync, and its next crash waits the initial 10 s.
func TestRestartKubeletForgetsBackOff(t *testing.T) {
	pod := staticPod("crash", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(1), ExitCode: 1}}}}}
	for seed := uint64(1); seed <= 8; seed++ {
		down := sec(5)
		// Back-offs 10 s, 20 s, 40 s: at 50 s the container waits out its
		// 40 s back-off.
		tl := run(t, sim.Config{Seed: seed, For: sec(90)}, sim.PodInput{Pod: pod, Script: script,
			Actions: []sim.Action{{At: sec(50), RestartKubelet: &down}}})
		start, ok := tl.First("crash", func(e sim.Entry) bool {
			return e.Kind == sim.KindCRI && e.Call.Method == "CreateContainer" && e.At >= 50*time.Second
		})
		if !ok || start.At > 55*time.Second+100*time.Millisecond {
			t.Fatalf("seed %d: first container created after the restart at %s, want at the new kubelet's start (55s)\n%s", seed, start.At, tl.Events())
		}
		bo, ok := tl.First("crash", func(e sim.Entry) bool {
			return e.Kind == sim.KindSync && e.At > start.At && strings.Contains(e.Message, "back-off ")
		})
		if !ok || !strings.Contains(bo.Message, "back-off 10s") {
			t.Fatalf("seed %d: the first back-off after the restart %q, want back-off 10s\n%s", seed, bo.Message, tl.Events())
		}
	}
}

// The containers keep running through a restart: no CRI call changes the
// runtime, the restart count stays, and the status is derived again (the
// status manager's cache is new).
func TestRestartKubeletKeepsContainers(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	down := sec(5)
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod,
		Actions: []sim.Action{{At: sec(20), RestartKubelet: &down}}})
	if calls := criCalls(tl, "web", 1*time.Second, 60*time.Second); len(calls) > 0 {
		t.Fatalf("CRI calls after the start: %v\n%s", calls, tl.Events())
	}
	stored := 0
	for _, e := range tl.Entries {
		if e.Kind == sim.KindStatus && e.At >= 25*time.Second {
			stored++
			if e.Status.Column != "Running" || e.Status.Restarts != 0 {
				t.Fatalf("status after the restart %s restarts %d\n%s", e.Status.Column, e.Status.Restarts, tl.Events())
			}
		}
	}
	if stored == 0 {
		t.Fatalf("the new kubelet stored no status (its status manager starts empty)\n%s", tl.Events())
	}
}

// While the kubelet is down nothing of it happens: a deletion during the
// downtime is acted on when it starts again; a container that exits
// meanwhile is seen by the new kubelet's first relist and restarted then.
func TestRestartKubeletDowntime(t *testing.T) {
	grace := int64(5)
	pod := apiPod("del", v1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{TermAfter: sec(0.1)}}}}}
	down := sec(10)
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{
		{At: sec(20), RestartKubelet: &down}, {At: sec(22), Delete: i64(-1)}}})
	for _, e := range tl.Entries {
		if (e.Kind == sim.KindStatus || (e.Kind == sim.KindSync && e.Work != "kubelet stopped")) && e.At > 20*time.Second && e.At < 30*time.Second {
			t.Fatalf("the kubelet acted while it was down: %s %s at %s\n%s", e.Kind, e.Message, e.At, tl.Events())
		}
	}
	stop, ok := tl.First("del", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" })
	if !ok || stop.At < 30*time.Second {
		t.Fatalf("StopContainer at %s (found %v), want once the kubelet is back (30s)\n%s", stop.At, ok, tl.Events())
	}

	crash := staticPod("crash", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script = sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(22)}, {TermAfter: sec(0.1)}}}}}
	tl = run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: crash, Script: script, Actions: []sim.Action{
		{At: sec(20), RestartKubelet: &down}}})
	if calls := criCalls(tl, "crash", 20*time.Second, 30*time.Second-time.Nanosecond); len(calls) > 0 {
		t.Fatalf("CRI calls while the kubelet is down: %v\n%s", calls, tl.Events())
	}
	if _, ok := tl.First("crash", func(e sim.Entry) bool {
		return e.Kind == sim.KindExit && e.At > 20*time.Second && e.At < 30*time.Second
	}); !ok {
		t.Fatalf("the process did not exit during the downtime\n%s", tl.Events())
	}
	if c := criCalls(tl, "crash", 30*time.Second, 31*time.Second); len(c) == 0 || !strings.HasPrefix(c[0], "CreateContainer app") {
		t.Fatalf("after the restart: %v, want the container created again at once\n%s", c, tl.Events())
	}
}

// Probe workers are created again (prober_manager.go AddPod at the first
// sync) and the results manager is new: a ready container is not ready
// after the restart until its readiness probe succeeds again, which the
// first sync's status triggers at once (prober_manager.go UpdatePodStatus).
func TestRestartKubeletProbesAgain(t *testing.T) {
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}, PeriodSeconds: 10}
	pod := staticPod("ready", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox", ReadinessProbe: probe}}})
	down := sec(5)
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(60)}, sim.PodInput{Pod: pod, Actions: []sim.Action{{At: sec(30), RestartKubelet: &down}}})
		var after []string
		for _, e := range tl.Entries {
			if e.Kind == sim.KindStatus && e.At >= 35*time.Second {
				after = append(after, e.Status.Ready)
			}
		}
		if len(after) < 2 || after[0] != "0/1" || after[len(after)-1] != "1/1" {
			t.Fatalf("seed %d: READY after the restart %v, want 0/1 then 1/1\n%s", seed, after, tl.Events())
		}
		p, _ := tl.First("ready", func(e sim.Entry) bool { return e.Kind == sim.KindProbe && e.At >= 35*time.Second })
		if p.At > 36*time.Second {
			t.Fatalf("seed %d: first probe after the restart at %s, want at the first sync", seed, p.At)
		}
	}
}

// A pod removed from the kubelet's configuration while the kubelet is down
// is an orphan to the new process: it has no pod worker for it, kills
// what still runs with a grace period override of 1 s (which killContainer
// raises to its 2 s minimum) and writes no status
// (kubelet_pods.go HandlePodCleanups, kubelet.go SyncTerminatingRuntimePod).
// One removed and finished before the restart, with nothing running, is
// not touched at all.
func TestRestartKubeletOrphan(t *testing.T) {
	grace := int64(30)
	pod := staticPod("orphan", v1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{TermAfter: sec(20)}}}}}
	down := sec(5)
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{
		{At: sec(20), RestartKubelet: &down}, {At: sec(22), Remove: true}}})
	stop, ok := tl.First("orphan", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" })
	if !ok || stop.At < 25*time.Second || !strings.Contains(stop.Message, "timeout 2s") {
		t.Fatalf("StopContainer %q at %s (found %v), want timeout 2s (the override 1 s, raised to the 2 s minimum) once the kubelet is back (25s)\n%s", stop.Message, stop.At, ok, tl.Events())
	}
	for _, e := range tl.Entries {
		if e.Pod == "orphan" && e.Kind == sim.KindStatus && e.At >= 20*time.Second {
			t.Fatalf("a status stored for the orphan at %s: %s\n%s", e.At, e.Status.Column, tl.Events())
		}
	}
	if _, ok := tl.First("orphan", func(e sim.Entry) bool { return e.Kind == sim.KindSync && e.Work == "forgotten" }); !ok {
		t.Fatalf("the orphan's worker is never forgotten\n%s", tl.Events())
	}

	// Removed at 2 s; the kubelet restarts right after SyncTerminatedPod,
	// before housekeeping forgot the worker: nothing of it runs.
	script = sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{TermAfter: sec(0.1)}}}}}
	in := sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(2), Remove: true}}}
	tl = run(t, sim.Config{Seed: 1, For: sec(60)}, in)
	done, ok1 := tl.First("orphan", func(e sim.Entry) bool { return e.Kind == sim.KindSync && e.Work == "terminated" })
	gone, ok2 := tl.First("orphan", func(e sim.Entry) bool { return e.Kind == sim.KindSync && e.Work == "forgotten" })
	restartAt := done.At + time.Millisecond
	if !ok1 || !ok2 || restartAt >= gone.At {
		t.Fatalf("terminated at %s (%v), forgotten at %s (%v): no window to restart in\n%s", done.At, ok1, gone.At, ok2, tl.Events())
	}
	in.Actions = append(in.Actions, sim.Action{At: sim.Duration(restartAt), RestartKubelet: &down})
	tl = run(t, sim.Config{Seed: 1, For: sec(60)}, in)
	for _, e := range tl.Entries {
		if e.Pod == "orphan" && e.At >= restartAt+5*time.Second && (e.Kind == sim.KindStatus || (e.Kind == sim.KindCRI && e.Call.Method == "StopContainer") || (e.Kind == sim.KindSync && e.Work == "terminating")) {
			t.Fatalf("the new kubelet acted on a pod it does not know at %s: %s %s\n%s", e.At, e.Kind, e.Message, tl.Events())
		}
	}
}

// After a restart of the kubelet its status manager's first sweep
// (status_manager.go Start: a 10 s ticker made with the process, just
// before the PLEG's first relist) comes 10 s after the new process's
// start: a pod the kubelet finished before the restart, deleted (grace 0
// for a Succeeded pod) with a finalizer holding the object just after the
// kubelet came back at 15 s, is deleted by the kubelet at that sweep, 25
// s, in every seed. Plants: the new sweep's phase drawn over 20 s, or
// over 10 s as before.
func TestRestartKubeletFirstStatusSweep(t *testing.T) {
	pod := apiPod("held", v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	pod.Finalizers = []string{"example.com/hold"}
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(2)}}}}}
	down := sec(5)
	for seed := uint64(1); seed <= 16; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(60)}, sim.PodInput{Pod: pod, Script: script,
			Actions: []sim.Action{{At: sec(10), RestartKubelet: &down}, {At: sec(15.1), Delete: i64(-1)}}})
		e, ok := tl.First("held", func(x sim.Entry) bool {
			return x.Kind == sim.KindAPI && strings.HasPrefix(x.Message, "kubelet deleted the API object")
		})
		if !ok || e.At != 25*time.Second {
			t.Fatalf("seed %d: the kubelet deleted the object at %s (found %v), want at its first sweep, 10 s after its start at 15s\n%s", seed, e.At, ok, tl.Events())
		}
	}
}
