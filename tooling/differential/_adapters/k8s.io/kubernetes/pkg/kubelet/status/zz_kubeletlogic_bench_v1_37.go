// Adapter for the kubeletlogic side-by-side benchmarks
// (tooling/differential/bench_v1_37_test.go); written for this project. Added to the
// vendored package only through `go test -overlay`.

package status

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

var (
	klBenchManager = &manager{}
	klBenchLogger  = klog.Background()
	klBenchStatus  v1.PodStatus
)

// KLBenchCanBeDeleted calls canBeDeleted as KLTerminationCanBeDeleted does,
// on a manager, logger and cached status made once (the adapter for the
// tests builds a manager on every call, which a benchmark must not time).
func KLBenchCanBeDeleted(pod *v1.Pod, podIsFinished bool) bool {
	return klBenchManager.canBeDeleted(klBenchLogger, pod, klBenchStatus, podIsFinished)
}
