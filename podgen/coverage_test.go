package podgen

import (
	"slices"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// A shape is a kind of input a decision branches on. The coverage tests
// draw many cases and fail when a shape never appears: a generator that
// silently stopped producing it would leave the branch untested.
type shape struct {
	name string
	has  func(c Case) bool
}

// anyInstance calls fn for every instance of c with the spec container it
// names (nil for a stranger) and its kind, until fn returns true.
func anyInstance(c Case, fn func(in *runtimestate.Container, spec *v1.Container, k kind) bool) bool {
	for i := range c.State.Containers {
		in := &c.State.Containers[i]
		spec, k := specContainer(c.Pod, in.Name)
		if fn(in, spec, k) {
			return true
		}
	}
	return false
}

// anyNewest calls fn for the newest instance of every name.
func anyNewest(c Case, fn func(in *runtimestate.Container, spec *v1.Container, k kind) bool) bool {
	seen := map[string]bool{}
	return anyInstance(c, func(in *runtimestate.Container, spec *v1.Container, k kind) bool {
		if seen[in.Name] {
			return false
		}
		seen[in.Name] = true
		return fn(in, spec, k)
	})
}

func anyContainer(pod *v1.Pod, fn func(c *v1.Container, k kind) bool) bool {
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		k := kindInit
		if restart.IsSidecar(c) {
			k = kindSidecar
		}
		if fn(c, k) {
			return true
		}
	}
	for i := range pod.Spec.Containers {
		if fn(&pod.Spec.Containers[i], kindRegular) {
			return true
		}
	}
	return false
}

func anyRule(pod *v1.Pod, fn func(r v1.ContainerRestartRule, k kind) bool) bool {
	return anyContainer(pod, func(c *v1.Container, k kind) bool {
		return slices.ContainsFunc(c.RestartPolicyRules, func(r v1.ContainerRestartRule) bool { return fn(r, k) })
	})
}

func podPolicy(p v1.RestartPolicy) shape {
	return shape{"pod restartPolicy " + string(p), func(c Case) bool { return c.Pod.Spec.RestartPolicy == p }}
}

func containerPolicy(want kind, p v1.ContainerRestartPolicy) shape {
	return shape{want.String() + " restartPolicy " + string(p), func(c Case) bool {
		return anyContainer(c.Pod, func(ct *v1.Container, k kind) bool {
			return k == want && ct.RestartPolicy != nil && *ct.RestartPolicy == p
		})
	}}
}

func newestState(want kind, s runtimestate.State, active bool) shape {
	name := want.String() + " newest instance " + string(s)
	if active {
		name += " in the active sandbox"
	}
	return shape{name, func(c Case) bool {
		return anyNewest(c, func(in *runtimestate.Container, _ *v1.Container, k kind) bool {
			return k == want && in.State == s && (!active || c.State.IsActive(in))
		})
	}}
}

func exited(want kind, zero bool) shape {
	name := want.String() + " exited non-zero"
	if zero {
		name = want.String() + " exited with 0"
	}
	return shape{name, func(c Case) bool {
		return anyNewest(c, func(in *runtimestate.Container, _ *v1.Container, k kind) bool {
			return k == want && in.State == runtimestate.Exited && (in.ExitCode == 0) == zero
		})
	}}
}

func gate(name string, fn func(s features.Set) bool) shape {
	return shape{"gates: " + name, func(c Case) bool { return fn(c.Features) }}
}

func probe(name string, want kind, pick func(vocab.ProbeResults) vocab.ProbeResult, r vocab.ProbeResult, has func(*v1.Container) bool) shape {
	return shape{name, func(c Case) bool {
		return anyNewest(c, func(in *runtimestate.Container, spec *v1.Container, k kind) bool {
			return k == want && in.State == runtimestate.Running && has(spec) && pick(c.Probes[in.ID]) == r
		})
	}}
}

// ruleMatch is a newest exited instance whose exit code matches a rule
// with action (or matches no rule, for action "").
func ruleMatch(action v1.ContainerRestartRuleAction, want kind) shape {
	name := want.String() + " exit code matches a " + string(action) + " rule"
	if action == "" {
		name = want.String() + " has rules, exit code matches none"
	}
	return shape{name, func(c Case) bool {
		return anyNewest(c, func(in *runtimestate.Container, spec *v1.Container, k kind) bool {
			if k != want || in.State != runtimestate.Exited || len(spec.RestartPolicyRules) == 0 {
				return false
			}
			r, ok := matchingRule(spec, in.ExitCode)
			if action == "" {
				return !ok
			}
			return ok && r.Action == action
		})
	}}
}

