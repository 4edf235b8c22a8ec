//go:build kubeletlogic_overlay

package differential

import (
	"errors"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"k8s.io/kubernetes/pkg/kubelet/status"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/differential/kubeletconv"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// terminationCases: cases per run of each test, each under its own random
// gate set (no gate changes a termination decision in v1.37.2; random
// gates show that).
const terminationCases = 10200

// graceValue draws an optional grace value, edge values often.
func graceValue(t *rapid.T, label string) *int64 {
	if rapid.IntRange(0, 3).Draw(t, label+" set") == 0 {
		return nil
	}
	v := rapid.SampledFrom([]int64{-1, 0, 1, 2, 3, 5, 20, 30, 60, 3600}).Draw(t, label)
	return &v
}

func TestDifferentialTerminationGrace(t *testing.T) {
	reasons := []termination.KillReason{termination.ReasonStartupProbe, termination.ReasonLivenessProbe,
		termination.ReasonFailedPostStartHook, termination.ReasonRestartAllContainers, termination.ReasonUnknown, "Other"}
	check(t, terminationCases, []string{"ContainerGracePeriod", "EffectiveGracePeriod", "CanBeDeleted", "HasSidecars"}, func(rt *rapid.T, f features.Set) {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod")
		if rapid.Bool().Draw(rt, "redraw deletion grace") {
			pod.DeletionGracePeriodSeconds = graceValue(rt, "deletionGrace")
		}
		if rapid.IntRange(0, 4).Draw(rt, "redraw spec grace") == 0 {
			pod.Spec.TerminationGracePeriodSeconds = graceValue(rt, "specGrace")
		}
		for _, c := range specContainers(pod) {
			for _, r := range reasons {
				got := termination.ContainerGracePeriod(pod, c, r, f)
				want := kuberuntime.KLTerminationSetTerminationGracePeriod(pod, c, string(r))
				if got != want {
					rt.Fatalf("ContainerGracePeriod(%s, %s) = %d, kubelet %d", c.Name, r, got, want)
				}
				compared(rt, "ContainerGracePeriod")
			}
		}
		prev := rapid.SampledFrom([]int64{0, 0, 1, 2, 5, 20, 30}).Draw(rt, "previous")
		override := graceValue(rt, "override")
		g, s := termination.EffectiveGracePeriod(prev, pod, override, f)
		wg, ws := kubelet.KLTerminationEffectiveGracePeriod(prev, pod, override)
		if g != wg || s != ws {
			rt.Fatalf("EffectiveGracePeriod(%d, override %v) = %d %v, kubelet %d %v", prev, override, g, s, wg, ws)
		}
		compared(rt, "EffectiveGracePeriod")
		pod.Status.Phase = rapid.SampledFrom([]v1.PodPhase{"", v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed, v1.PodUnknown}).Draw(rt, "phase")
		if rapid.IntRange(0, 4).Draw(rt, "mirror") == 0 {
			pod.Annotations = map[string]string{termination.MirrorPodAnnotation: ""}
		}
		finished := rapid.Bool().Draw(rt, "finished")
		if got, want := termination.CanBeDeleted(pod, finished, f), status.KLTerminationCanBeDeleted(pod, finished); got != want {
			rt.Fatalf("CanBeDeleted(phase %q, finished %v) = %v, kubelet %v", pod.Status.Phase, finished, got, want)
		}
		compared(rt, "CanBeDeleted")
		if got, want := termination.HasSidecars(pod), kubetypes.HasRestartableInitContainer(pod); got != want {
			rt.Fatalf("HasSidecars = %v, kubelet %v", got, want)
		}
		compared(rt, "HasSidecars")
	})
}

func TestDifferentialTerminationOrdering(t *testing.T) {
	check(t, terminationCases, []string{"NewOrdering", "NewOrdering (no sidecars: none)"}, func(rt *rapid.T, f features.Set) {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod")
		var running []string
		for _, c := range append(specContainers(pod), &v1.Container{Name: "stranger"}) {
			if n := rapid.IntRange(0, 2).Draw(rt, "instances "+c.Name); n > 0 {
				for range n {
					running = append(running, c.Name)
				}
			}
		}
		for _, e := range pod.Spec.EphemeralContainers {
			if rapid.Bool().Draw(rt, "running "+e.Name) {
				running = append(running, e.Name)
			}
		}
		o := termination.NewOrdering(pod, running, f)
		if !kubetypes.HasRestartableInitContainer(pod) {
			if o != nil {
				rt.Fatalf("NewOrdering = %v for a pod without sidecars", o)
			}
			compared(rt, "NewOrdering (no sidecars: none)")
			return
		}
		want := kuberuntime.KLTerminationNewOrdering(pod, running)
		got := map[string][]string{}
		for name := range o.WaitsFor {
			got[name] = o.WaitNames(name)
		}
		if !reflect.DeepEqual(got, want.WaitsFor) {
			rt.Fatalf("WaitsFor = %v, kubelet %v", got, want.WaitsFor)
		}
		gotClosed := map[string]bool{}
		for _, s := range o.Signals {
			gotClosed[s.Name] = s.Given
		}
		if !reflect.DeepEqual(gotClosed, want.Closed) {
			rt.Fatalf("signals given = %v, kubelet %v", gotClosed, want.Closed)
		}
		compared(rt, "NewOrdering")
	})
}

func drawWorkerState(t *rapid.T, now time.Time) *termination.WorkerState {
	if rapid.IntRange(0, 3).Draw(t, "unknown") == 0 {
		return nil
	}
	s := &termination.WorkerState{}
	switch rapid.IntRange(0, 2).Draw(t, "workType") {
	case 1:
		s.TerminatingAt = now.Add(-time.Minute)
	case 2:
		s.TerminatingAt, s.TerminatedAt = now.Add(-time.Minute), now.Add(-time.Second)
	}
	s.StartedTerminating = rapid.Bool().Draw(t, "startedTerminating")
	s.Deleted = rapid.Bool().Draw(t, "deleted")
	s.Evicted = rapid.Bool().Draw(t, "evicted")
	s.Finished = rapid.IntRange(0, 3).Draw(t, "finished") == 0
	s.RestartRequested = rapid.Bool().Draw(t, "restartRequested")
	s.ObservedRuntime = rapid.Bool().Draw(t, "observedRuntime")
	s.GracePeriod = rapid.SampledFrom([]int64{0, 0, 1, 2, 5, 30}).Draw(t, "gracePeriod")
	return s
}

func toKLState(s *termination.WorkerState) *kubelet.KLTermWorkerState {
	if s == nil {
		return nil
	}
	return &kubelet.KLTermWorkerState{
		TerminatingAt: s.TerminatingAt, TerminatedAt: s.TerminatedAt, StartedTerminating: s.StartedTerminating,
		Deleted: s.Deleted, Evicted: s.Evicted, Finished: s.Finished, RestartRequested: s.RestartRequested,
		ObservedRuntime: s.ObservedRuntime, GracePeriod: s.GracePeriod,
	}
}

func TestDifferentialTerminationUpdatePod(t *testing.T) {
	now := time.Date(2026, 11, 29, 15, 43, 2, 0, time.UTC)
	types := []termination.UpdateType{termination.UpdateSync, termination.UpdateUpdate, termination.UpdateCreate, termination.UpdateKill}
	klTypes := map[termination.UpdateType]kubetypes.SyncPodType{
		termination.UpdateSync: kubetypes.SyncPodSync, termination.UpdateUpdate: kubetypes.SyncPodUpdate,
		termination.UpdateCreate: kubetypes.SyncPodCreate, termination.UpdateKill: kubetypes.SyncPodKill,
	}
	check(t, terminationCases, []string{"UpdatePod"}, func(rt *rapid.T, f features.Set) {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod")
		pod.Status.Phase = rapid.SampledFrom([]v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed}).Draw(rt, "phase")
		prev := drawWorkerState(rt, now)
		u := termination.Update{Type: rapid.SampledFrom(types).Draw(rt, "type"), Pod: pod}
		kl := kubelet.KLTermUpdate{}
		if rapid.IntRange(0, 3).Draw(rt, "runtimeOnly") == 0 {
			u.RuntimeOnly = true
			kl.RunningPod = &kubecontainer.Pod{ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}
			if prev != nil && rapid.Bool().Draw(rt, "knownPod") {
				kl.KnownPod = pod
			} else {
				u.Pod = nil
			}
		} else {
			kl.Pod = pod
		}
		if rapid.Bool().Draw(rt, "kill") {
			u.Kill = &termination.KillRequest{
				GracePeriodOverride: graceValue(rt, "override"),
				Evict:               rapid.Bool().Draw(rt, "evict"),
				HasStatusFunc:       rapid.Bool().Draw(rt, "statusFunc"),
			}
			kl.HasKill, kl.Override, kl.Evict, kl.HasStatusFunc = true, u.Kill.GracePeriodOverride, u.Kill.Evict, u.Kill.HasStatusFunc
		}
		switch rapid.IntRange(0, 2).Draw(rt, "cache") {
		case 1:
			u.Cached = podgen.RuntimeState(pod, podgen.StateOptions{}).Draw(rt, "cached")
			kl.Cached = kubeletconv.PodStatus(u.Cached)
		case 2:
			u.CacheErr = true
			kl.CacheErr = errors.New("cache error")
		}
		kl.UpdateType = klTypes[u.Type]

		got := termination.UpdatePod(prev, u, now, f)
		want := kubelet.KLTerminationUpdatePod(pod.UID, toKLState(prev), kl, now)

		if (got.State != nil) != want.Known {
			rt.Fatalf("state known = %v, kubelet %v", got.State != nil, want.Known)
		}
		if got.State != nil && !reflect.DeepEqual(*toKLState(got.State), want.State) {
			rt.Fatalf("state = %+v, kubelet %+v", *toKLState(got.State), want.State)
		}
		if hasPending := got.Outcome == termination.Queued; hasPending != want.HasPending {
			rt.Fatalf("outcome %q, kubelet queued %v", got.Outcome, want.HasPending)
		}
		if !reflect.DeepEqual(got.GracePeriodOverride, want.Override) {
			rt.Fatalf("override = %v, kubelet %v", ptrStr(got.GracePeriodOverride), ptrStr(want.Override))
		}
		if got.KillCompleted != want.KillCompleted {
			rt.Fatalf("kill completed = %v, kubelet %v", got.KillCompleted, want.KillCompleted)
		}
		if got.StatusFuncKept != want.StatusFuncKept {
			rt.Fatalf("status func kept = %v, kubelet %v", got.StatusFuncKept, want.StatusFuncKept)
		}
		compared(rt, "UpdatePod")
	})
}

