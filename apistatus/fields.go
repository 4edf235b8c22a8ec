package apistatus

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// The fields of one container's status the kubelet reads from the spec
// and the runtime's report besides its state: the spec found by name, the
// volume mounts and the resources (convertToAPIContainerStatuses).

// containerSpec mirrors kubecontainer.GetContainerSpec: the first
// container named name among init, regular and ephemeral containers.
func containerSpec(pod *v1.Pod, name string) *v1.Container {
	if pod == nil {
		return nil
	}
	_, c, _ := restart.KindOf(&pod.Spec, name)
	return c
}

// volumeMounts mirrors the volume-mount statuses the kubelet derives from
// the spec (gate RecursiveReadOnlyMounts, locked on in v1.37.2).
func (c *converter) volumeMounts(ct *v1.Container) []v1.VolumeMountStatus {
	var out []v1.VolumeMountStatus
	for _, m := range ct.VolumeMounts {
		vs := v1.VolumeMountStatus{Name: m.Name, MountPath: m.MountPath, ReadOnly: m.ReadOnly}
		if m.ReadOnly {
			mode := v1.RecursiveReadOnlyDisabled
			if recursiveReadOnly(m, c.opts.RecursiveReadOnlySupported) {
				mode = v1.RecursiveReadOnlyEnabled
			}
			vs.RecursiveReadOnly = &mode
		}
		out = append(out, vs)
	}
	return out
}

// recursiveReadOnly mirrors resolveRecursiveReadOnly
// (pkg/kubelet/kubelet_pods.go); a request the kubelet rejects with an
// error reads as false, as the kubelet then reports Disabled.
func recursiveReadOnly(m v1.VolumeMount, supported bool) bool {
	if m.RecursiveReadOnly == nil || *m.RecursiveReadOnly == v1.RecursiveReadOnlyDisabled {
		return false
	}
	if !m.ReadOnly {
		return false
	}
	if m.MountPropagation != nil && *m.MountPropagation != v1.MountPropagationNone {
		return false
	}
	switch *m.RecursiveReadOnly {
	case v1.RecursiveReadOnlyIfPossible, v1.RecursiveReadOnlyEnabled:
		return supported
	}
	return false
}

// The Linux kubelet's smallest effective cpu settings
// (pkg/kubelet/cm/helpers_linux.go): MinMilliCPULimit and MinShares.
const (
	minMilliCPULimit = 10
	minShares        = 2
)

// resourcesOf mirrors convertContainerStatusResources: the resources the
// kubelet reports as actuated for one instance.
// o is the previous status of the container, or nil.
func resourcesOf(spec *v1.Container, s *v1.ContainerStatus, in *runtimestate.Container, o *v1.ContainerStatus) *v1.ResourceRequirements {
	running := state(in.State) == runtimestate.Running
	keepOld := func(name v1.ResourceName, from, to v1.ResourceList) {
		if running && o != nil && o.State.Running != nil && s.ContainerID == o.ContainerID && from != nil {
			if q, ok := from[name]; ok {
				to[name] = q.DeepCopy()
			}
		}
	}
	if !running {
		return spec.Resources.DeepCopy()
	}
	var oldLimits, oldRequests v1.ResourceList
	if o != nil && o.Resources != nil {
		oldLimits, oldRequests = o.Resources.Limits, o.Resources.Requests
	}
	r := spec.Resources.DeepCopy()
	rep := in.Resources
	if rep == nil {
		rep = &runtimestate.Resources{}
	}
	if r.Limits != nil {
		if rep.CPULimit != nil {
			if rep.CPULimit.MilliValue() > minMilliCPULimit || r.Limits.Cpu().MilliValue() > minMilliCPULimit {
				r.Limits[v1.ResourceCPU] = rep.CPULimit.DeepCopy()
			}
		} else {
			keepOld(v1.ResourceCPU, oldLimits, r.Limits)
		}
		if rep.MemoryLimit != nil {
			r.Limits[v1.ResourceMemory] = rep.MemoryLimit.DeepCopy()
		} else {
			keepOld(v1.ResourceMemory, oldLimits, r.Limits)
		}
	}
	if r.Requests != nil {
		if rep.CPURequest != nil {
			if rep.CPURequest.MilliValue() > minShares || r.Requests.Cpu().MilliValue() > minShares {
				r.Requests[v1.ResourceCPU] = rep.CPURequest.DeepCopy()
			}
		} else {
			keepOld(v1.ResourceCPU, oldRequests, r.Requests)
		}
		if rep.MemoryRequest != nil {
			r.Requests[v1.ResourceMemory] = rep.MemoryRequest.DeepCopy()
		} else {
			keepOld(v1.ResourceMemory, oldRequests, r.Requests)
		}
	}
	return r
}
