package podactions

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/internal/nearest"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Validate reports the keys of o that Compute would ignore for this pod and
// runtime state, each with the name it most likely meant:
//
//   - a key of Probes that is no instance ID of st (runtimestate.Container.ID):
//     a container name is reported as keyed by name, with the ID of the
//     container's newest instance; a container ID with its runtime scheme
//     ("containerd://…") with its bare ID; any other key with the nearest ID;
//   - a key of Actuated.Containers that names no init or regular container
//     of pod (ephemeral containers have no actuated resources);
//   - a key of Actuated.EmptyDirLimits that names no memory-backed emptyDir
//     volume of pod with a sizeLimit (the only volumes the kubelet resizes).
//
// It returns nil when every key matches, else every problem joined
// (errors.Join). A nil pod has nothing to match. Compute itself does not
// call it, so that its answer stays the kubelet's for any input; the
// command and the simulator validate what users write.
func (o Options) Validate(pod *v1.Pod, st *runtimestate.Pod) error {
	if pod == nil {
		return nil
	}
	var errs []error
	errs = append(errs, keycheck.InstanceKeys("Probes", keycheck.Sorted(o.Probes), pod, st, true)...)
	var resizable []string
	for _, c := range pod.Spec.InitContainers {
		resizable = append(resizable, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		resizable = append(resizable, c.Name)
	}
	errs = append(errs, keycheck.Names("Actuated.Containers", keycheck.Sorted(o.Actuated.Containers), pod, resizable)...)
	var vols, all []string
	for _, v := range pod.Spec.Volumes {
		all = append(all, v.Name)
		if ed := v.EmptyDir; ed != nil && ed.Medium == v1.StorageMediumMemory && ed.SizeLimit != nil && !ed.SizeLimit.IsZero() {
			vols = append(vols, v.Name)
		}
	}
	for _, k := range keycheck.Sorted(o.Actuated.EmptyDirLimits) {
		if contains(vols, k) {
			continue
		}
		if contains(all, k) {
			errs = append(errs, fmt.Errorf("Actuated.EmptyDirLimits[%q]: volume %s of pod %s is not a memory-backed emptyDir with a sizeLimit: the kubelet never resizes it", k, k, keycheck.PodName(pod)))
			continue
		}
		errs = append(errs, fmt.Errorf("Actuated.EmptyDirLimits[%q]: %q is not a volume of pod %s%s", k, k, keycheck.PodName(pod), nearest.Suggest(k, all)))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("podactions.Options: %w", errors.Join(errs...))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
