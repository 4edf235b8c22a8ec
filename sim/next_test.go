package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/manifest"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// nextAllExited is the share of runtime states the front-door properties
// draw with every container stopped (podgen.StateOptions.AllExited): it
// makes terminal phases common (see TestTerminalShare).
const nextAllExited = 60

// nextCase is one input of Next as a user holds it: a pod with or without
// the status a kubelet wrote, a runtime state, gates and a time.
type nextCase struct {
	pod   *v1.Pod
	st    *runtimestate.Pod
	gates features.Set
	now   time.Time
}

// drawNextCase draws a pod, a state (every container stopped in
// nextAllExited % of draws), gates, and, half the time, puts on the pod
// the status the kubelet generates for that state (so API phases are
// terminal as often as generated ones).
func drawNextCase(t *rapid.T, allExited int) nextCase {
	var c nextCase
	c.gates = podgen.Features(podgen.FeatureOptions{}).Draw(t, "gates")
	c.pod = podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
	c.st = podgen.RuntimeState(c.pod, podgen.StateOptions{AllExited: allExited}).Draw(t, "state")
	c.now = c.st.Timestamp.Add(time.Duration(rapid.IntRange(0, 600).Draw(t, "now after state")) * time.Second)
	if rapid.Bool().Draw(t, "pod carries its status") {
		c.pod.Status = podstatus.Compute(c.pod, c.st, podstatus.Options{Features: c.gates, Now: c.now}).Status
	}
	return c
}

func terminalPhase(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }

// generatedPhase is the phase the kubelet generates for the case, reading
// the pod's status as its previous one.
func generatedPhase(c nextCase) v1.PodPhase {
	o := podstatus.Options{Features: c.gates, Now: c.now}
	if podstatus.KubeletWrote(&c.pod.Status) {
		o.Cached = &c.pod.Status
	}
	return podstatus.Compute(c.pod, c.st, o).Status.Phase
}

// TestNextTerminalStartsNothing: for a pod whose phase is terminal (the
// one the kubelet generates, or the API's), or that is being deleted, the
// front-door Next starts no container and creates no sandbox: SyncPod
// returns before computePodActions, and the worker terminates a pod whose
// API phase is terminal or that has a deletionTimestamp. podactions.Compute alone starts containers on many of these
// pods, which the test counts to show the property has teeth.
func TestNextTerminalStartsNothing(t *testing.T) {
	var n, terminal, deletedOnly, computeStarts atomic.Int64
	rapid.Check(t, func(t *rapid.T) {
		c := drawNextCase(t, nextAllExited)
		n.Add(1)
		gen := generatedPhase(c)
		deleted := c.pod.DeletionTimestamp != nil
		if !terminalPhase(gen) && !terminalPhase(c.pod.Status.Phase) && !deleted {
			return
		}
		if terminalPhase(gen) || terminalPhase(c.pod.Status.Phase) {
			terminal.Add(1)
		} else {
			deletedOnly.Add(1)
		}
		if a := podactions.Compute(c.pod, c.st, podactions.Options{Features: c.gates}); len(a.InitContainersToStart)+len(a.ContainersToStart) > 0 {
			computeStarts.Add(1)
		}
		r := sim.Next(c.pod, c.st, sim.NextOptions{Now: c.now, Kubelet: sim.Kubelet{Features: c.gates}})
		for _, call := range r.Calls {
			switch call.Method {
			case "CreateContainer", "StartContainer", "RunPodSandbox":
				t.Fatalf("pod in phase %s (API %q) but Next (%s) made %s\ncalls: %v\ndecision: %s", gen, c.pod.Status.Phase, r.Work, call, r.Calls, r.Decision)
			}
		}
		// The pod worker terminates a deleted pod and one whose API phase
		// is terminal: SyncPod never runs for them.
		if (deleted || terminalPhase(c.pod.Status.Phase)) && r.Work == termination.SyncPod {
			t.Fatalf("pod deleted (%v) or in API phase %q, but Next ran SyncPod", deleted, c.pod.Status.Phase)
		}
		if r.Work == termination.SyncPod && !r.Result.Terminal {
			t.Fatalf("pod in phase %s (API %q): SyncPod did not end terminal: %+v", gen, c.pod.Status.Phase, r.Result)
		}
	})
	t.Logf("%d of %d draws terminal (%.1f %%), %d more deleted; podactions.Compute alone would start a container in %d of these %d",
		terminal.Load(), n.Load(), 100*float64(terminal.Load())/float64(n.Load()), deletedOnly.Load(), computeStarts.Load(), terminal.Load()+deletedOnly.Load())
	if n.Load() >= 100 && terminal.Load()*10 < n.Load() {
		t.Errorf("only %d of %d draws have a terminal phase: the property is tested too rarely", terminal.Load(), n.Load())
	}
}

