//go:build kubeletlogic_overlay

package differential

import (
	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	runtimeutil "k8s.io/kubernetes/pkg/kubelet/kuberuntime/util"

	"github.com/kubeletlogic/kubeletlogic/podactions"
)

// kubeletSandboxChanged is the kubelet's PodSandboxChanged as a
// podactions.SandboxCheck; since v1.37 it also gives the message, which is
// compared.
func kubeletSandboxChanged(pod *v1.Pod, ks *kubecontainer.PodStatus) (podactions.SandboxCheck, bool) {
	changed, attempt, id, msg := runtimeutil.PodSandboxChanged(pod, ks)
	return podactions.SandboxCheck{Changed: changed, Attempt: attempt, SandboxID: id, Message: msg}, true
}
