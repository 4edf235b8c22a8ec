package sim

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func equalStatus(a, b v1.PodStatus) bool { return statusEqual(&a, &b) }

// statusEqual reports whether two stored statuses are the same, as the
// status manager's comparison does (equality.Semantic), field by field on
// the common fields and through equality.Semantic on the rare ones.
func statusEqual(a, b *v1.PodStatus) bool {
	if a.Phase != b.Phase || a.Reason != b.Reason || a.Message != b.Message || a.NominatedNodeName != b.NominatedNodeName ||
		a.HostIP != b.HostIP || a.PodIP != b.PodIP || a.QOSClass != b.QOSClass || a.ObservedGeneration != b.ObservedGeneration ||
		a.Resize != b.Resize || !timePtrEqual(a.StartTime, b.StartTime) || len(a.Conditions) != len(b.Conditions) ||
		len(a.HostIPs) != len(b.HostIPs) || len(a.PodIPs) != len(b.PodIPs) {
		return false
	}
	for i := range a.Conditions {
		x, y := &a.Conditions[i], &b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			x.ObservedGeneration != y.ObservedGeneration || !x.LastProbeTime.Equal(&y.LastProbeTime) || !x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	for i := range a.HostIPs {
		if a.HostIPs[i] != b.HostIPs[i] {
			return false
		}
	}
	for i := range a.PodIPs {
		if a.PodIPs[i] != b.PodIPs[i] {
			return false
		}
	}
	if !containerStatusesEqual(a.InitContainerStatuses, b.InitContainerStatuses) ||
		!containerStatusesEqual(a.ContainerStatuses, b.ContainerStatuses) ||
		!containerStatusesEqual(a.EphemeralContainerStatuses, b.EphemeralContainerStatuses) {
		return false
	}
	if !requirementsPtrEqual(a.Resources, b.Resources) || !resourceListEqual(a.AllocatedResources, b.AllocatedResources) {
		return false
	}
	if len(a.ResourceClaimStatuses) > 0 || len(b.ResourceClaimStatuses) > 0 ||
		a.ExtendedResourceClaimStatus != nil || b.ExtendedResourceClaimStatus != nil ||
		len(a.NodeAllocatableResourceClaimStatuses) > 0 || len(b.NodeAllocatableResourceClaimStatuses) > 0 || len(a.VolumeHealth) > 0 || len(b.VolumeHealth) > 0 {
		return equality.Semantic.DeepEqual(a.NodeAllocatableResourceClaimStatuses, b.NodeAllocatableResourceClaimStatuses) &&
			equality.Semantic.DeepEqual(a.VolumeHealth, b.VolumeHealth) &&
			equality.Semantic.DeepEqual(a.ResourceClaimStatuses, b.ResourceClaimStatuses) &&
			equality.Semantic.DeepEqual(a.ExtendedResourceClaimStatus, b.ExtendedResourceClaimStatus)
	}
	return true
}

func timePtrEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

func containerStatusesEqual(a, b []v1.ContainerStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Name != y.Name || x.Ready != y.Ready || x.RestartCount != y.RestartCount || x.Image != y.Image ||
			x.ImageID != y.ImageID || x.ContainerID != y.ContainerID || !boolPtrEqual(x.Started, y.Started) ||
			!stateEqual(&x.State, &y.State) || !stateEqual(&x.LastTerminationState, &y.LastTerminationState) {
			return false
		}
		// The kubelet writes resources and allocatedResources on every
		// running container: compared here as equality.Semantic does
		// (quantities by value, nil and empty alike), not through it.
		if !requirementsPtrEqual(x.Resources, y.Resources) || !resourceListEqual(x.AllocatedResources, y.AllocatedResources) {
			return false
		}
		if len(x.VolumeMounts) > 0 || len(y.VolumeMounts) > 0 || x.User != nil || y.User != nil ||
			len(x.AllocatedResourcesStatus) > 0 || len(y.AllocatedResourcesStatus) > 0 || x.StopSignal != nil || y.StopSignal != nil {
			if !equality.Semantic.DeepEqual(x, y) {
				return false
			}
		}
	}
	return true
}

func boolPtrEqual(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func stateEqual(a, b *v1.ContainerState) bool {
	switch {
	case (a.Waiting == nil) != (b.Waiting == nil), (a.Running == nil) != (b.Running == nil), (a.Terminated == nil) != (b.Terminated == nil):
		return false
	}
	if a.Waiting != nil && *a.Waiting != *b.Waiting {
		return false
	}
	if a.Running != nil && !a.Running.StartedAt.Equal(&b.Running.StartedAt) {
		return false
	}
	if x, y := a.Terminated, b.Terminated; x != nil {
		if x.ExitCode != y.ExitCode || x.Signal != y.Signal || x.Reason != y.Reason || x.Message != y.Message ||
			x.ContainerID != y.ContainerID || !x.StartedAt.Equal(&y.StartedAt) || !x.FinishedAt.Equal(&y.FinishedAt) {
			return false
		}
	}
	return true
}

func requirementsPtrEqual(a, b *v1.ResourceRequirements) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !resourceListEqual(a.Limits, b.Limits) || !resourceListEqual(a.Requests, b.Requests) || len(a.Claims) != len(b.Claims) {
		return false
	}
	for i := range a.Claims {
		if a.Claims[i] != b.Claims[i] {
			return false
		}
	}
	return true
}

func resourceListEqual(a, b v1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, q := range a {
		r, ok := b[k]
		if !ok || q.Cmp(r) != 0 {
			return false
		}
	}
	return true
}
