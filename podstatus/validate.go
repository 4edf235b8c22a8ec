package podstatus

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Validate reports the keys of o that Compute would ignore for this pod and
// runtime state, each with the name it most likely meant:
//
//   - a key of Probes that is no instance ID of st (runtimestate.Container.ID):
//     a container name is reported as keyed by name, with the ID of the
//     container's newest instance; a container ID with its runtime scheme
//     ("containerd://…") with its bare ID; any other key with the nearest ID;
//   - a key of StartFailures or ProbeWorkers that names no container of pod;
//   - a zero Now for a pod with spec.activeDeadlineSeconds: the deadline is
//     never reached at the zero time, so Compute never fails the pod on it.
//
// It returns nil when every key matches, else every problem joined
// (errors.Join). A nil pod has nothing to match.
func (o Options) Validate(pod *v1.Pod, st *runtimestate.Pod) error {
	if pod == nil {
		return nil
	}
	known := keycheck.ContainerNames(pod)
	var errs []error
	errs = append(errs, keycheck.InstanceKeys("Probes", keycheck.Sorted(o.Probes), pod, st, true)...)
	errs = append(errs, keycheck.Names("StartFailures", keycheck.Sorted(o.StartFailures), pod, known)...)
	errs = append(errs, keycheck.Names("ProbeWorkers", keycheck.Sorted(o.ProbeWorkers), pod, known)...)
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil && o.Now.IsZero() {
		errs = append(errs, fmt.Errorf("Now is zero: the pod's activeDeadlineSeconds (%ds) is never reached at that clock; give the kubelet's time", *d))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("podstatus.Options: %w", errors.Join(errs...))
}
