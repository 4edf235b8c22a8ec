package sim_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// Adding an ephemeral container is a change of the spec: the API server
// bumps metadata.generation (registry/core/pod/strategy.go, the
// ephemeralcontainers subresource's PrepareForUpdate), and the kubelet's
// next status reports it as observedGeneration. Through Node.UpdatePod the
// API object's own generation stands: one update adding two containers is
// one generation.
func TestAddEphemeralBumpsGeneration(t *testing.T) {
	pod := apiPod("dbg", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	pod.Generation = 1
	eph := func(name string) *v1.EphemeralContainer {
		return &v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: name, Image: "busybox"}}
	}
	tl := run(t, sim.Config{Seed: 1, For: sec(30)}, sim.PodInput{Pod: pod,
		Actions: []sim.Action{{At: sec(10), AddEphemeral: eph("debug")}}})
	var before, after int64
	for _, e := range tl.Entries {
		if e.Kind != sim.KindStatus {
			continue
		}
		if e.At < 10*time.Second {
			before = e.Status.Status.ObservedGeneration
		} else {
			after = e.Status.Status.ObservedGeneration
		}
	}
	if before != 1 || after != 2 {
		t.Fatalf("observedGeneration %d before the ephemeral container, %d after: want 1 and 2\n%s", before, after, tl.Events())
	}

	n := sim.NewNode(sim.Config{Seed: 1})
	at := n.Start()
	if err := n.AddPod(at, pod, sim.Script{}); err != nil {
		t.Fatal(err)
	}
	n.Advance(at.Add(5 * time.Second))
	next := pod.DeepCopy()
	next.Generation = 2
	next.Spec.EphemeralContainers = []v1.EphemeralContainer{*eph("d1"), *eph("d2")}
	if err := n.UpdatePod(at.Add(5*time.Second), next, nil); err != nil {
		t.Fatal(err)
	}
	r := n.Advance(at.Add(20 * time.Second))
	var last int64
	for _, e := range r.Entries {
		if e.Kind == sim.KindStatus {
			last = e.Status.Status.ObservedGeneration
		}
	}
	if last != 2 {
		t.Fatalf("observedGeneration %d after one update adding two ephemeral containers, want the API's 2\n%v", last, r.Entries)
	}
}