// TestTerminalShare measures how often podgen's draws give a pod whose
// phase is terminal: the phase the kubelet generates for podgen.Cases'
// (pod, state), without and with StateOptions.AllExited, and with the pod
// carrying its status (drawNextCase). The figures go to the test log
// (go test -v -run TestTerminalShare ./sim) and podgen/doc.go.
func TestTerminalShare(t *testing.T) {
	// Each share is measured on the same 500 seeds (Generator.Example), so
	// the figures are the same on every run and the comparison cannot
	// flake (with rapid's random seeds and 100 draws it failed about one
	// run in ten).
	const draws = 500
	share := func(name string, draw func(*rapid.T) bool) float64 {
		g := rapid.Custom(draw)
		k := 0
		for i := 0; i < draws; i++ {
			if g.Example(i) {
				k++
			}
		}
		p := 100 * float64(k) / draws
		t.Logf("%-55s %5d of %5d draws terminal: %5.1f %%", name, k, draws, p)
		return p
	}
	casesWith := func(allExited int) func(*rapid.T) bool {
		return func(rt *rapid.T) bool {
			c := podgen.Cases(podgen.CaseOptions{State: podgen.StateOptions{AllExited: allExited}}).Draw(rt, "case")
			return terminalPhase(podstatus.Compute(c.Pod, c.State, podstatus.Options{Features: c.Features, Now: c.State.Timestamp}).Status.Phase)
		}
	}
	before := share("podgen.Cases, generated phase", casesWith(0))
	after := share(fmt.Sprintf("podgen.Cases with AllExited %d, generated phase", nextAllExited), casesWith(nextAllExited))
	apiBefore := share("podgen.Pod, API phase (pod.Status)", func(rt *rapid.T) bool {
		return terminalPhase(podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod").Status.Phase)
	})
	apiAfter := share("drawNextCase, API phase (pod.Status)", func(rt *rapid.T) bool {
		return terminalPhase(drawNextCase(rt, nextAllExited).pod.Status.Phase)
	})
	if after < before+5 || apiAfter <= apiBefore {
		t.Errorf("AllExited does not raise the terminal share: %.1f %% -> %.1f %% (API %.1f %% -> %.1f %%)", before, after, apiBefore, apiAfter)
	}
}

// healthyState draws the runtime state of a pod running in steady state
// at its current spec: a ready latest sandbox with an IP (now and then an
// older one, not ready), every regular init container exited 0, every
// sidecar and regular container running from its current spec (hash
// current), now and then after older exited instances (restarts); and the
// probe results of a healthy pod: liveness and startup passing, readiness
// either way.
func healthyState(t *rapid.T, pod *v1.Pod) (*runtimestate.Pod, map[string]vocab.ProbeResults) {
	t0 := podgen.Epoch
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}
	latest := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.244.0.2", CreatedAt: t0}
	if rapid.Bool().Draw(t, "older sandbox") {
		latest.ID, latest.Attempt, latest.CreatedAt = "s2", 1, t0.Add(time.Hour)
		st.Sandboxes = append(st.Sandboxes, runtimestate.Sandbox{ID: "s1", CreatedAt: t0, IP: "10.244.0.1"})
	}
	st.Sandboxes = append([]runtimestate.Sandbox{latest}, st.Sandboxes...)
	for i := range st.Sandboxes {
		if pod.Spec.HostNetwork {
			st.Sandboxes[i].NetworkMode = runtimestate.NamespaceNode
		}
	}
	probes := map[string]vocab.ProbeResults{}
	var insts []runtimestate.Container
	at := latest.CreatedAt
	add := func(c *v1.Container, running bool) {
		restarts := 0
		if running {
			restarts = rapid.IntRange(0, 2).Draw(t, c.Name+" restarts")
		}
		for k := 0; k <= restarts; k++ {
			at = at.Add(time.Second)
			in := runtimestate.Container{ID: fmt.Sprintf("c%d", len(insts)+1), Name: c.Name, SandboxID: latest.ID, RestartCount: k,
				Image: c.Image, Hash: containerhash.Of(c), CreatedAt: at, StartedAt: at, State: runtimestate.Running}
			if !running || k < restarts {
				at = at.Add(time.Duration(rapid.IntRange(1, 600).Draw(t, c.Name+" ran for")) * time.Second)
				in.State, in.FinishedAt, in.ExitCode, in.Reason = runtimestate.Exited, at, 0, "Completed"
				if running {
					in.ExitCode = rapid.SampledFrom([]int{0, 1, 137}).Draw(t, c.Name+" exit code")
					if in.ExitCode != 0 {
						in.Reason = "Error"
					}
				}
			} else {
				probes[in.ID] = vocab.ProbeResults{Liveness: vocab.ProbeSuccess, Startup: vocab.ProbeSuccess,
					Readiness: rapid.SampledFrom([]vocab.ProbeResult{vocab.ProbeSuccess, vocab.ProbeFailure}).Draw(t, c.Name+" readiness")}
			}
			insts = append(insts, in)
		}
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		add(c, restart.IsSidecar(c))
	}
	for i := range pod.Spec.Containers {
		add(&pod.Spec.Containers[i], true)
	}
	for i := len(insts) - 1; i >= 0; i-- {
		st.Containers = append(st.Containers, insts[i])
	}
	st.Timestamp = at.Add(time.Second)
	return st, probes
}

