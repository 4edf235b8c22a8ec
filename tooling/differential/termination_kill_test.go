//go:build kubeletlogic_overlay

package differential

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
)

// The termination timeline (termination.Plan, and StopTimeout under it)
// against the kubelet's killPodWithSyncResult, run in real time on a fake
// runtime manager of its own per case (KLTerminationKillPod): exec preStop
// hooks sleep in the fake runtime's ExecSync, sleep hooks are run by the
// kubelet's own handler runner, StopContainer returns when the process
// "exits" (ExitAfter), at the timeout, or at once with an error.
//
// Compared exactly: which containers get StopContainer (each once), each
// timeout, whether the call failed, which containers ran an exec hook, the
// failed sync results, the StopPodSandbox calls (ids, in order, after every
// StopContainer returned), and the order of the StopContainer calls for
// every pair Plan puts more than killOrderGap apart.
//
// Compared within killTolerance: when each StopContainer was called and
// returned, when each exec hook started, and when StopPodSandbox was called.
// Tolerance: 200 ms. Measured over 8 runs of 205 kills each (48 at once,
// on a 2-core machine with a load average near 25 from other work), the
// largest deviation per run was 28-84 ms, always the kubelet late (timer and
// scheduling latency); the tolerance is over twice that and below the
// 250 ms that keeps every truncated wait off a whole second
// (killTimingSafe). 205 kills take about 9 s of wall time.
//
// The kubelet truncates every wait (preStop hook, waitForTurn) to whole
// seconds, so a wait ending near a whole second gives either answer.
// Cases where Plan puts any such wait within killMargin of a whole second
// are redrawn; timer-bound waits (the hook or the wait outlasting the
// grace) always end just after a whole second and are safe.
//
// Cases are drawn from rapid generators with consecutive seeds starting at
// a random base (printed); DIFF_KILL_SEED=<seed> DIFF_KILL_CASES=1 reruns
// one case, DIFF_KILL_CASES=<n> changes the count (default 200 times
// DIFF_SCALE).
const (
	killTolerance = 200 * time.Millisecond
	killMargin    = 250 * time.Millisecond
	killOrderGap  = 60 * time.Millisecond
	killParallel  = 48
)

// killSpec is one pod kill.
type killSpec struct {
	name      string
	seed      int
	pod       *v1.Pod
	st        *runtimestate.Pod
	override  *int64
	execFor   map[string]time.Duration // exec preStop hook durations, by name
	exitAfter map[string]time.Duration // by name; absent: ignores SIGTERM
	stopFails map[string]bool          // by name
	// returnAfter: each StopContainer that did not fail returns this long
	// after its process exited.
	returnAfter time.Duration
}

func (k killSpec) plan(f features.Set) termination.Timeline {
	return termination.Plan(k.pod, k.st, termination.Options{Features: f, GracePeriodOverride: k.override,
		PreStop: k.execFor, ExitAfter: k.exitAfter, StopFails: k.stopFails, StopReturnAfter: k.returnAfter})
}

// kubelet runs the kill through the kubelet. Its inputs are by container ID
// and come from the spec only: nothing Plan computed.
func (k killSpec) kubelet() kuberuntime.KLTermKill {
	in := kuberuntime.KLTermKillInput{Pod: k.pod, Status: kubeletconv.PodStatus(k.st), Override: k.override,
		ExecFor: map[string]time.Duration{}, ExitAfter: map[string]time.Duration{}, StopFails: map[string]bool{},
		ReturnAfter: k.returnAfter}
	for _, c := range k.st.Containers {
		if d, ok := k.execFor[c.Name]; ok {
			in.ExecFor[c.ID] = d
		}
		if d, ok := k.exitAfter[c.Name]; ok {
			in.ExitAfter[c.ID] = d
		}
		in.StopFails[c.ID] = k.stopFails[c.Name]
	}
	return kuberuntime.KLTerminationKillPod(in)
}

