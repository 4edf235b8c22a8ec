package phase

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// The reasons and messages the kubelet writes when it ends a pod itself.
const (
	// ReasonDeadlineExceeded and MessageDeadlineExceeded: the pod ran past
	// spec.activeDeadlineSeconds (pkg/kubelet/active_deadline.go).
	ReasonDeadlineExceeded  = "DeadlineExceeded"
	MessageDeadlineExceeded = "Pod was active on the node longer than the specified deadline"
	// ReasonEvicted: the eviction manager evicted the pod
	// (pkg/kubelet/eviction); the message names the starved resource.
	ReasonEvicted = "Evicted"
	// ReasonPreempting and MessagePreempting: the pod was killed to admit a
	// critical pod (pkg/kubelet/preemption).
	ReasonPreempting  = "Preempting"
	MessagePreempting = "Preempted in order to admit critical pod"
	// ReasonNodeShutdown and MessageNodeShutdown: graceful node shutdown
	// (pkg/kubelet/nodeshutdown).
	ReasonNodeShutdown  = "Terminated"
	MessageNodeShutdown = "Pod was terminated in response to imminent node shutdown."
	// ReasonTerminationByKubelet is the reason of the DisruptionTarget
	// condition these terminations add.
	ReasonTerminationByKubelet = "TerminationByKubelet"
	// MessagePreemptionDisruption is the DisruptionTarget message of a
	// preemption.
	MessagePreemptionDisruption = "Pod was preempted by Kubelet to accommodate a critical pod."
)

// ResolveOptions are the inputs of Resolve besides the pod and the phase
// Compute returned.
type ResolveOptions struct {
	// Cached is the status the kubelet's status manager holds for the pod,
	// or nil when it holds none; then the pod's API status (pod.Status)
	// takes its place, as in generateAPIPodStatus.
	Cached *v1.PodStatus
	// Now is the kubelet's clock, read only for spec.activeDeadlineSeconds.
	Now time.Time
}

// Status is the phase, reason and message of a pod status.
type Status struct {
	Phase   v1.PodPhase
	Reason  string
	Message string
	// Why says which rule decided Phase.
	Why string
}

// String renders s on one line; reason and message only when set.
func (s Status) String() string {
	out := string(s.Phase)
	if s.Reason != "" {
		out += " reason=" + s.Reason
	}
	if s.Message != "" {
		out += fmt.Sprintf(" message=%q", s.Message)
	}
	return out + " (" + s.Why + ")"
}

// Resolve returns the phase, reason and message the kubelet writes, given
// the phase getPhase computed (see Compute). It mirrors the steps of
// Kubelet.generateAPIPodStatus in pkg/kubelet/kubelet_pods.go that follow
// getPhase, in their order:
//
//  1. A computed phase that is not terminal gives way to a terminal phase of
//     the previous status (opts.Cached, else pod.Status), else to a terminal
//     phase of the API status (pod.Status).
//  2. If the phase equals the previous status's phase, the previous reason
//     and message are kept, each falling back to pod.Status's when empty;
//     otherwise both are empty.
//  3. The active-deadline handler: when spec.activeDeadlineSeconds is set,
//     the previous status's startTime is set, and Now is at least that many
//     seconds after it, the phase is Failed with reason DeadlineExceeded.
//  4. A pod whose API phase is Succeeded or Failed keeps it, whatever the
//     steps above gave (reason and message are left as they are).
//
// A nil pod reads as an empty pod.
func Resolve(pod *v1.Pod, computed v1.PodPhase, opts ResolveOptions) Status {
	if pod == nil {
		pod = &v1.Pod{}
	}
	old := &pod.Status
	if opts.Cached != nil {
		old = opts.Cached
	}
	s := Status{Phase: computed, Why: "computed by getPhase"}

	if !isTerminal(s.Phase) {
		switch {
		case isTerminal(old.Phase):
			s.Phase, s.Why = old.Phase, "the previous status was terminal"
		case isTerminal(pod.Status.Phase):
			s.Phase, s.Why = pod.Status.Phase, "the API status was terminal"
		}
	}

	if s.Phase == old.Phase {
		s.Reason, s.Message = old.Reason, old.Message
		if s.Reason == "" {
			s.Reason = pod.Status.Reason
		}
		if s.Message == "" {
			s.Message = pod.Status.Message
		}
	}

	if PastActiveDeadline(pod, opts.Cached, opts.Now) {
		s.Phase, s.Reason, s.Message = v1.PodFailed, ReasonDeadlineExceeded, MessageDeadlineExceeded
		s.Why = "past activeDeadlineSeconds"
	}

	if isTerminal(pod.Status.Phase) && s.Phase != pod.Status.Phase {
		s.Phase, s.Why = pod.Status.Phase, "the API status is terminal and a pod never leaves it"
	}
	return s
}

