package podactions

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// The kubelet's texts for why a pod's sandbox must be (re)created; see
// runtimestate.
const (
	MsgNoPodSandbox         = runtimestate.MsgNoPodSandbox
	MsgMultipleSandboxes    = runtimestate.MsgMultipleSandboxes
	MsgSandboxNotReady      = runtimestate.MsgSandboxNotReady
	MsgNetworkNamespaceMode = runtimestate.MsgNetworkNamespaceMode
	MsgNoIPAddress          = runtimestate.MsgNoIPAddress
)

// SandboxCheck is the answer of SandboxChanged.
type SandboxCheck = runtimestate.SandboxCheck

// SandboxChanged is runtimestate.SandboxChanged (the kubelet's
// PodSandboxChanged), the first check of Compute.
func SandboxChanged(pod *v1.Pod, st *runtimestate.Pod) SandboxCheck {
	return runtimestate.SandboxChanged(pod, st)
}
