//go:build kubeletlogic_overlay

package differential

// Packages imported only by the termination adapters in _adapters/.
import (
	_ "k8s.io/apimachinery/pkg/types"
	_ "k8s.io/kubernetes/pkg/kubelet/allocation"
	_ "k8s.io/kubernetes/pkg/kubelet/status"
	_ "k8s.io/kubernetes/pkg/kubelet/types"
	_ "k8s.io/utils/clock/testing"
)
