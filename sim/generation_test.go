package sim_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// A pod given as a manifest, without metadata.generation, is the pod the
// API server creates with generation 1 (PrepareForCreate): the kubelet
// writes 1 as the status's and the conditions' observedGeneration (gate
// PodObservedGenerationTracking, on in v1.37), from the first write. A pod
// that gives its generation keeps it; a static pod (config source file)
// has no API object (apidefaults.Created leaves it alone).
func TestManifestCreatedWithGenerationOne(t *testing.T) {
	spec := v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}}
	for _, c := range []struct {
		name string
		gen  int64
		want int64
	}{{"manifest", 0, 1}, {"read back", 4, 4}} {
		pod := apiPod("gen", spec)
		pod.Generation = c.gen
		tl := run(t, sim.Config{Seed: 1, For: sec(5)}, sim.PodInput{Pod: pod})
		if pod.Generation != c.gen {
			t.Fatalf("%s: Simulate changed its input's generation to %d", c.name, pod.Generation)
		}
		sts := apiStatuses(tl)
		written := 0
		for _, e := range sts {
			if e.API != sim.APIStatus {
				continue // the API server's status at creation has none
			}
			written++
			st := e.Status.Status
			if st.ObservedGeneration != c.want || e.Status.Generation != c.want {
				t.Fatalf("%s: at %s observedGeneration %d, entry generation %d, want %d\n%s", c.name, e.At, st.ObservedGeneration, e.Status.Generation, c.want, tl.Events())
			}
			for _, cd := range st.Conditions {
				if cd.ObservedGeneration != c.want {
					t.Fatalf("%s: at %s condition %s observedGeneration %d, want %d", c.name, e.At, cd.Type, cd.ObservedGeneration, c.want)
				}
			}
		}
		if written == 0 {
			t.Fatalf("%s: the kubelet wrote no status\n%s", c.name, tl.Events())
		}
	}
}