// PastActiveDeadline reports whether pod has run past its
// spec.activeDeadlineSeconds at now. It mirrors pastActiveDeadline in
// pkg/kubelet/active_deadline.go: the start time is that of cached (the
// status manager's status), or of pod.Status when cached is nil; with no
// deadline or no start time the answer is false. A nil pod gives false.
func PastActiveDeadline(pod *v1.Pod, cached *v1.PodStatus, now time.Time) bool {
	if pod == nil || pod.Spec.ActiveDeadlineSeconds == nil {
		return false
	}
	st := &pod.Status
	if cached != nil {
		st = cached
	}
	if st.StartTime.IsZero() {
		return false
	}
	allowed := time.Duration(*pod.Spec.ActiveDeadlineSeconds) * time.Second
	return now.Sub(st.StartTime.Time) >= allowed
}

// KillKind names a kubelet-initiated termination that rewrites the pod's
// phase.
type KillKind string

// The terminations whose status functions set the phase.
const (
	// KillEviction: the eviction manager (node pressure or a local-storage
	// limit).
	KillEviction KillKind = "Eviction"
	// KillPreemption: the pod makes room for a critical pod.
	KillPreemption KillKind = "Preemption"
	// KillNodeShutdown: graceful node shutdown.
	KillNodeShutdown KillKind = "NodeShutdown"
)

// PodKill is a kubelet-initiated termination of a whole pod (a
// podactions.Kill is one container's). Its Apply is the status function the
// kubelet passes with the kill request and applies, in SyncTerminatingPod,
// to the status it generated before storing it.
type PodKill struct {
	Kind KillKind
	// Message is the eviction message (KillEviction only; the other kinds
	// have fixed messages).
	Message string
	// NoDisruptionCondition leaves out the DisruptionTarget condition, as
	// the eviction manager does for evictions over a local-storage limit
	// (KillEviction only).
	NoDisruptionCondition bool
}

// Apply returns a copy of status as the kill's status function leaves it.
// It mirrors the functions passed to killPodFunc in evictPod
// (pkg/kubelet/eviction/eviction_manager.go), evictPodsToFreeRequests
// (pkg/kubelet/preemption/preemption.go) and the node shutdown manager
// (pkg/kubelet/nodeshutdown/nodeshutdown_manager.go):
//
//   - Eviction: phase Failed, reason Evicted, the eviction message, and
//     (unless NoDisruptionCondition) DisruptionTarget=True with reason
//     TerminationByKubelet and the same message.
//   - Preemption: phase Failed, reason Preempting, message "Preempted in
//     order to admit critical pod", DisruptionTarget=True with reason
//     TerminationByKubelet.
//   - NodeShutdown: phase Failed unless it is Succeeded, reason Terminated,
//     message "Pod was terminated in response to imminent node shutdown.",
//     DisruptionTarget=True with the same message.
//
// The condition is set as podutil.UpdatePodCondition sets it: it replaces
// the first condition of its type, keeping that one's lastTransitionTime
// when the status is unchanged, and is appended otherwise with
// lastTransitionTime now. Its observedGeneration is the pod's generation
// (with gate PodObservedGenerationTracking off: only when a
// DisruptionTarget condition of status already has one). An unknown Kind
// changes nothing. A nil pod reads as an empty pod; a nil status as an
// empty one.
func (k PodKill) Apply(status *v1.PodStatus, pod *v1.Pod, now time.Time, f features.Set) *v1.PodStatus {
	out := &v1.PodStatus{}
	if status != nil {
		out = status.DeepCopy()
	}
	if pod == nil {
		pod = &v1.Pod{}
	}
	var condMessage string
	switch k.Kind {
	case KillEviction:
		out.Phase, out.Reason, out.Message = v1.PodFailed, ReasonEvicted, k.Message
		if k.NoDisruptionCondition {
			return out
		}
		condMessage = k.Message
	case KillPreemption:
		out.Phase, out.Reason, out.Message = v1.PodFailed, ReasonPreempting, MessagePreempting
		condMessage = MessagePreemptionDisruption
	case KillNodeShutdown:
		if out.Phase != v1.PodSucceeded {
			out.Phase = v1.PodFailed
		}
		out.Reason, out.Message = ReasonNodeShutdown, MessageNodeShutdown
		condMessage = MessageNodeShutdown
	default:
		return out
	}
	cond := v1.PodCondition{
		Type:               v1.DisruptionTarget,
		ObservedGeneration: conditionObservedGeneration(out, pod.Generation, v1.DisruptionTarget, f),
		Status:             v1.ConditionTrue,
		Reason:             ReasonTerminationByKubelet,
		Message:            condMessage,
		LastTransitionTime: metav1.NewTime(now),
	}
	for i := range out.Conditions {
		if out.Conditions[i].Type == v1.DisruptionTarget {
			if out.Conditions[i].Status == cond.Status {
				cond.LastTransitionTime = out.Conditions[i].LastTransitionTime
			}
			out.Conditions[i] = cond
			return out
		}
	}
	out.Conditions = append(out.Conditions, cond)
	return out
}

// conditionObservedGeneration mirrors CalculatePodConditionObservedGeneration
// in pkg/api/v1/pod/util.go for a non-nil status.
func conditionObservedGeneration(s *v1.PodStatus, gen int64, t v1.PodConditionType, f features.Set) int64 {
	if f.Enabled(features.PodObservedGenerationTracking) {
		return gen
	}
	for i := range s.Conditions {
		if c := &s.Conditions[i]; c.Type == t && c.ObservedGeneration != 0 {
			return gen
		}
	}
	return 0
}

func isTerminal(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }
