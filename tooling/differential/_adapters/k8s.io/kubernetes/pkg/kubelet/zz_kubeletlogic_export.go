// Adapter for the kubeletlogic differential tests; written for this project.
//
// This file lives in tooling/differential/_adapters/ (ignored by the go tool) and is
// added to the vendored k8s.io/kubernetes/pkg/kubelet package only through
// `go test -overlay` (see tooling/differential/setup.sh).

package kubelet

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletconfiginternal "k8s.io/kubernetes/pkg/kubelet/apis/config"
)

// KLNewCrashLoopBackOff calls newCrashLoopBackOff. Note the result order of
// the original: (max, initial).
func KLNewCrashLoopBackOff(cfg *kubeletconfiginternal.KubeletConfiguration) (boMax, boInitial time.Duration) {
	return newCrashLoopBackOff(cfg)
}

// KLNewCrashLoopBackOffForMax builds a KubeletConfiguration whose only set
// field is crashLoopBackOff.maxContainerRestartPeriod (nil = unset) and calls
// newCrashLoopBackOff. With gate KubeletCrashLoopBackOffMax on, the kubelet
// reads that field unconditionally (it is defaulted to 300s in a real config),
// so a nil value panics there just as it would in the kubelet.
func KLNewCrashLoopBackOffForMax(maxContainerRestartPeriod *time.Duration) (boMax, boInitial time.Duration) {
	cfg := &kubeletconfiginternal.KubeletConfiguration{}
	if maxContainerRestartPeriod != nil {
		cfg.CrashLoopBackOff.MaxContainerRestartPeriod = &metav1.Duration{Duration: *maxContainerRestartPeriod}
	}
	return newCrashLoopBackOff(cfg)
}
