package podgen

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podactions"
)

// Actuated returns a generator of the resources the kubelet last actuated
// for pod, as podactions reads them: per init and regular container none
// recorded, the spec's own, or the spec's with values changed, removed or
// added; pod-level resources the same way (or some when the spec has none);
// per memory-backed emptyDir with a size limit none recorded, the same,
// a smaller or a larger limit. Pod is read when Actuated is called.
// "None recorded" leaves the entry out: it reads as the spec's unless the
// caller sets Exact (podactions.Actuated), which the differential test
// against computePodActions alone does. Exact is never drawn.
func Actuated(pod *v1.Pod) *rapid.Generator[podactions.Actuated] {
	if pod == nil {
		return rapid.Just(podactions.Actuated{})
	}
	var ctrs []*v1.Container
	for i := range pod.Spec.InitContainers {
		ctrs = append(ctrs, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		ctrs = append(ctrs, &pod.Spec.Containers[i])
	}
	podRR := pod.Spec.Resources
	var vols []*v1.Volume
	for i := range pod.Spec.Volumes {
		if ed := pod.Spec.Volumes[i].EmptyDir; ed != nil && ed.Medium == v1.StorageMediumMemory && ed.SizeLimit != nil {
			vols = append(vols, &pod.Spec.Volumes[i])
		}
	}
	return rapid.Custom(func(t *rapid.T) podactions.Actuated {
		var a podactions.Actuated
		for _, c := range ctrs {
			l := c.Name + " actuated"
			switch weighted(t, l, 50, 20, 30) { // same, none, changed
			case 0:
				putActuated(&a, c.Name, *c.Resources.DeepCopy())
			case 2:
				putActuated(&a, c.Name, changedResources(t, l, c.Resources))
			}
		}
		switch {
		case podRR != nil && weighted(t, "pod-level actuated", 50, 20, 30) == 0:
			a.Pod = podRR.DeepCopy()
		case podRR != nil || chance(t, 20, "pod-level actuated without pod-level resources"):
			var base v1.ResourceRequirements
			if podRR != nil {
				base = *podRR
			}
			if chance(t, 85, "pod-level actuated recorded") {
				rr := changedResources(t, "pod-level actuated", base)
				a.Pod = &rr
			}
		}
		for _, v := range vols {
			l := v.Name + " actuated size"
			var q resource.Quantity
			switch weighted(t, l, 40, 25, 15, 20) { // same, none, smaller, larger
			case 0:
				q = v.EmptyDir.SizeLimit.DeepCopy()
			case 1:
				continue
			case 2:
				q = mustQuantity("32Mi")
			case 3:
				q = mustQuantity("2Gi")
			}
			if a.EmptyDirLimits == nil {
				a.EmptyDirLimits = map[string]resource.Quantity{}
			}
			a.EmptyDirLimits[v.Name] = q
		}
		return a
	})
}

func putActuated(a *podactions.Actuated, name string, rr v1.ResourceRequirements) {
	if a.Containers == nil {
		a.Containers = map[string]v1.ResourceRequirements{}
	}
	a.Containers[name] = rr
}

// changedResources returns rr with one to three values changed, removed or
// added.
func changedResources(t *rapid.T, l string, rr v1.ResourceRequirements) v1.ResourceRequirements {
	out := *rr.DeepCopy()
	for i := range rapid.IntRange(1, 3).Draw(t, l+" changes") {
		li := fmt.Sprintf("%s change %d", l, i)
		name, pool := v1.ResourceCPU, cpuPool
		if chance(t, 50, li+" memory") {
			name, pool = v1.ResourceMemory, memPool
		}
		list := &out.Requests
		if chance(t, 50, li+" limit") {
			list = &out.Limits
		}
		if chance(t, 20, li+" remove") {
			delete(*list, name)
			continue
		}
		if *list == nil {
			*list = v1.ResourceList{}
		}
		(*list)[name] = mustQuantity(pick(t, li+" value", pool))
	}
	return out
}

// PodActionsOptions returns a generator of podactions.Options for case c:
// its probe results, the RestartAllContainers mark about a quarter of the
// time, and actuated resources from Actuated.
func PodActionsOptions(c Case) *rapid.Generator[podactions.Options] {
	act := Actuated(c.Pod)
	probes := c.Probes
	return rapid.Custom(func(t *rapid.T) podactions.Options {
		return podactions.Options{
			Features:             c.Features,
			Probes:               probes,
			RestartAllContainers: chance(t, 25, "restart all containers"),
			Actuated:             act.Draw(t, "actuated"),
		}
	})
}