// healthy says whether a pod and a state are healthy at the pod's current
// spec, and if not, why. Healthy means all of:
//
//   - the pod is not deleted and neither its API phase nor the phase the
//     kubelet generates is terminal;
//   - the latest sandbox is ready and needs no re-creation
//     (runtimestate.SandboxChanged says no);
//   - every instance that runs is the newest of its name, in the latest
//     sandbox, created from the current spec (hash current, not missing),
//     and its liveness and startup results are Success; no instance is in
//     an unknown or created state;
//   - every regular init container's newest instance exited 0, every
//     sidecar and regular container has a running instance;
//   - no RestartAllContainers mark or trigger
//     (restart.RestartingAllContainers false);
//   - no resize pending: the resources the kubelet reads as actuated (the
//     front door's default, see podactions.Actuated) equal the spec's.
func healthy(c nextCase, probes map[string]vocab.ProbeResults) (bool, string) {
	pod, st, f := c.pod, c.st, c.gates
	if pod.DeletionTimestamp != nil {
		return false, "deleted"
	}
	if terminalPhase(pod.Status.Phase) || terminalPhase(generatedPhase(c)) {
		return false, "terminal"
	}
	if sc := runtimestate.SandboxChanged(pod, st); sc.Changed || st.LatestSandbox() == nil || !st.LatestSandbox().Ready {
		return false, "sandbox"
	}
	latest := st.LatestSandbox().ID
	for i := range st.Containers {
		in := &st.Containers[i]
		if in.State == runtimestate.Unknown || in.State == runtimestate.Created {
			return false, "unknown or created instance"
		}
		if in.State != runtimestate.Running {
			continue
		}
		_, spec, ok := restart.KindOf(&pod.Spec, in.Name)
		if !ok {
			return false, "stranger running"
		}
		if st.Newest(in.Name) != in || in.SandboxID != latest || in.HashMissing || in.Hash != containerhash.Of(spec) {
			return false, "stale instance"
		}
		if r := probes[in.ID]; r.Liveness != vocab.ProbeSuccess || r.Startup != vocab.ProbeSuccess {
			return false, "probe not passing"
		}
	}
	for i := range pod.Spec.InitContainers {
		ic := &pod.Spec.InitContainers[i]
		n := st.Newest(ic.Name)
		if restart.IsSidecar(ic) {
			if n == nil || n.State != runtimestate.Running {
				return false, "sidecar not running"
			}
		} else if n == nil || n.State != runtimestate.Exited || n.ExitCode != 0 {
			return false, "init container not done"
		}
	}
	for i := range pod.Spec.Containers {
		if n := st.Newest(pod.Spec.Containers[i].Name); n == nil || n.State != runtimestate.Running {
			return false, "container not running"
		}
	}
	var prev *v1.PodStatus
	if podstatus.KubeletWrote(&pod.Status) {
		prev = &pod.Status
	}
	if restart.RestartingAllContainers(pod, st, prev, generatedPhase(c), f) {
		return false, "restarting all containers"
	}
	// Resize is item 1 of issue 23 (podactions.Actuated's default); this
	// property is about every other cause of a kill.
	a := podactions.Compute(pod, st, podactions.Options{Features: f, Probes: probes})
	if len(a.MemoryUpdates)+len(a.CPUUpdates)+len(a.VolumesToUpsize)+len(a.VolumesToDownsize) > 0 || a.UpdatePodResources || a.UpdatePodLevelResources {
		return false, "resize pending"
	}
	for _, k := range a.ContainersToKill {
		if k.Cause == podactions.CauseResize {
			return false, "resize pending"
		}
	}
	return true, ""
}

