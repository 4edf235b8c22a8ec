package sim

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"
)

// drawOutsideAction draws one of the actions of another API client or of
// the node's operator for TestProperties: an eviction by the kubelet
// (critical pods refuse it), a restart of the kubelet with a
// drawn downtime, or a condition set in the status (a readiness gate's,
// the gate added to the pod or not; API pods only, a static pod gets a
// sandbox kill instead).
func drawOutsideAction(t *rapid.T, pod *v1.Pod, a Action, label string) Action {
	if rapid.IntRange(0, 3).Draw(t, label+" evict") == 0 {
		// The eviction manager's kill: a hard threshold's 1 s or a
		// soft one's grace.
		a.Evict = &Eviction{GracePeriod: rapid.SampledFrom([]*int64{nil, ptr64(0), ptr64(5), ptr64(30)}).Draw(t, label+" eviction grace")}
		return a
	}
	if rapid.Bool().Draw(t, label+" restart kubelet") {
		d := Duration(rapid.SampledFrom([]time.Duration{0, 500 * time.Millisecond, 5 * time.Second, 40 * time.Second}).Draw(t, label+" downtime"))
		a.RestartKubelet = &d
		return a
	}
	if pod.Annotations["kubernetes.io/config.source"] != "api" {
		a.KillSandbox = true
		return a
	}
	if len(pod.Spec.ReadinessGates) == 0 && rapid.Bool().Draw(t, label+" readiness gate") {
		pod.Spec.ReadinessGates = []v1.PodReadinessGate{{ConditionType: "example.com/gate"}}
	}
	types := []v1.PodConditionType{"example.com/other"}
	for _, g := range pod.Spec.ReadinessGates {
		types = append(types, g.ConditionType)
	}
	c := v1.PodCondition{
		Type:   rapid.SampledFrom(types).Draw(t, label+" condition"),
		Status: rapid.SampledFrom([]v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse}).Draw(t, label+" condition status"),
	}
	a.SetCondition = &c
	return a
}

func ptr64(v int64) *int64 { return &v }