func (k killSpec) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "grace: spec %v deletion %v override %v\n", ptrStr(k.pod.Spec.TerminationGracePeriodSeconds),
		ptrStr(k.pod.DeletionGracePeriodSeconds), ptrStr(k.override))
	desc := func(kind string, c *v1.Container) {
		fmt.Fprintf(&b, "  %s %s", kind, c.Name)
		if c.RestartPolicy != nil {
			fmt.Fprintf(&b, " restartPolicy=%s", *c.RestartPolicy)
		}
		if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
			if s := c.Lifecycle.PreStop.Sleep; s != nil {
				fmt.Fprintf(&b, " preStop=sleep(%d)", s.Seconds)
			} else {
				fmt.Fprintf(&b, " preStop=exec(%v)", k.execFor[c.Name])
			}
		}
		b.WriteString("\n")
	}
	for i := range k.pod.Spec.InitContainers {
		desc("init", &k.pod.Spec.InitContainers[i])
	}
	for i := range k.pod.Spec.Containers {
		desc("container", &k.pod.Spec.Containers[i])
	}
	for i := range k.pod.Spec.EphemeralContainers {
		desc("ephemeral", (*v1.Container)(&k.pod.Spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	for _, c := range k.st.Containers {
		fmt.Fprintf(&b, "  runtime %s %s %s", c.ID, c.Name, c.State)
		if d, ok := k.exitAfter[c.Name]; ok {
			fmt.Fprintf(&b, " exitAfter=%v", d)
		}
		if k.stopFails[c.Name] {
			b.WriteString(" StopContainer fails")
		}
		b.WriteString("\n")
	}
	for _, s := range k.st.Sandboxes {
		fmt.Fprintf(&b, "  sandbox %s\n", s.ID)
	}
	if k.returnAfter > 0 {
		fmt.Fprintf(&b, "  StopContainer returns %v after the exit\n", k.returnAfter)
	}
	return b.String()
}

// drawMillis draws a duration in whole milliseconds.
func drawMillis(t *rapid.T, lo, hi int, label string) time.Duration {
	return time.Duration(rapid.IntRange(lo, hi).Draw(t, label)) * time.Millisecond
}

var killSpecGen = rapid.Custom(func(t *rapid.T) killSpec {
	always := v1.ContainerRestartPolicyAlways
	k := killSpec{execFor: map[string]time.Duration{}, exitAfter: map[string]time.Duration{}, stopFails: map[string]bool{}}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-kill"}}
	grace := func(label string, nilOneIn, lo, hi int) *int64 {
		if rapid.IntRange(1, nilOneIn).Draw(t, label+" nil") == 1 {
			return nil
		}
		return ptr(int64(rapid.IntRange(lo, hi).Draw(t, label)))
	}
	pod.Spec.TerminationGracePeriodSeconds = grace("spec grace", 6, 0, 5)
	pod.DeletionGracePeriodSeconds = grace("deletion grace", 2, -1, 5)
	k.override = grace("override", 3, -1, 5)
	hook := func(name string, ephemeral bool) *v1.Lifecycle {
		kind := rapid.IntRange(0, 3).Draw(t, "preStop "+name)
		if ephemeral && rapid.IntRange(0, 3).Draw(t, "ephemeral hook "+name) > 0 {
			kind = 0
		}
		switch kind {
		case 1:
			if rapid.IntRange(0, 4).Draw(t, "exec returns at once "+name) > 0 {
				k.execFor[name] = drawMillis(t, 30, 3600, "exec "+name)
			}
			return &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}
		case 2:
			return &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: int64(rapid.IntRange(0, 3).Draw(t, "sleep "+name))}}}
		}
		return nil
	}
	for i := range rapid.IntRange(0, 5).Draw(t, "init containers") {
		c := v1.Container{Name: fmt.Sprintf("init-%d", i), Image: "busybox"}
		if rapid.IntRange(0, 4).Draw(t, "sidecar "+c.Name) > 0 {
			c.Name = fmt.Sprintf("side-%d", i)
			c.RestartPolicy = &always
		}
		c.Lifecycle = hook(c.Name, false)
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
	}
	for i := range rapid.IntRange(1, 3).Draw(t, "containers") {
		c := v1.Container{Name: fmt.Sprintf("app-%d", i), Image: "busybox"}
		c.Lifecycle = hook(c.Name, false)
		pod.Spec.Containers = append(pod.Spec.Containers, c)
	}
	for i := range rapid.IntRange(0, 3).Draw(t, "ephemerals") / 2 {
		e := v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: fmt.Sprintf("debug-%d", i), Image: "busybox"}}
		e.Lifecycle = hook(e.Name, true)
		pod.Spec.EphemeralContainers = append(pod.Spec.EphemeralContainers, e)
	}
	k.pod = pod

	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}
	// Newest (highest attempt) first, as a runtime state lists them and
	// as the kubelet's GetPodStatus sorts them.
	for i := rapid.IntRange(1, 2).Draw(t, "sandboxes") - 1; i >= 0; i-- {
		st.Sandboxes = append(st.Sandboxes, runtimestate.Sandbox{ID: fmt.Sprintf("s%d", i), Ready: i == 0, Attempt: uint32(i)})
	}
	names := []string{}
	for _, c := range specContainers(pod) {
		names = append(names, c.Name)
	}
	for _, e := range pod.Spec.EphemeralContainers {
		names = append(names, e.Name)
	}
	if rapid.IntRange(0, 4).Draw(t, "ghost") == 0 {
		names = append(names, "ghost")
	}
	var cs []runtimestate.Container
	add := func(name string, s runtimestate.State) {
		cs = append(cs, runtimestate.Container{ID: fmt.Sprintf("c%d-%s", len(cs), name), Name: name, SandboxID: "s0", State: s, Image: "busybox"})
	}
	for _, n := range names {
		switch v := rapid.IntRange(0, 11).Draw(t, "runtime "+n); {
		case v <= 1: // absent
		case v <= 7:
			add(n, runtimestate.Running)
		case v == 8:
			add(n, runtimestate.Exited)
		case v == 9:
			add(n, rapid.SampledFrom([]runtimestate.State{runtimestate.Created, runtimestate.Unknown}).Draw(t, "state "+n))
		case v == 10:
			add(n, runtimestate.Exited)
			add(n, runtimestate.Running)
		default:
			add(n, runtimestate.Running)
			add(n, runtimestate.Running)
		}
		if rapid.IntRange(0, 4).Draw(t, "ignores SIGTERM "+n) > 0 {
			k.exitAfter[n] = drawMillis(t, 0, 1800, "exit "+n)
		}
		if rapid.IntRange(0, 14).Draw(t, "StopContainer fails "+n) == 0 {
			k.stopFails[n] = true
		}
	}
	// The runtime lists the newest first; draw any order.
	st.Containers = rapid.Permutation(cs).Draw(t, "runtime order")
	for i := range st.Containers {
		st.Containers[i].CreatedAt = time.Unix(int64(1000-i), 0)
	}
	if rapid.IntRange(0, 2).Draw(t, "runtime slow to return") == 0 {
		k.returnAfter = drawMillis(t, 1, 700, "return after exit")
	}
	k.st = st
	return k
})

