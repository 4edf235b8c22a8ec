package podgen

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

func report(t *rapid.T, what string, problems []string) {
	t.Helper()
	if len(problems) > 0 {
		t.Fatalf("%s:\n  %s", what, strings.Join(problems, "\n  "))
	}
}

var podOptionCases = []struct {
	name string
	opts PodOptions
}{
	{"defaults", PodOptions{}},
	{"nothing optional", PodOptions{
		NoInitContainers: true, NoSidecars: true, NoEphemeral: true, NoProbes: true, NoDeletion: true,
		NoHostNetwork: true, NoResources: true, NoVolumes: true, NoRestartRules: true, MaxContainers: 1,
	}},
	{"gates off", PodOptions{}.ForGates(allOff())},
	{"no RestartAllContainers", PodOptions{NoRestartAllContainers: true}},
	{"bigger", PodOptions{MaxContainers: 8, MaxInitContainers: 6, MaxSidecars: 6, MaxEphemeral: 4}},
	{"Never pods, own images", PodOptions{RestartPolicies: []v1.RestartPolicy{v1.RestartPolicyNever}, Images: []string{"a:1", "b:2"}}},
}

func TestPodPassesSelfChecks(t *testing.T) {
	for _, tc := range podOptionCases {
		t.Run(tc.name, rapid.MakeCheck(func(t *rapid.T) {
			pod := Pod(tc.opts).Draw(t, "pod")
			report(t, "pod", podProblems(pod, tc.opts))
		}))
	}
}

var stateOptionCases = []struct {
	name string
	opts StateOptions
}{
	{"defaults", StateOptions{}},
	{"realistic", StateOptions{Realistic: true}},
	{"no strangers, more of everything", StateOptions{NoStrangers: true, MaxSandboxes: 5, MaxInstances: 6}},
}

func TestRuntimeStateIsConsistent(t *testing.T) {
	for _, tc := range stateOptionCases {
		t.Run(tc.name, rapid.MakeCheck(func(t *rapid.T) {
			pod := Pod(PodOptions{}).Draw(t, "pod")
			st := RuntimeState(pod, tc.opts).Draw(t, "state")
			report(t, "state", stateProblems(pod, st, tc.opts))
		}))
	}
}

func TestProbeResultsFollowTheSpec(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod := Pod(PodOptions{}).Draw(t, "pod")
		st := RuntimeState(pod, StateOptions{}).Draw(t, "state")
		probes := ProbeResults(pod, st).Draw(t, "probes")
		report(t, "probes", probeProblems(pod, st, probes))

		// Without a pod every instance may have every result.
		ids := map[string]bool{}
		for _, c := range st.Containers {
			ids[c.ID] = true
		}
		for id := range ProbeResults(nil, st).Draw(t, "probes without pod") {
			if !ids[id] {
				t.Fatalf("result for unknown container %q", id)
			}
		}
	})
}

func TestFeaturesKeepLocksAndDependencies(t *testing.T) {
	for _, o := range []FeatureOptions{{}, {FlipPercent: 100}, {FlipLocked: true, FlipPercent: 60}, {IgnoreDependencies: true, FlipPercent: 50},
		{Version: features.V1_35_4}, {Version: features.V1_36_3, FlipPercent: 100}, {Version: features.V1_35_4, FlipLocked: true, FlipPercent: 100}} {
		rapid.Check(t, func(t *rapid.T) {
			report(t, "features", featureProblems(Features(o).Draw(t, "features"), o))
		})
	}
}

func TestRespectDependenciesChains(t *testing.T) {
	s := features.V1_37()
	s, _ = s.With(features.InPlacePodVerticalScaling, false)
	s, _ = s.With(features.ContainerRestartRules, false)
	got := respectDependencies(s)
	if got.Enabled(features.InPlacePodVerticalScalingInitContainers) || got.Enabled(features.InPlacePodLevelResourcesVerticalScaling) ||
		got.Enabled(features.InPlacePodVerticalScalingMemoryBackedVolumes) || got.Enabled(features.RestartAllContainersOnContainerExits) {
		t.Errorf("dependent gates left on: %v", got)
	}
	if !got.Enabled(features.PodLevelResources) || !got.Enabled(features.KubeletCrashLoopBackOffMax) {
		t.Errorf("independent gates turned off: %v", got)
	}
}

