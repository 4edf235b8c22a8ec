package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// Config.For left at zero simulates 10 minutes: a delete at 9m30s
// happens (the timeline runs past it).
func TestSimulateForZeroIsTenMinutes(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	tl, err := sim.Simulate(sim.Config{Seed: 1}, []sim.PodInput{{Pod: pod, Actions: []sim.Action{{At: sec(570), Delete: i64(-1)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if tl.End < 570*time.Second {
		t.Errorf("timeline ends at %s, want the delete at 9m30s to happen (For 0: 10 minutes)", tl.End)
	}
}

// An action names itself as kubectl would be told it: a delete with the
// pod's own grace period (-1) is a plain delete, one with grace period 0
// says --grace-period=0 (an immediate delete, not the pod's default).
func TestActionStringDeleteGrace(t *testing.T) {
	for _, c := range []struct {
		grace int64
		want  string
	}{{-1, "delete"}, {0, "delete --grace-period=0"}, {30, "delete --grace-period=30"}} {
		if got := (sim.Action{Delete: i64(c.grace)}).String(); got != c.want {
			t.Errorf("Delete %d: String() = %q, want %q", c.grace, got, c.want)
		}
	}
}

// Deliveries at the same time keep their order: a pod's addition comes
// before its actions at the same time, and those actions in their order
// (the sort of Simulate is stable and orders by time, then pod only).
func TestSimulateSameTimeKeepsOrder(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	tl, err := sim.Simulate(sim.Config{Seed: 1, For: sec(60)}, []sim.PodInput{{Pod: pod, At: sec(5),
		Actions: []sim.Action{{At: sec(5), Delete: i64(30)}, {At: sec(5), Delete: i64(10)}}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindAction {
			got = append(got, e.Message)
		}
	}
	want := []string{"pod added to the kubelet", "delete --grace-period=30", "delete --grace-period=10"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("actions %q, want %q", got, want)
	}
}
