//go:build kubeletlogic_overlay

package differential

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
)

// exitScene builds the runtime state in which the kubelet's
// computePodActions reveals what it does after container target exited
// with code and reason: one ready sandbox; for a regular or ephemeral
// target, every init container done (regular ones exited 0, sidecars
// running with passing probes) and every other regular container running;
// for an init container or sidecar target, the init containers before it
// done and nothing after it. It returns the state and the liveness and
// startup results to feed the kubelet.
func exitScene(pod *v1.Pod, target string, kind restart.Kind, code int32, reason string) (*runtimestate.Pod, map[string]string, map[string]string) {
	t0 := podgen.Epoch
	mode := runtimestate.NamespacePod
	if pod.Spec.HostNetwork {
		mode = runtimestate.NamespaceNode
	}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, NetworkMode: mode, IP: "10.0.0.1", CreatedAt: t0}}}
	live, startup := map[string]string{}, map[string]string{}
	n := 0
	add := func(c *v1.Container, state runtimestate.State, exit int, why string) {
		n++
		id := fmt.Sprintf("c%d", n)
		at := t0.Add(time.Duration(n) * time.Second)
		inst := runtimestate.Container{ID: id, Name: c.Name, SandboxID: "s1", State: state, ExitCode: exit, Reason: why,
			Hash: containerhash.Of(c), CreatedAt: at, StartedAt: at}
		if state == runtimestate.Exited {
			inst.FinishedAt = at.Add(time.Millisecond)
		}
		// newest first
		st.Containers = append([]runtimestate.Container{inst}, st.Containers...)
		key := kubeletconv.RuntimeType + "://" + id
		if c.LivenessProbe != nil {
			live[key] = "Success"
		}
		if c.StartupProbe != nil {
			startup[key] = "Success"
		}
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.Name == target {
			add(c, runtimestate.Exited, int(code), reason)
			return st, live, startup
		}
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			add(c, runtimestate.Running, 0, "")
		} else {
			add(c, runtimestate.Exited, 0, "Completed")
		}
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if c.Name == target {
			add(c, runtimestate.Exited, int(code), reason)
		} else {
			add(c, runtimestate.Running, 0, "")
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		e := &pod.Spec.EphemeralContainers[i]
		if e.Name == target {
			c := v1.Container(e.EphemeralContainerCommon)
			add(&c, runtimestate.Exited, int(code), reason)
		}
	}
	return st, live, startup
}

// kubeletRestartsAfterExit reads the kubelet's answer off computePodActions.
func kubeletRestartsAfterExit(pod *v1.Pod, target string, kind restart.Kind, st *runtimestate.Pod, live, startup map[string]string) bool {
	acts := kuberuntime.KLComputePodActions(pod, kubeletconv.PodStatus(st), live, startup, false)
	switch kind {
	case restart.Regular:
		for i := range pod.Spec.Containers {
			if pod.Spec.Containers[i].Name == target {
				return slices.Contains(acts.ContainersToStart, i)
			}
		}
	case restart.Init, restart.Sidecar:
		for i := range pod.Spec.InitContainers {
			if pod.Spec.InitContainers[i].Name == target {
				return !acts.KillPod && slices.Contains(acts.InitContainersToStart, i)
			}
		}
	case restart.Ephemeral:
		for i := range pod.Spec.EphemeralContainers {
			if pod.Spec.EphemeralContainers[i].Name == target {
				return slices.Contains(acts.EphemeralContainersToStart, i)
			}
		}
	}
	panic("target not in pod")
}

// TestDifferentialRestartsAfterExit compares RestartsAfterExit, for every
// kind of container, with what the kubelet's computePodActions does in a
// scene where that container's newest instance just exited; and checks
// that EffectivePolicy summarizes those answers for exit codes no rule
// matches.
// restartKindsCases: cases per run, each under its own random gate set.
const restartKindsCases = 12000

func TestDifferentialRestartsAfterExit(t *testing.T) {
	kuberuntime.KLResetActuatedState()
	// Outcomes seen per kind, so that a scene that never shows one of
	// them (and so proves nothing about it) fails the test.
	seen := map[string]int{}
	defer func() {
		for _, k := range []string{"regular true", "regular false", "init true", "init false", "sidecar true", "ephemeral false"} {
			if seen[k] == 0 && !t.Failed() && cases(restartKindsCases) >= restartKindsCases/10 {
				t.Errorf("no case where the kubelet's answer for a %s container was %s", strings.Fields(k)[0], strings.Fields(k)[1])
			}
		}
	}()
	check(t, restartKindsCases, []string{"RestartsAfterExit", "EffectivePolicy"}, func(rt *rapid.T, f features.Set) {
		// Without resources, resize never interferes; without host
		// network changes, the sandbox is kept.
		pod := podgen.Pod(podgen.PodOptions{NoResources: true, NoPodResources: true, NoResizePolicy: true, NoVolumes: true}).Draw(rt, "pod")
		var names []string
		for _, c := range specContainers(pod) {
			names = append(names, c.Name)
		}
		for _, e := range pod.Spec.EphemeralContainers {
			names = append(names, e.Name)
		}
		target := rapid.SampledFrom(names).Draw(rt, "target")
		kind, _, ok := restart.KindOf(&pod.Spec, target)
		if !ok {
			rt.Fatalf("KindOf(%s) not found", target)
		}
		codes := []int32{0, 1, 2, 42, 137, -1}
		code := rapid.SampledFrom(codes).Draw(rt, "code")
		reason := rapid.SampledFrom([]string{"Completed", "Error", "OOMKilled"}).Draw(rt, "reason")

		st, live, startup := exitScene(pod, target, kind, code, reason)
		want := kubeletRestartsAfterExit(pod, target, kind, st, live, startup)
		seen[fmt.Sprintf("%s %v", kind, want)]++
		got, gotKind, ok := restart.RestartsAfterExit(pod, target, code, reason, f)
		if !ok || gotKind != kind || got != want {
			rt.Fatalf("RestartsAfterExit(%s %s, exit %d, %s) = %v, kubelet %v", kind, target, code, reason, got, want)
		}
		compared(rt, "RestartsAfterExit")

		// EffectivePolicy: on a pod not being deleted, for an exit no
		// rule matches and a reason that is not OOMKilled, the summary
		// policy predicts the kubelet's answer.
		e, ok := restart.EffectivePolicy(pod, target, f)
		if !ok || e.Kind != kind {
			rt.Fatalf("EffectivePolicy(%s) kind %v ok %v, want %v", target, e.Kind, ok, kind)
		}
		ruled := false
		if len(e.Rules) > 0 {
			_, ctr, _ := restart.KindOf(&pod.Spec, target)
			_, ruled = restart.MatchRule(ctr, code)
		}
		if pod.DeletionTimestamp == nil && reason != "OOMKilled" && !ruled {
			var predicted bool
			switch e.Policy {
			case v1.ContainerRestartPolicyAlways:
				predicted = true
			case v1.ContainerRestartPolicyOnFailure:
				predicted = code != 0
			}
			if predicted != want {
				rt.Fatalf("EffectivePolicy(%s %s) = %+v predicts %v after exit %d, kubelet %v", kind, target, e, predicted, code, want)
			}
			compared(rt, "EffectivePolicy")
		}
	})
}