var shapes = []shape{
	// The pod.
	podPolicy(v1.RestartPolicyAlways), podPolicy(v1.RestartPolicyOnFailure), podPolicy(v1.RestartPolicyNever),
	{"hostNetwork", func(c Case) bool { return c.Pod.Spec.HostNetwork }},
	{"deletionTimestamp set", func(c Case) bool { return c.Pod.DeletionTimestamp != nil }},
	{"terminationGracePeriodSeconds nil", func(c Case) bool { return c.Pod.Spec.TerminationGracePeriodSeconds == nil }},
	{"terminationGracePeriodSeconds 0", func(c Case) bool {
		g := c.Pod.Spec.TerminationGracePeriodSeconds
		return g != nil && *g == 0
	}},
	{"no init containers", func(c Case) bool { return len(c.Pod.Spec.InitContainers) == 0 }},
	{"sidecar before a regular init container", func(c Case) bool {
		ics := c.Pod.Spec.InitContainers
		return len(ics) > 1 && restart.IsSidecar(&ics[0]) && slices.ContainsFunc(ics, func(c v1.Container) bool { return !restart.IsSidecar(&c) })
	}},
	{"regular init container before a sidecar", func(c Case) bool {
		ics := c.Pod.Spec.InitContainers
		return len(ics) > 1 && !restart.IsSidecar(&ics[0]) && slices.ContainsFunc(ics, func(c v1.Container) bool { return restart.IsSidecar(&c) })
	}},
	{"three sidecars", func(c Case) bool {
		n := 0
		for i := range c.Pod.Spec.InitContainers {
			if restart.IsSidecar(&c.Pod.Spec.InitContainers[i]) {
				n++
			}
		}
		return n == 3
	}},
	{"four regular containers", func(c Case) bool { return len(c.Pod.Spec.Containers) == 4 }},
	{"two containers share an image", func(c Case) bool {
		seen := map[string]bool{}
		return anyContainer(c.Pod, func(ct *v1.Container, _ kind) bool {
			dup := seen[ct.Image]
			seen[ct.Image] = true
			return dup
		})
	}},
	containerPolicy(kindRegular, v1.ContainerRestartPolicyAlways),
	containerPolicy(kindRegular, v1.ContainerRestartPolicyOnFailure),
	containerPolicy(kindRegular, v1.ContainerRestartPolicyNever),
	containerPolicy(kindInit, v1.ContainerRestartPolicyOnFailure),
	containerPolicy(kindInit, v1.ContainerRestartPolicyNever),
	{"sidecar with rules", func(c Case) bool {
		return anyContainer(c.Pod, func(ct *v1.Container, k kind) bool { return k == kindSidecar && len(ct.RestartPolicyRules) > 0 })
	}},
	{"regular init container with a RestartAllContainers rule", func(c Case) bool {
		return anyRule(c.Pod, func(r v1.ContainerRestartRule, k kind) bool {
			return k == kindInit && r.Action == v1.ContainerRestartRuleActionRestartAllContainers
		})
	}},
	{"rule with NotIn", func(c Case) bool {
		return anyRule(c.Pod, func(r v1.ContainerRestartRule, _ kind) bool {
			return r.ExitCodes.Operator == v1.ContainerRestartRuleOnExitCodesOpNotIn
		})
	}},
	{"rule without values", func(c Case) bool {
		return anyRule(c.Pod, func(r v1.ContainerRestartRule, _ kind) bool { return len(r.ExitCodes.Values) == 0 })
	}},
	{"several rules on one container", func(c Case) bool {
		return anyContainer(c.Pod, func(ct *v1.Container, _ kind) bool { return len(ct.RestartPolicyRules) > 1 })
	}},
	{"liveness probe with its own grace period", func(c Case) bool {
		return anyContainer(c.Pod, func(ct *v1.Container, _ kind) bool {
			return ct.LivenessProbe != nil && ct.LivenessProbe.TerminationGracePeriodSeconds != nil
		})
	}},
	{"sidecar with a startup probe", func(c Case) bool {
		return anyContainer(c.Pod, func(ct *v1.Container, k kind) bool { return k == kindSidecar && ct.StartupProbe != nil })
	}},
	{"resizePolicy RestartContainer", func(c Case) bool {
		return anyContainer(c.Pod, func(ct *v1.Container, _ kind) bool {
			return slices.ContainsFunc(ct.ResizePolicy, func(p v1.ContainerResizePolicy) bool { return p.RestartPolicy == v1.RestartContainer })
		})
	}},
	{"cpu limit", func(c Case) bool {
		return anyContainer(c.Pod, func(ct *v1.Container, _ kind) bool { _, ok := ct.Resources.Limits[v1.ResourceCPU]; return ok })
	}},
	{"pod-level resources with limits", func(c Case) bool { return c.Pod.Spec.Resources != nil && len(c.Pod.Spec.Resources.Limits) > 0 }},
	{"memory-backed emptyDir with sizeLimit", func(c Case) bool {
		return slices.ContainsFunc(c.Pod.Spec.Volumes, func(v v1.Volume) bool {
			return v.EmptyDir != nil && v.EmptyDir.Medium == v1.StorageMediumMemory && v.EmptyDir.SizeLimit != nil
		})
	}},
	{"ephemeral container with a target", func(c Case) bool {
		return slices.ContainsFunc(c.Pod.Spec.EphemeralContainers, func(e v1.EphemeralContainer) bool { return e.TargetContainerName != "" })
	}},

	// Sandboxes.
	{"no sandbox, no instance", func(c Case) bool { return len(c.State.Sandboxes) == 0 && len(c.State.Containers) == 0 }},
	{"instances of a removed sandbox", func(c Case) bool { return len(c.State.Sandboxes) == 0 && len(c.State.Containers) > 0 }},
	{"three sandboxes", func(c Case) bool { return len(c.State.Sandboxes) == 3 }},
	{"more than one ready sandbox", func(c Case) bool {
		n := 0
		for _, s := range c.State.Sandboxes {
			if s.Ready {
				n++
			}
		}
		return n > 1
	}},
	{"latest sandbox not ready", func(c Case) bool { return len(c.State.Sandboxes) > 0 && !c.State.Sandboxes[0].Ready }},
	{"old sandbox ready, latest not", func(c Case) bool {
		s := c.State.Sandboxes
		return len(s) > 1 && !s[0].Ready && s[1].Ready
	}},
	{"network mode mismatch", func(c Case) bool {
		for _, s := range c.State.Sandboxes {
			mode := s.NetworkMode
			if mode == "" {
				mode = runtimestate.NamespacePod
			}
			if (mode == runtimestate.NamespaceNode) != c.Pod.Spec.HostNetwork {
				return true
			}
		}
		return false
	}},
	{"network mode empty", func(c Case) bool {
		return slices.ContainsFunc(c.State.Sandboxes, func(s runtimestate.Sandbox) bool { return s.NetworkMode == "" })
	}},
	{"ready sandbox with empty IP", func(c Case) bool {
		s := c.State.ActiveSandbox()
		return s != nil && s.IP == "" && !s.NoNetworkStatus && !c.Pod.Spec.HostNetwork
	}},
	{"ready sandbox without network status", func(c Case) bool {
		s := c.State.ActiveSandbox()
		return s != nil && s.NoNetworkStatus
	}},
	{"additional IPs", func(c Case) bool { return len(c.State.IPs()) > 1 }},
	{"ready sandbox, empty primary IP, additional IPs", func(c Case) bool {
		s := c.State.ActiveSandbox()
		return s != nil && s.IP == "" && len(s.AdditionalIPs) > 0 && len(c.State.IPs()) > 0
	}},
	{"ready sandbox, IPv6 first", func(c Case) bool {
		ips := c.State.IPs()
		return len(ips) > 1 && strings.Contains(ips[0], ":")
	}},
	{"ready sandbox, an IP that does not parse", func(c Case) bool {
		s := c.State.ActiveSandbox()
		return s != nil && !s.NoNetworkStatus && (s.IP != "" || len(s.AdditionalIPs) > 0) && c.State.IPs() == nil
	}},
	{"odd image", func(c Case) bool {
		return slices.ContainsFunc(c.Pod.Spec.Containers, func(ct v1.Container) bool { return strings.HasPrefix(ct.Image, OddImagePrefix) })
	}},
	{"equal sandbox attempts", func(c Case) bool {
		s := c.State.Sandboxes
		return len(s) > 1 && s[0].Attempt == s[1].Attempt
	}},

	// Instances.
	newestState(kindSidecar, runtimestate.Running, true),
	newestState(kindSidecar, runtimestate.Exited, true),
	newestState(kindSidecar, runtimestate.Unknown, false),
	newestState(kindInit, runtimestate.Running, true),
	newestState(kindInit, runtimestate.Created, false),
	newestState(kindInit, runtimestate.Unknown, false),
	newestState(kindRegular, runtimestate.Running, true),
	newestState(kindRegular, runtimestate.Created, false),
	newestState(kindRegular, runtimestate.Unknown, false),
	newestState(kindEphemeral, runtimestate.Running, true),
	exited(kindInit, false), exited(kindInit, true),
	exited(kindRegular, false), exited(kindRegular, true),
	exited(kindSidecar, false),
	{"running instance in an old sandbox", func(c Case) bool {
		return anyInstance(c, func(in *runtimestate.Container, _ *v1.Container, _ kind) bool {
			return in.State == runtimestate.Running && len(c.State.Sandboxes) > 1 && in.SandboxID != c.State.Sandboxes[0].ID
		})
	}},
	{"newest instance only in an old sandbox", func(c Case) bool {
		return len(c.State.Sandboxes) > 1 && anyNewest(c, func(in *runtimestate.Container, _ *v1.Container, k kind) bool {
			return k == kindRegular && in.SandboxID != c.State.Sandboxes[0].ID
		})
	}},
	{"two running instances of one name", func(c Case) bool {
		running := map[string]int{}
		return anyInstance(c, func(in *runtimestate.Container, _ *v1.Container, _ kind) bool {
			if in.State == runtimestate.Running {
				running[in.Name]++
			}
			return running[in.Name] > 1
		})
	}},
	{"instances of one name in two sandboxes", func(c Case) bool {
		sb := map[string]string{}
		return anyInstance(c, func(in *runtimestate.Container, _ *v1.Container, _ kind) bool {
			prev, ok := sb[in.Name]
			sb[in.Name] = in.SandboxID
			return ok && prev != in.SandboxID
		})
	}},
	{"three instances of one name", func(c Case) bool {
		return anyNewest(c, func(in *runtimestate.Container, _ *v1.Container, _ kind) bool {
			return len(c.State.Instances(in.Name)) == 3
		})
	}},
	{"restartCount above 0 on a lone instance (older ones collected)", func(c Case) bool {
		return anyNewest(c, func(in *runtimestate.Container, _ *v1.Container, _ kind) bool {
			return in.RestartCount > 0 && len(c.State.Instances(in.Name)) == 1
		})
	}},
	{"garbage-collected name", func(c Case) bool {
		return len(c.State.Containers) > 0 && anyContainer(c.Pod, func(ct *v1.Container, _ kind) bool { return c.State.Newest(ct.Name) == nil })
	}},
	{"instance not in the spec", func(c Case) bool {
		return anyInstance(c, func(_ *runtimestate.Container, _ *v1.Container, k kind) bool { return k == kindStranger })
	}},
	{"negative exit code", func(c Case) bool {
		return anyInstance(c, func(in *runtimestate.Container, _ *v1.Container, _ kind) bool { return in.ExitCode < 0 })
	}},
	{"exit code 42", func(c Case) bool {
		return anyInstance(c, func(in *runtimestate.Container, _ *v1.Container, _ kind) bool { return in.ExitCode == 42 })
	}},
	{"OOMKilled with 137", func(c Case) bool {
		return anyInstance(c, func(in *runtimestate.Container, _ *v1.Container, _ kind) bool {
			return in.Reason == "OOMKilled" && in.ExitCode == 137
		})
	}},
	{"OOMKilled regular init container with exit code 0", func(c Case) bool {
		return anyNewest(c, func(in *runtimestate.Container, _ *v1.Container, k kind) bool {
			return k == kindInit && in.Reason == "OOMKilled" && in.ExitCode == 0
		})
	}},
	{"ContainerCannotRun", func(c Case) bool {
		return anyInstance(c, func(in *runtimestate.Container, _ *v1.Container, _ kind) bool {
			return in.Reason == "ContainerCannotRun"
		})
	}},
	{"exited without reason", func(c Case) bool {
		return anyInstance(c, func(in *runtimestate.Container, _ *v1.Container, _ kind) bool {
			return in.State == runtimestate.Exited && in.Reason == ""
		})
	}},
	{"running with another image's hash", func(c Case) bool {
		return anyNewest(c, func(in *runtimestate.Container, spec *v1.Container, k kind) bool {
			return k == kindRegular && in.State == runtimestate.Running && in.Hash != 0 && in.Hash != containerhash.Of(spec)
		})
	}},
	{"running sidecar with hash 0", func(c Case) bool {
		return anyNewest(c, func(in *runtimestate.Container, _ *v1.Container, k kind) bool {
			return k == kindSidecar && in.State == runtimestate.Running && in.Hash == 0
		})
	}},
	{"reported resources differ from the spec", func(c Case) bool {
		return anyInstance(c, func(in *runtimestate.Container, spec *v1.Container, _ kind) bool {
			if in.Resources == nil || in.Resources.CPURequest == nil {
				return false
			}
			q, ok := spec.Resources.Requests[v1.ResourceCPU]
			return !ok || q.Cmp(*in.Resources.CPURequest) != 0
		})
	}},
	ruleMatch(v1.ContainerRestartRuleActionRestartAllContainers, kindRegular),
	ruleMatch(v1.ContainerRestartRuleActionRestartAllContainers, kindInit),
	ruleMatch(v1.ContainerRestartRuleActionRestartAllContainers, kindSidecar),
	ruleMatch(v1.ContainerRestartRuleActionRestart, kindRegular),
	ruleMatch(v1.ContainerRestartRuleActionRestart, kindInit),
	ruleMatch("", kindRegular),
	ruleMatch("", kindInit),
	{"deleted pod with a running container", func(c Case) bool {
		return c.Pod.DeletionTimestamp != nil && anyNewest(c, func(in *runtimestate.Container, _ *v1.Container, k kind) bool {
			return k == kindRegular && in.State == runtimestate.Running
		})
	}},

	// Probe results.
	probe("running container failed liveness", kindRegular, func(p vocab.ProbeResults) vocab.ProbeResult { return p.Liveness }, vocab.ProbeFailure,
		func(c *v1.Container) bool { return c.LivenessProbe != nil }),
	probe("running container failed startup", kindRegular, func(p vocab.ProbeResults) vocab.ProbeResult { return p.Startup }, vocab.ProbeFailure,
		func(c *v1.Container) bool { return c.StartupProbe != nil }),
	probe("running sidecar startup unknown", kindSidecar, func(p vocab.ProbeResults) vocab.ProbeResult { return p.Startup }, vocab.ProbeUnknown,
		func(c *v1.Container) bool { return c.StartupProbe != nil }),
	probe("running sidecar startup absent", kindSidecar, func(p vocab.ProbeResults) vocab.ProbeResult { return p.Startup }, vocab.ProbeNoResult,
		func(c *v1.Container) bool { return c.StartupProbe != nil }),
	probe("running sidecar liveness absent", kindSidecar, func(p vocab.ProbeResults) vocab.ProbeResult { return p.Liveness }, vocab.ProbeNoResult,
		func(c *v1.Container) bool { return c.LivenessProbe != nil }),
	probe("running sidecar startup succeeded", kindSidecar, func(p vocab.ProbeResults) vocab.ProbeResult { return p.Startup }, vocab.ProbeSuccess,
		func(c *v1.Container) bool { return c.StartupProbe != nil }),

	// Gates.
	gate("v1.37.2 defaults", func(s features.Set) bool { return s == features.V1_37() }),
	gate("ContainerRestartRules off", func(s features.Set) bool { return !s.Enabled(features.ContainerRestartRules) }),
	gate("RestartAllContainersOnContainerExits off, ContainerRestartRules on", func(s features.Set) bool {
		return !s.Enabled(features.RestartAllContainersOnContainerExits) && s.Enabled(features.ContainerRestartRules)
	}),
	gate("ReduceDefaultCrashLoopBackOffDecay on", func(s features.Set) bool { return s.Enabled(features.ReduceDefaultCrashLoopBackOffDecay) }),
	gate("InPlacePodVerticalScalingMemoryBackedVolumes on", func(s features.Set) bool { return s.Enabled(features.InPlacePodVerticalScalingMemoryBackedVolumes) }),
	gate("ChangeContainerStatusOnKubeletRestart on", func(s features.Set) bool { return s.Enabled(features.ChangeContainerStatusOnKubeletRestart) }),
}

