package conditions

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// sandboxChanged reports whether the kubelet would create a new sandbox for
// pod, and the message it gives (runtimeutil.PodSandboxChanged in
// pkg/kubelet/kuberuntime/util/util.go, as runtimestate.SandboxChanged
// mirrors it). A nil st has no sandbox.
func sandboxChanged(pod *v1.Pod, st *runtimestate.Pod) (bool, string) {
	c := runtimestate.SandboxChanged(pod, st)
	return c.Changed, c.Message
}
