package conditions

import (
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TransitionTracked lists the condition types whose lastTransitionTime the
// status manager sets on every write, in its order.
var TransitionTracked = []v1.PodConditionType{
	v1.ContainersReady, v1.PodReady, v1.PodInitialized, v1.PodReadyToStartContainers,
	v1.PodScheduled, v1.DisruptionTarget, v1.AllContainersRestarting,
}

// KeepTransitionTimes returns a copy of conds with lastTransitionTime set as
// the kubelet's status manager sets it before storing a status. It mirrors
// the updateLastTransitionTime calls of manager.updateStatusInternal in
// pkg/kubelet/status/status_manager.go: for each type of
// TransitionTracked, the first condition of that type in conds gets the
// lastTransitionTime of the first condition of the same type in prev when
// both have the same status, and now otherwise (a changed reason or message
// does not count as a transition). Other conditions, and further conditions
// of a tracked type, are left as they are.
//
// prev is the status the manager compares with: its cached status, else
// the mirror pod's status (static pods), else the pod's API status. A nil
// prev has no conditions.
func KeepTransitionTimes(conds []v1.PodCondition, prev *v1.PodStatus, now time.Time) []v1.PodCondition {
	if conds == nil {
		return nil
	}
	out := append([]v1.PodCondition(nil), conds...)
	SetTransitionTimes(out, prev, now)
	return out
}

// SetTransitionTimes is KeepTransitionTimes in place: it sets the
// lastTransitionTime of conds itself, allocating nothing, for a caller that
// owns conds (a list it has just generated). conds must not share memory
// with prev.Conditions.
func SetTransitionTimes(conds []v1.PodCondition, prev *v1.PodStatus, now time.Time) {
	var old []v1.PodCondition
	if prev != nil {
		old = prev.Conditions
	}
	for _, t := range TransitionTracked {
		i := index(conds, t)
		if i < 0 {
			continue
		}
		ltt := metav1.NewTime(now)
		if o := find(old, t); o != nil && o.Status == conds[i].Status {
			ltt = o.LastTransitionTime
		}
		conds[i].LastTransitionTime = ltt
	}
}
