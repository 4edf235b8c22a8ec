package sim_test

import (
	"strings"
	"testing"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// A static pod cannot be resized in place: the API server refuses a
// resize of its mirror pod (ValidatePodResize, validation.go:6497), and a
// static pod has no other API object. Simulate says so before it runs.
func TestResizeOfStaticPodRefused(t *testing.T) {
	pod := resizePod(nil)
	pod.Annotations = map[string]string{"kubernetes.io/config.source": "file"}
	_, err := sim.Simulate(sim.Config{For: sec(30)}, []sim.PodInput{{Pod: pod, Actions: []sim.Action{{At: sec(5), Resize: cpuResize("400m")}}}})
	if err == nil || !strings.Contains(err.Error(), "static pod cannot be resized") {
		t.Fatalf("error %v, want the static pod refused", err)
	}
	pod.Annotations["kubernetes.io/config.source"] = "api"
	if _, err := sim.Simulate(sim.Config{For: sec(30)}, []sim.PodInput{{Pod: pod, Actions: []sim.Action{{At: sec(5), Resize: cpuResize("400m")}}}}); err != nil {
		t.Fatalf("an API pod: %v", err)
	}
}
