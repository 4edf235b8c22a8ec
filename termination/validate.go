package termination

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Validate reports what in o Plan would ignore for this pod and runtime
// state, so that a misspelt name is not silently a container that ignores
// the stop signal:
//
//   - a key of PreStop, ExitAfter or StopFails that names no container of
//     pod (for a nil pod, an orphaned runtime pod: no running instance of
//     st), with the nearest valid name;
//   - a PreStop entry for a container whose spec has no preStop hook, or
//     for a nil pod (no hook runs for an orphaned runtime pod);
//   - a negative PreStop or ExitAfter duration (Plan reads it as 0).
//
// A name of a container that has no running instance in st is accepted:
// Plan kills only running instances, and the same Options may serve
// several states. Validate returns nil when nothing is wrong, else every
// problem joined (errors.Join), keys in sorted order.
func (o Options) Validate(pod *v1.Pod, st *runtimestate.Pod) error {
	var known []string
	if pod != nil {
		known = keycheck.ContainerNames(pod)
	} else if st != nil {
		seen := map[string]bool{}
		for _, c := range st.Containers {
			if c.State == runtimestate.Running && !seen[c.Name] {
				seen[c.Name] = true
				known = append(known, c.Name)
			}
		}
	}
	var errs []error
	errs = append(errs, keycheck.Names("PreStop", keycheck.Sorted(o.PreStop), pod, known)...)
	errs = append(errs, keycheck.Names("ExitAfter", keycheck.Sorted(o.ExitAfter), pod, known)...)
	errs = append(errs, keycheck.Names("StopFails", keycheck.Sorted(o.StopFails), pod, known)...)
	for _, name := range keycheck.Sorted(o.PreStop) {
		if d := o.PreStop[name]; d < 0 {
			errs = append(errs, fmt.Errorf("PreStop[%q]: negative duration %s", name, d))
		}
		if pod == nil {
			errs = append(errs, fmt.Errorf("PreStop[%q]: no preStop hook runs for an orphaned runtime pod (nil pod)", name))
			continue
		}
		if _, c, ok := restart.KindOf(&pod.Spec, name); ok && (c.Lifecycle == nil || c.Lifecycle.PreStop == nil) {
			errs = append(errs, fmt.Errorf("PreStop[%q]: container %s has no preStop hook in its spec: the duration would be ignored", name, name))
		}
	}
	for _, name := range keycheck.Sorted(o.ExitAfter) {
		if d := o.ExitAfter[name]; d < 0 {
			errs = append(errs, fmt.Errorf("ExitAfter[%q]: negative duration %s", name, d))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("termination.Options: %w", errors.Join(errs...))
}
