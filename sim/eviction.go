package sim

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// ---- eviction by the kubelet (Action.Evict) ----
//
// The eviction manager (pkg/kubelet/eviction/eviction_manager.go
// synchronize, evictPod) picks a pod when a node resource crosses a
// threshold and kills it through the pod worker (pod_workers.go
// killPodNow): a kill update marked as an eviction, with a grace period
// override and a status function. SyncTerminatingPod applies that function
// to the first status it generates (kubelet.go SyncTerminatingPod): phase
// Failed, reason Evicted, the eviction's message, and (for the thresholds
// of synchronize) the condition DisruptionTarget True with reason
// TerminationByKubelet. The kill then runs with the override: 1 s for a
// hard threshold (immediateEvictionGracePeriodSeconds), for a soft one the
// smaller of evictionMaxPodGracePeriod and the pod's own grace period
// (which killContainer raises to its 2 s minimum, and from which a preStop
// hook takes its time). The generated statuses after the kill keep the
// phase Failed and the reason (generateAPIPodStatus preserves a reason
// with its phase). A critical pod (static, mirror, or priority 2000000000
// and above: kubelettypes.IsCriticalPod) is never evicted.
//
// Which pod the manager picks and when a threshold is crossed (the node's
// memory, disk and PID signals) are not modelled: the action says when and
// how; the caller decides which pod.

// Eviction is one eviction of a pod by the kubelet (Action.Evict).
type Eviction struct {
	// GracePeriod is the grace period override the eviction manager
	// passes, in seconds: nil means a hard threshold's 1 s; for a soft
	// threshold give min(evictionMaxPodGracePeriod, the pod's
	// terminationGracePeriodSeconds).
	GracePeriod *int64 `json:"gracePeriod,omitempty"`
	// Message is the eviction's message (the Event's, the status's and
	// the DisruptionTarget condition's); empty means
	// DefaultEvictionMessage.
	Message string `json:"message,omitempty"`
}

// DefaultEvictionMessage is an eviction's message when Eviction.Message is
// empty: the first sentence the eviction manager writes for the memory
// signal (eviction/helpers.go evictionMessage).
const DefaultEvictionMessage = "The node was low on resource: memory. "

// EvictedReason is the pod status reason of an evicted pod
// (eviction/helpers.go Reason).
const EvictedReason = "Evicted"

// immediateEvictionGrace is eviction_manager.go's
// immediateEvictionGracePeriodSeconds.
const immediateEvictionGrace = int64(1)

func (e Eviction) grace() int64 {
	if e.GracePeriod != nil {
		return *e.GracePeriod
	}
	return immediateEvictionGrace
}

func (e Eviction) message() string {
	if e.Message != "" {
		return e.Message
	}
	return DefaultEvictionMessage
}

// criticalPod mirrors kubelettypes.IsCriticalPod: a static pod, a mirror
// pod, or a pod whose priority is at least system-cluster-critical's.
func criticalPod(pod *v1.Pod) bool {
	if phase.IsStaticPod(pod) {
		return true
	}
	if _, ok := pod.Annotations[v1.MirrorPodAnnotationKey]; ok {
		return true
	}
	return pod.Spec.Priority != nil && *pod.Spec.Priority >= 2000000000
}

// evict is the eviction manager's evictPod for this pod.
func (p *podSim) evict(e Eviction, entry *Entry) {
	if criticalPod(p.pod) {
		if entry != nil {
			entry.Message += ": a critical pod is not evicted (the eviction manager refuses it)"
		}
		return
	}
	if entry != nil {
		entry.Message += fmt.Sprintf(": Warning Evicted %q", e.message())
	}
	g := e.grace()
	ev := e
	ev.GracePeriod = &g
	p.eviction = &ev
	p.update(termination.Update{Type: termination.UpdateKill, Pod: p.pod,
		Kill: &termination.KillRequest{GracePeriodOverride: &g, Evict: true, HasStatusFunc: true}})
}

// applyEviction is the eviction's status function (evictPod's closure)
// applied to a generated status: phase Failed, reason Evicted, the
// message, and the DisruptionTarget condition, whose observed generation
// is the pod's when PodObservedGenerationTracking is on or the status
// already has that condition with one, else 0
// (podutil.CalculatePodConditionObservedGeneration), updated in place or
// added as podutil.UpdatePodCondition does (the transition time kept when
// the status is unchanged).
func applyEviction(st *v1.PodStatus, pod *v1.Pod, e Eviction, f features.Set, now metav1.Time) {
	st.Phase = v1.PodFailed
	st.Reason = EvictedReason
	st.Message = e.message()
	c := v1.PodCondition{
		Type:               v1.DisruptionTarget,
		Status:             v1.ConditionTrue,
		Reason:             v1.PodReasonTerminationByKubelet,
		Message:            e.message(),
		LastTransitionTime: now,
	}
	old := -1
	for i := range st.Conditions {
		if st.Conditions[i].Type == v1.DisruptionTarget {
			if old < 0 {
				old = i
			}
			if st.Conditions[i].ObservedGeneration != 0 {
				c.ObservedGeneration = pod.Generation
			}
		}
	}
	if f.Enabled(features.PodObservedGenerationTracking) {
		c.ObservedGeneration = pod.Generation
	}
	if old < 0 {
		st.Conditions = append(st.Conditions, c)
		return
	}
	if st.Conditions[old].Status == c.Status {
		c.LastTransitionTime = st.Conditions[old].LastTransitionTime
	}
	st.Conditions[old] = c
}