// TestNextHealthyKillsNothing: the front-door Next never stops or removes
// a container, nor stops the sandbox, of a healthy pod at its current spec
// (see healthy). The pods are podgen's, with a state built healthy
// (healthyState) or drawn realistic and found healthy, with or without
// their status.
func TestNextHealthyKillsNothing(t *testing.T) {
	var n, built, drawn, statusGiven atomic.Int64
	reasons := map[string]int{}
	var mu = make(chan struct{}, 1)
	rapid.Check(t, func(t *rapid.T) {
		n.Add(1)
		var c nextCase
		var probes map[string]vocab.ProbeResults
		c.gates = podgen.Features(podgen.FeatureOptions{}).Draw(t, "gates")
		c.pod = podgen.Pod(podgen.PodOptions{NoDeletion: true}).Draw(t, "pod")
		isBuilt := rapid.IntRange(0, 4).Draw(t, "drawn, not built healthy") != 0
		if isBuilt {
			c.st, probes = healthyState(t, c.pod)
		} else {
			c.st = podgen.RuntimeState(c.pod, podgen.StateOptions{Realistic: true}).Draw(t, "state")
			probes = map[string]vocab.ProbeResults{}
			for _, in := range c.st.Containers {
				probes[in.ID] = vocab.ProbeResults{Liveness: vocab.ProbeSuccess, Readiness: vocab.ProbeSuccess, Startup: vocab.ProbeSuccess}
			}
		}
		c.now = c.st.Timestamp.Add(time.Duration(rapid.IntRange(0, 600).Draw(t, "now after state")) * time.Second)
		withStatus := rapid.Bool().Draw(t, "pod carries its status")
		if withStatus {
			c.pod.Status = podstatus.Compute(c.pod, c.st, podstatus.Options{Features: c.gates, Now: c.now, Probes: probes}).Status
		}
		ok, why := healthy(c, probes)
		mu <- struct{}{}
		reasons[fmt.Sprintf("%v:%s", isBuilt, why)]++
		<-mu
		if !ok {
			return
		}
		if isBuilt {
			built.Add(1)
		} else {
			drawn.Add(1)
		}
		if withStatus {
			statusGiven.Add(1)
		}
		r := sim.Next(c.pod, c.st, sim.NextOptions{Now: c.now, Kubelet: sim.Kubelet{Features: c.gates}, Probes: probes})
		running := map[string]bool{}
		for _, in := range c.st.Containers {
			running[in.ID] = in.State == runtimestate.Running
		}
		for _, call := range r.Calls {
			// Removing an old exited instance is garbage collection
			// (SyncPod keeps only the newest exited instance of an init
			// container), not a kill.
			if call.Method == "StopContainer" || call.Method == "StopPodSandbox" || call.Method == "RemoveContainer" && running[call.ID] {
				t.Fatalf("healthy pod, but Next (%s) made %s\ncalls: %v\ndecision: %s\nmessages: %v", r.Work, call, r.Calls, r.Decision, r.Messages)
			}
		}
	})
	t.Logf("%d draws: %d healthy (%d built, %d drawn; %d with their status); the others by built:first reason: %v",
		n.Load(), built.Load()+drawn.Load(), built.Load(), drawn.Load(), statusGiven.Load(), reasons)
	// A pending resize (item 1 of issue 23, podactions.Actuated's default)
	// is left out of the count.
	resize := int64(reasons["true:resize pending"] + reasons["false:resize pending"])
	// About 29 % of the draws without a pending resize are healthy; the
	// check needs enough draws not to flake (.ci/run runs 1000).
	if n.Load() >= 500 && (built.Load()+drawn.Load())*8 < n.Load()-resize {
		t.Errorf("only %d of %d draws healthy (%d more with a resize pending): the property is tested too rarely", built.Load()+drawn.Load(), n.Load(), resize)
	}
}

