//go:build kubeletlogic_overlay

package differential

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubeletscheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme"
	kubeletconfigvalidation "k8s.io/kubernetes/pkg/kubelet/apis/config/validation"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
)

// The node's configuration, drawn for both sides: the library gets it as
// restart.BackOffSettings, the kubelet as a KubeletConfiguration file
// (v1beta1) that its own scheme defaults and converts and its own
// validation accepts or refuses.
//
// The only kubelet configuration value a library decision reads is
// crashLoopBackOff.maxContainerRestartPeriod (restart.BackOffSettings; no
// Options of another package models a configuration value: node IPs, which
// podstatus takes, are drawn by the podstatus test).

var kubeletConfigScheme struct {
	once   sync.Once
	scheme *runtime.Scheme
	err    error
}

// kubeletNodeConfig runs a configuration file with featureGates f and
// crashLoopBackOff.maxContainerRestartPeriod max (nil: absent) through the
// kubelet's pipeline: defaulting (which fills in 300 s when gate
// KubeletCrashLoopBackOffMax is on), conversion to the internal type, and
// ValidateKubeletConfiguration against the kubelet's current gates (which the
// caller has set to f). It returns the configuration the kubelet would run
// with, or the validation error that would stop it.
func kubeletNodeConfig(f features.Set, max *time.Duration) (*kubeletconfig.KubeletConfiguration, error) {
	kubeletConfigScheme.once.Do(func() {
		kubeletConfigScheme.scheme, _, kubeletConfigScheme.err = kubeletscheme.NewSchemeAndCodecs()
	})
	if kubeletConfigScheme.err != nil {
		return nil, kubeletConfigScheme.err
	}
	s := kubeletConfigScheme.scheme
	// failCgroupV1 defaults to true, which makes validation look at the
	// host's cgroup version: a fact of the machine running the tests, not of
	// the configuration.
	noCgroupV1Check := false
	ext := &kubeletconfigv1beta1.KubeletConfiguration{FeatureGates: map[string]bool{}, FailCgroupV1: &noCgroupV1Check}
	for _, g := range kubeletVersion.Gates() {
		if !kubeletVersion.Locked(g) {
			ext.FeatureGates[string(g)] = f.Enabled(g)
		}
	}
	if max != nil {
		ext.CrashLoopBackOff.MaxContainerRestartPeriod = &metav1.Duration{Duration: *max}
	}
	s.Default(ext)
	in := &kubeletconfig.KubeletConfiguration{}
	if err := s.Convert(ext, in, nil); err != nil {
		return nil, err
	}
	if err := kubeletconfigvalidation.ValidateKubeletConfiguration(in, utilfeature.DefaultFeatureGate); err != nil {
		return nil, err
	}
	return in, nil
}

// drawMaxRestartPeriod draws a crashLoopBackOff.maxContainerRestartPeriod
// in nanoseconds: whole seconds, fractions of a second, the edges of what
// the kubelet accepts (it validates the value truncated to milliseconds,
// so 1 s to 300.000999999 s), and, unless validOnly, values outside it.
func drawMaxRestartPeriod(rt *rapid.T, validOnly bool) time.Duration {
	const s, ms = time.Second, time.Millisecond
	gens := []*rapid.Generator[time.Duration]{
		rapid.Map(rapid.Int64Range(1, 300), func(x int64) time.Duration { return time.Duration(x) * s }),
		rapid.Map(rapid.Int64Range(int64(s), int64(300*s+ms-1)), func(x int64) time.Duration { return time.Duration(x) }),
		rapid.SampledFrom([]time.Duration{s, s + 1, 1500 * ms, 9999 * ms, 10 * s, 10*s + 1, 59 * s, 60 * s, 60*s + 1, 299 * s, 300 * s, 300*s + 500*time.Microsecond, 300*s + ms - 1}),
	}
	if !validOnly {
		gens = append(gens,
			rapid.SampledFrom([]time.Duration{0, 1, s - 1, 999 * ms, 300*s + ms, 300*s + 500*ms, 301 * s, -s}),
			rapid.Map(rapid.Int64Range(-int64(s), int64(400*s)), func(x int64) time.Duration { return time.Duration(x) }),
		)
	}
	return rapid.OneOf(gens...).Draw(rt, "maxContainerRestartPeriod")
}

// drawBackOffSettings draws a node configuration a kubelet with gates f
// accepts: with gate KubeletCrashLoopBackOffMax, a maximum one case in five
// unset (the kubelet's default, 300 s) and otherwise drawn; without it,
// unset (the kubelet refuses a value then).
func drawBackOffSettings(rt *rapid.T, f features.Set) restart.BackOffSettings {
	if !f.Enabled(features.KubeletCrashLoopBackOffMax) || rapid.IntRange(0, 4).Draw(rt, "maxContainerRestartPeriod unset") == 0 {
		return restart.BackOffSettings{}
	}
	d := drawMaxRestartPeriod(rt, true)
	return restart.BackOffSettings{MaxContainerRestartPeriod: &d}
}