// killTimingSafe reports why the kubelet's whole-second truncation could
// give either answer on this case, or "" when every truncated wait ends at
// least killMargin away from a whole second (or is timer-bound).
func killTimingSafe(k killSpec, tl termination.Timeline) string {
	nearWhole := func(d time.Duration, lo, hi int64) bool {
		s := d.Seconds()
		w := math.Round(s)
		return int64(w) >= lo && int64(w) <= hi && math.Abs(s-w) < killMargin.Seconds()
	}
	var releases []time.Duration
	for _, c := range tl.Containers {
		if c.Error == "" && !c.StopFailed {
			releases = append(releases, c.Return)
		}
	}
	for _, c := range tl.Containers {
		if c.Error != "" {
			continue
		}
		if d, ok := k.execFor[c.Name]; ok && c.Stop.PreStopRan && nearWhole(d, 1, c.Stop.Grace) {
			return fmt.Sprintf("%s: exec hook of %v against grace %ds", c.Name, d, c.Stop.Grace)
		}
		if !c.Stop.Waited {
			continue
		}
		// Any release may end the wait: check them all, not only the ones
		// Plan says it waits for.
		left := c.Stop.Grace - c.Stop.PreStopDeducted
		for _, e := range releases {
			if d := e - c.PreStopEnd; nearWhole(d, 1, left) {
				return fmt.Sprintf("%s: a release %v after its wait starts (%v), %ds left", c.Name, d, c.PreStopEnd, left)
			}
		}
	}
	return ""
}

// killDeviation is the largest time difference seen, for the report.
var killDeviation struct {
	sync.Mutex
	max  time.Duration
	what string
}

