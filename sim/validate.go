package sim

import (
	"errors"
	"fmt"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/podactions"
)

// Validate reports the keys of in that Sync would ignore, each with the
// name it most likely meant:
//
//   - a key of Memory.Probes that is a container name rather than an
//     instance ID of Runtime (reported with the ID of the container's
//     newest instance), or a container ID with its runtime scheme
//     ("containerd://…"). Other keys are accepted: the kubelet holds the
//     results of an instance the runtime no longer lists until its probe
//     worker notices, so a Memory carried from one sync to the next may
//     hold them;
//   - a key of Containers that is no instance ID of Runtime;
//   - a key of Memory.StartFailures, Logs or Created that names no
//     container of the pod (nor of an instance of Runtime);
//   - a key of Memory.Actuated that matches nothing (see
//     podactions.Options.Validate).
//
// It returns nil when every key matches, else every problem joined
// (errors.Join). A nil Pod has nothing to match. Simulate builds its
// inputs to Sync itself and does not need it.
func (in SyncInput) Validate() error {
	pod := in.Pod
	if pod == nil {
		return nil
	}
	known := keycheck.ContainerNames(pod)
	seen := map[string]bool{}
	for _, n := range known {
		seen[n] = true
	}
	if in.Runtime != nil {
		for _, c := range in.Runtime.Containers {
			if !seen[c.Name] {
				seen[c.Name] = true
				known = append(known, c.Name)
			}
		}
	}
	var errs []error
	errs = append(errs, keycheck.InstanceKeys("Memory.Probes", keycheck.Sorted(in.Memory.Probes), pod, in.Runtime, false)...)
	errs = append(errs, keycheck.InstanceKeys("Containers", keycheck.Sorted(in.Containers), pod, in.Runtime, true)...)
	errs = append(errs, keycheck.Names("Memory.StartFailures", keycheck.Sorted(in.Memory.StartFailures), pod, known)...)
	errs = append(errs, keycheck.Names("Logs", keycheck.Sorted(in.Logs), pod, known)...)
	errs = append(errs, keycheck.Names("Created", keycheck.Sorted(in.Created), pod, known)...)
	if err := (podactions.Options{Actuated: in.Memory.Actuated}).Validate(pod, in.Runtime); err != nil {
		errs = append(errs, fmt.Errorf("Memory.Actuated: %w", err))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("sim.SyncInput: %w", errors.Join(errs...))
}