// countShapes draws n cases and counts, for each shape, the cases that
// have it. It also runs the self-checks on every case.
func countShapes(t *testing.T, opts CaseOptions, n int) map[string]int {
	t.Helper()
	counts := map[string]int{}
	g := Cases(opts)
	for seed := range n {
		c := g.Example(seed)
		problems := append(podProblems(c.Pod, opts.Pod), stateProblems(c.Pod, c.State, opts.State)...)
		problems = append(problems, probeProblems(c.Pod, c.State, c.Probes)...)
		problems = append(problems, featureProblems(c.Features, opts.Features)...)
		if len(problems) > 0 {
			t.Fatalf("seed %d:\n  %s", seed, strings.Join(problems, "\n  "))
		}
		for _, s := range shapes {
			if s.has(c) {
				counts[s.name]++
			}
		}
	}
	return counts
}

// missing returns the shapes in names that counts never saw.
func missing(counts map[string]int, names []string) []string {
	var out []string
	for _, n := range names {
		if counts[n] == 0 {
			out = append(out, n)
		}
	}
	return out
}

func allShapeNames() []string {
	var names []string
	for _, s := range shapes {
		names = append(names, s.name)
	}
	return names
}

func TestCoverage(t *testing.T) {
	const draws = 2000
	counts := countShapes(t, CaseOptions{}, draws)
	if m := missing(counts, allShapeNames()); len(m) > 0 {
		t.Errorf("in %d draws these shapes never appeared:\n  %s", draws, strings.Join(m, "\n  "))
	}
	if testing.Verbose() {
		names := allShapeNames()
		sort.Slice(names, func(i, j int) bool { return counts[names[i]] < counts[names[j]] })
		for _, n := range names {
			t.Logf("%5d  %s", counts[n], n)
		}
	}
}

