package termination

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// MinimumGracePeriodSeconds is the least time the kubelet ever gives a
// container between the stop signal and SIGKILL
// (minimumGracePeriodInSeconds, pkg/kubelet/kuberuntime/kuberuntime_manager.go).
// It is also the grace of a container whose pod sets neither
// deletionGracePeriodSeconds nor terminationGracePeriodSeconds.
const MinimumGracePeriodSeconds int64 = 2

// ContainerGracePeriod returns the grace period, in seconds, the kubelet
// computes for killing container c of pod for reason, before any override
// and before the preStop and ordering deductions. It mirrors
// setTerminationGracePeriod in pkg/kubelet/kuberuntime/kuberuntime_container.go:
//
//  1. the pod's deletionGracePeriodSeconds, when set, wins over everything;
//  2. else, when the pod sets terminationGracePeriodSeconds: the startup
//     (reason StartupProbe) or liveness (reason LivenessProbe) probe's own
//     terminationGracePeriodSeconds when that probe sets it, even when it is
//     larger than the pod's; otherwise the pod's value;
//  3. else MinimumGracePeriodSeconds.
//
// A nil pod reads as a pod with neither value set (2 s). A nil c reads as a
// container without probes. No gate changes the answer.
func ContainerGracePeriod(pod *v1.Pod, c *v1.Container, reason vocab.KillReason, f features.Set) int64 {
	_ = f
	if pod == nil {
		return MinimumGracePeriodSeconds
	}
	if g := pod.DeletionGracePeriodSeconds; g != nil {
		return *g
	}
	podGrace := pod.Spec.TerminationGracePeriodSeconds
	if podGrace == nil {
		return MinimumGracePeriodSeconds
	}
	if c != nil {
		var probe *v1.Probe
		switch reason {
		case vocab.ReasonStartupProbe:
			probe = c.StartupProbe
		case vocab.ReasonLivenessProbe:
			probe = c.LivenessProbe
		}
		if probe != nil && probe.TerminationGracePeriodSeconds != nil {
			return *probe.TerminationGracePeriodSeconds
		}
	}
	return *podGrace
}

// Stop is what killContainer does with one container's grace period: the
// seconds it deducts and the timeout it finally hands to StopContainer.
type Stop struct {
	// Grace is the grace period after the override, before deductions.
	Grace int64
	// PreStopRan is true when the preStop hook ran (the container has one
	// and Grace > 0). PreStopElapsed is how long the kubelet waited for it
	// (the hook's duration, or Grace seconds when the hook took longer),
	// and PreStopDeducted the whole seconds taken off the grace period.
	PreStopRan      bool
	PreStopElapsed  time.Duration
	PreStopDeducted int64
	// Waited is true when the container waited for its turn (ordering in
	// force and grace left after the preStop hook). WaitElapsed and
	// WaitDeducted are like the preStop fields.
	Waited       bool
	WaitElapsed  time.Duration
	WaitDeducted int64
	// Timeout is the grace period passed to StopContainer: what is left,
	// and never less than MinimumGracePeriodSeconds.
	Timeout int64
}

// StopOptions are the inputs of StopTimeout besides the grace period. The
// zero value is a container without a preStop hook, not waiting for its
// turn, on a kubelet v1.37.2 with its default gates.
type StopOptions struct {
	// Features are the kubelet's feature gates; no gate of v1.37.2 changes
	// the arithmetic.
	Features features.Set
	// GracePeriodOverride replaces the grace period when not nil (the kill
	// request's override, as in Options).
	GracePeriodOverride *int64
	// HasPreStop says the container has a preStop hook; PreStop is how long
	// it runs (a negative one reads as 0).
	HasPreStop bool
	PreStop    time.Duration
	// Ordered says termination ordering is in force for the container;
	// TurnAfter is how long, from the end of the preStop hook, until every
	// container it waits for has stopped (0 when it waits for none,
	// negative when they never stop).
	Ordered   bool
	TurnAfter time.Duration
}

