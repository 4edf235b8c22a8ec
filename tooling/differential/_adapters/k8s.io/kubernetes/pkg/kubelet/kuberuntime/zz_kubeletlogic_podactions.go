// Adapter for the kubeletlogic podactions differential tests and
// benchmarks; written for this project. Overlaid on the vendored
// kuberuntime package by tooling/differential/setup.sh, like
// zz_kubeletlogic_export.go, whose shared manager it uses.

package kuberuntime

import (
	"context"

	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// KLPodActionsSetProbes stores liveness and startup results (keys and values
// as for KLComputePodActions) on the shared manager and returns a function
// that removes them again. Meant for benchmarks, which store the results of
// every case once and then call KLPodActionsComputeOnly in the timed loop.
func KLPodActionsSetProbes(pod *v1.Pod, status *kubecontainer.PodStatus, liveness, startup map[string]string) (remove func()) {
	klMu.Lock()
	defer klMu.Unlock()
	m := klGetManager()
	rl := klSetProbes(m.livenessManager, liveness, pod, status)
	rs := klSetProbes(m.startupManager, startup, pod, status)
	return func() {
		klMu.Lock()
		defer klMu.Unlock()
		rl()
		rs()
	}
}

// KLPodActionsComputeOnly calls computePodActions on the shared manager with
// whatever probe results and actuated resources it holds, and returns only
// the number of containers to kill and to start (so that the call is not
// optimised away), without converting the result. Meant for benchmarks.
func KLPodActionsComputeOnly(pod *v1.Pod, status *kubecontainer.PodStatus, restartAll bool) int {
	klMu.Lock()
	defer klMu.Unlock()
	a := klGetManager().computePodActions(context.Background(), pod, status, restartAll)
	return len(a.ContainersToKill) + len(a.ContainersToStart) + len(a.InitContainersToStart)
}
