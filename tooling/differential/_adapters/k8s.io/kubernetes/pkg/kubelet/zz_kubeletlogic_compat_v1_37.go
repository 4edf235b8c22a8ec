// Adapter for the kubeletlogic differential tests; written for this project.
//
// What differs between kubelet minors in the kubelet package's internals
// that the other adapters use; each kubelet version the suite compiles
// against has its own copy of this file (see tooling/differential/setup.sh). This
// one is for kubelet v1.37.

package kubelet

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/metrics"
)

// ClearPodResizePendingCondition does nothing: the stand-in status manager
// keeps the resize conditions a test hands it.
// (v1.37 added the resolution argument.)
func (m *klPhaseStatusManager) ClearPodResizePendingCondition(types.UID, metrics.DeferredResizeResolution) {
}

func klGetPhase(pod *v1.Pod, info []v1.ContainerStatus, podIsTerminal, podHasInitialized bool) v1.PodPhase {
	return getPhase(klog.Background(), pod, info, podIsTerminal, podHasInitialized)
}

func klGenerateAPIPodStatus(kl *Kubelet, pod *v1.Pod, podStatus *kubecontainer.PodStatus, podIsTerminal bool) v1.PodStatus {
	return kl.generateAPIPodStatus(context.Background(), pod, podStatus, podIsTerminal)
}

func klConvertToAPIContainerStatuses(ctx context.Context, kl *Kubelet, pod *v1.Pod, podStatus *kubecontainer.PodStatus, previous []v1.ContainerStatus, containers []v1.Container, imageVolumeNames sets.Set[string], hasInitContainers, isInitContainer, podRestarting bool) []v1.ContainerStatus {
	return kl.convertToAPIContainerStatuses(ctx, pod, podStatus, previous, containers, imageVolumeNames, hasInitContainers, isInitContainer, podRestarting)
}

// klImageVolumeWithDigest reports the ImageVolumeWithDigest gate (v1.36 and
// later).
func klImageVolumeWithDigest() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.ImageVolumeWithDigest)
}

func klUpdatePod(p *podWorkers, opts UpdatePodOptions) { p.UpdatePod(context.Background(), opts) }