// A seed reproduces a case exactly: nothing reads the clock or math/rand.
func TestDeterministic(t *testing.T) {
	g := Cases(CaseOptions{})
	for seed := range 50 {
		a, _ := json.Marshal(g.Example(seed))
		b, _ := json.Marshal(g.Example(seed))
		if string(a) != string(b) {
			t.Fatalf("seed %d: two draws differ:\n%s\n%s", seed, a, b)
		}
	}
}

func TestCasesUseFixedGates(t *testing.T) {
	gates := features.V1_37()
	gates, _ = gates.With(features.ReduceDefaultCrashLoopBackOffDecay, true)
	rapid.Check(t, func(t *rapid.T) {
		c := Cases(CaseOptions{Gates: &gates}).Draw(t, "case")
		if c.Features != gates {
			t.Fatalf("gates %v, want %v", c.Features, gates)
		}
	})
}

func TestRuntimeStatePanicsOnNilPod(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	RuntimeState(nil, StateOptions{})
}

// chance and weighted keep close to the probabilities they are given,
// although rapid's integers favour small values.
func TestChanceAndWeightedAreClose(t *testing.T) {
	const draws = 4000
	for _, pct := range []int{5, 10, 20, 30, 50, 80} {
		g := rapid.Custom(func(t *rapid.T) bool { return chance(t, pct, "coin") })
		n := 0
		for seed := range draws {
			if g.Example(seed) {
				n++
			}
		}
		if got := 100 * float64(n) / draws; got < float64(pct)-6 || got > float64(pct)+6 {
			t.Errorf("chance(%d) came up true %.1f%% of the time", pct, got)
		}
	}
	for _, w := range [][]int{{35, 40, 10, 15}, {1, 1, 1, 1}, {80, 8, 12}} {
		g := rapid.Custom(func(t *rapid.T) int { return weighted(t, "choice", w...) })
		counts := make([]int, len(w))
		for seed := range draws {
			counts[g.Example(seed)]++
		}
		total := 0
		for _, x := range w {
			total += x
		}
		for i, c := range counts {
			want := 100 * float64(w[i]) / float64(total)
			if got := 100 * float64(c) / draws; got < want-6 || got > want+6 {
				t.Errorf("weighted(%v) chose %d %.1f%% of the time, want about %.0f%%", w, i, got, want)
			}
		}
	}
}

