// Adapter for the kubeletlogic side-by-side benchmarks
// (tooling/differential/bench_v1_37_test.go); written for this project. Added to the
// vendored package only through `go test -overlay`.

package kuberuntime

import (
	v1 "k8s.io/api/core/v1"
)

// KLBenchNewTerminationOrdering calls newTerminationOrdering and returns
// the number of its channels, so that the call is not optimised away
// (KLTerminationNewOrdering also describes the result, which a benchmark
// must not time).
func KLBenchNewTerminationOrdering(pod *v1.Pod, running []string) int {
	return len(newTerminationOrdering(pod, running).terminated)
}
