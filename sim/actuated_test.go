package sim

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// TestSyncInitialisesActuated: a v1.37 sync of a running pod with resources
// and an empty memory initialises the actuated record from the pod
// (InitializeActuatedPod) and resizes nothing (no PodResizeInProgress
// either); v1.35 and v1.36 fill it with
// what their kubelet recorded starting what the runtime holds.
func TestSyncInitialisesActuated(t *testing.T) {
	res := v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("32Mi")},
		Limits:   v1.ResourceList{v1.ResourceMemory: resource.MustParse("64Mi")},
	}
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1", Resources: res}}})
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
		Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Running,
			Hash: containerhash.Of(&pod.Spec.Containers[0]), CreatedAt: t0.Add(-50 * time.Second), StartedAt: t0.Add(-50 * time.Second)}}}
	out := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0})
	if strings.Contains(out.Decision, "resize") || len(out.Calls) != 0 {
		t.Errorf("v1.37: decision %q, calls %s; want nothing", out.Decision, methods(out.Calls))
	}
	if got := out.Memory.Actuated.Containers["app"]; got.Limits.Memory().Cmp(resource.MustParse("64Mi")) != 0 || out.Memory.Actuated.Exact {
		t.Errorf("v1.37: memory holds %+v, want the record initialised from the pod (not Exact)", out.Memory.Actuated)
	}
	// The record the sync fills equals the pod: no resize in progress.
	if out.Memory.Resize.InProgress != nil {
		t.Errorf("v1.37: PodResizeInProgress %+v set by a sync that resized nothing", *out.Memory.Resize.InProgress)
	}
	// v1.35 has no InitializeActuatedPod, but a kubelet that ran the app
	// recorded its resources when it started it.
	for _, f := range []features.Set{features.V1_35(), features.V1_36()} {
		old := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0, Kubelet: Kubelet{Features: f}})
		if strings.Contains(old.Decision, "resize") || len(old.Calls) != 0 {
			t.Errorf("%v: decision %q, calls %s; want nothing", f.Version(), old.Decision, methods(old.Calls))
		}
	}
	// v1.37 recorded a container never started in InitializeActuatedPod:
	// starting it resizes nothing.
	two := testPod(v1.PodSpec{Containers: []v1.Container{pod.Spec.Containers[0], {Name: "late", Image: "web:1", Resources: res}}})
	if out := Sync(SyncInput{Pod: two, Runtime: st, Now: t0}); strings.Contains(out.Decision, "resize") {
		t.Errorf("v1.37, a container never started: decision %q, want no resize", out.Decision)
	}
}

// TestNextPartialActuated: a record read off a status names only running
// containers; what it leaves out is what the kubelet recorded from the spec,
// so starting a container that never ran resizes nothing.
func TestNextPartialActuated(t *testing.T) {
	res := v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1", Resources: res}, {Name: "late", Image: "web:1", Resources: res}}})
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
		Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Running,
			Hash: containerhash.Of(&pod.Spec.Containers[0]), CreatedAt: t0.Add(-50 * time.Second), StartedAt: t0.Add(-50 * time.Second)}}}
	a := podactions.Actuated{Containers: map[string]v1.ResourceRequirements{"app": res}}
	out := Next(pod, st, NextOptions{Now: t0, Actuated: &a})
	if strings.Contains(out.Decision, "resize") || !strings.Contains(out.Decision, "late") {
		t.Errorf("decision %q: want late started, nothing resized", out.Decision)
	}
}

// TestNextHistoryWithoutTimes: a restart history without times gives no
// back-off record, and says so (issue 23, item 4c).
func TestNextHistoryWithoutTimes(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2"}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
		Containers: []runtimestate.Container{
			{ID: "c2", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 1, RestartCount: 1},
			{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 1},
		}}
	out := Next(pod, st, NextOptions{Now: t0})
	if len(out.Messages) == 0 || !strings.Contains(out.Messages[0], "back-off of app taken as none") {
		t.Errorf("messages %q: want the unknown back-off said first", out.Messages)
	}
}

// TestSyncResizesMemoryBackedEmptyDirs: with gate
// InPlacePodVerticalScalingMemoryBackedVolumes, a sync that grows or
// shrinks memory-backed emptyDir volumes records their new size limits as
// actuated, each under its own name, and keeps the limits of the volumes
// it did not touch; a record that had no emptyDir limit gets them.
func TestSyncResizesMemoryBackedEmptyDirs(t *testing.T) {
	f, err := features.V1_37().With(features.InPlacePodVerticalScalingMemoryBackedVolumes, true)
	if err != nil {
		t.Fatal(err)
	}
	res := v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}
	vol := func(name, limit string) v1.Volume {
		q := resource.MustParse(limit)
		return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory, SizeLimit: &q}}}
	}
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1", Resources: res}},
		Volumes: []v1.Volume{
			{Name: "config", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: "settings"}}}},
			vol("same", "64Mi"), vol("grow", "128Mi"), vol("shrink", "16Mi")}})
	sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
		Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Running,
			Hash: containerhash.Of(&pod.Spec.Containers[0]), CreatedAt: t0.Add(-50 * time.Second), StartedAt: t0.Add(-50 * time.Second)}}}
	want := map[string]resource.Quantity{"same": resource.MustParse("64Mi"), "grow": resource.MustParse("128Mi"), "shrink": resource.MustParse("16Mi")}
	for _, tc := range []struct {
		name   string
		limits map[string]resource.Quantity
	}{
		{"recorded", map[string]resource.Quantity{"same": resource.MustParse("64Mi"), "grow": resource.MustParse("64Mi"), "shrink": resource.MustParse("32Mi")}},
		{"none recorded", nil},
	} {
		m := Memory{Actuated: podactions.Actuated{Exact: true, Containers: map[string]v1.ResourceRequirements{"app": res}, EmptyDirLimits: tc.limits}}
		out := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0, Memory: m, Kubelet: Kubelet{Features: f}})
		if !strings.Contains(out.Decision, "grow emptyDir volumes") {
			t.Errorf("%s: decision %q, want the emptyDirs resized", tc.name, out.Decision)
		}
		got := out.Memory.Actuated.EmptyDirLimits
		if len(got) != len(want) {
			t.Errorf("%s: actuated emptyDir limits %v, want %v", tc.name, got, want)
			continue
		}
		for k, q := range want {
			if g, ok := got[k]; !ok || g.Cmp(q) != 0 {
				t.Errorf("%s: actuated emptyDir limits %v, want %v", tc.name, got, want)
				break
			}
		}
	}
}
