// Adapter for the kubeletlogic differential tests; written for this project.
//
// This file lives in tooling/differential/_adapters/ (ignored by the go tool) and is
// added to the vendored k8s.io/kubernetes/pkg/kubelet package only through
// `go test -overlay` (see tooling/differential/setup.sh).

package kubelet

import (
	"context"
	"errors"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// KLApistatusStartFailure is one reason-cache entry: the error text of a
// failed container start and its message.
type KLApistatusStartFailure struct {
	Reason  string
	Message string
}

var klApistatusMu sync.Mutex

// KLApistatusConvert builds a Kubelet holding only a reason cache (filled
// with failures, keyed by pod UID and container name) and calls
// convertToAPIContainerStatuses three times with the arguments
// convertStatusToAPIStatus passes: regular, init and ephemeral containers,
// with podRestarting from kubecontainer.ShouldAllContainersRestart under
// gate RestartAllContainersOnContainerExits. Every other Kubelet field is
// nil: the function reaches runtimeClassManager (nil means no recursive
// read-only support) and containerRuntime (only with gate
// ImageVolumeWithDigest and image volumes).
func KLApistatusConvert(pod *v1.Pod, podStatus *kubecontainer.PodStatus, oldPodStatus v1.PodStatus, failures map[string]KLApistatusStartFailure) (initStatuses, statuses, ephemeral []v1.ContainerStatus, podRestarting bool) {
	klApistatusMu.Lock()
	defer klApistatusMu.Unlock()
	kl := &Kubelet{reasonCache: NewReasonCache()}
	for name, f := range failures {
		kl.reasonCache.add(pod.UID, name, errors.New(f.Reason), f.Message)
	}
	ctx := context.Background()
	if utilfeature.DefaultFeatureGate.Enabled(features.RestartAllContainersOnContainerExits) {
		podRestarting = kubecontainer.ShouldAllContainersRestart(pod, podStatus, &oldPodStatus)
	}
	var imageVolumeNames sets.Set[string]
	if klImageVolumeWithDigest() {
		imageVolumeNames = sets.New[string]()
		for _, v := range pod.Spec.Volumes {
			if v.Image != nil {
				imageVolumeNames.Insert(v.Name)
			}
		}
	}
	hasInit := len(pod.Spec.InitContainers) > 0
	statuses = klConvertToAPIContainerStatuses(ctx, kl, pod, podStatus, oldPodStatus.ContainerStatuses, pod.Spec.Containers, imageVolumeNames, hasInit, false, podRestarting)
	initStatuses = klConvertToAPIContainerStatuses(ctx, kl, pod, podStatus, oldPodStatus.InitContainerStatuses, pod.Spec.InitContainers, imageVolumeNames, hasInit, true, podRestarting)
	var ecSpecs []v1.Container
	for i := range pod.Spec.EphemeralContainers {
		ecSpecs = append(ecSpecs, v1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	ephemeral = klConvertToAPIContainerStatuses(ctx, kl, pod, podStatus, oldPodStatus.EphemeralContainerStatuses, ecSpecs, imageVolumeNames, hasInit, false, podRestarting)
	return initStatuses, statuses, ephemeral, podRestarting
}
