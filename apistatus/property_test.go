package apistatus

import (
	"encoding/json"
	"sort"
	"testing"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// TestProperties checks, on random pods, runtime states and previous
// statuses, what holds for every answer of convertToAPIContainerStatuses:
// the arguments are left untouched; every init and regular container of
// the spec gets exactly one status, init statuses in spec order and the
// others by name; a status that names a container ID names the newest
// instance of that container, unless it is a terminated status reused from
// the previous status; and the answer is the same twice.
func TestProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := podgen.StatusCases(podgen.CaseOptions{}).Draw(rt, "case")
		fails := map[string]vocab.StartFailure{}
		for n, f := range c.StartFailures {
			fails[n] = f
		}
		opts := Options{Features: c.Features, Cached: c.Previous, StartFailures: fails}
		before, _ := json.Marshal(c)
		got := Compute(c.Pod, c.State, opts)
		if after, _ := json.Marshal(c); string(after) != string(before) {
			rt.Fatalf("Compute changed its arguments")
		}
		again := Compute(c.Pod, c.State, opts)
		if a, b := got.String(), again.String(); a != b {
			rt.Fatalf("two calls differ:\n%s\n%s", a, b)
		}

		if len(got.InitContainerStatuses) != len(c.Pod.Spec.InitContainers) {
			rt.Fatalf("%d init statuses for %d init containers", len(got.InitContainerStatuses), len(c.Pod.Spec.InitContainers))
		}
		for i, s := range got.InitContainerStatuses {
			if s.Name != c.Pod.Spec.InitContainers[i].Name {
				rt.Fatalf("init status %d is %q, spec has %q", i, s.Name, c.Pod.Spec.InitContainers[i].Name)
			}
		}
		var names []string
		for _, s := range got.ContainerStatuses {
			names = append(names, s.Name)
		}
		if len(names) != len(c.Pod.Spec.Containers) || !sort.StringsAreSorted(names) {
			rt.Fatalf("statuses %v for %d containers", names, len(c.Pod.Spec.Containers))
		}

		prev := c.Previous
		if prev == nil {
			prev = &c.Pod.Status
		}
		// Terminated previous statuses are reused whole, container ID
		// included.
		reused := map[string]string{}
		for _, l := range [][]v1.ContainerStatus{prev.InitContainerStatuses, prev.ContainerStatuses} {
			for _, s := range l {
				if s.State.Terminated != nil {
					reused[s.Name] = s.ContainerID
				}
			}
		}
		for _, s := range append(append([]v1.ContainerStatus{}, got.InitContainerStatuses...), got.ContainerStatuses...) {
			if s.ContainerID == "" {
				continue
			}
			n := c.State.Newest(s.Name)
			if n != nil && s.ContainerID == DefaultRuntimeType+"://"+n.ID {
				continue
			}
			if id, ok := reused[s.Name]; ok && id == s.ContainerID {
				continue
			}
			rt.Fatalf("status of %s names %s, which is neither the newest instance nor a reused terminated status", s.Name, s.ContainerID)
		}
	})
}