// The self-checks can fail: each mutation below breaks one API rule or one
// promise of RuntimeState, and the checks must say so.
func TestSelfChecksCatchMistakes(t *testing.T) {
	never := v1.ContainerRestartPolicyNever
	base := func() *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "p", Namespace: "ns"},
			Spec: v1.PodSpec{
				RestartPolicy: v1.RestartPolicyNever,
				DNSPolicy:     v1.DNSClusterFirst,
				InitContainers: []v1.Container{{Name: "init-0", Image: DefaultImages[0], ImagePullPolicy: v1.PullIfNotPresent,
					TerminationMessagePolicy: v1.TerminationMessageReadFile}},
				Containers: []v1.Container{{Name: "app-0", Image: DefaultImages[1], ImagePullPolicy: v1.PullIfNotPresent,
					TerminationMessagePolicy: v1.TerminationMessageReadFile}},
			},
		}
	}
	if p := podProblems(base(), PodOptions{}); len(p) > 0 {
		t.Fatalf("base pod: %v", p)
	}
	rule := v1.ContainerRestartRule{Action: v1.ContainerRestartRuleActionRestart,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{1}}}
	onFailure := v1.ContainerRestartPolicyOnFailure
	for _, tc := range []struct {
		name   string
		opts   PodOptions
		mutate func(p *v1.Pod)
	}{
		{"rules without restartPolicy", PodOptions{}, func(p *v1.Pod) {
			p.Spec.Containers[0].RestartPolicyRules = []v1.ContainerRestartRule{rule}
		}},
		{"probe on a regular init container", PodOptions{}, func(p *v1.Pod) {
			p.Spec.InitContainers[0].LivenessProbe = &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{}}, SuccessThreshold: 1}
		}},
		{"duplicate name", PodOptions{}, func(p *v1.Pod) { p.Spec.Containers[0].Name = "init-0" }},
		{"RestartContainer in a Never pod", PodOptions{}, func(p *v1.Pod) {
			p.Spec.Containers[0].ResizePolicy = []v1.ContainerResizePolicy{{ResourceName: v1.ResourceCPU, RestartPolicy: v1.RestartContainer}}
		}},
		{"rule without exitCodes", PodOptions{}, func(p *v1.Pod) {
			p.Spec.Containers[0].RestartPolicy = &never
			p.Spec.Containers[0].RestartPolicyRules = []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestart}}
		}},
		{"init restartPolicy despite NoRestartRules", PodOptions{NoRestartRules: true}, func(p *v1.Pod) {
			p.Spec.InitContainers[0].RestartPolicy = &onFailure
		}},
	} {
		p := base()
		tc.mutate(p)
		if len(podProblems(p, tc.opts)) == 0 {
			t.Errorf("%s: not caught", tc.name)
		}
	}

	pod := base()
	st := &runtimestate.Pod{UID: "u", Name: "p", Namespace: "ns", Timestamp: Epoch.Add(time.Hour),
		Sandboxes: []runtimestate.Sandbox{{ID: "s0", Ready: true, CreatedAt: Epoch}},
		Containers: []runtimestate.Container{
			{ID: "c02", Name: "app-0", SandboxID: "s0", State: runtimestate.Running, RestartCount: 1,
				CreatedAt: Epoch.Add(time.Minute), StartedAt: Epoch.Add(time.Minute)},
			{ID: "c01", Name: "app-0", SandboxID: "s0", State: runtimestate.Exited, ExitCode: 1,
				CreatedAt: Epoch.Add(time.Second), StartedAt: Epoch.Add(time.Second), FinishedAt: Epoch.Add(2 * time.Second)},
		}}
	if p := stateProblems(pod, st, StateOptions{}); len(p) > 0 {
		t.Fatalf("base state: %v", p)
	}
	for name, mutate := range map[string]func(st *runtimestate.Pod){
		"tie in createdAt":          func(st *runtimestate.Pod) { st.Containers[1].CreatedAt = st.Containers[0].CreatedAt },
		"restartCount not rising":   func(st *runtimestate.Pod) { st.Containers[1].RestartCount = 1 },
		"exit code while running":   func(st *runtimestate.Pod) { st.Containers[0].ExitCode = 2 },
		"finished before started":   func(st *runtimestate.Pod) { st.Containers[1].FinishedAt = Epoch },
		"unknown sandbox":           func(st *runtimestate.Pod) { st.Containers[0].SandboxID = "s9" },
		"hash of neither image":     func(st *runtimestate.Pod) { st.Containers[0].Hash = 12345 },
		"out of newest-first order": func(st *runtimestate.Pod) { st.Containers[0], st.Containers[1] = st.Containers[1], st.Containers[0] },
	} {
		cp := st.DeepCopy()
		for i := range cp.Containers {
			cp.Containers[i].Hash = containerhash.Of(&pod.Spec.Containers[0])
		}
		mutate(cp)
		if len(stateProblems(pod, cp, StateOptions{})) == 0 {
			t.Errorf("%s: not caught", name)
		}
	}
}

// allOff is a Set with every gate off: no kubelet runs with it, but it
// reaches every gate-off code path at once.
func allOff() features.Set {
	var s features.Set
	for _, g := range features.Gates() {
		s, _ = s.With(g, false)
	}
	return s
}
