// Adapter for the kubeletlogic differential tests; written for this project.
//
// What differs between kubelet minors in the kubelet package's internals
// that the other adapters use; each kubelet version the suite compiles
// against has its own copy of this file (see differential/setup.sh). This
// one is for kubelet v1.36.

package kubelet

import (
	"k8s.io/apimachinery/pkg/types"
)

// ClearPodResizePendingCondition does nothing: the stand-in status manager
// keeps the resize conditions a test hands it.
func (m *klPhaseStatusManager) ClearPodResizePendingCondition(types.UID) {
}
