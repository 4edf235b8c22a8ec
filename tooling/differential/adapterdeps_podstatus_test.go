//go:build kubeletlogic_overlay

package differential

// Packages imported only by the podstatus adapters.
import (
	_ "k8s.io/client-go/kubernetes"
	_ "k8s.io/client-go/listers/core/v1"
	_ "k8s.io/client-go/tools/cache"
	_ "k8s.io/kubernetes/pkg/kubelet/prober/results"
)
