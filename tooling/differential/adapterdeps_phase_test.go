//go:build kubeletlogic_overlay

package differential

// Packages imported only by the phase and conditions adapters.
import (
	_ "k8s.io/kubernetes/pkg/kubelet/cm"
	_ "k8s.io/kubernetes/pkg/kubelet/metrics"
	_ "k8s.io/kubernetes/pkg/kubelet/prober"
	_ "k8s.io/kubernetes/pkg/kubelet/status"
	_ "k8s.io/utils/clock/testing"
)
