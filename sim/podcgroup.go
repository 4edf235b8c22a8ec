package sim

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
)

// podCgroup is the cpu and memory part of the pod cgroup's configuration
// that doPodResizeAction compares and writes: the memory limit in bytes
// (memorySet false: none, the cgroup is left at its value), the cpu
// shares, and the CFS quota (quotaSet false: none).
type podCgroup struct {
	memory    int64
	memorySet bool
	shares    int64
	quota     int64
	quotaSet  bool
}

// podCgroupOf is the pod cgroup configuration the kubelet computes for pod
// (cm.ResourceConfigForPod, pkg/kubelet/cm/helpers_linux.go:126 in
// v1.35.4), with the CFS quota enforced (the kubelet's default
// cpuCFSQuota; DisableCPUQuotaWithExclusiveCPUs is not modelled) and
// without memory QoS (doPodResizeAction passes false before v1.37): the
// cpu shares from the pod's cpu request (podstatus.PodRequests: the
// pod-level request when set, the containers' aggregate otherwise, plus
// the overhead); the quota and memory limit from its limits (podLimits).
// A Guaranteed pod sets all three; a Burstable one the quota only when
// every container (or the pod level) declares a cpu limit, the memory
// limit likewise; a BestEffort one only the minimum shares.
func podCgroupOf(pod *v1.Pod, f features.Set) podCgroup {
	reqs := podstatus.PodRequests(pod, f)
	limits, cpuDeclared, memoryDeclared := podLimits(pod, f)
	var cpuRequest, cpuLimit, memoryLimit int64
	if q, ok := reqs[v1.ResourceCPU]; ok {
		cpuRequest = q.MilliValue()
	}
	if q, ok := limits[v1.ResourceCPU]; ok {
		cpuLimit = q.MilliValue()
	}
	if q, ok := limits[v1.ResourceMemory]; ok {
		memoryLimit = q.Value()
	}
	lr := linuxResources(cpuRequest, cpuLimit, memoryLimit)
	switch qos(pod, f) {
	case v1.PodQOSGuaranteed:
		return podCgroup{memory: memoryLimit, memorySet: true, shares: lr.CPUShares, quota: lr.CPUQuota, quotaSet: true}
	case v1.PodQOSBurstable:
		return podCgroup{memory: memoryLimit, memorySet: memoryDeclared, shares: lr.CPUShares, quota: lr.CPUQuota, quotaSet: cpuDeclared}
	}
	return podCgroup{shares: minShares}
}

// podLimits is the pod's limits as ResourceConfigForPod takes them
// (podstatus.PodLimits, resourcehelper.PodLimits), and whether the cpu and
// memory limits count as declared: a resource is undeclared when a
// container (an init container counted with the sidecars before it) has a
// zero limit of it, unless the pod level gives a non-zero one (gate
// PodLevelResources).
func podLimits(pod *v1.Pod, f features.Set) (limits v1.ResourceList, cpuDeclared, memoryDeclared bool) {
	cpuDeclared, memoryDeclared = true, true
	declared := func(l v1.ResourceList) {
		if l.Cpu().IsZero() {
			cpuDeclared = false
		}
		if l.Memory().IsZero() {
			memoryDeclared = false
		}
	}
	for i := range pod.Spec.Containers {
		declared(pod.Spec.Containers[i].Resources.Limits)
	}
	sidecars := v1.ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if restart.IsSidecar(c) {
			addQuantities(sidecars, c.Resources.Limits)
			declared(sidecars)
			continue
		}
		use := v1.ResourceList{}
		addQuantities(use, c.Resources.Limits)
		addQuantities(use, sidecars)
		declared(use)
	}
	if r := pod.Spec.Resources; f.Enabled(features.PodLevelResources) && r != nil {
		if !r.Limits.Cpu().IsZero() {
			cpuDeclared = true
		}
		if !r.Limits.Memory().IsZero() {
			memoryDeclared = true
		}
	}
	return podstatus.PodLimits(pod, f), cpuDeclared, memoryDeclared
}

// addQuantities adds each quantity of add to list.
func addQuantities(list, add v1.ResourceList) {
	for name, q := range add {
		if have, ok := list[name]; ok {
			have.Add(q)
			list[name] = have
		} else {
			list[name] = q.DeepCopy()
		}
	}
}

// actuatedPod is pod as its pod cgroup was last sized, for the cpu and
// memory that doPodResizeAction reads back from the cgroup
// (GetPodCgroupConfig): the pod-level cpu and memory from the actuated
// pod-level record (spec.resources when there is none), each container's
// resources from its actuated record (its spec when it has none: a
// container never started was sized from its spec when the cgroup was).
// Approximation: the kubelet reads the cgroup itself; the records follow
// every write the simulation makes, so they give the same values, except
// for a container resized while it had no record.
func actuatedPod(pod *v1.Pod, a podactions.Actuated) *v1.Pod {
	out := pod.DeepCopy()
	if a.Pod != nil && out.Spec.Resources != nil {
		for _, pair := range []struct {
			to   *v1.ResourceList
			from v1.ResourceList
		}{
			{&out.Spec.Resources.Requests, a.Pod.Requests}, {&out.Spec.Resources.Limits, a.Pod.Limits},
		} {
			l := v1.ResourceList{}
			for name, q := range *pair.to {
				if name != v1.ResourceCPU && name != v1.ResourceMemory {
					l[name] = q
				}
			}
			for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
				if q, ok := pair.from[name]; ok {
					l[name] = q.DeepCopy()
				}
			}
			*pair.to = l
		}
	}
	for _, list := range [][]v1.Container{out.Spec.InitContainers, out.Spec.Containers} {
		for i := range list {
			if r, ok := a.Containers[list[i].Name]; ok {
				list[i].Resources.Requests = r.Requests.DeepCopy()
				list[i].Resources.Limits = r.Limits.DeepCopy()
			}
		}
	}
	return out
}

// recordPodLevel is updateActuatedPodLevelResources (doPodResizeAction's
// closure: v1.37.2 kuberuntime_manager.go:931, v1.36.3 :867, v1.35.4
// :822) for resource rn: into the actuated pod-level record (an empty one
// when there is none) it writes the allocated pod-level request and limit
// of rn, each when the allocated requests (limits) are given at all, an
// absent one as zero; other entries are kept. Nothing without
// spec.resources.
func recordPodLevel(a *podactions.Actuated, pod *v1.Pod, rn v1.ResourceName) {
	alloc := pod.Spec.Resources
	if alloc == nil {
		return
	}
	rec := &v1.ResourceRequirements{}
	if a.Pod != nil {
		rec = a.Pod.DeepCopy()
	}
	set := func(to *v1.ResourceList, from v1.ResourceList) {
		if from == nil {
			return
		}
		if *to == nil {
			*to = v1.ResourceList{}
		}
		q := from[rn]
		(*to)[rn] = q.DeepCopy()
	}
	set(&rec.Requests, alloc.Requests)
	set(&rec.Limits, alloc.Limits)
	a.Pod = rec
}
