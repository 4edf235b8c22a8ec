// Adapter for the kubeletlogic side-by-side benchmarks
// (tooling/differential/bench_v1_37_test.go); written for this project. Added to the
// vendored package only through `go test -overlay`.

package kubelet

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// KLBenchGenerateAPIPodStatus builds, once, the Kubelet of
// KLPodstatusGenerateAPIPodStatus (klPodstatusKubelet), except that its status
// manager hands out the cached status the way the real one does (a shallow
// copy, no DeepCopy), and returns a function that calls
// generateAPIPodStatus on it: the timed call.
func KLBenchGenerateAPIPodStatus(pod *v1.Pod, podStatus *kubecontainer.PodStatus, in KLPodstatusInput) func() v1.PodStatus {
	kl := klPodstatusKubelet(&klBenchStatusManager{klPhaseStatusManager{cached: in.Cached, resize: in.Resize}}, pod, in)
	ctx := context.Background()
	return func() v1.PodStatus {
		return kl.generateAPIPodStatus(ctx, pod, podStatus, in.PodIsTerminal)
	}
}

// klBenchStatusManager is klPhaseStatusManager without the defensive
// copies: the real manager's GetPodStatus returns its cached status by
// value (a shallow copy), and GetPodResizeConditions a new list of the
// stored conditions.
type klBenchStatusManager struct{ klPhaseStatusManager }

func (m *klBenchStatusManager) GetPodStatus(types.UID) (v1.PodStatus, bool) {
	if m.cached == nil {
		return v1.PodStatus{}, false
	}
	return *m.cached, true
}

func (m *klBenchStatusManager) GetPodResizeConditions(types.UID) []*v1.PodCondition {
	return append([]*v1.PodCondition(nil), m.resize...)
}

// KLBenchConvert builds, once, a Kubelet holding only a reason cache filled
// with failures (as KLApistatusConvert does on every call) and returns a
// function that does what convertStatusToAPIStatus does for the container
// statuses, as KLApistatusConvert does: podRestarting (gate
// RestartAllContainersOnContainerExits), the image volume names (gate
// ImageVolumeWithDigest), then convertToAPIContainerStatuses for regular,
// init and ephemeral containers. It returns the number of statuses, so the
// call is not optimised away.
func KLBenchConvert(pod *v1.Pod, failures map[string]KLApistatusStartFailure) func(podStatus *kubecontainer.PodStatus, oldPodStatus *v1.PodStatus) int {
	kl := &Kubelet{reasonCache: NewReasonCache()}
	for name, f := range failures {
		kl.reasonCache.add(pod.UID, name, errors.New(f.Reason), f.Message)
	}
	ctx := context.Background()
	return func(podStatus *kubecontainer.PodStatus, old *v1.PodStatus) int {
		podRestarting := false
		if utilfeature.DefaultFeatureGate.Enabled(features.RestartAllContainersOnContainerExits) {
			podRestarting = kubecontainer.ShouldAllContainersRestart(pod, podStatus, old)
		}
		var imageVolumeNames sets.Set[string]
		if utilfeature.DefaultFeatureGate.Enabled(features.ImageVolumeWithDigest) {
			imageVolumeNames = sets.New[string]()
			for _, v := range pod.Spec.Volumes {
				if v.Image != nil {
					imageVolumeNames.Insert(v.Name)
				}
			}
		}
		hasInit := len(pod.Spec.InitContainers) > 0
		s := kl.convertToAPIContainerStatuses(ctx, pod, podStatus, old.ContainerStatuses, pod.Spec.Containers, imageVolumeNames, hasInit, false, podRestarting)
		i := kl.convertToAPIContainerStatuses(ctx, pod, podStatus, old.InitContainerStatuses, pod.Spec.InitContainers, imageVolumeNames, hasInit, true, podRestarting)
		var ecSpecs []v1.Container
		for i := range pod.Spec.EphemeralContainers {
			ecSpecs = append(ecSpecs, v1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon))
		}
		e := kl.convertToAPIContainerStatuses(ctx, pod, podStatus, old.EphemeralContainerStatuses, ecSpecs, imageVolumeNames, hasInit, false, podRestarting)
		return len(s) + len(i) + len(e)
	}
}

// KLBenchEffectiveGracePeriod builds, once, the sync status (stored grace
// period previous) and kill options (override, nil for none) that
// calculateEffectiveGracePeriod reads, and returns a function that calls
// it: KLTerminationEffectiveGracePeriod allocates both on every call.
func KLBenchEffectiveGracePeriod(previous int64, pod *v1.Pod, override *int64) func() (int64, bool) {
	status := &podSyncStatus{gracePeriod: previous}
	var opts *KillPodOptions
	if override != nil {
		opts = &KillPodOptions{PodTerminationGracePeriodSecondsOverride: override}
	}
	return func() (int64, bool) { return calculateEffectiveGracePeriod(status, pod, opts) }
}
