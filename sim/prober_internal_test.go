package sim

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// A probe worker's result entries read as the result they carry, with the
// worker's note (a timeout) and as a probe's or as the initial result for
// a new container, however they follow one another: a message made once
// is reused only for the same result, note and kind of result.
func TestProbeResultLines(t *testing.T) {
	w := &prober{container: &v1.Container{Name: "app"}, kind: "readiness"}
	steps := []struct {
		r       vocab.ProbeResult
		note    string
		seeding bool
		want    string
	}{
		{vocab.ProbeFailure, "", true, "readiness of app: Failure (the initial result for a new container)"},
		{vocab.ProbeSuccess, "", false, "readiness probe of app: Success"},
		{vocab.ProbeFailure, "", false, "readiness probe of app: Failure"},
		{vocab.ProbeFailure, " (timed out after 1s)", false, "readiness probe of app: Failure (timed out after 1s)"},
		{vocab.ProbeFailure, "", true, "readiness of app: Failure (the initial result for a new container)"},
		{vocab.ProbeSuccess, "", false, "readiness probe of app: Success"},
		{vocab.ProbeFailure, "", false, "readiness probe of app: Failure"},
		{vocab.ProbeFailure, " (timed out after 1s)", false, "readiness probe of app: Failure (timed out after 1s)"},
	}
	for i, s := range steps {
		w.note, w.seeding = s.note, s.seeding
		if got := w.resultLine(s.r); got != s.want {
			t.Errorf("step %d: %q, want %q", i, got, s.want)
		}
	}
}

// A probe worker made within one period of the kubelet's start first waits
// a random part of its period (prober/worker.go:165 in v1.37.2: only while
// probeTickerPeriod > time.Since(start), a strict >); one made exactly a
// period after the start, or later, probes at once.
func TestProbeFirstWaitOnlyWithinAPeriodOfStart(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pr", Annotations: map[string]string{"kubernetes.io/config.source": "api"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox",
			ReadinessProbe: &v1.Probe{PeriodSeconds: 10, ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}}}}}
	for seed := uint64(1); seed <= 4; seed++ {
		for _, c := range []struct {
			added time.Duration
			wait  bool
		}{{9 * time.Second, false}, {10 * time.Second, false}, {4 * time.Second, true}} {
			// The kubelet started 1 s before the node's start.
			n := NewNode(Config{Seed: seed, KubeletUptime: Duration(time.Second)})
			t0 := n.Start()
			if err := n.AddPod(t0.Add(c.added), pod, Script{}); err != nil {
				t.Fatal(err)
			}
			n.Advance(t0.Add(c.added + time.Millisecond))
			p := n.pods["default/pr"]
			if p == nil || len(p.probes) != 1 {
				t.Fatalf("seed %d, added at %s: no probe worker", seed, c.added)
			}
			if first := p.probes[0].anchor.Sub(t0.Add(c.added)); (first != 0) != c.wait || first < 0 || first >= 10*time.Second {
				t.Errorf("seed %d, added at %s: first probe %s after the worker was made (%s after the kubelet's start), want a random wait: %v", seed, c.added, first, c.added+time.Second, c.wait)
			}
		}
	}
}

// trimID is the ID part of a status's containerID, as ContainerID.ParseString
// (kubelet/container/runtime.go:264 in v1.37.2) splits "<type>://<ID>": an
// empty type still leaves the ID. (An ID without "://", which ParseString
// refuses, is kept whole.)
func TestTrimID(t *testing.T) {
	for in, want := range map[string]string{"containerd://abc": "abc", "://abc": "abc", "abc": "abc", "": ""} {
		if got := trimID(in); got != want {
			t.Errorf("trimID(%q) = %q, want %q", in, got, want)
		}
	}
}

// When a probe worker sees a new container ID it removes the old ID's
// result (prober/worker.go:252 in v1.37.2, doProbe: resultsManager.Remove of the previous
// containerID) before seeding the new one: after a restart the probe
// results hold only the running instance.
func TestProbeResultOfOldInstanceRemoved(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pr", Annotations: map[string]string{"kubernetes.io/config.source": "api"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox",
			ReadinessProbe: &v1.Probe{PeriodSeconds: 1, ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}}}}}
	script := Script{Containers: map[string]Behaviour{"app": {Runs: []Run{{ExitAfter: Duration(3 * time.Second), ExitCode: 1}, {}}}}}
	n := NewNode(Config{Seed: 1})
	t0 := n.Start()
	if err := n.AddPod(t0, pod, script); err != nil {
		t.Fatal(err)
	}
	n.Advance(t0.Add(40 * time.Second))
	p := n.pods["default/pr"]
	if p == nil || len(p.rt.containers) == 0 {
		t.Fatal("no pod or no container")
	}
	running := ""
	for _, in := range p.rt.containers {
		if in.c.State == runtimestate.Running {
			running = in.c.ID
		}
	}
	if running == "" || running == "pr-app-0" {
		t.Fatalf("want app restarted and running by 40 s, running %q", running)
	}
	for id := range p.mem.Probes {
		if id != running {
			t.Errorf("probe results %v: a result for %q, not the running instance %s", p.mem.Probes, id, running)
		}
	}
}

// A probe worker of a container that exited and will not restart ends
// only when the pod's restartPolicy is Never (prober/worker.go:302-312 in
// v1.37.2: it goes on while the policy is not Never): with OnFailure, a
// container that exited 0 beside one still running keeps its worker.
func TestProbeWorkerOfExitedContainer(t *testing.T) {
	probe := &v1.Probe{PeriodSeconds: 1, ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}
	for _, c := range []struct {
		policy  v1.RestartPolicy
		stopped bool
	}{{v1.RestartPolicyOnFailure, false}, {v1.RestartPolicyNever, true}} {
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pr", Annotations: map[string]string{"kubernetes.io/config.source": "api"}},
			Spec: v1.PodSpec{RestartPolicy: c.policy, Containers: []v1.Container{
				{Name: "done", Image: "busybox", ReadinessProbe: probe}, {Name: "web", Image: "busybox"}}}}
		script := Script{Containers: map[string]Behaviour{"done": {Runs: []Run{{ExitAfter: Duration(2 * time.Second)}}}}}
		n := NewNode(Config{Seed: 1})
		t0 := n.Start()
		if err := n.AddPod(t0, pod, script); err != nil {
			t.Fatal(err)
		}
		n.Advance(t0.Add(20 * time.Second))
		p := n.pods["default/pr"]
		if p == nil || len(p.probes) != 1 {
			t.Fatalf("%s: no probe worker", c.policy)
		}
		if p.probes[0].stopped != c.stopped {
			t.Errorf("restartPolicy %s, done exited 0: worker stopped %v, want %v", c.policy, p.probes[0].stopped, c.stopped)
		}
	}
}
