// Adapter for the kubeletlogic differential tests (conditions); written for
// this project. Added to the vendored k8s.io/kubernetes/pkg/kubelet/status
// package only through `go test -overlay` (see tooling/differential/setup.sh).

package status

import (
	v1 "k8s.io/api/core/v1"
)

// KLConditionsUpdateLastTransitionTime calls updateLastTransitionTime on
// status (which it changes) with oldStatus.
func KLConditionsUpdateLastTransitionTime(status, oldStatus *v1.PodStatus, conditionType v1.PodConditionType) {
	updateLastTransitionTime(status, oldStatus, conditionType)
}
