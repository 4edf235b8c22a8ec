package sim

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Before v1.37 the kubelet records the pod-level resources when it creates
// the pod's cgroup, at the pod's first SyncPod (UpdateActuatedPodLevelResources,
// v1.36.3 kubelet.go:2178, v1.35.4 :2102): initActuated writes them whether
// this sync creates the first sandbox or one exists already (a pod handed
// over running), and never an emptyDir limit (those kubelets keep none:
// they do not resize volumes).
func TestInitActuatedPodAndEmptyDirsBefore137(t *testing.T) {
	podRes := &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceMemory: resource.MustParse("256Mi")}}
	lim := resource.MustParse("64Mi")
	pod := testPod(v1.PodSpec{
		Containers: []v1.Container{{Name: "app", Image: "web:1"}},
		Resources:  podRes,
		Volumes: []v1.Volume{
			{Name: "cfg", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}},
			{Name: "disk", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{SizeLimit: &lim}}},
			{Name: "mem", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory, SizeLimit: &lim}}},
			{Name: "nolimit", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory}}},
		},
	})
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}
	withSandbox := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb}}
	noSandbox := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}
	for _, f := range []features.Set{features.V1_35(), features.V1_36()} {
		for _, tc := range []struct {
			name string
			st   *runtimestate.Pod
		}{{"sandbox", withSandbox}, {"no sandbox", noSandbox}, {"no runtime state", nil}} {
			a := initActuated(pod, tc.st, f)
			if a.Pod == nil || a.Pod.Limits.Memory().Cmp(resource.MustParse("256Mi")) != 0 {
				t.Errorf("%s, %s: pod-level record %+v, want the spec's %+v", f.Version(), tc.name, a.Pod, *podRes)
			}
			if a.EmptyDirLimits != nil {
				t.Errorf("%s, %s: emptyDir limits %v, want none", f.Version(), tc.name, a.EmptyDirLimits)
			}
		}
	}
}

// A record given to Next is written over what the kubelet recorded from the
// spec (overActuated): its pod-level entry wins where it has one, the
// base's stays where it has none, and emptyDir limits of both are kept,
// the given one's winning.
func TestOverActuated(t *testing.T) {
	q := resource.MustParse
	base := podactions.Actuated{
		Containers:     map[string]v1.ResourceRequirements{"app": {}},
		Pod:            &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceMemory: q("256Mi")}},
		EmptyDirLimits: map[string]resource.Quantity{"a": q("1Mi"), "b": q("2Mi")},
	}
	given := podactions.Actuated{
		Pod:            &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceMemory: q("512Mi")}},
		EmptyDirLimits: map[string]resource.Quantity{"b": q("3Mi")},
		Exact:          true,
	}
	out := overActuated(base, given)
	if out.Pod == nil || out.Pod.Limits.Memory().Cmp(q("512Mi")) != 0 || !out.Exact {
		t.Errorf("given a pod-level record: %+v, want the given 512Mi, exact", out)
	}
	if a, b := out.EmptyDirLimits["a"], out.EmptyDirLimits["b"]; len(out.EmptyDirLimits) != 2 || a.Cmp(q("1Mi")) != 0 || b.Cmp(q("3Mi")) != 0 {
		t.Errorf("emptyDir limits %v, want a: 1Mi (base), b: 3Mi (given)", out.EmptyDirLimits)
	}
	if _, ok := out.Containers["app"]; !ok {
		t.Errorf("containers %v: the base's app lost", out.Containers)
	}
	out = overActuated(base, podactions.Actuated{})
	if out.Pod == nil || out.Pod.Limits.Memory().Cmp(q("256Mi")) != 0 {
		t.Errorf("given no pod-level record: %+v, want the base's 256Mi", out.Pod)
	}
}
