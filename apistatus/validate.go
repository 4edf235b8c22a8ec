package apistatus

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
)

// Validate reports a key of o.StartFailures that names no container of pod
// (Compute would ignore it), with the nearest name. It returns nil when
// every key matches, else every problem joined (errors.Join). A nil pod
// has nothing to match.
func (o Options) Validate(pod *v1.Pod) error {
	if pod == nil {
		return nil
	}
	errs := keycheck.Names("StartFailures", keycheck.Sorted(o.StartFailures), pod, keycheck.ContainerNames(pod))
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("apistatus.Options: %w", errors.Join(errs...))
}
