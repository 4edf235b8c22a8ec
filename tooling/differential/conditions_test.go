//go:build kubeletlogic_overlay

package differential

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet"
	"k8s.io/kubernetes/pkg/kubelet/status"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
)

// Cases per run of each Generate* function, each under its own random gate
// set.
const conditionCases = 50000

// drawPhase draws the phase the condition generators are called with.
func drawPhase(t *rapid.T) v1.PodPhase {
	return rapid.SampledFrom([]v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed, v1.PodUnknown}).Draw(t, "phase")
}

// TestDifferentialConditionsGenerate compares each exported condition
// generator of pkg/kubelet/status/generate.go with ours, called as
// generateAPIPodStatus calls them (statuses init ++ regular; nil when both
// lists are empty), plus updateLastTransitionTime.
func TestDifferentialConditionsGenerate(t *testing.T) {
	check(t, conditionCases, []string{"updateLastTransitionTime", "GeneratePodReadyToStartContainersCondition", "GeneratePodInitializedCondition", "GenerateContainersReadyCondition", "GeneratePodReadyCondition", "GenerateAllContainersRestartingCondition"}, func(rt *rapid.T, f features.Set) {
		pod := statusPod(rt)
		krs, rs := listed(rt, podgen.RuntimeState(pod, podgen.StateOptions{}).Draw(rt, "runtime state"))
		ks := kubeletconv.PodStatus(krs)
		old := podgen.APIStatus(pod, podgen.APIStatusOptions{}).Draw(rt, "old status")
		gen := podgen.APIStatus(pod, podgen.APIStatusOptions{NoConditions: true}).Draw(rt, "generated status")
		all := append(gen.InitContainerStatuses, gen.ContainerStatuses...)
		if rapid.IntRange(0, 9).Draw(rt, "empty statuses") == 0 {
			all = nil
			if rapid.Bool().Draw(rt, "empty, not nil") {
				all = []v1.ContainerStatus{}
			}
		}
		ph := drawPhase(rt)
		conds := podgen.APIStatus(pod, podgen.APIStatusOptions{}).Draw(rt, "conditions so far").Conditions

		diff := func(name, kubeletFn string, got, want v1.PodCondition) {
			if d := cmp.Diff(want, got); d != "" {
				rt.Fatalf("%s differs from the kubelet's (-kubelet +ours):\n%s", name, d)
			}
			if kubeletFn != "" {
				compared(rt, kubeletFn)
			}
		}
		diff("PodReadyToStartContainers", "GeneratePodReadyToStartContainersCondition", conditions.PodReadyToStartContainers(pod, old, rs, f),
			status.GeneratePodReadyToStartContainersCondition(pod, old, ks))
		diff("Initialized", "GeneratePodInitializedCondition", conditions.Initialized(pod, old, all, ph, f),
			status.GeneratePodInitializedCondition(pod, old, all, ph))
		diff("ContainersReady", "GenerateContainersReadyCondition", conditions.ContainersReady(pod, old, all, ph, f),
			status.GenerateContainersReadyCondition(pod, old, all, ph))
		diff("Ready", "GeneratePodReadyCondition", conditions.Ready(pod, old, conds, all, ph, f),
			status.GeneratePodReadyCondition(pod, old, conds, all, ph))
		diff("AllContainersRestarting", "GenerateAllContainersRestartingCondition", conditions.AllContainersRestarting(pod, rs, old, ph, f),
			status.GenerateAllContainersRestartingCondition(pod, ks, old, ph))

		// lastTransitionTime: the kubelet reads the wall clock, so
		// ours gets a time far from it and a fresh time must be the
		// kubelet's "now".
		newStatus := &v1.PodStatus{Conditions: append([]v1.PodCondition(nil), conds...)}
		var prev *v1.PodStatus
		if rapid.IntRange(0, 5).Draw(rt, "no previous") != 0 {
			prev = old
		}
		now := podgen.Epoch.Add(-time.Hour)
		before := time.Now()
		want := newStatus.DeepCopy()
		for _, ct := range conditions.TransitionTracked {
			status.KLConditionsUpdateLastTransitionTime(want, prev, ct)
		}
		after := time.Now()
		got := conditions.KeepTransitionTimes(newStatus.Conditions, prev, now)
		if len(got) != len(want.Conditions) {
			rt.Fatalf("KeepTransitionTimes returned %d conditions, kubelet %d", len(got), len(want.Conditions))
		}
		for i := range got {
			g, w := got[i], want.Conditions[i]
			if g.LastTransitionTime.Time.Equal(now) {
				if w.LastTransitionTime.Time.Before(before) || w.LastTransitionTime.Time.After(after) {
					rt.Fatalf("condition %d (%s): ours is now, kubelet kept %v", i, g.Type, w.LastTransitionTime)
				}
				g.LastTransitionTime = w.LastTransitionTime
			}
			diff("KeepTransitionTimes", "", g, w)
		}
		compared(rt, "updateLastTransitionTime")
	})
}

// TestDifferentialConditionsGenerateAPIPodStatus runs the kubelet's
// generateAPIPodStatus and checks the conditions it writes against
// conditions.Generate over the status it generated (after the probe
// manager, which here sets Ready and Started at random).
func TestDifferentialConditionsGenerateAPIPodStatus(t *testing.T) {
	check(t, statusCases, []string{"generateAPIPodStatus.conditions"}, func(rt *rapid.T, f features.Set) {
		in := drawStatusInput(rt)
		resize := drawResizeConditions(rt)
		readyDraws := rapid.SliceOfN(rapid.IntRange(0, 3), 16, 16).Draw(rt, "probe results")
		hook := func(s *v1.PodStatus) {
			i := 0
			for _, list := range [][]v1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses} {
				for j := range list {
					d := readyDraws[i%len(readyDraws)]
					i++
					list[j].Ready = d&1 != 0
					if d&2 != 0 {
						list[j].Started = ptr(true)
					} else {
						list[j].Started = ptr(false)
					}
				}
			}
		}
		var resizePtrs []*v1.PodCondition
		for i := range resize {
			resizePtrs = append(resizePtrs, &resize[i])
		}
		s := kubelet.KLPhaseGenerateAPIPodStatus(in.pod, kubeletconv.PodStatus(in.rs), in.terminal, in.cached, resizePtrs, in.now, hook)
		got := conditions.Generate(in.pod, &s, conditions.Options{
			Features:         f,
			Cached:           in.cached,
			Runtime:          in.rs,
			PodIsTerminal:    in.terminal,
			ResizeConditions: resize,
		})
		if d := cmp.Diff(s.Conditions, got); d != "" {
			rt.Fatalf("Generate differs from generateAPIPodStatus (-kubelet +ours):\n%s", d)
		}
		compared(rt, "generateAPIPodStatus.conditions")
	})
}

func drawResizeConditions(t *rapid.T) []v1.PodCondition {
	var out []v1.PodCondition
	if rapid.IntRange(0, 3).Draw(t, "resize pending") == 0 {
		out = append(out, v1.PodCondition{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: "Deferred",
			ObservedGeneration: int64(rapid.IntRange(0, 3).Draw(t, "pending generation")),
			LastTransitionTime: metav1.NewTime(podgen.Epoch)})
	}
	if rapid.IntRange(0, 3).Draw(t, "resize in progress") == 0 {
		out = append(out, v1.PodCondition{Type: v1.PodResizeInProgress, Status: v1.ConditionTrue,
			ObservedGeneration: int64(rapid.IntRange(0, 3).Draw(t, "in-progress generation"))})
	}
	return out
}
