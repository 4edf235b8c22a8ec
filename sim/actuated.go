package sim

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// initActuated is the record an empty actuated record is filled with before
// a sync (see Memory.Actuated), the kubelet's SyncPod before
// computePodActions:
//
//   - The pod cgroup: the pod's first SyncPod creates it and records the
//     pod-level resources as the spec gives them (podCgroupRecord); later
//     syncs, later sandboxes included, find the cgroup and record nothing
//     (kubelet.go SyncPod: UpdateActuatedPodLevelResources under
//     !pcm.Exists, v1.37.2 kubelet.go:2212, v1.36.3 :2178, v1.35.4 :2102).
//   - v1.37 then calls InitializeActuatedPod (kubelet.go:2244), which
//     writes podactions.InitialActuated only when the checkpoint holds no
//     entry for the pod (kuberuntime_manager.go:835): a pod-level record
//     just written is such an entry, so a pod with pod-level resources
//     gets neither container records (each is recorded when started) nor
//     emptyDir limits (computePodActions then grows each volume once, as
//     for a missing record). Before v1.37 there is no such step, and no
//     emptyDir record at all (those kubelets do not resize volumes).
//
// A record is empty at the pod's first sync, or at a later one of a pod
// that had nothing to record: a pod without pod-level resources has none,
// whenever taken. When the runtime already shows a sandbox (a pod handed to
// Next running, or adopted), the cgroup was created before and the record
// is what the kubelet would have written as it went, from the spec: the
// pod-level resources as above; on v1.37 InitialActuated (a steady pod's
// containers and volumes are at their spec); before v1.37 the resources of
// each init and regular container that has an instance (StartContainer).
func initActuated(pod *v1.Pod, st *runtimestate.Pod, f features.Set) podactions.Actuated {
	started := st != nil && len(st.Sandboxes) > 0
	podLevel := podCgroupRecord(pod, f)
	if f.Version().Minor() >= 37 && (podLevel == nil || started) {
		a := podactions.InitialActuated(pod, f)
		a.Exact = false
		if a.Containers == nil {
			a.Containers = map[string]v1.ResourceRequirements{}
		}
		if podLevel != nil {
			a.Pod = podLevel
		}
		return a
	}
	a := podactions.Actuated{Containers: map[string]v1.ResourceRequirements{}, Pod: podLevel}
	if !started {
		return a
	}
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			if st.Newest(list[i].Name) != nil {
				a.Containers[list[i].Name] = *list[i].Resources.DeepCopy()
			}
		}
	}
	return a
}

// podCgroupRecord is the pod-level record the kubelet writes when it creates
// the pod's cgroup (UpdateActuatedPodLevelResources, v1.37.2
// kuberuntime_manager.go:2336, v1.36.3 :2167, v1.35.4 :2083): a copy of
// spec.resources with gate InPlacePodVerticalScaling when it has requests
// or limits; nil (nothing written) otherwise.
func podCgroupRecord(pod *v1.Pod, f features.Set) *v1.ResourceRequirements {
	r := pod.Spec.Resources
	if !f.Enabled(features.InPlacePodVerticalScaling) || r == nil || (r.Requests == nil && r.Limits == nil) {
		return nil
	}
	return r.DeepCopy()
}

// overActuated returns base with the entries of a written over it (a's Pod
// when not nil), and a's Exact.
func overActuated(base, a podactions.Actuated) podactions.Actuated {
	out := podactions.Actuated{Containers: map[string]v1.ResourceRequirements{}, Pod: base.Pod, Exact: a.Exact}
	for k, v := range base.Containers {
		out.Containers[k] = v
	}
	for k, v := range a.Containers {
		out.Containers[k] = v
	}
	if a.Pod != nil {
		out.Pod = a.Pod
	}
	for _, m := range []map[string]resource.Quantity{base.EmptyDirLimits, a.EmptyDirLimits} {
		for k, v := range m {
			if out.EmptyDirLimits == nil {
				out.EmptyDirLimits = map[string]resource.Quantity{}
			}
			out.EmptyDirLimits[k] = v
		}
	}
	return out
}

// withPodLimits is the container resources as the kubelet records and
// compares them with gate InPlacePodLevelResourcesVerticalScaling: a cpu or
// memory limit the container lacks (or has as zero) is the pod-level one
// when that is not zero (pkg/kubelet/util/util.go GetLimits, read by
// setActuatedContainerResources, kuberuntime_container.go:423 in v1.37.2,
// and isContainerResourceResizeInProgress, kuberuntime_manager.go:2395).
// Without the gate, or without pod-level limits, r itself.
func withPodLimits(r v1.ResourceRequirements, pod *v1.ResourceRequirements, f features.Set) v1.ResourceRequirements {
	if pod == nil || len(pod.Limits) == 0 || !f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) {
		return r
	}
	var out v1.ResourceList
	for _, rn := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		own := r.Limits[rn]
		p := pod.Limits[rn]
		if !own.IsZero() || p.IsZero() {
			continue
		}
		if out == nil {
			out = r.Limits.DeepCopy()
			if out == nil {
				out = v1.ResourceList{}
			}
		}
		out[rn] = p.DeepCopy()
	}
	if out == nil {
		return r
	}
	r.Limits = out
	return r
}
