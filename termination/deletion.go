package termination

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// MirrorPodAnnotation marks a mirror pod (kubetypes.ConfigMirrorAnnotationKey).
const MirrorPodAnnotation = "kubernetes.io/config.mirror"

// CanBeDeleted mirrors the status manager's canBeDeleted
// (pkg/kubelet/status/status_manager.go): whether the kubelet now deletes
// pod from the API server (grace 0, with the pod's UID as precondition).
// pod is the API object as the kubelet last saw it; podIsFinished is the
// status manager's flag, set only by TerminatePod at the end of
// SyncTerminatedPod (containers stopped, volumes unmounted, cgroup removed).
//
//  1. no deletionTimestamp, or a mirror pod: false;
//  2. the phase in pod.Status (the API's, not the kubelet's local status) is
//     not Succeeded or Failed: false (deletion waits for a terminal phase);
//  3. otherwise podIsFinished.
//
// Finalizers play no part: the kubelet sends its delete and the API server
// keeps the object until they are removed. A nil pod gives false.
func CanBeDeleted(pod *v1.Pod, podIsFinished bool, f features.Set) bool {
	_ = f
	if pod == nil || pod.DeletionTimestamp == nil {
		return false
	}
	if _, mirror := pod.Annotations[MirrorPodAnnotation]; mirror {
		return false
	}
	if pod.Status.Phase != v1.PodSucceeded && pod.Status.Phase != v1.PodFailed {
		return false
	}
	return podIsFinished
}