func ptrStr(p *int64) any {
	if p == nil {
		return "nil"
	}
	return *p
}

// killCase is one pod kill run in real time against the kubelet's
// killPodWithSyncResult. Durations stay away from whole seconds, where the
// kubelet's truncation of measured time would make the answer depend on
// scheduling noise.
type killCase struct {
	name      string
	pod       *v1.Pod
	running   []runtimestate.Container
	override  *int64
	preStop   map[string]time.Duration
	exitAfter map[string]time.Duration
}

func killPod(grace int64, initc []v1.Container, containers ...v1.Container) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-kill"},
		Spec:       v1.PodSpec{TerminationGracePeriodSeconds: &grace, InitContainers: initc, Containers: containers},
	}
}

func TestDifferentialTerminationKillPod(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	hook := &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}
	ms := time.Millisecond
	run := func(names ...string) []runtimestate.Container {
		var out []runtimestate.Container
		for i, n := range names {
			out = append(out, runtimestate.Container{ID: "c-" + n, Name: n, SandboxID: "s1", State: runtimestate.Running, CreatedAt: time.Unix(int64(100-i), 0)})
		}
		return out
	}
	cases := []killCase{
		{
			name:      "preStop deducted (fact 10, scaled)",
			pod:       killPod(3, nil, v1.Container{Name: "app", Lifecycle: hook}),
			running:   run("app"),
			override:  ptr(int64(3)),
			preStop:   map[string]time.Duration{"app": 1300 * ms},
			exitAfter: map[string]time.Duration{"c-app": 400 * ms},
		},
		{
			name:      "minimum kept (fact 19, scaled)",
			pod:       killPod(3, nil, v1.Container{Name: "app", Lifecycle: hook}),
			running:   run("app"),
			preStop:   map[string]time.Duration{"app": 2400 * ms},
			exitAfter: map[string]time.Duration{"c-app": 300 * ms},
		},
		{
			name: "sidecars after the app, in reverse order (fact 11)",
			pod: killPod(4, []v1.Container{{Name: "sidecar-0", RestartPolicy: &always}, {Name: "init-1"}, {Name: "sidecar-2", RestartPolicy: &always, Lifecycle: hook}},
				v1.Container{Name: "app", Lifecycle: hook}),
			running:   run("app", "sidecar-0", "sidecar-2"),
			override:  ptr(int64(4)),
			preStop:   map[string]time.Duration{"app": 300 * ms, "sidecar-2": 200 * ms},
			exitAfter: map[string]time.Duration{"c-app": 1200 * ms, "c-sidecar-0": 200 * ms, "c-sidecar-2": 200 * ms},
		},
		{
			name:      "grace spent waiting: sidecar stopped before the app has exited",
			pod:       killPod(30, []v1.Container{{Name: "sidecar-0", RestartPolicy: &always}}, v1.Container{Name: "app"}),
			running:   run("app", "sidecar-0"),
			override:  ptr(int64(1)),
			exitAfter: map[string]time.Duration{"c-sidecar-0": 300 * ms},
		},
		{
			name:      "preStop longer than the grace; a running container the spec lacks",
			pod:       killPod(30, nil, v1.Container{Name: "app", Lifecycle: hook}),
			running:   run("app", "ghost"),
			override:  ptr(int64(1)),
			preStop:   map[string]time.Duration{"app": 1500 * ms},
			exitAfter: map[string]time.Duration{"c-app": 200 * ms},
		},
	}
	f := features.V1_37()
	underGates(t, []features.Set{f}, func(t *testing.T, f features.Set) {
		const tolerance = 250 * time.Millisecond
		near := func(a, b time.Duration) bool { return a-b < tolerance && b-a < tolerance }
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				st := &runtimestate.Pod{UID: tc.pod.UID, Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true}}, Containers: tc.running}
				plan := termination.Plan(tc.pod, st, termination.Options{Features: f, GracePeriodOverride: tc.override, PreStop: tc.preStop, ExitAfter: byName(tc.exitAfter)})
				var running []kuberuntime.KLTermContainer
				for _, c := range tc.running {
					running = append(running, kuberuntime.KLTermContainer{ID: c.ID, Name: c.Name})
				}
				start := time.Now()
				got := kuberuntime.KLTerminationKillPod(tc.pod, running, []string{"s1"}, tc.override, tc.preStop, tc.exitAfter)
				t.Logf("kubelet (%v real): %+v\nplan:\n%s", time.Since(start).Round(ms), got, plan)
				stops := map[string]kuberuntime.KLTermStop{}
				for _, s := range got.Stops {
					stops[s.ID] = s
				}
				var failed int
				for _, c := range plan.Containers {
					s, ok := stops[c.ID]
					if c.Error != "" {
						failed++
						if ok {
							t.Errorf("%s: plan says not stopped, kubelet called StopContainer", c.Name)
						}
						continue
					}
					if !ok {
						t.Errorf("%s: kubelet never called StopContainer", c.Name)
						continue
					}
					if s.Timeout != c.Stop.Timeout {
						t.Errorf("%s: timeout %d, kubelet %d", c.Name, c.Stop.Timeout, s.Timeout)
					}
					if !near(s.At, c.StopCall) {
						t.Errorf("%s: StopContainer at %v, kubelet %v", c.Name, c.StopCall, s.At)
					}
					if !near(s.Exit, c.Exit) {
						t.Errorf("%s: exit at %v, kubelet %v", c.Name, c.Exit, s.Exit)
					}
				}
				if len(got.Errors) != failed {
					t.Errorf("failed kills: plan %d, kubelet %v", failed, got.Errors)
				}
				if len(got.SandboxStop) != 1 || !near(got.SandboxStop[0], plan.SandboxStop) {
					t.Errorf("StopPodSandbox at %v, kubelet %v", plan.SandboxStop, got.SandboxStop)
				}
				if !t.Failed() {
					countN("Plan/real-time-kill", f, 1)
				}
			})
		}
	})
}

