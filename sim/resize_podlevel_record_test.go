package sim_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// burstablePodLevelPod has pod-level requests below its limits (Burstable,
// so a pod-level request may change alone) and one container with
// requests of its own and no limits (it takes the pod-level ones).
func burstablePodLevelPod() *v1.Pod {
	q := resource.MustParse
	return apiPod("plb", v1.PodSpec{
		Containers: []v1.Container{{Name: "app", Image: "a",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("100m"), v1.ResourceMemory: q("64Mi")}}}},
		Resources: &v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: q("200m"), v1.ResourceMemory: q("128Mi")},
			Limits:   v1.ResourceList{v1.ResourceCPU: q("400m"), v1.ResourceMemory: q("256Mi")},
		},
	})
}

// podLevelRecordVersions: v1.37 and v1.36 (gate
// InPlacePodLevelResourcesVerticalScaling on by default) and v1.35 with the
// gate set on (alpha, off by default).
func podLevelRecordVersions(t *testing.T) []features.Set {
	t.Helper()
	v135, err := features.V1_35().With(features.InPlacePodLevelResourcesVerticalScaling, true)
	if err != nil {
		t.Fatal(err)
	}
	return []features.Set{features.V1_37(), features.V1_36(), v135}
}

// inProgressAfter returns whether the pod's last API status has
// PodResizeInProgress, and whether any status after at had it.
func inProgressAfter(tl *sim.Timeline, at time.Duration) (last, seen bool) {
	for _, e := range apiStatuses(tl) {
		c := condition(&e.Status.Status, v1.PodResizeInProgress)
		if e.At >= at && c != nil {
			seen = true
		}
		last = c != nil
	}
	return last, seen
}

// A pod-level resize of the memory request alone (128Mi -> 192Mi) writes
// nothing to the pod cgroup: the kubelet writes no memory request to
// cgroups. v1.35 (gate on) records a pod-level resource only after a pod
// cgroup write of it (setPodCgroupConfig, kuberuntime_manager.go:902-903
// in v1.35.4), so the record keeps 128Mi and PodResizeInProgress
// (isPodLevelResourcesResizeInProgress, :2140) stays True for good; v1.36
// and v1.37 record each resource at the end of its step whenever the pod
// level is to resize (v1.36.3 :999, v1.37.2 :1084), and the condition
// goes. The pod-level allocatedResources show 192Mi on every version (the
// allocation is not the actuation).
func TestPodLevelMemoryRequestResizePerVersion(t *testing.T) {
	resize := &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("192Mi")}}
	for _, f := range podLevelRecordVersions(t) {
		// Short: the sim syncs a stuck v1.35 pod after every sync (its
		// on-demand relist), so a long run is slow.
		for seed := uint64(1); seed <= 2; seed++ {
			tl := run(t, sim.Config{Kubelet: sim.Kubelet{Features: f}, Seed: seed, For: sec(30)},
				sim.PodInput{Pod: burstablePodLevelPod(), Actions: []sim.Action{{At: sec(20), ResizePod: resize}}})
			last, seen := inProgressAfter(tl, 20*time.Second)
			if !seen {
				t.Fatalf("%s seed %d: no PodResizeInProgress after the resize\n%s", f.Version(), seed, tl.Events())
			}
			stuck := f.Version().Minor() < 36
			if last != stuck {
				t.Errorf("%s seed %d: PodResizeInProgress in the last status: %v, want %v", f.Version(), seed, last, stuck)
			}
			if n := len(calls(tl, "UpdateContainerResources", "app")); n != 0 {
				t.Errorf("%s seed %d: %d UpdateContainerResources of app, want none (its resources and limits stay)", f.Version(), seed, n)
			}
			st := apiStatuses(tl)
			if got := st[len(st)-1].Status.Status.AllocatedResources.Memory().String(); got != "192Mi" {
				t.Errorf("%s seed %d: pod-level allocatedResources memory %s, want 192Mi", f.Version(), seed, got)
			}
		}
	}
}

// A pod-level cpu resize (requests 200m -> 300m, limits 400m -> 600m)
// changes the pod cgroup's cpu shares and quota: every version records it
// (v1.35 with the writes, v1.36 and v1.37 at the end of the cpu step) and
// PodResizeInProgress goes; app, without a cpu limit of its own, follows
// the pod-level limit in place (quota 60000).
func TestPodLevelCPUResizeCompletesPerVersion(t *testing.T) {
	q := resource.MustParse
	resize := &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("300m")}, Limits: v1.ResourceList{v1.ResourceCPU: q("600m")}}
	for _, f := range podLevelRecordVersions(t) {
		tl := run(t, sim.Config{Kubelet: sim.Kubelet{Features: f}, Seed: 1, For: sec(90)},
			sim.PodInput{Pod: burstablePodLevelPod(), Actions: []sim.Action{{At: sec(20), ResizePod: resize}}})
		last, seen := inProgressAfter(tl, 20*time.Second)
		if !seen || last {
			t.Errorf("%s: PodResizeInProgress seen after the resize %v, in the last status %v; want seen and gone\n%s", f.Version(), seen, last, tl.Events())
		}
		ups := calls(tl, "UpdateContainerResources", "app")
		if len(ups) != 1 || ups[0].Resources == nil || ups[0].Resources.CPUQuota != 60000 {
			t.Errorf("%s: UpdateContainerResources of app %+v, want one with quota 60000\n%s", f.Version(), ups, tl.Calls())
		}
	}
}

// PodLevelRecorded: from v1.36 every pod-level resource of a pod-level
// resize is recorded; v1.35 records a resource only with a pod cgroup
// write of it (a memory request alone writes none; a cpu request does,
// through the shares; a memory limit does). Gate off, or a nil pod: never.
func TestPodLevelRecorded(t *testing.T) {
	q := resource.MustParse
	old := burstablePodLevelPod()
	with := func(change func(r *v1.ResourceRequirements)) *v1.Pod {
		p := old.DeepCopy()
		change(p.Spec.Resources)
		return p
	}
	memReq := with(func(r *v1.ResourceRequirements) { r.Requests[v1.ResourceMemory] = q("192Mi") })
	memLim := with(func(r *v1.ResourceRequirements) { r.Limits[v1.ResourceMemory] = q("512Mi") })
	cpuReq := with(func(r *v1.ResourceRequirements) { r.Requests[v1.ResourceCPU] = q("300m") })
	for _, f := range podLevelRecordVersions(t) {
		later := f.Version().Minor() >= 36
		for _, c := range []struct {
			name string
			pod  *v1.Pod
			rn   v1.ResourceName
			want bool
		}{
			{"memory request alone", memReq, v1.ResourceMemory, later},
			{"memory limit", memLim, v1.ResourceMemory, true},
			{"cpu request", cpuReq, v1.ResourceCPU, true},
			{"memory unchanged beside a cpu request", cpuReq, v1.ResourceMemory, later},
		} {
			if got := sim.PodLevelRecorded(old, c.pod, c.rn, f); got != c.want {
				t.Errorf("%s: %s: recorded %v, want %v", f.Version(), c.name, got, c.want)
			}
		}
	}
	if sim.PodLevelRecorded(old, memLim, v1.ResourceMemory, features.V1_35()) {
		t.Error("v1.35 with the gate off: recorded")
	}
	if sim.PodLevelRecorded(nil, memLim, v1.ResourceMemory, features.V1_37()) || sim.PodLevelRecorded(old, nil, v1.ResourceMemory, features.V1_37()) {
		t.Error("a nil pod: recorded")
	}
}
