package podstatus

import (
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// podQOS mirrors GetPodQOS in pkg/apis/core/v1/helper/qos: the class the
// pod's status already has, else ComputePodQOS with gate
// PodLevelResourcesFixKubeletQOSClass at its v1.37.2 default (on): with
// gate PodLevelResources and pod-level cpu, memory or hugepages requests or
// limits, the class of the pod-level resources; otherwise the classes of
// the init and regular containers combined.
func podQOS(pod *v1.Pod, f features.Set) v1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	if f.Enabled(features.PodLevelResources) && podLevelResourcesSet(pod.Spec.Resources) {
		return requirementsQOS(pod.Spec.Resources)
	}
	var q v1.PodQOSClass
	for _, list := range [2][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			cq := requirementsQOS(&list[i].Resources)
			switch {
			case cq == v1.PodQOSBurstable:
				return cq
			case q == "":
				q = cq
			case q != cq:
				return v1.PodQOSBurstable
			}
		}
	}
	if q == "" {
		q = v1.PodQOSBestEffort
	}
	return q
}

func podLevelResourcesSet(r *v1.ResourceRequirements) bool {
	if r == nil {
		return false
	}
	for n := range r.Requests {
		if podLevelSupported(n) {
			return true
		}
	}
	for n := range r.Limits {
		if podLevelSupported(n) {
			return true
		}
	}
	return false
}

// podLevelSupported: the resources pod-level requests and limits may set
// (cpu, memory, hugepages-*).
func podLevelSupported(n v1.ResourceName) bool {
	return n == v1.ResourceCPU || n == v1.ResourceMemory || strings.HasPrefix(string(n), v1.ResourceHugePagesPrefix)
}

// requirementsQOS: BestEffort without requests and limits; otherwise, over
// cpu and memory, Guaranteed when each has requests equal to limits and
// non-zero, BestEffort when each is zero, Burstable in any other mix.
func requirementsQOS(r *v1.ResourceRequirements) v1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return v1.PodQOSBestEffort
	}
	var q v1.PodQOSClass
	for _, n := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		rq := resourceQOS(r, n)
		switch {
		case rq == v1.PodQOSBurstable:
			return rq
		case q == "":
			q = rq
		case q != rq:
			return v1.PodQOSBurstable
		}
	}
	return q
}

func resourceQOS(r *v1.ResourceRequirements, n v1.ResourceName) v1.PodQOSClass {
	req, lim := r.Requests[n], r.Limits[n]
	switch {
	case !req.Equal(lim):
		return v1.PodQOSBurstable
	case req.IsZero():
		return v1.PodQOSBestEffort
	}
	return v1.PodQOSGuaranteed
}
