//go:build kubeletlogic_overlay

package differential

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"k8s.io/kubernetes/pkg/kubelet/status"
	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// benchCases is how many inputs each row draws (once, fixed seeds, at the
// v1.37.2 default gates) and cycles through; every input is checked to give
// the same answer on both sides before anything is timed.
const benchCases = 500

// benchRow is one decision function against the kubelet function it
// mirrors. prepare draws the inputs, checks both sides agree on them, and
// returns the two timed bodies: one call on input i each (modulo the
// number of inputs), returning something of the answer so that the call
// is not optimised away.
type benchRow struct {
	name    string // the kubelet function
	prepare func(b *testing.B) (ours, theirs func(i int) int)
}

// BenchmarkVs times every decision function against the kubelet v1.37.2
// function it mirrors, on the same inputs: Vs/<kubelet function>/kubeletlogic
// and Vs/<kubelet function>/kubelet. bench.sh runs it and prints the table.
// Both sides are called through a func value; adapters build whatever the
// kubelet method needs (a Kubelet, a runtime manager, a status manager)
// once, outside the timed loop.
func BenchmarkVs(b *testing.B) {
	underGatesB(b, defaultGates())
	for _, r := range benchRows() {
		b.Run(r.name, func(b *testing.B) {
			ours, theirs := r.prepare(b)
			b.Run("kubeletlogic", func(b *testing.B) { benchLoop(b, ours) })
			b.Run("kubelet", func(b *testing.B) { benchLoop(b, theirs) })
		})
	}
}

var benchSink int

func benchLoop(b *testing.B, body func(i int) int) {
	b.ReportAllocs()
	sink := 0
	for i := 0; b.Loop(); i++ {
		sink += body(i)
	}
	benchSink = sink
}

