package sim

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// initActuated is the record an empty actuated record is filled with before
// a sync (see Memory.Actuated). v1.37 writes podactions.InitialActuated
// (InitializeActuatedPod, D21). Older kubelets write nothing there; the
// record is then what this simulator writes as it goes, for what st shows
// already happened: the pod-level resources and memory-backed emptyDir
// limits once a sandbox exists (RunPodSandbox), each init and regular
// container's resources once it has an instance (StartContainer).
func initActuated(pod *v1.Pod, st *runtimestate.Pod, f features.Set) podactions.Actuated {
	if f.Version().Minor() >= 37 {
		a := podactions.InitialActuated(pod, f)
		a.Exact = false
		if a.Containers == nil {
			a.Containers = map[string]v1.ResourceRequirements{}
		}
		return a
	}
	a := podactions.Actuated{Containers: map[string]v1.ResourceRequirements{}}
	if st == nil {
		return a
	}
	if len(st.Sandboxes) > 0 {
		if pod.Spec.Resources != nil {
			a.Pod = pod.Spec.Resources.DeepCopy()
		}
		for _, v := range pod.Spec.Volumes {
			if v.EmptyDir != nil && v.EmptyDir.Medium == v1.StorageMediumMemory && v.EmptyDir.SizeLimit != nil {
				if a.EmptyDirLimits == nil {
					a.EmptyDirLimits = map[string]resource.Quantity{}
				}
				a.EmptyDirLimits[v.Name] = v.EmptyDir.SizeLimit.DeepCopy()
			}
		}
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
