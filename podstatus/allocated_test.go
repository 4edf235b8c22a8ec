package podstatus

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
)

func rlist(kv ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// The pod-level status.allocatedResources, worked by hand from
// resourcehelper.PodRequests' rules.
func TestPodRequests(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	ctr := func(name string, req v1.ResourceList) v1.Container {
		return v1.Container{Name: name, Resources: v1.ResourceRequirements{Requests: req}}
	}
	side := func(name string, req v1.ResourceList) v1.Container {
		c := ctr(name, req)
		c.RestartPolicy = &always
		return c
	}
	offPLR, _ := features.V1_37().With(features.PodLevelResources, false)
	for _, tc := range []struct {
		name string
		spec v1.PodSpec
		f    features.Set
		want v1.ResourceList
	}{
		{"no requests: an empty list, not nil",
			v1.PodSpec{Containers: []v1.Container{ctr("a", nil)}}, features.V1_37(), v1.ResourceList{}},
		{"regular containers add up",
			v1.PodSpec{Containers: []v1.Container{ctr("a", rlist("cpu", "100m", "memory", "32Mi")), ctr("b", rlist("cpu", "250m"))}},
			features.V1_37(), rlist("cpu", "350m", "memory", "32Mi")},
		{"a big init container raises the total to its own",
			v1.PodSpec{InitContainers: []v1.Container{ctr("init", rlist("cpu", "1", "memory", "16Mi"))},
				Containers: []v1.Container{ctr("a", rlist("cpu", "100m", "memory", "32Mi"))}},
			features.V1_37(), rlist("cpu", "1", "memory", "32Mi")},
		{"sidecars add up, and an init container after a sidecar counts with it",
			v1.PodSpec{InitContainers: []v1.Container{side("s", rlist("cpu", "200m")), ctr("init", rlist("cpu", "900m"))},
				Containers: []v1.Container{ctr("a", rlist("cpu", "100m"))}},
			features.V1_37(), rlist("cpu", "1100m")},
		{"pod-level requests replace the sum for their resources; overhead is added",
			v1.PodSpec{Containers: []v1.Container{ctr("a", rlist("cpu", "100m", "ephemeral-storage", "1Gi"))},
				Resources: &v1.ResourceRequirements{Requests: rlist("cpu", "2", "ephemeral-storage", "5Gi")},
				Overhead:  rlist("cpu", "50m", "memory", "8Mi")},
			features.V1_37(), rlist("cpu", "2050m", "ephemeral-storage", "1Gi", "memory", "8Mi")},
		{"PodLevelResources off: pod-level requests ignored",
			v1.PodSpec{Containers: []v1.Container{ctr("a", rlist("cpu", "100m"))},
				Resources: &v1.ResourceRequirements{Requests: rlist("cpu", "2")}},
			offPLR, rlist("cpu", "100m")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: tc.spec}
			got := podRequests(pod, tc.f)
			if got == nil || !equality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("podRequests = %v, want %v", got, tc.want)
			}
			// Compute writes it with InPlacePodLevelResourcesVerticalScaling,
			// which v1.35 has off by default.
			if r := Compute(pod, nil, Options{Features: tc.f}); !equality.Semantic.DeepEqual(r.Status.AllocatedResources, tc.want) {
				t.Errorf("Compute: allocatedResources %v", r.Status.AllocatedResources)
			}
			if r := Compute(pod, nil, Options{Features: features.V1_35()}); r.Status.AllocatedResources != nil {
				t.Errorf("v1.35: allocatedResources %v, want none", r.Status.AllocatedResources)
			}
		})
	}
}