// byName turns ExitAfter keyed by container ID "c-<name>" into ExitAfter
// keyed by name, which is how Plan takes it.
func byName(m map[string]time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for id, d := range m {
		out[id[len("c-"):]] = d
	}
	return out
}

// TestDifferentialTerminationWaitForTurn checks the wait arithmetic of
// StopTimeout against the kubelet's waitForTurn with short real waits.
func TestDifferentialTerminationWaitForTurn(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	pod := killPod(30, []v1.Container{{Name: "sidecar-0", RestartPolicy: &always}}, v1.Container{Name: "app"})
	f := features.V1_37()
	for _, tc := range []struct {
		name      string
		grace     int64
		terminate map[string]time.Duration
		turn      time.Duration // what Plan assumes: time until the app stops, -1 never
	}{
		{"app stops after 300ms", 1, map[string]time.Duration{"app": 300 * time.Millisecond}, 300 * time.Millisecond},
		{"app never stops: the timer ends the wait", 1, nil, -1},
		{"no grace: no wait", 0, nil, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			waited := kuberuntime.KLTerminationWaitForTurn(pod, []string{"app", "sidecar-0"}, "sidecar-0", tc.grace, tc.terminate)
			s := termination.StopTimeout(tc.grace, nil, false, 0, true, tc.turn, f)
			if got, want := s.WaitDeducted, int64(waited); got != want {
				t.Errorf("deducted %d, kubelet %d (waited %.3fs)", got, want, waited)
			}
			if d := time.Duration(waited*float64(time.Second)) - s.WaitElapsed; d > 250*time.Millisecond || d < -250*time.Millisecond {
				t.Errorf("waited %v, kubelet %.3fs", s.WaitElapsed, waited)
			}
			if !t.Failed() {
				countN("StopTimeout/real-time-waitForTurn", f, 1)
			}
		})
	}
}
