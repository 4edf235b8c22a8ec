package podactions

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// podResources mirrors podResourcesFromRequirements: the pod-level values,
// zeros for nil.
func podResources(rr *v1.ResourceRequirements) Resources {
	if rr == nil {
		return Resources{}
	}
	memLimit, memRequest := quantity(rr.Limits, v1.ResourceMemory), quantity(rr.Requests, v1.ResourceMemory)
	cpuLimit, cpuRequest := quantity(rr.Limits, v1.ResourceCPU), quantity(rr.Requests, v1.ResourceCPU)
	return Resources{
		MemoryLimit:   memLimit.Value(),
		MemoryRequest: memRequest.Value(),
		CPULimit:      cpuLimit.MilliValue(),
		CPURequest:    cpuRequest.MilliValue(),
	}
}

// quantity returns rl[name], zero when absent (as ResourceList.Memory and
// Cpu read it).
func quantity(rl v1.ResourceList, name v1.ResourceName) resource.Quantity {
	return rl[name]
}

// containerResources mirrors containerResourcesFromRequirements: the
// container's values; with gate InPlacePodLevelResourcesVerticalScaling, a
// zero cpu or memory limit inherits a non-zero pod-level one (GetLimits,
// pkg/kubelet/util/util.go). Each value is converted once, and the
// pod-level limits are read only for a container limit that is zero.
func (c *computer) containerResources(podRR, ctrRR *v1.ResourceRequirements) Resources {
	memLimit, cpuLimit := quantity(ctrRR.Limits, v1.ResourceMemory), quantity(ctrRR.Limits, v1.ResourceCPU)
	r := Resources{
		MemoryRequest: requestValue(ctrRR.Requests, v1.ResourceMemory),
		CPURequest:    requestValue(ctrRR.Requests, v1.ResourceCPU),
	}
	if podRR != nil && len(podRR.Limits) != 0 && (memLimit.IsZero() || cpuLimit.IsZero()) &&
		c.f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) {
		if cpuLimit.IsZero() {
			if p := quantity(podRR.Limits, v1.ResourceCPU); !p.IsZero() {
				cpuLimit = p
			}
		}
		if memLimit.IsZero() {
			if p := quantity(podRR.Limits, v1.ResourceMemory); !p.IsZero() {
				memLimit = p
			}
		}
	}
	r.MemoryLimit = memLimit.Value()
	r.CPULimit = cpuLimit.MilliValue()
	return r
}

// requestValue is a request as containerResourcesFromRequirements reads
// it: memory in bytes, cpu in millicores, rounded up; 0 when absent.
func requestValue(rl v1.ResourceList, name v1.ResourceName) int64 {
	if len(rl) == 0 {
		return 0
	}
	q, ok := rl[name]
	if !ok {
		return 0
	}
	if name == v1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// actuatedPod is the pod-level record the kubelet reads: only with gate
// InPlacePodLevelResourcesVerticalScaling (see actuatedPodLevel).
func (c *computer) actuatedPod() *v1.ResourceRequirements {
	if !c.f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) {
		return nil
	}
	return c.actuatedPodLevel()
}