func TestCoverageRealistic(t *testing.T) {
	const draws = 1000
	counts := countShapes(t, CaseOptions{State: StateOptions{Realistic: true}}, draws)
	// What a healthy node still shows.
	want := []string{
		"sidecar newest instance running in the active sandbox",
		"init container exited non-zero",
		"container newest instance unknown",
		"running with another image's hash",
		"garbage-collected name",
		"container exit code matches a RestartAllContainers rule",
		"newest instance only in an old sandbox",
		"latest sandbox not ready",
	}
	if m := missing(counts, want); len(m) > 0 {
		t.Errorf("realistic: in %d draws these shapes never appeared:\n  %s", draws, strings.Join(m, "\n  "))
	}
	// What it never shows.
	for _, name := range []string{
		"more than one ready sandbox", "network mode mismatch", "instance not in the spec", "negative exit code",
		"running sidecar with hash 0", "instances of a removed sandbox", "two running instances of one name",
		"running instance in an old sandbox", "ready sandbox with empty IP",
	} {
		if counts[name] > 0 {
			t.Errorf("realistic: %q appeared %d times", name, counts[name])
		}
	}
}

// The coverage check can fail: with parts of the generators turned off,
// the shapes they produce are reported missing.
func TestCoverageCanFail(t *testing.T) {
	counts := countShapes(t, CaseOptions{
		Pod:      PodOptions{NoDeletion: true, NoSidecars: true, NoRestartRules: true},
		Features: FeatureOptions{FlipPercent: 100},
	}, 300)
	got := missing(counts, allShapeNames())
	for _, want := range []string{
		"deletionTimestamp set",
		"sidecar newest instance running in the active sandbox",
		"container exit code matches a RestartAllContainers rule",
		"gates: v1.37.2 defaults",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("shape %q not reported missing; missing: %v", want, got)
		}
	}
}
