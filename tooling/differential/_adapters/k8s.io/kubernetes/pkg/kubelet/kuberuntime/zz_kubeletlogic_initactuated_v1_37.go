// Adapter for the kubeletlogic differential tests; written for this project.
//
// The kubelet's own initialisation of the actuated-resources checkpoint,
// which SyncPod calls before computePodActions since v1.37 (older kubelets
// have no InitializeActuatedPod: this file is for v1.37 only, see
// tooling/differential/setup.sh).

package kuberuntime

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// KLInitializeActuatedPod calls the shared manager's InitializeActuatedPod
// for pod, as SyncPod does: it writes the pod's record from pod (the
// allocated pod) unless the store holds one.
func KLInitializeActuatedPod(pod *v1.Pod) {
	klMu.Lock()
	defer klMu.Unlock()
	klGetManager().InitializeActuatedPod(klog.Background(), pod)
}
