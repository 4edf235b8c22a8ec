//go:build kubeletlogic_overlay

package differential

import (
	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	runtimeutil "k8s.io/kubernetes/pkg/kubelet/kuberuntime/util"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// kubeletSandboxChanged is the kubelet's PodSandboxChanged as a
// runtimestate.SandboxCheck. Kubelet v1.35 gives no message (v1.37 added
// it), so there is none to compare.
func kubeletSandboxChanged(pod *v1.Pod, ks *kubecontainer.PodStatus) (runtimestate.SandboxCheck, bool) {
	changed, attempt, id := runtimeutil.PodSandboxChanged(pod, ks)
	return runtimestate.SandboxCheck{Changed: changed, Attempt: attempt, SandboxID: id}, false
}
