//go:build kubeletlogic_overlay

package differential

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
)

// Cases of getPhase per run, each under its own random gate set.
const phaseCases = 50000

// statusPod draws a pod for the status tests: a podgen pod with, now and
// then, a config.source annotation (static pods keep their phase when
// terminal), readiness gates, an activeDeadlineSeconds, a generation, and
// an API status drawn by podgen.APIStatus.
func statusPod(t *rapid.T) *v1.Pod {
	pod := podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
	switch rapid.IntRange(0, 5).Draw(t, "config source") {
	case 1:
		pod.Annotations = map[string]string{phase.AnnotationConfigSource: "api"}
	case 2:
		pod.Annotations = map[string]string{phase.AnnotationConfigSource: "file"}
	case 3:
		pod.Annotations = map[string]string{phase.AnnotationConfigSource: ""}
	}
	pod.Spec.ReadinessGates = podgen.ReadinessGates().Draw(t, "readiness gates")
	if rapid.IntRange(0, 3).Draw(t, "deadline") == 0 {
		pod.Spec.ActiveDeadlineSeconds = ptr(int64(rapid.IntRange(1, 4000).Draw(t, "deadline seconds")))
	}
	pod.Generation = int64(rapid.IntRange(0, 4).Draw(t, "generation"))
	pod.Status = *podgen.APIStatus(pod, podgen.APIStatusOptions{}).Draw(t, "api status")
	return pod
}

// drawCached draws the status manager's cached status: none, or another
// status of pod.
func drawCached(t *rapid.T, pod *v1.Pod) *v1.PodStatus {
	if rapid.IntRange(0, 2).Draw(t, "cached") == 0 {
		return nil
	}
	return podgen.APIStatus(pod, podgen.APIStatusOptions{}).Draw(t, "cached status")
}

func drawNow(t *rapid.T) time.Time {
	return podgen.Epoch.Add(time.Duration(rapid.IntRange(0, 8000).Draw(t, "now offset")) * time.Second)
}

func TestDifferentialPhaseGetPhase(t *testing.T) {
	check(t, phaseCases, []string{"getPhase", "HasAnyActiveRegularContainerStarted", "pastActiveDeadline"}, func(rt *rapid.T, f features.Set) {
		pod := statusPod(rt)
		st := podgen.APIStatus(pod, podgen.APIStatusOptions{NoConditions: true, NoPhase: true}).Draw(rt, "statuses")
		terminal := rapid.Bool().Draw(rt, "podIsTerminal")
		initialized := rapid.Bool().Draw(rt, "podHasInitialized")
		info := append(append([]v1.ContainerStatus{}, st.ContainerStatuses...), st.InitContainerStatuses...)
		want := kubelet.KLPhaseGetPhase(pod, info, terminal, initialized)
		got := phase.Compute(pod, st, phase.Options{Features: f, PodIsTerminal: terminal, PodHasInitialized: initialized})
		if got.Phase != want {
			rt.Fatalf("Compute = %v, kubelet getPhase %s", got, want)
		}
		compared(rt, "getPhase")

		rs := podgen.RuntimeState(pod, podgen.StateOptions{}).Draw(rt, "runtime state")
		if got, want := phase.HasAnyActiveRegularContainerStarted(pod, rs), kubecontainer.HasAnyActiveRegularContainerStarted(&pod.Spec, kubeletconv.PodStatus(rs)); got != want {
			rt.Fatalf("HasAnyActiveRegularContainerStarted = %v, kubelet %v", got, want)
		}
		compared(rt, "HasAnyActiveRegularContainerStarted")

		cached := drawCached(rt, pod)
		now := drawNow(rt)
		evict, reason, msg := kubelet.KLPhaseShouldEvict(pod, cached, now)
		if got := phase.PastActiveDeadline(pod, cached, now); got != evict {
			rt.Fatalf("PastActiveDeadline = %v, kubelet ShouldEvict %v", got, evict)
		}
		if evict && (reason != phase.ReasonDeadlineExceeded || msg != phase.MessageDeadlineExceeded) {
			rt.Fatalf("kubelet evicts with %q %q", reason, msg)
		}
		compared(rt, "pastActiveDeadline")
	})
}

// Cases per run of the whole-status comparisons, which run
// generateAPIPodStatus, each under its own random gate set.
const statusCases = 50000

// TestDifferentialPhaseGenerateAPIPodStatus runs the kubelet's
// generateAPIPodStatus and checks its phase, reason and message against
// phase.Compute (over the container statuses the kubelet generated, as they
// were when it called getPhase) followed by phase.Resolve.
func TestDifferentialPhaseGenerateAPIPodStatus(t *testing.T) {
	check(t, statusCases, []string{"generateAPIPodStatus.phase"}, func(rt *rapid.T, f features.Set) {
		in := drawStatusInput(rt)
		var atProbe *v1.PodStatus
		s := kubelet.KLPhaseGenerateAPIPodStatus(in.pod, kubeletconv.PodStatus(in.rs), in.terminal, in.cached, nil, in.now,
			func(s *v1.PodStatus) { atProbe = s.DeepCopy() })
		if atProbe == nil {
			rt.Fatal("the probe manager was not called")
		}
		r := phase.Compute(in.pod, atProbe, phase.Options{
			Features:          f,
			PodIsTerminal:     in.terminal,
			PodHasInitialized: phase.HasAnyActiveRegularContainerStarted(in.pod, in.rs),
		})
		got := phase.Resolve(in.pod, r.Phase, phase.ResolveOptions{Cached: in.cached, Now: in.now})
		if got.Phase != s.Phase || got.Reason != s.Reason || got.Message != s.Message {
			rt.Fatalf("Resolve = %v (Compute %v), kubelet %s reason=%q message=%q", got, r, s.Phase, s.Reason, s.Message)
		}
		compared(rt, "generateAPIPodStatus.phase")
	})
}

type statusInput struct {
	pod      *v1.Pod
	rs       *runtimestate.Pod
	terminal bool
	cached   *v1.PodStatus
	now      time.Time
}

func drawStatusInput(rt *rapid.T) statusInput {
	pod := statusPod(rt)
	in := statusInput{
		pod:      pod,
		rs:       podgen.RuntimeState(pod, podgen.StateOptions{}).Draw(rt, "runtime state"),
		terminal: rapid.Bool().Draw(rt, "podIsTerminal"),
		cached:   drawCached(rt, pod),
		now:      drawNow(rt),
	}
	return in
}
