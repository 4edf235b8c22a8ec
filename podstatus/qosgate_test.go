package podstatus_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
)

// TestQOSPodLevelResourcesGate: pod-level resources decide the QoS class
// only with gate PodLevelResources on; with it off the containers do. (The
// mutation run's podstatus-pod-level-qos-ungated was caught only by the
// differential suite.)
func TestQOSPodLevelResourcesGate(t *testing.T) {
	q := resource.MustParse("100m")
	m := resource.MustParse("64Mi")
	pod := &v1.Pod{Spec: v1.PodSpec{
		Resources:  &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q, v1.ResourceMemory: m}, Limits: v1.ResourceList{v1.ResourceCPU: q, v1.ResourceMemory: m}},
		Containers: []v1.Container{{Name: "app", Image: "web:1"}},
	}}
	off, err := features.V1_37().With(features.PodLevelResources, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f    features.Set
		want v1.PodQOSClass
	}{{features.V1_37(), v1.PodQOSGuaranteed}, {off, v1.PodQOSBestEffort}} {
		if got := podstatus.Compute(pod, nil, podstatus.Options{Features: tc.f}).Status.QOSClass; got != tc.want {
			t.Errorf("PodLevelResources %v: QoS %s, want %s", tc.f.Enabled(features.PodLevelResources), got, tc.want)
		}
	}
}
