package conditions

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// The messages of PodReadyToStartContainers=False
// (pkg/kubelet/types/constants.go): the reasons PodSandboxChanged gives.
const (
	MessageNoPodSandbox          = podactions.MsgNoPodSandbox
	MessageMultipleSandboxes     = podactions.MsgMultipleSandboxes
	MessageSandboxNotReady       = podactions.MsgSandboxNotReady
	MessageNetworkNamespaceMode  = podactions.MsgNetworkNamespaceMode
	MessageSandboxHasNoIPAddress = podactions.MsgNoIPAddress
)

// sandboxChanged reports whether the kubelet would create a new sandbox for
// pod, and the message it gives (runtimeutil.PodSandboxChanged in
// pkg/kubelet/kuberuntime/util/util.go, as podactions.SandboxChanged
// mirrors it). A nil st has no sandbox.
func sandboxChanged(pod *v1.Pod, st *runtimestate.Pod) (bool, string) {
	c := podactions.SandboxChanged(pod, st)
	return c.Changed, c.Message
}
