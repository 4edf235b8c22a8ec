package sim_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

func condOf(st *v1.PodStatus, t v1.PodConditionType) *v1.PodCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// apiStatusAt is the API object's status at d: the last API entry with a
// status at or before d.
func apiStatusAt(tl *sim.Timeline, name string, d time.Duration) *v1.PodStatus {
	var out *v1.PodStatus
	for _, e := range tl.Entries {
		if e.Pod == name && e.Kind == sim.KindAPI && e.Status != nil && e.At <= d {
			st := e.Status.Status
			out = &st
		}
	}
	return out
}

// A readiness gate's condition set by another client: the kubelet syncs
// the pod (HandlePodReconcile, NeedToReconcilePodReadiness) and writes
// Ready True within the sync; set False, Ready goes False, with the reason
// ReadinessGatesNotReady; the kubelet's writes keep the condition.
func TestSetConditionReadinessGate(t *testing.T) {
	pod := apiPod("gated", v1.PodSpec{ReadinessGates: []v1.PodReadinessGate{{ConditionType: "example.com/gate"}},
		Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(40)}, sim.PodInput{Pod: pod, Actions: []sim.Action{
			{At: sec(10), SetCondition: &v1.PodCondition{Type: "example.com/gate", Status: v1.ConditionTrue}},
			{At: sec(25), SetCondition: &v1.PodCondition{Type: "example.com/gate", Status: v1.ConditionFalse}},
		}})
		st := apiStatusAt(tl, "gated", 9*time.Second)
		if r := condOf(st, v1.PodReady); r == nil || r.Status != v1.ConditionFalse || r.Reason != "ReadinessGatesNotReady" {
			t.Fatalf("seed %d: Ready before the gate %+v, want False/ReadinessGatesNotReady\n%s", seed, r, tl.Events())
		}
		st = apiStatusAt(tl, "gated", 11*time.Second)
		if r, g := condOf(st, v1.PodReady), condOf(st, "example.com/gate"); r == nil || r.Status != v1.ConditionTrue || g == nil || g.Status != v1.ConditionTrue {
			t.Fatalf("seed %d: a second after the gate went True: Ready %+v, gate %+v\n%s", seed, r, g, tl.Events())
		}
		st = apiStatusAt(tl, "gated", 26*time.Second)
		if r, g := condOf(st, v1.PodReady), condOf(st, "example.com/gate"); r == nil || r.Status != v1.ConditionFalse || g == nil || g.Status != v1.ConditionFalse {
			t.Fatalf("seed %d: a second after the gate went False: Ready %+v, gate %+v\n%s", seed, r, g, tl.Events())
		}
	}
}

// The status manager keeps conditions it does not own from the API object
// (mergePodStatus): a condition set on a pod without readiness gates
// (no sync follows) survives the kubelet's next writes.
func TestSetConditionKeptByKubeletWrites(t *testing.T) {
	pod := apiPod("marked", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(10), ExitCode: 1}, {TermAfter: sec(0.1)}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(40)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{
		{At: sec(5), SetCondition: &v1.PodCondition{Type: "example.com/mark", Status: v1.ConditionTrue}},
	}})
	writes := 0
	for _, e := range tl.Entries {
		if e.Kind != sim.KindAPI || e.API != sim.APIStatus || e.At <= 5*time.Second {
			continue
		}
		writes++
		if c := condOf(&e.Status.Status, "example.com/mark"); c == nil || c.Status != v1.ConditionTrue {
			t.Fatalf("the kubelet's write at %s dropped the condition another client set\n%s", e.At, tl.Events())
		}
	}
	if writes == 0 {
		t.Fatalf("no kubelet write after the condition was set\n%s", tl.Events())
	}
}

// A condition the kubelet owns cannot be set from outside (it would
// overwrite it); neither can a condition of a static pod.
func TestSetConditionRefused(t *testing.T) {
	pod := apiPod("p", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	_, err := sim.Simulate(sim.Config{Seed: 1, For: sec(10)}, []sim.PodInput{{Pod: pod, Actions: []sim.Action{
		{At: sec(1), SetCondition: &v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue}}}}})
	if err == nil {
		t.Fatal("setting Ready from outside: no error")
	}
}

// A condition set while a sync plays out (here during a 5 s kill): the
// statuses that sync generated before it stay without it, but the status
// manager writes them merged with the API object's (mergePodStatus), so
// the terminal status keeps it.
func TestSetConditionDuringSync(t *testing.T) {
	grace := int64(5)
	pod := apiPod("slow", v1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	pod.Finalizers = []string{"example.com/hold"}
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{IgnoreSIGTERM: true}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(40)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{
		{At: sec(10), Delete: i64(-1)},
		{At: sec(12), SetCondition: &v1.PodCondition{Type: "example.com/mark", Status: v1.ConditionTrue}},
	}})
	_, last := tl.LastStatus("slow")
	if last == nil || (last.Phase != v1.PodFailed && last.Phase != v1.PodSucceeded) {
		t.Fatalf("last API status %+v, want terminal\n%s", last, tl.Events())
	}
	if c := condOf(last, "example.com/mark"); c == nil || c.Status != v1.ConditionTrue {
		t.Fatalf("the terminal status written after the condition was set lost it: %+v\n%s", last.Conditions, tl.Events())
	}
}
