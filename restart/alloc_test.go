package restart

import (
	"fmt"
	"math"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// allocCase is one input of the restart decisions, drawn by hand here (the
// podgen generators import this package, so its tests cannot use them).
type allocCase struct {
	pod   *v1.Pod
	st    *runtimestate.Pod
	prev  *v1.PodStatus
	entry BackOffEntry
	now   time.Time
}

func drawAllocCase(t *rapid.T) allocCase {
	policies := []v1.RestartPolicy{v1.RestartPolicyAlways, v1.RestartPolicyOnFailure, v1.RestartPolicyNever}
	cpolicies := []v1.ContainerRestartPolicy{v1.ContainerRestartPolicyAlways, v1.ContainerRestartPolicyOnFailure, v1.ContainerRestartPolicyNever}
	actions := []v1.ContainerRestartRuleAction{v1.ContainerRestartRuleActionRestart, v1.ContainerRestartRuleActionRestartAllContainers}
	ops := []v1.ContainerRestartRuleOnExitCodesOperator{v1.ContainerRestartRuleOnExitCodesOpIn, v1.ContainerRestartRuleOnExitCodesOpNotIn}
	epoch := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := &v1.Pod{}
	pod.Name, pod.Namespace, pod.UID = "web", "default", "uid-1"
	pod.Spec.RestartPolicy = rapid.SampledFrom(policies).Draw(t, "pod policy")
	if rapid.Bool().Draw(t, "deleted") {
		pod.DeletionTimestamp = &metav1.Time{Time: epoch}
	}
	container := func(name string) v1.Container {
		c := v1.Container{Name: name, Image: "busybox"}
		if rapid.Bool().Draw(t, name+" policy") {
			p := rapid.SampledFrom(cpolicies).Draw(t, name+" which policy")
			c.RestartPolicy = &p
			for j := range rapid.IntRange(0, 2).Draw(t, name+" rules") {
				c.RestartPolicyRules = append(c.RestartPolicyRules, v1.ContainerRestartRule{
					Action: rapid.SampledFrom(actions).Draw(t, fmt.Sprint(name, " action ", j)),
					ExitCodes: &v1.ContainerRestartRuleOnExitCodes{
						Operator: rapid.SampledFrom(ops).Draw(t, fmt.Sprint(name, " op ", j)),
						Values:   []int32{int32(rapid.IntRange(0, 3).Draw(t, fmt.Sprint(name, " code ", j)))},
					},
				})
			}
		}
		return c
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "init") {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, container(fmt.Sprint("init-", i)))
	}
	for i := range rapid.IntRange(1, 3).Draw(t, "containers") {
		pod.Spec.Containers = append(pod.Spec.Containers, container(fmt.Sprint("app-", i)))
	}
	st := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true}}}
	prev := &v1.PodStatus{}
	states := []runtimestate.State{runtimestate.Running, runtimestate.Exited, runtimestate.Created, runtimestate.Unknown}
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			for j := range rapid.IntRange(0, 2).Draw(t, c.Name+" instances") {
				in := runtimestate.Container{
					ID: fmt.Sprint(c.Name, "-", j), Name: c.Name, SandboxID: "s1",
					State:    rapid.SampledFrom(states).Draw(t, fmt.Sprint(c.Name, " state ", j)),
					ExitCode: rapid.IntRange(0, 3).Draw(t, fmt.Sprint(c.Name, " exit ", j)),
				}
				if rapid.Bool().Draw(t, fmt.Sprint(c.Name, " oom ", j)) {
					in.Reason = "OOMKilled"
				}
				in.FinishedAt = epoch.Add(time.Duration(rapid.IntRange(0, 700).Draw(t, fmt.Sprint(c.Name, " finished ", j))) * time.Second)
				st.Containers = append(st.Containers, in)
			}
			cs := v1.ContainerStatus{Name: c.Name}
			if rapid.Bool().Draw(t, c.Name+" prev terminated") {
				cs.State.Terminated = &v1.ContainerStateTerminated{ExitCode: int32(rapid.IntRange(0, 3).Draw(t, c.Name+" prev exit"))}
			}
			prev.ContainerStatuses = append(prev.ContainerStatuses, cs)
		}
	}
	return allocCase{
		pod: pod, st: st, prev: prev,
		entry: BackOffEntry{Delay: 10 * time.Second << rapid.IntRange(0, 5).Draw(t, "delay"), LastUpdate: epoch},
		now:   epoch.Add(time.Duration(rapid.IntRange(0, 900).Draw(t, "now")) * time.Second),
	}
}