// TestNextAgreesWithFirstSync: Next on a pod as a user first holds it (no
// runtime state, no status, no memory) is the first SyncPod of Simulate
// (same decision, same runtime calls), and on any drawn case it is Sync
// with the memory Next reports having filled in.
func TestNextAgreesWithFirstSync(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawNextCase(t, nextAllExited)
		k := sim.Kubelet{Features: c.gates}

		// The same inputs through Sync.
		r := sim.Next(c.pod, c.st, sim.NextOptions{Now: c.now, Kubelet: k})
		again := sim.Sync(r.Input)
		if d := diffCalls(r.Calls, again.Calls); d != "" || r.Decision != again.Decision || r.Work != again.Work {
			t.Fatalf("Next and Sync on its input differ: %s\nNext %s %q\nSync %s %q", d, r.Work, r.Decision, again.Work, again.Decision)
		}

		// A fresh pod: Simulate's first sync.
		fresh := c.pod.DeepCopy()
		fresh.Status = v1.PodStatus{}
		fresh.DeletionTimestamp, fresh.DeletionGracePeriodSeconds = nil, nil
		tl, err := sim.Simulate(sim.Config{Kubelet: k, For: sim.Duration(2 * time.Second)}, []sim.PodInput{{Pod: fresh}})
		if err != nil {
			t.Fatalf("Simulate: %v", err)
		}
		first := firstSync(tl)
		if first == nil {
			t.Fatalf("Simulate ran no sync:\n%s", tl.Events())
		}
		nr := sim.Next(fresh, nil, sim.NextOptions{Now: tl.Start.Add(first.At), Kubelet: k})
		if nr.Work != termination.SyncPod {
			t.Fatalf("Next on a fresh pod ran %s", nr.Work)
		}
		want := "sync"
		if nr.Decision != "" {
			want += ": " + strings.ReplaceAll(nr.Decision, "\n", "; ")
		}
		if want != first.Decision {
			t.Fatalf("decision: Next %q, Simulate's first sync %q", want, first.Decision)
		}
		if d := diffCalls(nr.Calls, first.Calls); d != "" {
			t.Fatalf("calls: %s", d)
		}
	})
}

