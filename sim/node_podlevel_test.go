package sim

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNodeUpdatePodLevelResize: an API update that changes spec.resources
// (and a container's resources with it) reads as one Action with
// ResizePod (and Resize), the timeline Simulate gives for that action;
// an update that removes spec.resources is refused.
func TestNodeUpdatePodLevelResize(t *testing.T) {
	q := resource.MustParse
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{"kubernetes.io/config.source": "api"}},
		Spec: v1.PodSpec{
			Containers: []v1.Container{{Name: "app", Image: "web:1", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("100m")}}}},
			Resources: &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("200m"), v1.ResourceMemory: q("128Mi")},
				Limits: v1.ResourceList{v1.ResourceCPU: q("200m"), v1.ResourceMemory: q("128Mi")}}}}
	in := PodInput{Pod: pod, At: Seconds(1), Actions: []Action{{At: Seconds(20),
		Resize:    map[string]v1.ResourceRequirements{"app": {Requests: v1.ResourceList{v1.ResourceCPU: q("300m")}}},
		ResizePod: &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("400m")}, Limits: v1.ResourceList{v1.ResourceCPU: q("400m")}}}}}
	for seed := uint64(1); seed <= 3; seed++ {
		cfg := Config{Seed: seed, For: Duration(time.Minute)}
		want, err := Simulate(cfg, []PodInput{in})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(want.Calls(), "UpdateContainerResources") {
			t.Fatalf("seed %d: the resize did nothing\n%s", seed, want.Calls())
		}
		got, err := drive(cfg, []PodInput{in}, driver{step: func() time.Duration { return time.Second }, api: func() bool { return true }})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if diff := timelineDiff(want, got); diff != "" {
			t.Fatalf("seed %d: %s\nSimulate:\n%s", seed, diff, want.Events())
		}
	}
	n := NewNode(Config{Seed: 1})
	if err := n.AddPod(n.Now(), pod, Script{}); err != nil {
		t.Fatal(err)
	}
	gone := pod.DeepCopy()
	gone.Spec.Resources = nil
	if err := n.UpdatePod(n.Now(), gone, nil); err == nil || !strings.Contains(err.Error(), "spec.resources") {
		t.Errorf("UpdatePod without spec.resources: error %v", err)
	}
}
