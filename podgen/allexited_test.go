package podgen_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// TestAllExited: with AllExited 100 every state has a sandbox, none ready,
// an instance of every container name of the spec, and only exited
// instances; with AllExited 0 draws are not all like that.
func TestAllExited(t *testing.T) {
	settled := func(st *runtimestate.Pod, names []string) bool {
		if len(st.Sandboxes) == 0 {
			return false
		}
		for _, sb := range st.Sandboxes {
			if sb.Ready {
				return false
			}
		}
		for _, c := range st.Containers {
			if c.State != runtimestate.Exited {
				return false
			}
		}
		for _, n := range names {
			if st.Newest(n) == nil {
				return false
			}
		}
		return true
	}
	names := func(t *rapid.T, allExited int) bool {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
		var ns []string
		for _, c := range pod.Spec.InitContainers {
			ns = append(ns, c.Name)
		}
		for _, c := range pod.Spec.Containers {
			ns = append(ns, c.Name)
		}
		for _, c := range pod.Spec.EphemeralContainers {
			ns = append(ns, c.Name)
		}
		st := podgen.RuntimeState(pod, podgen.StateOptions{AllExited: allExited}).Draw(t, "state")
		if err := st.Validate(); err != nil {
			t.Fatalf("invalid state: %v", err)
		}
		return settled(st, ns)
	}
	rapid.Check(t, func(t *rapid.T) {
		if !names(t, 100) {
			t.Fatalf("AllExited 100 drew a state that is not all exited")
		}
	})
	n, k := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		n++
		if names(t, 0) {
			k++
		}
	})
	if k == n {
		t.Errorf("AllExited 0: all %d states all exited", n)
	}
}
