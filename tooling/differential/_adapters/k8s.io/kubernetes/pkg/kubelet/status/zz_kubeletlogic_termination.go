// Adapter for the kubeletlogic differential tests (termination); written for
// this project. Added to the vendored package only through `go test -overlay`.

package status

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// KLTerminationCanBeDeleted calls manager.canBeDeleted (which reads none of
// the manager's fields) with an empty cached status.
func KLTerminationCanBeDeleted(pod *v1.Pod, podIsFinished bool) bool {
	return (&manager{}).canBeDeleted(klog.Background(), pod, v1.PodStatus{}, podIsFinished)
}