// killReporter is what compareKill reports mismatches to: the test, or a
// killRecord that keeps them for a rerun's verdict.
type killReporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// killRecord collects compareKill's mismatches.
type killRecord []string

func (r *killRecord) Helper() {}
func (r *killRecord) Errorf(format string, args ...any) {
	*r = append(*r, fmt.Sprintf(format, args...))
}

// killReruns is how many times a case whose kubelet run disagreed with
// the plan is run again, alone, before it fails. The kubelet side runs
// in real time, so a loaded machine can delay one run past
// killTolerance (seen at load 15-40: 220-290 ms late); a wrong plan
// disagrees on every run.
const killReruns = 2

// compareKill compares the plan with what the kubelet did.
func compareKill(t killReporter, k killSpec, tl termination.Timeline, got kuberuntime.KLTermKill) {
	t.Helper()
	near := func(what string, plan, kubelet time.Duration) {
		d := kubelet - plan
		killDeviation.Lock()
		if d.Abs() > killDeviation.max {
			killDeviation.max, killDeviation.what = d.Abs(), fmt.Sprintf("%s: %s (plan %v, kubelet %v)", k.name, what, plan, kubelet)
		}
		killDeviation.Unlock()
		if d.Abs() > killTolerance {
			t.Errorf("%s: plan %v, kubelet %v", what, plan, kubelet)
		}
	}
	calls := map[string][]int{}
	for i, s := range got.Stops {
		calls[s.ID] = append(calls[s.ID], i)
	}
	var wantFailed []string
	planned := map[string]termination.ContainerStop{}
	for _, c := range tl.Containers {
		idx := calls[c.ID]
		if c.Error != "" {
			wantFailed = append(wantFailed, c.Name)
			if len(idx) > 0 {
				t.Errorf("%s (%s): plan cannot kill it (%s), kubelet called StopContainer", c.Name, c.ID, c.Error)
			}
			continue
		}
		planned[c.ID] = c
		if len(idx) != 1 {
			t.Errorf("%s (%s): kubelet called StopContainer %d times, plan once", c.Name, c.ID, len(idx))
			continue
		}
		s := got.Stops[idx[0]]
		if s.Timeout != c.Stop.Timeout {
			t.Errorf("%s (%s): StopContainer timeout: plan %ds, kubelet %ds", c.Name, c.ID, c.Stop.Timeout, s.Timeout)
		}
		if s.Failed != c.StopFailed {
			t.Errorf("%s (%s): StopContainer failed: plan %v, kubelet %v", c.Name, c.ID, c.StopFailed, s.Failed)
		}
		if c.StopFailed {
			wantFailed = append(wantFailed, c.Name)
		}
		near(c.Name+" StopContainer call", c.StopCall, s.At)
		near(c.Name+" StopContainer return", c.Return, s.Exit)
		spec := findSpec(k.pod, c.Name)
		exec := c.Stop.PreStopRan && spec.Lifecycle.PreStop.Exec != nil
		if at, ran := got.Execs[c.ID]; ran != exec {
			t.Errorf("%s (%s): exec hook ran: plan %v, kubelet %v", c.Name, c.ID, exec, ran)
		} else if ran {
			near(c.Name+" exec hook start", 0, at)
		}
	}
	for id := range calls {
		if _, ok := planned[id]; !ok {
			t.Errorf("kubelet called StopContainer(%s), the plan does not", id)
		}
	}
	// Call order: every pair the plan puts clearly apart.
	for i := range got.Stops {
		for j := i + 1; j < len(got.Stops); j++ {
			a, b := planned[got.Stops[i].ID], planned[got.Stops[j].ID]
			if a.ID != "" && b.ID != "" && b.StopCall+killOrderGap < a.StopCall {
				t.Errorf("kubelet called StopContainer(%s) before %s; plan %v after %v", a.Name, b.Name, a.StopCall, b.StopCall)
			}
		}
	}
	var gotFailed []string
	for _, e := range got.Errors {
		if name, ok := strings.CutPrefix(e, "KillContainer "); ok {
			gotFailed = append(gotFailed, strings.SplitN(name, ":", 2)[0])
		} else {
			t.Errorf("unexpected failed result %q", e)
		}
	}
	sort.Strings(wantFailed)
	sort.Strings(gotFailed)
	if strings.Join(wantFailed, ",") != strings.Join(gotFailed, ",") {
		t.Errorf("failed kills: plan %v, kubelet %v", wantFailed, got.Errors)
	}
	var sandboxes []string
	for _, s := range got.SandboxStops {
		sandboxes = append(sandboxes, s.ID)
		near("StopPodSandbox("+s.ID+")", tl.SandboxStop, s.At)
		for _, c := range got.Stops {
			if c.Exit > s.At {
				t.Errorf("StopPodSandbox(%s) at %v before StopContainer(%s) returned at %v", s.ID, s.At, c.ID, c.Exit)
			}
		}
	}
	if strings.Join(sandboxes, ",") != strings.Join(tl.Sandboxes, ",") {
		t.Errorf("StopPodSandbox calls: plan %v, kubelet %v", tl.Sandboxes, sandboxes)
	}
}

