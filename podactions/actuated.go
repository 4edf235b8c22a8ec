package podactions

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
)

// InitialActuated returns the record kubelet v1.37.2 writes for pod when its
// actuated-resources checkpoint holds nothing for it: SyncPod calls
// InitializeActuatedPod (pkg/kubelet/kuberuntime/kuberuntime_manager.go)
// before computePodActions, which stores allocation.ResourceInfoForPod
// (pkg/kubelet/allocation/allocation_manager.go) of the allocated pod. With
// gate InPlacePodVerticalScaling (nothing without it):
//   - Containers: the spec resources of every regular container and of
//     every init container that can be resized (a sidecar, or any init
//     container with gate InPlacePodVerticalScalingInitContainers); an
//     empty map when there is none;
//   - Pod: a copy of spec.resources with gate
//     InPlacePodLevelResourcesVerticalScaling, else nil;
//   - EmptyDirLimits: the size limit of every memory-backed emptyDir with
//     a non-zero one, with gate InPlacePodVerticalScalingMemoryBackedVolumes;
//     nil when there is none.
//
// Exact is true: the result is a whole record. Kubelets before v1.37 write
// no such record (they record a container's resources when they start it);
// InitialActuated answers for the gates f whatever its version. A nil pod
// gives the zero Actuated.
func InitialActuated(pod *v1.Pod, f features.Set) Actuated {
	if pod == nil || !f.Enabled(features.InPlacePodVerticalScaling) {
		return Actuated{}
	}
	a := Actuated{Exact: true, Containers: map[string]v1.ResourceRequirements{}}
	if f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) && pod.Spec.Resources != nil {
		a.Pod = pod.Spec.Resources.DeepCopy()
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if f.Enabled(features.InPlacePodVerticalScalingInitContainers) || restart.IsSidecar(c) {
			a.Containers[c.Name] = *c.Resources.DeepCopy()
		}
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		a.Containers[c.Name] = *c.Resources.DeepCopy()
	}
	if f.Enabled(features.InPlacePodVerticalScalingMemoryBackedVolumes) {
		for i := range pod.Spec.Volumes {
			if q, ok := memoryEmptyDirLimit(&pod.Spec.Volumes[i]); ok {
				if a.EmptyDirLimits == nil {
					a.EmptyDirLimits = map[string]resource.Quantity{}
				}
				a.EmptyDirLimits[pod.Spec.Volumes[i].Name] = q.DeepCopy()
			}
		}
	}
	return a
}

// memoryEmptyDirLimit mirrors VolHasMemoryBackedEmptyDirSizeLimit: vol is a
// memory-backed emptyDir with a non-zero size limit, returned.
func memoryEmptyDirLimit(vol *v1.Volume) (resource.Quantity, bool) {
	ed := vol.EmptyDir
	if ed == nil || ed.Medium != v1.StorageMediumMemory || ed.SizeLimit == nil || ed.SizeLimit.IsZero() {
		return resource.Quantity{}, false
	}
	return *ed.SizeLimit, true
}

// actuatedContainer is the record of container ctr as Compute reads it: the
// entry of Options.Actuated; without one, the container's spec resources
// (the default) or no resources at all (Exact, as the kubelet reads a
// missing record).
func (c *computer) actuatedContainer(ctr *v1.Container) v1.ResourceRequirements {
	if rr, ok := c.opts.Actuated.Containers[ctr.Name]; ok {
		return rr
	}
	if c.opts.Actuated.Exact {
		return v1.ResourceRequirements{}
	}
	return ctr.Resources
}

// actuatedPodLevel is the pod-level record as Compute reads it: Pod; when
// nil, spec.resources (the default) or nil (Exact: zeros).
func (c *computer) actuatedPodLevel() *v1.ResourceRequirements {
	if p := c.opts.Actuated.Pod; p != nil || c.opts.Actuated.Exact {
		return p
	}
	return c.pod.Spec.Resources
}

// actuatedEmptyDir is the size limit recorded for emptyDir volume vol, whose
// spec limit is spec, and whether there is one: the entry of EmptyDirLimits;
// without one, spec (the default) or none (Exact: the kubelet grows the
// volume).
func (c *computer) actuatedEmptyDir(vol string, spec resource.Quantity) (resource.Quantity, bool) {
	if q, ok := c.opts.Actuated.EmptyDirLimits[vol]; ok {
		return q, true
	}
	if c.opts.Actuated.Exact {
		return resource.Quantity{}, false
	}
	return spec, true
}