// syncRecord is one sync of a timeline: when it started, its decision and
// its runtime calls.
type syncRecord struct {
	At       time.Duration
	Decision string
	Calls    []sim.Call
}

// firstSync is the first sync of the timeline's (only) pod: its KindSync
// entry and the CRI calls made before the next sync.
func firstSync(tl *sim.Timeline) *syncRecord {
	var r *syncRecord
	for _, e := range tl.Entries {
		switch {
		case e.Kind == sim.KindSync && e.Work != "":
			if r != nil {
				return r
			}
			r = &syncRecord{At: e.At, Decision: e.Message}
		case e.Kind == sim.KindCRI && r != nil && e.Call != nil:
			r.Calls = append(r.Calls, *e.Call)
		}
	}
	return r
}

func diffCalls(a, b []sim.Call) string {
	key := func(l []sim.Call) []string {
		var out []string
		for _, c := range l {
			out = append(out, c.Method+" "+c.Name)
		}
		return out
	}
	ka, kb := key(a), key(b)
	if strings.Join(ka, ",") != strings.Join(kb, ",") {
		return fmt.Sprintf("%v vs %v", ka, kb)
	}
	return ""
}

// TestNextNil: a nil pod does nothing; a nil runtime state is a pod just
// admitted (SyncPod creates the sandbox and starts the first container).
func TestNextNil(t *testing.T) {
	r := sim.Next(nil, nil, sim.NextOptions{})
	if r.Requeue != sim.RequeueNever || len(r.Calls) > 0 || r.String() != "no pod: nothing to do\n" {
		t.Errorf("nil pod: %+v %q", r.SyncOutput, r)
	}
	pod := podgen.Pod(podgen.PodOptions{NoDeletion: true}).Example(1)
	pod.Status = v1.PodStatus{}
	r = sim.Next(pod, nil, sim.NextOptions{})
	if r.Work != termination.SyncPod || len(r.Calls) == 0 || r.Calls[0].Method != "RunPodSandbox" {
		t.Errorf("pod with no runtime state: %s", r)
	}
}