// Allocation budgets (issue 13): the restart decisions and predicates
// allocate nothing. Decide is the one exception, and only when it refuses
// a start: the kubelet's CrashLoopBackOff message is a new string, built in
// exactly one allocation. The counts do not depend on the machine, so they
// are checked exactly.
func TestAllocationBudgets(t *testing.T) {
	gen := rapid.Custom(drawAllocCase)
	cfg := BackOffConfig{Initial: DefaultInitialBackOff, Max: DefaultMaxBackOff}
	def := features.V1_37()
	noRules, _ := def.With(features.ContainerRestartRules, false)
	noRules, _ = noRules.With(features.RestartAllContainersOnContainerExits, false)
	noAll, _ := def.With(features.RestartAllContainersOnContainerExits, false)
	reduced, _ := def.With(features.ReduceDefaultCrashLoopBackOffDecay, true)
	gates := []features.Set{def, noRules, noAll, reduced}
	refused := 0
	for i := range 300 {
		c := gen.Example(i)
		pod, st, prev := c.pod, c.st, c.prev
		f := gates[i%len(gates)]
		for _, b := range []struct {
			name string
			max  float64
			run  func()
		}{
			{"ShouldContainerBeRestarted", 0, func() {
				for j := range pod.Spec.Containers {
					ShouldContainerBeRestarted(&pod.Spec.Containers[j], pod, st, f)
				}
			}},
			{"ContainerShouldRestart, MatchRule, IsContainerRestartable, IsSidecar", 0, func() {
				for j := range pod.Spec.Containers {
					ct := &pod.Spec.Containers[j]
					for code := int32(0); code < 4; code++ {
						ContainerShouldRestart(ct, &pod.Spec, code, f)
						MatchRule(ct, code)
					}
					IsContainerRestartable(&pod.Spec, ct)
					IsSidecar(ct)
				}
			}},
			{"RestartsAfterExit, EffectivePolicy, KindOf", 0, func() {
				for _, name := range []string{"init-0", "app-0", "app-2", "none"} {
					RestartsAfterExit(pod, name, 1, "Error", f)
					EffectivePolicy(pod, name, f)
					KindOf(&pod.Spec, name)
				}
			}},
			{"ShouldAllContainersRestart, AllContainersCouldRestart, AllContainersRestartCleanedUp, RestartingAllContainers", 0, func() {
				ShouldAllContainersRestart(pod, st, prev)
				ShouldAllContainersRestart(pod, nil, prev)
				AllContainersCouldRestart(&pod.Spec)
				AllContainersRestartCleanedUp(pod, st)
				RestartingAllContainers(pod, st, prev, v1.PodRunning, f)
			}},
			{"IsInitContainerFailed", 0, func() {
				for j := range st.Containers {
					IsInitContainerFailed(&st.Containers[j])
				}
			}},
			{"NewBackOffConfig, Next, InBackOff, GC, Replay", 0, func() {
				NewBackOffConfig(f, BackOffSettings{})
				e := cfg.Next(c.entry, c.now, c.now)
				e.InBackOff(c.now, c.now.Add(time.Second))
				e.GC(c.now.Add(time.Hour))
				cfg.Replay([]Restart{{FinishedAt: c.now, At: c.now}}, c.now)
			}},
		} {
			if n := testing.AllocsPerRun(3, b.run); n > b.max {
				t.Errorf("case %d: %s allocates %v times per call, budget %v", i, b.name, n, b.max)
			}
		}
		// Decide: 0 when it starts the container, 1 (the message) when it
		// refuses.
		for j := range pod.Spec.Containers {
			ct := &pod.Spec.Containers[j]
			d := cfg.Decide(pod, ct, st, c.entry, c.now)
			want := 0.0
			if !d.Start {
				want = 1
				refused++
			}
			if n := testing.AllocsPerRun(3, func() { cfg.Decide(pod, ct, st, c.entry, c.now) }); n != want {
				t.Errorf("case %d: Decide (start %v) allocates %v times, want %v", i, d.Start, n, want)
			}
		}
	}
	if refused == 0 {
		t.Error("no case refused a start: the generator no longer reaches Decide's back-off")
	}
}

// The message Decide builds by hand is the kubelet's fmt.Sprintf.
func TestBackOffText(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := time.Duration(rapid.Int64().Draw(t, "delay"))
		name, pod, ns, uid := rapid.String().Draw(t, "name"), rapid.String().Draw(t, "pod"), rapid.String().Draw(t, "ns"), rapid.String().Draw(t, "uid")
		want := fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)", d, name, pod, ns, uid)
		if got := backOffText(d, name, pod, ns, uid); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

// appendDuration writes what time.Duration.String writes.
func TestAppendDuration(t *testing.T) {
	check := func(d time.Duration) {
		if got, want := string(appendDuration(nil, d)), d.String(); got != want {
			t.Errorf("appendDuration(%d) = %q, want %q", int64(d), got, want)
		}
	}
	for _, d := range []time.Duration{0, 1, -1, 999, 1000, 1001, 1500, 999999, 1e6, 1e6 + 1, 1e9 - 1, 1e9, 1e9 + 1,
		10 * time.Second, time.Minute, time.Hour, time.Hour + time.Nanosecond, 300*time.Second + time.Millisecond,
		300000999999, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		check(d)
		check(-d)
	}
	rapid.Check(t, func(t *rapid.T) { check(time.Duration(rapid.Int64().Draw(t, "d"))) })
}
