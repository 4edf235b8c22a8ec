package termination

import (
	"runtime"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Tests for mutants gremlins v0.6.0 left alive in this package on
// 2026-12-03 (tooling/mutation/gremlins/triage/termination.md).

// sidecarPod has the given sidecars (init containers with restartPolicy
// Always, declared in order) and regular containers.
func sidecarPod(sidecars, regular []string) *v1.Pod {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{}
	for _, n := range sidecars {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: n, RestartPolicy: &always})
	}
	for _, n := range regular {
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: n})
	}
	return pod
}

func nameList(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + string(rune('a'+i))
	}
	return out
}

// Typed sinks: storing into an interface would allocate a box.
var (
	sinkOrdering *Ordering
	sinkSmall    *orderingSmall
	sinkMem      *orderingMem
	sinkWaits    []Wait
	sinkSignals  []Signal
	sinkInts     []int
)

// allocBytes is what f allocates per call, in bytes (size classes
// included), and how many times: the least of five measures of 1,000
// calls (the runtime's own allocations only ever add).
func allocBytes(f func()) (bytes uint64, allocs float64) {
	const n = 1000
	f()
	bytes, m := ^uint64(0), ^uint64(0)
	for range 5 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		for range n {
			f()
		}
		runtime.ReadMemStats(&b)
		bytes = min(bytes, (b.TotalAlloc-a.TotalAlloc)/n)
		m = min(m, (b.Mallocs-a.Mallocs)/n)
	}
	return bytes, float64(m)
}

// NewOrdering's one allocation: the small block for a pod within its
// limits (6 signals, 3 sidecars, 12 indexes), the large one just past
// them and up to its own limits (10, 6, 30), and a slice of its own for
// each list past those. Checked in bytes as well as in count, at each
// boundary.
func TestNewOrderingMemoryAtItsBoundaries(t *testing.T) {
	f := features.V1_37()
	for _, tc := range []struct {
		name              string
		sidecars, regular int
		want              func()
	}{
		{"small at its limits: 3 sidecars, 3 regular (6 signals, 12 indexes)", 3, 3, func() { sinkSmall = new(orderingSmall) }},
		{"one signal more: large", 3, 4, func() { sinkMem = new(orderingMem) }},
		{"large at its limits: 6 sidecars, 4 regular (10 signals, 30 indexes)", 6, 4, func() { sinkMem = new(orderingMem) }},
		{"7 sidecars: their waits apart", 7, 2, func() { sinkMem = new(orderingMem); sinkWaits = make([]Wait, 0, 7) }},
		{"11 signals, 35 indexes: signals and indexes apart", 5, 6, func() {
			sinkMem = new(orderingMem)
			sinkSignals = make([]Signal, 0, 11)
			sinkInts = make([]int, 0, 35)
		}},
	} {
		pod := sidecarPod(nameList("s", tc.sidecars), nameList("r", tc.regular))
		var running []string
		for _, c := range pod.Spec.InitContainers {
			running = append(running, c.Name)
		}
		for _, c := range pod.Spec.Containers {
			running = append(running, c.Name)
		}
		gotB, gotN := allocBytes(func() { sinkOrdering = NewOrdering(pod, running, f) })
		wantB, wantN := allocBytes(tc.want)
		if gotB != wantB || gotN != wantN {
			t.Errorf("%s: NewOrdering allocates %d bytes in %v allocations, want %d in %v", tc.name, gotB, gotN, wantB, wantN)
		}
	}
}

// Two sidecars of one name (the runtime may list repeats) share one
// wait, whichever index it has; String lists the first sidecar's wait.
func TestOrderingRepeatedSidecarAndString(t *testing.T) {
	pod := sidecarPod([]string{"proxy", "proxy"}, []string{"app"})
	o := NewOrdering(pod, []string{"proxy", "app"}, features.V1_37())
	if len(o.Waits) != 1 || o.Waits[0].Name != "proxy" {
		t.Fatalf("waits %+v, want one for proxy", o.Waits)
	}
	pod = sidecarPod([]string{"proxy"}, []string{"app"})
	o = NewOrdering(pod, []string{"proxy", "app"}, features.V1_37())
	if s := o.String(); s != "proxy waits for app\n" {
		t.Errorf("String %q, want proxy's wait", s)
	}
}

// A sidecar whose preStop hook ends before the app exits waits the rest:
// the wait is the app's exit less the hook's time, and each whole second
// of both comes off the grace.
func TestPlanSidecarHookThenWait(t *testing.T) {
	grace := int64(10)
	pod := sidecarPod([]string{"proxy"}, []string{"app"})
	pod.Spec.TerminationGracePeriodSeconds = &grace
	pod.Spec.InitContainers[0].Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}
	st := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "a", Name: "app", State: runtimestate.Running}, {ID: "p", Name: "proxy", State: runtimestate.Running}}}
	ms := time.Millisecond
	tl := Plan(pod, st, Options{Features: features.V1_37(), PreStop: map[string]time.Duration{"proxy": 1500 * ms},
		ExitAfter: map[string]time.Duration{"app": 4 * time.Second, "proxy": 100 * ms}})
	p := tl.Containers[1]
	if p.Name != "proxy" || p.PreStopEnd != 1500*ms || p.Stop.WaitElapsed != 2500*ms || p.WaitEnd != 4*time.Second ||
		p.Stop.PreStopDeducted != 1 || p.Stop.WaitDeducted != 2 || p.Stop.Timeout != 7 {
		t.Errorf("proxy %+v: want preStop 1.5 s, then 2.5 s of wait until the app's exit at 4 s, timeout 10-1-2 = 7", p)
	}
}

// A process that would exit exactly when the timeout runs out is counted
// killed (the runtime's SIGKILL is due at that instant).
func TestPlanExitAtTheTimeoutIsKilled(t *testing.T) {
	grace := int64(3)
	pod := &v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{Name: "app"}}}}
	st := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "a", Name: "app", State: runtimestate.Running}}}
	tl := Plan(pod, st, Options{Features: features.V1_37(), ExitAfter: map[string]time.Duration{"app": 3 * time.Second}})
	if c := tl.Containers[0]; !c.Killed || c.Exit != 3*time.Second {
		t.Errorf("%+v: want killed at 3 s", c)
	}
	// No sandbox: the last line names none.
	if s := tl.String(); !strings.HasSuffix(s, "StopPodSandbox at 3s\n") {
		t.Errorf("String without sandboxes:\n%s", s)
	}
}

// WorkerState's line: "unknown" for nil, the grace only when set.
func TestWorkerStateString(t *testing.T) {
	var s *WorkerState
	if got := s.String(); got != "unknown" {
		t.Errorf("nil: %q", got)
	}
	if got := (&WorkerState{}).String(); got != "sync" {
		t.Errorf("zero: %q, want sync", got)
	}
	if got := (&WorkerState{TerminatingAt: time.Unix(1, 0), GracePeriod: 5}).String(); !strings.HasSuffix(got, " grace=5s") {
		t.Errorf("grace 5: %q", got)
	}
}
