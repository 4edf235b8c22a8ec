package sim

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// ---- conditions other API clients set (readiness gates) ----

// APIConditionSet: another API client set a condition in the object's
// status (Action.SetCondition).
const APIConditionSet APIEvent = "condition set"

// checkSetCondition refuses a condition the kubelet owns (it would
// overwrite it: pkg/kubelet/types/pod_status.go PodConditionByKubelet), a
// status other than True, False or Unknown, and a static pod (it has no API
// object).
func checkSetCondition(p *podSim, c v1.PodCondition) error {
	switch {
	case c.Type == "":
		return fmt.Errorf("set condition: no type")
	case conditions.OwnedByKubelet(c.Type, p.node.cfg.Kubelet.Features):
		return fmt.Errorf("set condition %s: the kubelet owns that condition and overwrites it: not modelled", c.Type)
	case c.Status != v1.ConditionTrue && c.Status != v1.ConditionFalse && c.Status != v1.ConditionUnknown:
		return fmt.Errorf("set condition %s: status %q, want True, False or Unknown", c.Type, c.Status)
	case p.static:
		return fmt.Errorf("set condition %s: a static pod has no API object", c.Type)
	}
	return nil
}

// apiSetCondition is another client's PATCH of the status subresource
// setting c: it replaces the condition of its type (its transition time
// now, whole seconds, when the status changed) or is appended. The
// kubelet's watch delivers the new status as a RECONCILE (config.go
// checkAndUpdatePod: only the status changed); kubelet.go
// HandlePodReconcile stores it in the pod manager and syncs the pod when
// its Ready condition no longer fits its readiness gates
// (status_manager.go NeedToReconcilePodReadiness). The status manager
// keeps conditions it does not own from the API object when it writes
// (mergePodStatus; mergeAPIConditions).
func (p *podSim) apiSetCondition(c v1.PodCondition, entry *Entry) {
	if p.apiGone || p.api == nil {
		entry.Message += ": no API object, nothing set"
		return
	}
	st := p.api.DeepCopy()
	now := metav1.NewTime(p.loop.Now.Truncate(time.Second))
	c.LastTransitionTime = now
	i := conditionIndex(st.Conditions, c.Type)
	if i < 0 {
		st.Conditions = append(st.Conditions, c)
	} else {
		if st.Conditions[i].Status == c.Status {
			c.LastTransitionTime = st.Conditions[i].LastTransitionTime
		}
		st.Conditions[i] = c
	}
	p.api = st
	pod := *p.pod
	pod.Status = *st
	p.pod = &pod
	e := p.log(KindAPI, p.loop.Now, fmt.Sprintf("condition %s set %s by another client", c.Type, c.Status))
	e.API = APIConditionSet
	p.fillStatus(e, *st)
	if needToReconcileReadiness(p.pod, p.node.cfg.Kubelet) {
		p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
	}
}

// needToReconcileReadiness mirrors status_manager.go
// NeedToReconcilePodReadiness: the pod has readiness gates and the Ready
// condition of its API status differs, in status or message, from the one
// generated from that status.
func needToReconcileReadiness(pod *v1.Pod, k Kubelet) bool {
	if len(pod.Spec.ReadinessGates) == 0 {
		return false
	}
	i := conditionIndex(pod.Status.Conditions, v1.PodReady)
	if i < 0 {
		return false
	}
	want := conditions.Ready(pod, &pod.Status, pod.Status.Conditions, pod.Status.ContainerStatuses, pod.Status.Phase, k.Features)
	cur := pod.Status.Conditions[i]
	return cur.Status != want.Status || cur.Message != want.Message
}

// mergeAPIConditions is mergePodStatus's rule for conditions: those the
// kubelet does not own come from the API object's status, the kubelet's
// own from st (status_manager.go mergePodStatus). DisruptionTarget, which
// the kubelet shares with other writers, comes from st only when st takes
// the pod to a terminal phase the API does not show yet and no container
// can still run: st's first one (however many st has), its transition
// time now unless the API's first one has the same status
// (updateLastTransitionTime), replacing the first one of the list.
func (p *podSim) mergeAPIConditions(st *v1.PodStatus) {
	if p.api == nil {
		return
	}
	f := p.node.cfg.Kubelet.Features
	foreign := false
	// Two loops, not a range over append(p.api.Conditions, ...): that
	// append could write into the spare capacity of a list the API status
	// shares with stored statuses.
	for _, list := range [][]v1.PodCondition{p.api.Conditions, st.Conditions} {
		for _, c := range list {
			if !conditions.OwnedByKubelet(c.Type, f) {
				foreign = true
			}
		}
	}
	if !foreign {
		return
	}
	out := make([]v1.PodCondition, 0, len(p.api.Conditions)+len(st.Conditions))
	for _, c := range p.api.Conditions {
		if !conditions.OwnedByKubelet(c.Type, f) {
			out = append(out, c)
		}
	}
	terminal := func(ph v1.PodPhase) bool { return ph == v1.PodSucceeded || ph == v1.PodFailed }
	for _, c := range st.Conditions {
		switch {
		case conditions.OwnedByKubelet(c.Type, f):
			out = append(out, c)
		case c.Type == v1.DisruptionTarget && !terminal(p.api.Phase) && terminal(st.Phase) &&
			!(termination.Query(p.mem.Worker, true, f).CouldHaveRunningContainers && !p.mem.Finished):
			// Whichever DisruptionTarget of st the loop is at, the first
			// one is merged (GetPodConditionFromList).
			c = st.Conditions[conditionIndex(st.Conditions, c.Type)]
			c.LastTransitionTime = metav1.NewTime(p.loop.Now.Truncate(time.Second))
			if i := conditionIndex(p.api.Conditions, c.Type); i >= 0 && p.api.Conditions[i].Status == c.Status {
				c.LastTransitionTime = p.api.Conditions[i].LastTransitionTime
			}
			if i := conditionIndex(out, c.Type); i >= 0 {
				out[i] = c
			} else {
				out = append(out, c)
			}
		}
	}
	st.Conditions = out
}

// conditionActions are the conditions another client changed from cur's
// status to next's (types the kubelet does not own), as SetCondition
// actions, for UpdatePod.
func conditionActions(cur, next *v1.Pod, k Kubelet) []Action {
	var out []Action
	for _, c := range next.Status.Conditions {
		if conditions.OwnedByKubelet(c.Type, k.Features) {
			continue
		}
		if i := conditionIndex(cur.Status.Conditions, c.Type); i >= 0 && cur.Status.Conditions[i].Status == c.Status {
			continue
		}
		c := c
		out = append(out, Action{SetCondition: &c})
	}
	return out
}

func conditionIndex(l []v1.PodCondition, t v1.PodConditionType) int {
	for i := range l {
		if l[i].Type == t {
			return i
		}
	}
	return -1
}
