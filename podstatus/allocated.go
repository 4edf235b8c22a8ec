package podstatus

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// podRequests is the pod-level status.allocatedResources the kubelet
// writes with gate InPlacePodLevelResourcesVerticalScaling:
// resourcehelper.PodRequests (k8s.io/component-helpers/resource) of the
// allocated pod, with the options generateAPIPodStatus passes (pod-level
// resources unless gate PodLevelResources is off; container status
// resources and DRA claim statuses not used). That is: the sum of the
// regular containers' and sidecars' requests, raised to what the
// initialization needs at its peak (each regular init container's requests
// plus those of the sidecars started before it); then, with pod-level
// requests of cpu, memory or hugepages, those replace the sum for their
// resource; then the pod overhead is added. The result is never nil, as
// the kubelet's.
func podRequests(pod *v1.Pod, f features.Set) v1.ResourceList {
	reqs := containersTotal(pod, func(r *v1.ResourceRequirements) v1.ResourceList { return r.Requests })
	if f.Enabled(features.PodLevelResources) && pod.Spec.Resources != nil {
		for name, q := range pod.Spec.Resources.Requests {
			if podLevelSupported(name) {
				reqs[name] = q.DeepCopy()
			}
		}
	}
	addList(reqs, pod.Spec.Overhead)
	return reqs
}

// containersTotal is what resourcehelper's PodRequests and PodLimits sum
// over the containers, of the list of each that which picks: the regular
// containers' and sidecars' lists summed, raised to the initialization's
// peak (each regular init container's list plus those of the sidecars
// started before it). Never nil.
func containersTotal(pod *v1.Pod, which func(*v1.ResourceRequirements) v1.ResourceList) v1.ResourceList {
	total := v1.ResourceList{}
	for i := range pod.Spec.Containers {
		addList(total, which(&pod.Spec.Containers[i].Resources))
	}
	// sidecars (the sum of the sidecars so far) is made at the first
	// sidecar with a list that is not empty, and an init container's use
	// only when both it and sidecars are not empty: otherwise the one
	// that is not empty (or neither) is the use itself, and maxList only
	// reads it.
	var sidecars, peak v1.ResourceList
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		own := which(&c.Resources)
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			addList(total, own)
			if len(own) == 0 {
				continue
			}
			if sidecars == nil {
				sidecars = v1.ResourceList{}
			}
			addList(sidecars, own)
			peak = maxList(peak, sidecars)
			continue
		}
		switch {
		case len(sidecars) == 0:
			peak = maxList(peak, own)
		case len(own) == 0:
			peak = maxList(peak, sidecars)
		default:
			use := v1.ResourceList{}
			addList(use, own)
			addList(use, sidecars)
			peak = maxList(peak, use)
		}
	}
	maxList(total, peak)
	return total
}

// PodLimits is the pod's limits as resourcehelper.PodLimits
// (k8s.io/component-helpers/resource) computes them for the pod cgroup
// (cm.ResourceConfigForPod): the containers' limits summed as the requests
// are (containersTotal); with gate PodLevelResources, each pod-level limit
// of cpu, memory or hugepages replaces the sum for its resource; then the
// overhead is added to each limit present and not zero. Never nil.
func PodLimits(pod *v1.Pod, f features.Set) v1.ResourceList {
	limits := containersTotal(pod, func(r *v1.ResourceRequirements) v1.ResourceList { return r.Limits })
	if f.Enabled(features.PodLevelResources) && pod.Spec.Resources != nil {
		for name, q := range pod.Spec.Resources.Limits {
			if podLevelSupported(name) {
				limits[name] = q.DeepCopy()
			}
		}
	}
	for name, q := range pod.Spec.Overhead {
		if have, ok := limits[name]; ok && !have.IsZero() {
			have.Add(q)
			limits[name] = have
		}
	}
	return limits
}

// PodRequests is the pod's requests as resourcehelper.PodRequests
// (k8s.io/component-helpers/resource) computes them with the options the
// scheduler's noderesources fitsRequest passes when the kubelet admits a
// pod or a resize (lifecycle/predicate.go Admit): the same sum as
// status.allocatedResources (see podRequests).
func PodRequests(pod *v1.Pod, f features.Set) v1.ResourceList { return podRequests(pod, f) }

// addList adds each quantity of add to list.
func addList(list, add v1.ResourceList) {
	for name, q := range add {
		if have, ok := list[name]; ok {
			have.Add(q)
			list[name] = have
		} else {
			list[name] = q.DeepCopy()
		}
	}
}

// maxList raises each quantity of list to that of other, adding the
// resources list lacks; a nil list is made.
func maxList(list, other v1.ResourceList) v1.ResourceList {
	if len(other) == 0 {
		return list
	}
	if list == nil {
		list = v1.ResourceList{}
	}
	for name, q := range other {
		if have, ok := list[name]; !ok || q.Cmp(have) > 0 {
			list[name] = q.DeepCopy()
		}
	}
	return list
}