// drawBench draws n values with gen at fixed seeds 0, 1, … n-1.
func drawBench[T any](n int, gen func(t *rapid.T) T) []T {
	g := rapid.Custom(gen)
	out := make([]T, n)
	for i := range out {
		out[i] = g.Example(i)
	}
	return out
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

func benchRows() []benchRow {
	f := defaultGates()
	return []benchRow{
		{"computePodActions", func(b *testing.B) (func(int) int, func(int) int) {
			return paBenchPair(b, f, func(a podactions.Actions) bool { return !paResizes(a) })
		}},
		{"computePodActions(resize)", func(b *testing.B) (func(int) int, func(int) int) {
			return paBenchPair(b, f, paResizes)
		}},
		{"getPhase", benchGetPhase},
		{"GeneratePodReadyToStartContainersCondition", func(b *testing.B) (func(int) int, func(int) int) {
			cs := conditionBenchCases(b)
			return func(i int) int {
					c := &cs[i%len(cs)]
					return len(conditions.PodReadyToStartContainers(c.pod, c.old, c.rs, f).Message)
				}, func(i int) int {
					c := &cs[i%len(cs)]
					return len(status.GeneratePodReadyToStartContainersCondition(c.pod, c.old, c.ks).Message)
				}
		}},
		{"GeneratePodInitializedCondition", func(b *testing.B) (func(int) int, func(int) int) {
			cs := conditionBenchCases(b)
			return func(i int) int {
					c := &cs[i%len(cs)]
					return len(conditions.Initialized(c.pod, c.old, c.all, c.phase, f).Message)
				}, func(i int) int {
					c := &cs[i%len(cs)]
					return len(status.GeneratePodInitializedCondition(c.pod, c.old, c.all, c.phase).Message)
				}
		}},
		{"GenerateContainersReadyCondition", func(b *testing.B) (func(int) int, func(int) int) {
			cs := conditionBenchCases(b)
			return func(i int) int {
					c := &cs[i%len(cs)]
					return len(conditions.ContainersReady(c.pod, c.old, c.all, c.phase, f).Message)
				}, func(i int) int {
					c := &cs[i%len(cs)]
					return len(status.GenerateContainersReadyCondition(c.pod, c.old, c.all, c.phase).Message)
				}
		}},
		{"GeneratePodReadyCondition", func(b *testing.B) (func(int) int, func(int) int) {
			cs := conditionBenchCases(b)
			return func(i int) int {
					c := &cs[i%len(cs)]
					return len(conditions.Ready(c.pod, c.old, c.conds, c.all, c.phase, f).Message)
				}, func(i int) int {
					c := &cs[i%len(cs)]
					return len(status.GeneratePodReadyCondition(c.pod, c.old, c.conds, c.all, c.phase).Message)
				}
		}},
		{"GenerateAllContainersRestartingCondition", func(b *testing.B) (func(int) int, func(int) int) {
			cs := conditionBenchCases(b)
			return func(i int) int {
					c := &cs[i%len(cs)]
					return len(conditions.AllContainersRestarting(c.pod, c.rs, c.old, c.phase, f).Reason)
				}, func(i int) int {
					c := &cs[i%len(cs)]
					return len(status.GenerateAllContainersRestartingCondition(c.pod, c.ks, c.old, c.phase).Reason)
				}
		}},
		{"generateAPIPodStatus", benchPodstatus},
		{"convertToAPIContainerStatuses", benchApistatus},
		{"ShouldContainerBeRestarted", benchShouldRestart},
		{"doBackOff", benchDoBackOff},
		{"HashContainer", benchHash},
		{"newTerminationOrdering", benchOrdering},
		{"setTerminationGracePeriod", benchContainerGrace},
		{"calculateEffectiveGracePeriod", benchEffectiveGrace},
		{"canBeDeleted", benchCanBeDeleted},
	}
}

// paResizes reports whether an answer resizes something in place.
func paResizes(a podactions.Actions) bool {
	return len(a.MemoryUpdates)+len(a.CPUUpdates) > 0 || a.UpdatePodResources || a.UpdatePodLevelResources ||
		len(a.VolumesToUpsize)+len(a.VolumesToDownsize) > 0
}

// paBenchPair times podactions.Compute against computePodActions on the
// cases whose answer keep selects (see paBenchCases).
func paBenchPair(b *testing.B, f features.Set, keep func(podactions.Actions) bool) (func(int) int, func(int) int) {
	cases := paBenchCases(b, benchCases, keep)
	return func(i int) int {
			c := &cases[i%len(cases)]
			o := c.opts
			o.Features = f
			a := podactions.Compute(c.pod, c.st, o)
			return len(a.ContainersToKill) + len(a.ContainersToStart) + len(a.InitContainersToStart)
		}, func(i int) int {
			c := &cases[i%len(cases)]
			return kuberuntime.KLPodActionsComputeOnly(c.pod, c.ks, c.opts.RestartAllContainers)
		}
}

func benchGetPhase(b *testing.B) (func(int) int, func(int) int) {
	type tc struct {
		pod                   *v1.Pod
		st                    *v1.PodStatus
		info                  []v1.ContainerStatus
		terminal, initialized bool
	}
	f := defaultGates()
	cs := drawBench(benchCases, func(t *rapid.T) tc {
		pod := statusPod(t)
		st := podgen.APIStatus(pod, podgen.APIStatusOptions{NoConditions: true, NoPhase: true}).Draw(t, "statuses")
		c := tc{pod: pod, st: st, terminal: rapid.Bool().Draw(t, "podIsTerminal"), initialized: rapid.Bool().Draw(t, "podHasInitialized")}
		// The list generateAPIPodStatus hands getPhase, made outside the
		// timed call (phase.Compute reads the two lists in place).
		c.info = append(append([]v1.ContainerStatus{}, st.ContainerStatuses...), st.InitContainerStatuses...)
		return c
	})
	for i, c := range cs {
		if got, want := phase.Compute(c.pod, c.st, phase.Options{Features: f, PodIsTerminal: c.terminal, PodHasInitialized: c.initialized}).Phase,
			kubelet.KLPhaseGetPhase(c.pod, c.info, c.terminal, c.initialized); got != want {
			b.Fatalf("case %d: phase %s, kubelet %s", i, got, want)
		}
	}
	return func(i int) int {
			c := &cs[i%len(cs)]
			return len(phase.Compute(c.pod, c.st, phase.Options{Features: f, PodIsTerminal: c.terminal, PodHasInitialized: c.initialized}).Phase)
		}, func(i int) int {
			c := &cs[i%len(cs)]
			return len(kubelet.KLPhaseGetPhase(c.pod, c.info, c.terminal, c.initialized))
		}
}

// conditionBenchCase is one input of the condition generators, drawn as
// TestDifferentialConditionsGenerate draws them.
type conditionBenchCase struct {
	pod   *v1.Pod
	rs    *runtimestate.Pod
	ks    *kubecontainer.PodStatus
	old   *v1.PodStatus
	all   []v1.ContainerStatus
	phase v1.PodPhase
	conds []v1.PodCondition
}

func conditionBenchCases(b *testing.B) []conditionBenchCase {
	f := defaultGates()
	cs := drawBench(benchCases, func(t *rapid.T) conditionBenchCase {
		pod := statusPod(t)
		rs := podgen.RuntimeState(pod, podgen.StateOptions{}).Draw(t, "runtime state")
		old := podgen.APIStatus(pod, podgen.APIStatusOptions{}).Draw(t, "old status")
		gen := podgen.APIStatus(pod, podgen.APIStatusOptions{NoConditions: true}).Draw(t, "generated status")
		return conditionBenchCase{
			pod: pod, rs: rs, ks: kubeletconv.PodStatus(rs), old: old,
			all:   append(gen.InitContainerStatuses, gen.ContainerStatuses...),
			phase: drawPhase(t),
			conds: podgen.APIStatus(pod, podgen.APIStatusOptions{}).Draw(t, "conditions so far").Conditions,
		}
	})
	for i, c := range cs {
		for _, d := range []struct {
			name      string
			got, want v1.PodCondition
		}{
			{"PodReadyToStartContainers", conditions.PodReadyToStartContainers(c.pod, c.old, c.rs, f), status.GeneratePodReadyToStartContainersCondition(c.pod, c.old, c.ks)},
			{"Initialized", conditions.Initialized(c.pod, c.old, c.all, c.phase, f), status.GeneratePodInitializedCondition(c.pod, c.old, c.all, c.phase)},
			{"ContainersReady", conditions.ContainersReady(c.pod, c.old, c.all, c.phase, f), status.GenerateContainersReadyCondition(c.pod, c.old, c.all, c.phase)},
			{"Ready", conditions.Ready(c.pod, c.old, c.conds, c.all, c.phase, f), status.GeneratePodReadyCondition(c.pod, c.old, c.conds, c.all, c.phase)},
			{"AllContainersRestarting", conditions.AllContainersRestarting(c.pod, c.rs, c.old, c.phase, f), status.GenerateAllContainersRestartingCondition(c.pod, c.ks, c.old, c.phase)},
		} {
			if diff := cmp.Diff(d.want, d.got); diff != "" {
				b.Fatalf("case %d: %s differs (-kubelet +ours):\n%s", i, d.name, diff)
			}
		}
	}
	return cs
}

func benchPodstatus(b *testing.B) (func(int) int, func(int) int) {
	type tc struct {
		in      podstatusInput
		kubelet func() v1.PodStatus
	}
	f := defaultGates()
	cs := drawBench(benchCases, func(t *rapid.T) tc {
		in := drawPodstatusInput(t, f)
		// A Kubelet without an API client (the node lister is not part of
		// the function): no host IPs.
		in.nodeAddr, in.opts.HostIPs = nil, nil
		return tc{in: in}
	})
	for i := range cs {
		c := &cs[i]
		want := kubeletPodstatus(c.in)
		got := podstatus.Compute(c.in.c.Pod, c.in.c.State, c.in.opts)
		if d := cmp.Diff(want, got.Status, quantityEqual); d != "" {
			b.Fatalf("case %d: Compute differs from generateAPIPodStatus (-kubelet +ours):\n%s", i, d)
		}
		c.kubelet = kubeletPodstatusFunc(c.in)
	}
	return func(i int) int {
			c := &cs[i%len(cs)]
			return len(podstatus.Compute(c.in.c.Pod, c.in.c.State, c.in.opts).Status.Conditions)
		}, func(i int) int {
			return len(cs[i%len(cs)].kubelet().Conditions)
		}
}

// kubeletPodstatusFunc is kubeletPodstatus with the Kubelet, its probe
// manager and its inputs built once: the returned function is the
// kubelet's generateAPIPodStatus alone.
func kubeletPodstatusFunc(in podstatusInput) func() v1.PodStatus {
	return kubelet.KLBenchGenerateAPIPodStatus(kubeletPodstatusArgs(in))
}

func benchApistatus(b *testing.B) (func(int) int, func(int) int) {
	type tc struct {
		c       podgen.StatusCase
		opts    apistatus.Options
		ks      *kubecontainer.PodStatus
		old     *v1.PodStatus
		kubelet func(*kubecontainer.PodStatus, *v1.PodStatus) int
	}
	f := defaultGates()
	cs := drawBench(benchCases, func(t *rapid.T) tc {
		return tc{c: podgen.StatusCases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")}
	})
	for i := range cs {
		c := &cs[i]
		ours := map[string]vocab.StartFailure{}
		theirs := map[string]kubelet.KLApistatusStartFailure{}
		for n, sf := range c.c.StartFailures {
			ours[n] = sf
			theirs[n] = kubelet.KLApistatusStartFailure(sf)
		}
		c.opts = apistatus.Options{Features: f, Cached: c.c.Previous, StartFailures: ours, RuntimeType: kubeletconv.RuntimeType}
		old := c.c.Pod.Status
		if c.c.Previous != nil {
			old = *c.c.Previous
		}
		c.old = old.DeepCopy()
		c.ks = kubeletconv.PodStatus(c.c.State)
		pod := c.c.Pod.DeepCopy()
		wantInit, want, wantEph, wantRestarting := kubelet.KLApistatusConvert(pod, c.ks, *c.old.DeepCopy(), theirs)
		got := apistatus.Compute(c.c.Pod, c.c.State, c.opts)
		wantAll := apistatus.Statuses{InitContainerStatuses: wantInit, ContainerStatuses: want, EphemeralContainerStatuses: wantEph, RestartingAllContainers: wantRestarting}
		if d := cmp.Diff(wantAll, got, quantityEqual); d != "" {
			b.Fatalf("case %d: statuses differ from the kubelet's (-kubelet +ours):\n%s", i, d)
		}
		c.kubelet = kubelet.KLBenchConvert(pod, theirs)
	}
	return func(i int) int {
			c := &cs[i%len(cs)]
			s := apistatus.Compute(c.c.Pod, c.c.State, c.opts)
			return len(s.ContainerStatuses) + len(s.InitContainerStatuses) + len(s.EphemeralContainerStatuses)
		}, func(i int) int {
			c := &cs[i%len(cs)]
			return c.kubelet(c.ks, c.old)
		}
}

func benchShouldRestart(b *testing.B) (func(int) int, func(int) int) {
	type tc struct {
		pod *v1.Pod
		c   *v1.Container
		st  *runtimestate.Pod
		ks  *kubecontainer.PodStatus
	}
	f := defaultGates()
	var cs []tc
	for _, c := range drawBench(benchCases, func(t *rapid.T) podgen.Case {
		return podgen.Cases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")
	}) {
		ks := kubeletconv.PodStatus(c.State)
		for _, ctr := range specContainers(c.Pod) {
			cs = append(cs, tc{pod: c.Pod, c: ctr, st: c.State, ks: ks})
		}
	}
	logger := klog.Background()
	for i, c := range cs {
		if got, want := restart.ShouldContainerBeRestarted(c.c, c.pod, c.st, f), kubecontainer.ShouldContainerBeRestarted(logger, c.c, c.pod, c.ks); got != want {
			b.Fatalf("case %d (%s): %v, kubelet %v", i, c.c.Name, got, want)
		}
	}
	return func(i int) int {
			c := &cs[i%len(cs)]
			return b2i(restart.ShouldContainerBeRestarted(c.c, c.pod, c.st, f))
		}, func(i int) int {
			c := &cs[i%len(cs)]
			return b2i(kubecontainer.ShouldContainerBeRestarted(logger, c.c, c.pod, c.ks))
		}
}

// benchDoBackOff: doBackOff against BackOffConfig.Decide, on the three
// paths of the decision, a third of the cases each: no exited instance (start,
// nothing recorded); in back-off (refused, with the kubelet's message); an
// exited instance and no record (start, the record created). The last path
// writes the kubelet's Backoff, so its timed call begins with
// Backoff.Reset of the container's key (one map delete under the Backoff's
// lock), so that every call sees the same inputs.
func benchDoBackOff(b *testing.B) (func(int) int, func(int) int) {
	type tc struct {
		pod   *v1.Pod
		c     *v1.Container
		st    *runtimestate.Pod
		ks    *kubecontainer.PodStatus
		entry restart.BackOffEntry
		key   string
		reset bool
	}
	f := defaultGates()
	cfg, err := restart.NewBackOffConfig(f, restart.BackOffSettings{})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	clock := testingclock.NewFakeClock(now.Add(-time.Hour))
	bo := flowcontrol.NewFakeBackOff(cfg.Initial, cfg.Max, clock)
	bo.HasExpiredFunc = func(eventTime, lastUpdate time.Time, _ time.Duration) bool {
		return eventTime.Sub(lastUpdate) > 600*time.Second
	}
	cs := drawBench(benchCases, func(t *rapid.T) tc {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
		all := specContainers(pod)
		return tc{pod: pod, c: all[rapid.IntRange(0, len(all)-1).Draw(t, "container")]}
	})
	for i := range cs {
		c := &cs[i]
		c.pod.UID = types.UID(fmt.Sprintf("%s-%d", c.pod.UID, i))
		c.key = kuberuntime.GetBackoffKey(c.pod, c.c)
		c.st = &runtimestate.Pod{UID: c.pod.UID, Name: c.pod.Name, Namespace: c.pod.Namespace}
		switch i % 3 {
		case 1: // refused: a record of 10 s made 3 s ago, the exit 3 s ago
			clock.SetTime(now.Add(-3 * time.Second))
			bo.Next(c.key, clock.Now())
			c.entry = restart.BackOffEntry{Delay: cfg.Initial, LastUpdate: now.Add(-3 * time.Second)}
			c.st.Containers = []runtimestate.Container{{ID: "x1", Name: c.c.Name, State: runtimestate.Exited, ExitCode: 1,
				CreatedAt: now.Add(-time.Minute), FinishedAt: now.Add(-3 * time.Second)}}
		case 2: // start: exited a minute ago, no record
			c.reset = true
			c.st.Containers = []runtimestate.Container{{ID: "x1", Name: c.c.Name, State: runtimestate.Exited, ExitCode: 1,
				CreatedAt: now.Add(-2 * time.Minute), FinishedAt: now.Add(-time.Minute)}}
		}
		c.ks = kubeletconv.PodStatus(c.st)
	}
	clock.SetTime(now)
	for i := range cs {
		c := &cs[i]
		if c.reset {
			bo.Reset(c.key)
		}
		inBackOff, msg, _ := kuberuntime.KLDoBackOff(c.pod, c.c, c.ks, bo)
		d := cfg.Decide(c.pod, c.c, c.st, c.entry, now)
		if d.Start == inBackOff || d.Message != msg || d.Entry.Delay != bo.Get(c.key) {
			b.Fatalf("case %d: Decide %+v, kubelet in back-off %v %q delay %v", i, d, inBackOff, msg, bo.Get(c.key))
		}
	}
	return func(i int) int {
			c := &cs[i%len(cs)]
			return len(cfg.Decide(c.pod, c.c, c.st, c.entry, now).Message)
		}, func(i int) int {
			c := &cs[i%len(cs)]
			if c.reset {
				bo.Reset(c.key)
			}
			_, msg, _ := kuberuntime.KLDoBackOff(c.pod, c.c, c.ks, bo)
			return len(msg)
		}
}

func benchHash(b *testing.B) (func(int) int, func(int) int) {
	var cs []*v1.Container
	for _, pod := range drawBench(benchCases, func(t *rapid.T) *v1.Pod {
		return podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
	}) {
		cs = append(cs, specContainers(pod)...)
	}
	for i, c := range cs {
		if got, want := containerhash.Of(c), kubecontainer.HashContainer(c); got != want {
			b.Fatalf("container %d (%q, %q): %#x, kubelet %#x", i, c.Name, c.Image, got, want)
		}
	}
	return func(i int) int {
			return int(containerhash.Of(cs[i%len(cs)]))
		}, func(i int) int {
			return int(kubecontainer.HashContainer(cs[i%len(cs)]))
		}
}

func benchOrdering(b *testing.B) (func(int) int, func(int) int) {
	type tc struct {
		pod     *v1.Pod
		running []string
	}
	f := defaultGates()
	cs := drawBench(benchCases, func(t *rapid.T) tc {
		pod := podgen.Pod(podgen.PodOptions{NoSidecars: false}).Filter(termination.HasSidecars).Draw(t, "pod")
		var running []string
		for _, c := range specContainers(pod) {
			if rapid.IntRange(0, 3).Draw(t, "running "+c.Name) > 0 {
				running = append(running, c.Name)
			}
		}
		return tc{pod: pod, running: running}
	})
	for i, c := range cs {
		o := termination.NewOrdering(c.pod, c.running, f)
		want := kuberuntime.KLTerminationNewOrdering(c.pod, c.running)
		for name, ws := range want.WaitsFor {
			if got := o.WaitNames(name); !cmp.Equal(got, ws) {
				b.Fatalf("case %d: %s waits for %v, kubelet %v", i, name, got, ws)
			}
		}
	}
	return func(i int) int {
			c := &cs[i%len(cs)]
			return len(termination.NewOrdering(c.pod, c.running, f).Signals)
		}, func(i int) int {
			c := &cs[i%len(cs)]
			return kuberuntime.KLBenchNewTerminationOrdering(c.pod, c.running)
		}
}

func benchContainerGrace(b *testing.B) (func(int) int, func(int) int) {
	type tc struct {
		pod    *v1.Pod
		c      *v1.Container
		reason vocab.KillReason
	}
	f := defaultGates()
	reasons := []vocab.KillReason{vocab.ReasonStartupProbe, vocab.ReasonLivenessProbe,
		vocab.ReasonFailedPostStartHook, vocab.ReasonUnknown}
	cs := drawBench(benchCases, func(t *rapid.T) tc {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
		if rapid.Bool().Draw(t, "redraw deletion grace") {
			pod.DeletionGracePeriodSeconds = graceValue(t, "deletionGrace")
		}
		all := specContainers(pod)
		return tc{pod: pod, c: all[rapid.IntRange(0, len(all)-1).Draw(t, "container")], reason: rapid.SampledFrom(reasons).Draw(t, "reason")}
	})
	for i, c := range cs {
		if got, want := termination.ContainerGracePeriod(c.pod, c.c, c.reason, f), kuberuntime.KLTerminationSetTerminationGracePeriod(c.pod, c.c, string(c.reason)); got != want {
			b.Fatalf("case %d: %d, kubelet %d", i, got, want)
		}
	}
	return func(i int) int {
			c := &cs[i%len(cs)]
			return int(termination.ContainerGracePeriod(c.pod, c.c, c.reason, f))
		}, func(i int) int {
			c := &cs[i%len(cs)]
			return int(kuberuntime.KLTerminationSetTerminationGracePeriod(c.pod, c.c, string(c.reason)))
		}
}

func benchEffectiveGrace(b *testing.B) (func(int) int, func(int) int) {
	type tc struct {
		prev     int64
		pod      *v1.Pod
		override *int64
		kubelet  func() (int64, bool)
	}
	f := defaultGates()
	cs := drawBench(benchCases, func(t *rapid.T) tc {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
		if rapid.Bool().Draw(t, "redraw deletion grace") {
			pod.DeletionGracePeriodSeconds = graceValue(t, "deletionGrace")
		}
		return tc{prev: rapid.SampledFrom([]int64{0, 0, 1, 2, 5, 20, 30}).Draw(t, "previous"), pod: pod, override: graceValue(t, "override")}
	})
	for i := range cs {
		c := &cs[i]
		c.kubelet = kubelet.KLBenchEffectiveGracePeriod(c.prev, c.pod, c.override)
		g, s := termination.EffectiveGracePeriod(c.prev, c.pod, c.override, f)
		if wg, ws := c.kubelet(); g != wg || s != ws {
			b.Fatalf("case %d: %d %v, kubelet %d %v", i, g, s, wg, ws)
		}
	}
	return func(i int) int {
			c := &cs[i%len(cs)]
			g, _ := termination.EffectiveGracePeriod(c.prev, c.pod, c.override, f)
			return int(g)
		}, func(i int) int {
			g, _ := cs[i%len(cs)].kubelet()
			return int(g)
		}
}

func benchCanBeDeleted(b *testing.B) (func(int) int, func(int) int) {
	type tc struct {
		pod      *v1.Pod
		finished bool
	}
	cs := drawBench(benchCases, func(t *rapid.T) tc {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
		pod.Status.Phase = rapid.SampledFrom([]v1.PodPhase{"", v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed, v1.PodUnknown}).Draw(t, "phase")
		if rapid.IntRange(0, 4).Draw(t, "mirror") == 0 {
			pod.Annotations = map[string]string{termination.MirrorPodAnnotation: ""}
		}
		return tc{pod: pod, finished: rapid.Bool().Draw(t, "finished")}
	})
	for i, c := range cs {
		if got, want := termination.CanBeDeleted(c.pod, nil, &termination.WorkerState{Finished: c.finished}).Delete, status.KLBenchCanBeDeleted(c.pod, c.finished); got != want {
			b.Fatalf("case %d: %v, kubelet %v", i, got, want)
		}
	}
	return func(i int) int {
			c := &cs[i%len(cs)]
			return b2i(termination.CanBeDeleted(c.pod, nil, &termination.WorkerState{Finished: c.finished}).Delete)
		}, func(i int) int {
			c := &cs[i%len(cs)]
			return b2i(status.KLBenchCanBeDeleted(c.pod, c.finished))
		}
}

// BenchmarkAnswerCopy times copying the answers of the two whole-status
// rows of BenchmarkVs with the API types' generated DeepCopy, on the same
// inputs (the same seeds): Compute's answer is a status the caller owns, so
// building it costs at least about what copying it costs. bench.sh prints
// these (AnswerCopy/<row>/copy) next to the table: the kubelet's time over the copy's is about the
// most any implementation that returns a fresh status could gain.
func BenchmarkAnswerCopy(b *testing.B) {
	underGatesB(b, defaultGates())
	f := defaultGates()
	b.Run("generateAPIPodStatus", func(b *testing.B) {
		ins := drawBench(benchCases, func(t *rapid.T) podstatusInput {
			in := drawPodstatusInput(t, f)
			in.nodeAddr, in.opts.HostIPs = nil, nil
			return in
		})
		answers := make([]v1.PodStatus, len(ins))
		for i, in := range ins {
			answers[i] = podstatus.Compute(in.c.Pod, in.c.State, in.opts).Status
		}
		b.Run("copy", func(b *testing.B) {
			benchLoop(b, func(i int) int { return len(answers[i%len(answers)].DeepCopy().Conditions) })
		})
	})
	b.Run("convertToAPIContainerStatuses", func(b *testing.B) {
		cs := drawBench(benchCases, func(t *rapid.T) podgen.StatusCase {
			return podgen.StatusCases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")
		})
		answers := make([]apistatus.Statuses, len(cs))
		for i, c := range cs {
			sf := map[string]vocab.StartFailure{}
			for n, s := range c.StartFailures {
				sf[n] = s
			}
			answers[i] = apistatus.Compute(c.Pod, c.State, apistatus.Options{Features: f, Cached: c.Previous, StartFailures: sf, RuntimeType: kubeletconv.RuntimeType})
		}
		b.Run("copy", func(b *testing.B) {
			benchLoop(b, func(i int) int {
				a := &answers[i%len(answers)]
				return len(copyStatuses(a.InitContainerStatuses)) + len(copyStatuses(a.ContainerStatuses)) + len(copyStatuses(a.EphemeralContainerStatuses))
			})
		})
	})
}

// copyStatuses is a deep copy of list, as the API's generated DeepCopy of
// a PodStatus copies its lists.
func copyStatuses(list []v1.ContainerStatus) []v1.ContainerStatus {
	if list == nil {
		return nil
	}
	out := make([]v1.ContainerStatus, len(list))
	for i := range list {
		list[i].DeepCopyInto(&out[i])
	}
	return out
}
