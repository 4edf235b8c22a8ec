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
