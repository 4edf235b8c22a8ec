//go:build kubeletlogic_overlay

package differential

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/kubernetes/pkg/kubelet/allocation"
	"k8s.io/kubernetes/pkg/kubelet/allocation/state"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
)

// podActionsDefaultCases: cases per run of TestDifferentialPodActionsDefault.
const podActionsDefaultCases = 20000

// paKubeletInitialized runs the kubelet's computePodActions after SyncPod's
// own initialisation of the actuated-resources store: an empty store,
// InitializeActuatedPod(pod), then the caller's entries of a written over
// it (none when the caller gives no record). The default reading of
// podactions.Actuated claims to equal this.
func paKubeletInitialized(pod *v1.Pod, a podactions.Actuated, opts podactions.Options, ks *kubecontainer.PodStatus) kuberuntime.KLPodActions {
	kuberuntime.KLResetActuatedState()
	kuberuntime.KLInitializeActuatedPod(pod)
	paSetActuated(pod, a)
	live, start := paProbeMaps(opts.Probes)
	return kuberuntime.KLComputePodActions(pod, ks, live, start, opts.RestartAllContainers)
}

// fromResourceInfo is the kubelet's PodResourceInfo as a whole record.
func fromResourceInfo(info state.PodResourceInfo) podactions.Actuated {
	out := podactions.Actuated{Exact: true, Containers: info.ContainerResources, Pod: info.PodLevelResources}
	for name, q := range info.EmptyDirVolumeLimits {
		if out.EmptyDirLimits == nil {
			out.EmptyDirLimits = map[string]resource.Quantity{}
		}
		out.EmptyDirLimits[name] = *q
	}
	return out
}

// TestDifferentialPodActionsDefault compares podactions.Compute under the
// default reading of Options.Actuated (what the caller leaves out reads as
// the spec's) with the kubelet's computePodActions after the kubelet's own
// InitializeActuatedPod, as SyncPod runs them; and InitialActuated with the
// kubelet's allocation.ResourceInfoForPod, which InitializeActuatedPod
// stores. A third of the cases give no record at all (the zero Actuated:
// the common call); the others a drawn record, whose entries the kubelet
// side writes over its initialised store.
func TestDifferentialPodActionsDefault(t *testing.T) {
	check(t, podActionsDefaultCases, []string{"podactions.InitialActuated", "podactions.Compute"}, func(rt *rapid.T, f features.Set) {
		c := podgen.Cases(podgen.CaseOptions{Gates: &f}).Draw(rt, "case")
		opts := podgen.PodActionsOptions(c).Draw(rt, "options")
		if rapid.IntRange(0, 2).Draw(rt, "no record") == 0 {
			opts.Actuated = podactions.Actuated{}
		}
		opts.Actuated.Exact = false
		kst, st := listed(rt, c.State)
		c.State = st
		ks := kubeletconv.PodStatus(kst)

		quantities := cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })
		wantInit := fromResourceInfo(allocation.ResourceInfoForPod(c.Pod))
		if d := cmp.Diff(wantInit, podactions.InitialActuated(c.Pod, f), quantities); d != "" {
			rt.Fatalf("InitialActuated differs from the kubelet's ResourceInfoForPod (-kubelet +ours):\n%s", d)
		}
		compared(rt, "podactions.InitialActuated")

		opts.Features = f
		got := podactions.Compute(c.Pod, c.State, opts)
		want := paKubeletInitialized(c.Pod, opts.Actuated, opts, ks)
		if d := cmp.Diff(paFromKubelet(c.Pod, want), paFromOurs(got)); d != "" {
			rt.Fatalf("Compute (default reading of %+v) differs from the kubelet's computePodActions after InitializeActuatedPod (-kubelet +ours):\n%s\nours:\n%s", opts.Actuated, d, got)
		}
		compared(rt, "podactions.Compute")
	})
}