// resizeAction mirrors computePodResizeAction for the running instance cs
// of container idx of spec.initContainers (init) or spec.containers. It
// reports whether the instance is kept; when a resize needs a restart it
// has queued the kill and the start and marked the pod cgroup for resize.
func (c *computer) resizeAction(idx int, init bool, cs *runtimestate.Container) bool {
	if !c.resizable() {
		return true
	}
	list := c.pod.Spec.Containers
	if init {
		list = c.pod.Spec.InitContainers
	}
	ctr := &list[idx]
	if state(cs) != runtimestate.Running {
		return true
	}
	actuated := c.actuatedContainer(ctr)
	desired := c.containerResources(c.pod.Spec.Resources, &ctr.Resources)
	current := c.containerResources(c.actuatedPod(), &actuated)
	if desired == current {
		return true
	}

	// Each changed value resizes; it restarts when the container's
	// resizePolicy for that resource says RestartContainer (NotRequired
	// when it has none).
	policy := func(name v1.ResourceName, want, have int64) (resize, restart bool) {
		if want == have {
			return false, false
		}
		for _, p := range ctr.ResizePolicy {
			if p.ResourceName == name {
				return true, p.RestartPolicy == v1.RestartContainer
			}
		}
		return true, false
	}
	resizeMemLim, restartMemLim := policy(v1.ResourceMemory, desired.MemoryLimit, current.MemoryLimit)
	resizeMemReq, restartMemReq := policy(v1.ResourceMemory, desired.MemoryRequest, current.MemoryRequest)
	resizeCPULim, restartCPULim := policy(v1.ResourceCPU, desired.CPULimit, current.CPULimit)
	resizeCPUReq, restartCPUReq := policy(v1.ResourceCPU, desired.CPURequest, current.CPURequest)

	a := &c.a
	if restartCPULim || restartCPUReq || restartMemLim || restartMemReq {
		c.kill(Kill{ID: cs.ID, Name: cs.Name, Init: init, Index: idx, Cause: CauseResize,
			Message: "Container " + ctr.Name + " resize requires restart"})
		if init {
			a.InitContainersToStart = appendRef(a.InitContainersToStart, len(list), Ref{idx, ctr.Name})
		} else {
			a.ContainersToStart = appendRef(a.ContainersToStart, len(list), Ref{idx, ctr.Name})
		}
		a.UpdatePodResources = true
		return false
	}

	u := Update{ID: cs.ID, Name: ctr.Name, Init: init, Index: idx, Desired: desired, Current: current}
	// Decreases go first, increases last. A list starts with room for two
	// updates, and a decrease is moved in at the front rather than copied
	// into a new list.
	queue := func(list []Update, want, have int64) []Update {
		if want == have {
			return list
		}
		if list == nil {
			list = make([]Update, 0, 2)
		}
		list = append(list, u)
		if want < have {
			copy(list[1:], list[:len(list)-1])
			list[0] = u
		}
		return list
	}
	if resizeMemLim {
		a.MemoryUpdates = queue(a.MemoryUpdates, desired.MemoryLimit, current.MemoryLimit)
	} else if resizeMemReq {
		a.MemoryUpdates = queue(a.MemoryUpdates, desired.MemoryRequest, current.MemoryRequest)
	}
	if resizeCPULim {
		a.CPUUpdates = queue(a.CPUUpdates, desired.CPULimit, current.CPULimit)
	} else if resizeCPUReq {
		a.CPUUpdates = queue(a.CPUUpdates, desired.CPURequest, current.CPURequest)
	}
	return true
}

// resizable mirrors IsInPlacePodVerticalScalingAllowed
// (pkg/kubelet/allocation/features_linux.go): the gate is on, and, in
// v1.35, the pod is not a static pod (v1.36 resizes static pods too:
// difference D6).
func (c *computer) resizable() bool {
	if !c.f.Enabled(features.InPlacePodVerticalScaling) {
		return false
	}
	return c.f.Version().Minor() >= 36 || !phase.IsStaticPod(c.pod)
}

// startingResized mirrors startingResizedContainer: some container about
// to start has resources other than those last actuated.
func (c *computer) startingResized(list []v1.Container, refs []Ref) bool {
	for _, r := range refs {
		if r.Index < 0 || r.Index >= len(list) {
			continue
		}
		ctr := &list[r.Index]
		actuated := c.actuatedContainer(ctr)
		if c.containerResources(c.pod.Spec.Resources, &ctr.Resources) != c.containerResources(c.actuatedPod(), &actuated) {
			return true
		}
	}
	return false
}

// podLevelResizeAction mirrors computePodLevelResourcesResizeAction.
func (c *computer) podLevelResizeAction() bool {
	if !c.f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) {
		return false
	}
	return podResources(c.pod.Spec.Resources) != podResources(c.actuatedPodLevel())
}

// volumeResizeAction mirrors computeVolumeResizeAction: with gate
// InPlacePodVerticalScalingMemoryBackedVolumes, every memory-backed
// emptyDir with a non-zero size limit grows when no limit was actuated or
// the actuated one is smaller, and shrinks when it is larger (see
// actuatedEmptyDir for a limit the record leaves out).
func (c *computer) volumeResizeAction() {
	if !c.f.Enabled(features.InPlacePodVerticalScalingMemoryBackedVolumes) {
		return
	}
	a := &c.a
	for i := range c.pod.Spec.Volumes {
		vol := &c.pod.Spec.Volumes[i]
		ed := vol.EmptyDir
		if ed == nil || ed.Medium != v1.StorageMediumMemory || ed.SizeLimit == nil || ed.SizeLimit.IsZero() {
			continue
		}
		actuated, ok := c.actuatedEmptyDir(vol.Name, *ed.SizeLimit)
		if !ok {
			a.VolumesToUpsize = append(a.VolumesToUpsize, vol.Name)
			continue
		}
		switch ed.SizeLimit.Cmp(actuated) {
		case 1:
			a.VolumesToUpsize = append(a.VolumesToUpsize, vol.Name)
		case -1:
			a.VolumesToDownsize = append(a.VolumesToDownsize, vol.Name)
		}
	}
}
