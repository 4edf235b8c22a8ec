package sim

import (
	"errors"
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
)

// checkNames reports a container name of in's script or actions that names
// no container of pod (spec, with API defaults applied) nor an ephemeral
// container an action adds, with the nearest valid name; a kill of an
// ephemeral container before the action that adds it; and an ephemeral
// container added under a name the pod already uses.
func checkNames(pod *v1.Pod, in PodInput) error {
	known := keycheck.ContainerNames(pod)
	inSpec := map[string]bool{}
	for _, n := range known {
		inSpec[n] = true
	}
	added := map[string]Duration{} // ephemeral container -> when first added
	var errs []error
	for i, a := range in.Actions {
		if e := a.AddEphemeral; e != nil {
			if inSpec[e.Name] {
				errs = append(errs, fmt.Errorf("actions[%d] (%s at %s): pod %s already has a container %s: the API server would reject the ephemeral container", i, a, a.At, keycheck.PodName(pod), e.Name))
			}
			if _, ok := added[e.Name]; ok {
				errs = append(errs, fmt.Errorf("actions[%d] (%s at %s): another action adds an ephemeral container %s too: the API server would reject the second", i, a, a.At, e.Name))
			}
			if at, ok := added[e.Name]; !ok || a.At < at {
				added[e.Name] = a.At
			}
		}
	}
	var extra []string
	for name := range added {
		if !inSpec[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	known = append(known, extra...)

	errs = append(errs, keycheck.Names("script: containers", keycheck.Sorted(in.Script.Containers), pod, known)...)
	for i, a := range in.Actions {
		name := a.KillContainer
		if name == "" {
			continue
		}
		at, isAdded := added[name]
		switch {
		case !inSpec[name] && !isAdded:
			errs = append(errs, fmt.Errorf("actions[%d] (%s at %s): %s", i, a, a.At, keycheck.NotAContainerText(name, pod, known)))
		case !inSpec[name] && a.At < at:
			errs = append(errs, fmt.Errorf("actions[%d] (%s at %s): ephemeral container %s is added only at %s: there is nothing to kill yet", i, a, a.At, name, at))
		}
	}
	return errors.Join(errs...)
}