// TestNextFromStatus: Next reads the kubelet's memory off the pod's status:
// the crash-loop back-off record (from the CrashLoopBackOff message), so
// the container waits; the readiness result of the running sidecar, so
// the stored status keeps it ready; the worker syncing the pod.
func TestNextFromStatus(t *testing.T) {
	pod, err := manifest.Pod([]byte(`
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, uid: 0b5e1a9c-0000-4000-8000-000000000003}
spec:
  initContainers:
  - {name: proxy, image: envoy:1, restartPolicy: Always, readinessProbe: {exec: {command: ["true"]}}}
  containers:
  - {name: app, image: app:1}
status:
  phase: Running
  startTime: "2026-12-01T10:00:00Z"
  conditions:
  - {type: Ready, status: "False"}
  initContainerStatuses:
  - name: proxy
    image: envoy:1
    ready: true
    started: true
    restartCount: 0
    containerID: containerd://c1
    state: {running: {startedAt: "2026-12-01T10:00:01Z"}}
  containerStatuses:
  - name: app
    image: app:1
    ready: false
    restartCount: 5
    containerID: containerd://c7
    state: {waiting: {reason: CrashLoopBackOff, message: "back-off 2m40s restarting failed container=app pod=web_default(0b5e1a9c-0000-4000-8000-000000000003)"}}
    lastState: {terminated: {exitCode: 1, reason: Error, startedAt: "2026-12-01T10:05:00Z", finishedAt: "2026-12-01T10:05:02Z", containerID: containerd://c7}}
`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := runtimestate.FromYAML([]byte(`
sandboxes: [{id: s1, ready: true, ip: 10.244.0.9, createdAt: "2026-12-01T10:00:00Z"}]
containers:
- {id: c7, name: app, sandboxID: s1, state: exited, exitCode: 1, reason: Error, restartCount: 5, createdAt: "2026-12-01T10:05:00Z", startedAt: "2026-12-01T10:05:00Z", finishedAt: "2026-12-01T10:05:02Z"}
- {id: c1, name: proxy, sandboxID: s1, state: running, createdAt: "2026-12-01T10:00:01Z", startedAt: "2026-12-01T10:00:01Z"}
`))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 10, 6, 0, 0, time.UTC) // 58 s after the exit: inside 2m40s
	r := sim.Next(pod, st, sim.NextOptions{Now: now})
	if r.Work != termination.SyncPod || len(r.Started()) > 0 || r.Requeue != sim.RequeueBackOff {
		t.Fatalf("want SyncPod holding app in back-off, got %s", r)
	}
	if want := time.Date(2026, 12, 1, 10, 7, 42, 0, time.UTC); !r.BackOffUntil.Equal(want) {
		t.Errorf("back-off until %s, want %s (2m40s, the message's delay, after the exit)", r.BackOffUntil, want)
	}
	last := r.Statuses[len(r.Statuses)-1].Status
	if len(last.InitContainerStatuses) != 1 || !last.InitContainerStatuses[0].Ready {
		t.Errorf("the ready sidecar reads not ready: %+v", last.InitContainerStatuses)
	}
	// Later, past the back-off, app starts.
	r = sim.Next(pod, st, sim.NextOptions{Now: now.Add(2 * time.Minute)})
	if !slices.Equal(r.Started(), []string{"app"}) {
		t.Errorf("past the back-off: %s", r)
	}
	// Probe results given replace those read off the status: the sidecar
	// whose readiness probe failed reads not ready.
	r = sim.Next(pod, st, sim.NextOptions{Now: now, Probes: map[string]vocab.ProbeResults{"c1": {Readiness: vocab.ProbeFailure, Startup: vocab.ProbeSuccess}}})
	last = r.Statuses[len(r.Statuses)-1].Status
	if len(last.InitContainerStatuses) != 1 || last.InitContainerStatuses[0].Ready {
		t.Errorf("the sidecar whose readiness probe failed reads ready: %+v", last.InitContainerStatuses)
	}
	// And over a Memory given with them.
	mem := sim.Next(pod, st, sim.NextOptions{Now: now}).Input.Memory
	r = sim.Next(pod, st, sim.NextOptions{Now: now, Memory: &mem, Probes: map[string]vocab.ProbeResults{"c1": {Readiness: vocab.ProbeFailure, Startup: vocab.ProbeSuccess}}})
	last = r.Statuses[len(r.Statuses)-1].Status
	if len(last.InitContainerStatuses) != 1 || last.InitContainerStatuses[0].Ready {
		t.Errorf("with a Memory given, the sidecar whose readiness probe failed reads ready: %+v", last.InitContainerStatuses)
	}
}

// A running container with a startup probe keeps, in the next status, the
// started and ready it had in the status the kubelet wrote: its probe
// workers' results are read off that status (started: true is a startup
// probe that succeeded), and a container not started is not ready. With
// ChangeContainerStatusOnKubeletRestart on, the probe manager no longer
// keeps a previous started: true without a result (isContainerStarted), so
// only the result read off the status keeps the container started.
func TestNextFromStatusStartupProbe(t *testing.T) {
	restartGate, err := features.Parse("ChangeContainerStatusOnKubeletRestart=true")
	if err != nil {
		t.Fatal(err)
	}
	for _, gates := range []features.Set{{}, restartGate} {
		for _, started := range []bool{true, false} {
			pod, err := manifest.Pod([]byte(fmt.Sprintf(`
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, uid: 0b5e1a9c-0000-4000-8000-000000000004}
spec:
  containers:
  - {name: app, image: app:1, startupProbe: {exec: {command: ["true"]}}, readinessProbe: {exec: {command: ["true"]}}}
status:
  phase: Running
  startTime: "2026-12-01T10:00:00Z"
  containerStatuses:
  - name: app
    image: app:1
    ready: %[1]t
    started: %[1]t
    restartCount: 0
    containerID: containerd://c2
    state: {running: {startedAt: "2026-12-01T10:00:01Z"}}
`, started)))
			if err != nil {
				t.Fatal(err)
			}
			st, err := runtimestate.FromYAML([]byte(`
sandboxes: [{id: s1, ready: true, ip: 10.244.0.9, createdAt: "2026-12-01T10:00:00Z"}]
containers:
- {id: c2, name: app, sandboxID: s1, state: running, createdAt: "2026-12-01T10:00:01Z", startedAt: "2026-12-01T10:00:01Z"}
`))
			if err != nil {
				t.Fatal(err)
			}
			r := sim.Next(pod, st, sim.NextOptions{Now: time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC), Kubelet: sim.Kubelet{Features: gates}})
			if len(r.Statuses) == 0 {
				t.Fatalf("gates %v, started %v: no status written: %s", gates, started, r)
			}
			cs := r.Statuses[len(r.Statuses)-1].Status.ContainerStatuses
			if len(cs) != 1 || cs[0].Started == nil || *cs[0].Started != started || cs[0].Ready != started {
				t.Errorf("gates %v: status written with started %v, ready %v: the next one has %+v", gates, started, started, cs)
			}
		}
	}
}