func findSpec(pod *v1.Pod, name string) *v1.Container {
	for _, c := range specContainers(pod) {
		if c.Name == name {
			return c
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		if pod.Spec.EphemeralContainers[i].Name == name {
			return (*v1.Container)(&pod.Spec.EphemeralContainers[i].EphemeralContainerCommon)
		}
	}
	return nil
}

func envInt(name string) (int, bool) {
	v, err := strconv.Atoi(os.Getenv(name))
	return v, err == nil
}

// TestDifferentialTerminationKill compares Plan with killPodWithSyncResult
// on the regression cases below and on at least 200 random pods (see the
// comment at the top of this file).
func TestDifferentialTerminationKill(t *testing.T) {
	n := max(1, int(200*scale()))
	if v, ok := envInt("DIFF_KILL_CASES"); ok {
		n = v
	}
	base, fixed := envInt("DIFF_KILL_SEED")
	if !fixed {
		base = int(time.Now().UnixNano() % 1_000_000_000)
	}
	var cases []killSpec
	if !fixed {
		cases = killRegressionCases()
	}
	f := defaultGates()
	rejected := 0
	for seed := base; len(cases) < n+len(killRegressionCases())*btoi(!fixed); seed++ {
		k := killSpecGen.Example(seed)
		k.name, k.seed = fmt.Sprintf("seed=%d", seed), seed
		if why := killTimingSafe(k, k.plan(f)); why != "" {
			if fixed {
				t.Logf("seed %d would be redrawn: %s", seed, why)
			} else {
				rejected++
				if rejected > 5*n+100 {
					t.Fatalf("%d cases redrawn for %d kept: the generator no longer keeps times off whole seconds", rejected, len(cases))
				}
				continue
			}
		}
		cases = append(cases, k)
	}
	t.Logf("seeds from %d: %d random cases kept, %d redrawn (timing too close to a whole second)", base, n, rejected)

	underGates(t, []features.Set{f}, func(t *testing.T, f features.Set) {
		start := time.Now()
		results := make([]kuberuntime.KLTermKill, len(cases))
		sem := make(chan struct{}, killParallel)
		var wg sync.WaitGroup
		for i := range cases {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				results[i] = cases[i].kubelet()
			}()
		}
		wg.Wait()
		t.Logf("%d kills in %v", len(cases), time.Since(start).Round(time.Millisecond))
		for i, k := range cases {
			t.Run(k.name, func(t *testing.T) {
				tl := k.plan(f)
				got := results[i]
				var rec killRecord
				compareKill(&rec, k, tl, got)
				for run := 1; len(rec) > 0 && run <= killReruns; run++ {
					t.Logf("run %d disagrees with the plan (%s); running the case again, alone", run, strings.Join(rec, "; "))
					got, rec = k.kubelet(), nil
					compareKill(&rec, k, tl, got)
				}
				for _, e := range rec {
					t.Error(e)
				}
				if t.Failed() {
					t.Logf("case:\n%s\nplan:\n%s\nkubelet: %+v", k, tl, got)
					if strings.HasPrefix(k.name, "seed=") {
						t.Logf("rerun: DIFF_KILL_SEED=%d DIFF_KILL_CASES=1 ./run.sh -run 'TestDifferentialTerminationKill$' -v", k.seed)
					}
					return
				}
				countN("Plan/real-time-kill", f, 1)
				countN("StopTimeout/real-time-kill", f, 1)
			})
		}
		killDeviation.Lock()
		t.Logf("largest time deviation from the plan: %v (%s)", killDeviation.max, killDeviation.what)
		killDeviation.Unlock()
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// killRegressionCases are the hand-written cases kept by name.
func killRegressionCases() []killSpec {
	always := v1.ContainerRestartPolicyAlways
	hook := &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}
	ms := time.Millisecond
	pod := func(grace int64, initc []v1.Container, containers ...v1.Container) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-kill"},
			Spec:       v1.PodSpec{TerminationGracePeriodSeconds: &grace, InitContainers: initc, Containers: containers},
		}
	}
	run := func(names ...string) *runtimestate.Pod {
		st := &runtimestate.Pod{UID: "uid-kill", Name: "p", Namespace: "ns", Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true}}}
		for i, n := range names {
			st.Containers = append(st.Containers, runtimestate.Container{ID: "c-" + n, Name: n, SandboxID: "s1", State: runtimestate.Running, CreatedAt: time.Unix(int64(100-i), 0)})
		}
		return st
	}
	return []killSpec{
		{
			// Fact 10 (docs/real-cluster-facts.md#fact-10), with the times scaled down.
			name:      "preStop deducted (fact 10, scaled)",
			pod:       pod(3, nil, v1.Container{Name: "app", Lifecycle: hook}),
			st:        run("app"),
			override:  ptr(int64(3)),
			execFor:   map[string]time.Duration{"app": 1300 * ms},
			exitAfter: map[string]time.Duration{"app": 400 * ms},
		},
		{
			// Fact 19 (docs/real-cluster-facts.md#fact-19), with the times scaled down.
			name:      "minimum kept (fact 19, scaled)",
			pod:       pod(3, nil, v1.Container{Name: "app", Lifecycle: hook}),
			st:        run("app"),
			execFor:   map[string]time.Duration{"app": 2400 * ms},
			exitAfter: map[string]time.Duration{"app": 300 * ms},
		},
		{
			// Fact 11 (docs/real-cluster-facts.md#fact-11).
			name: "sidecars after the app, in reverse order (fact 11)",
			pod: pod(4, []v1.Container{{Name: "sidecar-0", RestartPolicy: &always}, {Name: "init-1"}, {Name: "sidecar-2", RestartPolicy: &always, Lifecycle: hook}},
				v1.Container{Name: "app", Lifecycle: hook}),
			st:        run("app", "sidecar-0", "sidecar-2"),
			override:  ptr(int64(4)),
			execFor:   map[string]time.Duration{"app": 300 * ms, "sidecar-2": 200 * ms},
			exitAfter: map[string]time.Duration{"app": 1200 * ms, "sidecar-0": 200 * ms, "sidecar-2": 200 * ms},
		},
		{
			name:      "grace spent waiting: sidecar stopped before the app has exited",
			pod:       pod(30, []v1.Container{{Name: "sidecar-0", RestartPolicy: &always}}, v1.Container{Name: "app"}),
			st:        run("app", "sidecar-0"),
			override:  ptr(int64(1)),
			exitAfter: map[string]time.Duration{"sidecar-0": 300 * ms},
		},
		{
			name:      "preStop longer than the grace; a running container the spec lacks",
			pod:       pod(30, nil, v1.Container{Name: "app", Lifecycle: hook}),
			st:        run("app", "ghost"),
			override:  ptr(int64(1)),
			execFor:   map[string]time.Duration{"app": 1500 * ms},
			exitAfter: map[string]time.Duration{"app": 200 * ms},
		},
	}
}

// TestDifferentialTerminationWaitForTurn checks the wait arithmetic of
// StopTimeout against the kubelet's waitForTurn with short real waits.
func TestDifferentialTerminationWaitForTurn(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	grace := int64(30)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-kill"},
		Spec: v1.PodSpec{TerminationGracePeriodSeconds: &grace,
			InitContainers: []v1.Container{{Name: "sidecar-0", RestartPolicy: &always}}, Containers: []v1.Container{{Name: "app"}}},
	}
	f := defaultGates()
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
			s := termination.StopTimeout(tc.grace, termination.StopOptions{Features: f, Ordered: true, TurnAfter: tc.turn})
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
