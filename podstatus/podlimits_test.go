package podstatus

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// PodLimits as resourcehelper.PodLimits: the regular containers' and
// sidecars' limits summed, raised to an init container's (with the
// sidecars before it); a pod-level limit replaces its resource's sum; the
// overhead goes only onto a limit present and not zero.
func TestPodLimits(t *testing.T) {
	q := resource.MustParse
	always := v1.ContainerRestartPolicyAlways
	lim := func(cpu, mem string) v1.ResourceRequirements {
		l := v1.ResourceList{}
		if cpu != "" {
			l[v1.ResourceCPU] = q(cpu)
		}
		if mem != "" {
			l[v1.ResourceMemory] = q(mem)
		}
		return v1.ResourceRequirements{Limits: l}
	}
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{
			{Name: "side", RestartPolicy: &always, Resources: lim("100m", "")},
			{Name: "init", Resources: lim("2", "1Gi")},
		},
		Containers: []v1.Container{{Name: "a", Resources: lim("500m", "256Mi")}, {Name: "b", Resources: lim("250m", "")}},
		Overhead:   v1.ResourceList{v1.ResourceCPU: q("10m"), v1.ResourceMemory: q("8Mi"), v1.ResourceEphemeralStorage: q("1Gi")},
	}}
	f := features.V1_37()
	check := func(name string, got v1.ResourceList, want map[v1.ResourceName]string) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
		for rn, w := range want {
			if g := got[rn]; g.Cmp(q(w)) != 0 {
				t.Errorf("%s: %s %s, want %s", name, rn, g.String(), w)
			}
		}
	}
	// cpu: 500m+250m+100m = 850m, raised to init 2 + side 100m = 2100m, +10m;
	// memory: 256Mi raised to 1Gi, +8Mi; no ephemeral-storage limit.
	check("containers", PodLimits(pod, f), map[v1.ResourceName]string{v1.ResourceCPU: "2110m", v1.ResourceMemory: "1032Mi"})
	pod.Spec.Resources = &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceMemory: q("2Gi")}}
	check("pod-level memory", PodLimits(pod, f), map[v1.ResourceName]string{v1.ResourceCPU: "2110m", v1.ResourceMemory: "2056Mi"})
	pod.Spec.Resources.Limits[v1.ResourceCPU] = q("0")
	check("a zero pod-level cpu limit takes no overhead", PodLimits(pod, f), map[v1.ResourceName]string{v1.ResourceCPU: "0", v1.ResourceMemory: "2056Mi"})
	off, err := f.With(features.PodLevelResources, false)
	if err != nil {
		t.Fatal(err)
	}
	check("gate PodLevelResources off", PodLimits(pod, off), map[v1.ResourceName]string{v1.ResourceCPU: "2110m", v1.ResourceMemory: "1032Mi"})
}