// A pod with activeDeadlineSeconds handed to Next without a status, with
// the runtime running it: the kubelet set status.startTime at the pod's
// first sync (just before its first sandbox) and has held it since, and its
// active-deadline handler counts from it. Past the deadline the status is
// Failed (DeadlineExceeded) and SyncPod starts and kills nothing
// (kubelet.go SyncPod returns early); before it, Running. The stored
// status's startTime is the runtime's first sandbox.
func TestNextDeadlineCountsFromTheRuntimesStart(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	deadline := int64(60)
	never := v1.RestartPolicyNever
	pod := &v1.Pod{Spec: v1.PodSpec{ActiveDeadlineSeconds: &deadline, RestartPolicy: never,
		Containers: []v1.Container{{Name: "worker", Image: "busybox"}}}}
	pod.Name, pod.Namespace, pod.UID = "deadline-demo", "default", "u1"
	st := &runtimestate.Pod{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID,
		Sandboxes:  []runtimestate.Sandbox{{ID: "s1", Ready: true, CreatedAt: t0}},
		Containers: []runtimestate.Container{{ID: "c1", Name: "worker", SandboxID: "s1", State: runtimestate.Running, CreatedAt: t0.Add(900 * time.Millisecond), StartedAt: t0.Add(time.Second)}}}
	if got := st.FirstSeen(); !got.Equal(t0) {
		t.Fatalf("FirstSeen %v, want the sandbox's creation %v", got, t0)
	}
	for _, c := range []struct {
		after  time.Duration
		phase  v1.PodPhase
		reason string
	}{
		{30 * time.Second, v1.PodRunning, ""},
		{70 * time.Second, v1.PodFailed, "DeadlineExceeded"},
	} {
		r := sim.Next(pod, st, sim.NextOptions{Now: t0.Add(c.after)})
		if len(r.Statuses) == 0 {
			t.Fatalf("+%s: no status stored", c.after)
		}
		s := r.Statuses[0].Status
		if s.Phase != c.phase || s.Reason != c.reason {
			t.Errorf("+%s: phase %s reason %q, want %s %q", c.after, s.Phase, s.Reason, c.phase, c.reason)
		}
		if s.StartTime == nil || !s.StartTime.Time.Equal(t0) {
			t.Errorf("+%s: startTime %v, want %v", c.after, s.StartTime, t0)
		}
		for _, call := range r.Calls {
			if call.Method == "StartContainer" || call.Method == "RunPodSandbox" {
				t.Errorf("+%s: %s", c.after, call)
			}
		}
	}
	if pod.Status.StartTime != nil {
		t.Error("Next changed the pod it was given")
	}
}
