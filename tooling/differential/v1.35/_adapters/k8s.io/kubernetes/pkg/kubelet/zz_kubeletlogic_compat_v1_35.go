// Adapter for the kubeletlogic differential tests; written for this project.
//
// What differs between kubelet minors in the kubelet package's internals
// that the other adapters use; each kubelet version the suite compiles
// against has its own copy of this file (see tooling/differential/setup.sh). This
// one is for kubelet v1.35.

package kubelet

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// ClearPodResizePendingCondition does nothing: the stand-in status manager
// keeps the resize conditions a test hands it.
func (m *klPhaseStatusManager) ClearPodResizePendingCondition(types.UID) {
}

func klGetPhase(pod *v1.Pod, info []v1.ContainerStatus, podIsTerminal, podHasInitialized bool) v1.PodPhase {
	return getPhase(pod, info, podIsTerminal, podHasInitialized)
}

func klGenerateAPIPodStatus(kl *Kubelet, pod *v1.Pod, podStatus *kubecontainer.PodStatus, podIsTerminal bool) v1.PodStatus {
	return kl.generateAPIPodStatus(pod, podStatus, podIsTerminal)
}

// klConvertToAPIContainerStatuses: kubelet v1.35 takes no context and no
// image volume names (image volume digests came in v1.36).
func klConvertToAPIContainerStatuses(_ context.Context, kl *Kubelet, pod *v1.Pod, podStatus *kubecontainer.PodStatus, previous []v1.ContainerStatus, containers []v1.Container, _ sets.Set[string], hasInitContainers, isInitContainer, podRestarting bool) []v1.ContainerStatus {
	return kl.convertToAPIContainerStatuses(pod, podStatus, previous, containers, hasInitContainers, isInitContainer, podRestarting)
}

// klImageVolumeWithDigest: kubelet v1.35 has no ImageVolumeWithDigest gate.
func klImageVolumeWithDigest() bool { return false }

// klUpdatePod: kubelet v1.35's UpdatePod takes no context.
func klUpdatePod(p *podWorkers, opts UpdatePodOptions) { p.UpdatePod(opts) }