// StopTimeout mirrors the arithmetic of killContainer
// (pkg/kubelet/kuberuntime/kuberuntime_container.go) for one container
// whose grace period (ContainerGracePeriod) is grace:
//
//  1. grace = o.GracePeriodOverride when it is not nil;
//  2. when o.HasPreStop and grace > 0, the hook runs: the kubelet waits for
//     it at most grace seconds and deducts the whole seconds it waited;
//  3. when o.Ordered and grace > 0 is left, the container waits for its
//     turn (o.TurnAfter) for at most grace seconds; the whole seconds
//     waited are deducted;
//  4. the result is raised to MinimumGracePeriodSeconds.
func StopTimeout(grace int64, o StopOptions) Stop {
	if o.GracePeriodOverride != nil {
		grace = *o.GracePeriodOverride
	}
	s := Stop{Grace: grace}
	if o.HasPreStop && grace > 0 {
		s.PreStopRan = true
		s.PreStopElapsed = min(max(o.PreStop, 0), time.Duration(grace)*time.Second)
		s.PreStopDeducted = int64(s.PreStopElapsed / time.Second)
		grace -= s.PreStopDeducted
	}
	if o.Ordered && grace > 0 {
		s.Waited = true
		limit := time.Duration(grace) * time.Second
		if o.TurnAfter < 0 || o.TurnAfter > limit {
			s.WaitElapsed = limit
		} else {
			s.WaitElapsed = o.TurnAfter
		}
		s.WaitDeducted = int64(s.WaitElapsed / time.Second)
		grace -= s.WaitDeducted
	}
	s.Timeout = max(grace, MinimumGracePeriodSeconds)
	return s
}

// EffectiveGracePeriod mirrors calculateEffectiveGracePeriod in
// pkg/kubelet/pod_workers.go: the grace period the pod worker passes down to
// SyncTerminatingPod, every time an update arrives while the pod is
// terminating. previous is the value the worker stored before (0 when none);
// override is the kill request's PodTerminationGracePeriodSecondsOverride
// (nil when none).
//
//  1. start from previous;
//  2. the pod's deletionGracePeriodSeconds, when set, replaces it if previous
//     is 0 or the value is smaller;
//  3. the override, when set, replaces it on the same terms;
//  4. when neither replaced it and it is still 0, the pod's
//     terminationGracePeriodSeconds, when set;
//  5. anything below 1 becomes 1.
//
// shortened reports previous != 0 and a different result; the kubelet then
// cancels the running SyncTerminatingPod and starts again with the shorter
// value. The grace period never grows once set. A nil pod reads as a pod with
// neither value set.
func EffectiveGracePeriod(previous int64, pod *v1.Pod, override *int64, f features.Set) (grace int64, shortened bool) {
	_ = f
	grace = previous
	overridden := false
	if pod != nil && pod.DeletionGracePeriodSeconds != nil {
		if v := *pod.DeletionGracePeriodSeconds; grace == 0 || v < grace {
			grace, overridden = v, true
		}
	}
	if override != nil {
		if v := *override; grace == 0 || v < grace {
			grace, overridden = v, true
		}
	}
	if !overridden && grace == 0 && pod != nil && pod.Spec.TerminationGracePeriodSeconds != nil {
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	if grace < 1 {
		grace = 1
	}
	return grace, previous != 0 && previous != grace
}

// ImmediateEvictionGracePeriodSeconds is the override the eviction manager
// asks for on a hard threshold and on local-storage limit evictions
// (immediateEvictionGracePeriodSeconds, pkg/kubelet/eviction/eviction_manager.go).
const ImmediateEvictionGracePeriodSeconds int64 = 1

// EvictionGracePeriod returns the grace override the eviction manager passes
// when it evicts pod for a threshold (managerImpl.synchronize in
// pkg/kubelet/eviction/eviction_manager.go): ImmediateEvictionGracePeriodSeconds
// for a hard threshold (one without a grace period); for a soft one the
// kubelet's evictionMaxPodGracePeriod (maxPodGracePeriod), or the smaller of
// that and the pod's terminationGracePeriodSeconds when the pod sets it.
// The pod worker raises a result below 1 to 1 (EffectiveGracePeriod). A nil
// pod reads as one without terminationGracePeriodSeconds.
func EvictionGracePeriod(pod *v1.Pod, hardThreshold bool, maxPodGracePeriod int64, f features.Set) int64 {
	_ = f
	if hardThreshold {
		return ImmediateEvictionGracePeriodSeconds
	}
	if pod != nil && pod.Spec.TerminationGracePeriodSeconds != nil {
		return min(maxPodGracePeriod, *pod.Spec.TerminationGracePeriodSeconds)
	}
	return maxPodGracePeriod
}
