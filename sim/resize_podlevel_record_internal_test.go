package sim

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// podLevelRR builds pod-level (or container) requirements from
// "resource=quantity" pairs, requests and limits apart; none given: nil.
func podLevelRR(requests, limits map[v1.ResourceName]string) v1.ResourceRequirements {
	var r v1.ResourceRequirements
	for _, p := range []struct {
		to   *v1.ResourceList
		from map[v1.ResourceName]string
	}{{&r.Requests, requests}, {&r.Limits, limits}} {
		for n, q := range p.from {
			if *p.to == nil {
				*p.to = v1.ResourceList{}
			}
			(*p.to)[n] = resource.MustParse(q)
		}
	}
	return r
}

// samePodLevel says whether two pod-level records have the same cpu and
// memory requests and limits, an absent one read as zero (as
// isPodLevelResourcesResizeInProgress compares them).
func samePodLevel(a, b *v1.ResourceRequirements) bool {
	if a == nil {
		a = &v1.ResourceRequirements{}
	}
	if b == nil {
		b = &v1.ResourceRequirements{}
	}
	for _, rn := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		if !quantityEqual(a.Requests, b.Requests, rn) || !quantityEqual(a.Limits, b.Limits, rn) {
			return false
		}
	}
	return true
}

func podLevelString(r *v1.ResourceRequirements) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("requests cpu %s memory %s, limits cpu %s memory %s", r.Requests.Cpu(), r.Requests.Memory(), r.Limits.Cpu(), r.Limits.Memory())
}

// TestPodLevelRecordPerVersion: what a pod-level resize leaves in the
// actuated pod-level record, per version, one sync of a running pod whose
// record holds the old pod-level resources (and its container's the old
// ones), and whether the next sync still finds PodResizeInProgress.
//
//   - v1.35 (gate InPlacePodLevelResourcesVerticalScaling set on) records
//     a resource only when doPodResizeAction writes it to the pod cgroup
//     (setPodCgroupConfig, kuberuntime_manager.go:873, :902-903): the
//     memory limit or the cpu quota or shares must change. A pod-level
//     memory request alone writes nothing (memory requests are not written
//     to cgroups, :886, and resizeContainers gets none, :962), nor does a
//     cpu request whose shares stay the same (1m and 2m both give the
//     minimum 2 shares); the record keeps the old values and the resize
//     stays in progress. A memory request that changes with a container
//     memory limit that moves the pod's memory limit (no pod-level memory
//     limit: the containers' sum) is recorded with that write.
//   - v1.36 and v1.37 record each resource after its step of
//     doPodResizeAction whenever the pod level is to resize (v1.36.3
//     :999-1000, v1.37.2 :1084-1085), written or not: every case
//     completes.
func TestPodLevelRecordPerVersion(t *testing.T) {
	type rl = map[v1.ResourceName]string
	cpu, mem := v1.ResourceCPU, v1.ResourceMemory
	for _, tc := range []struct {
		name        string
		app, appNew v1.ResourceRequirements // the container's resources before and after (appNew zero: unchanged)
		old, new    v1.ResourceRequirements // the pod-level ones
		v135Records bool                    // whether v1.35 records new (false: the record keeps old)
	}{
		{name: "memory request only",
			app: podLevelRR(rl{cpu: "100m", mem: "64Mi"}, nil),
			old: podLevelRR(rl{cpu: "200m", mem: "128Mi"}, rl{cpu: "400m", mem: "256Mi"}),
			new: podLevelRR(rl{cpu: "200m", mem: "192Mi"}, rl{cpu: "400m", mem: "256Mi"})},
		{name: "memory request and limit", v135Records: true,
			app: podLevelRR(rl{cpu: "100m", mem: "64Mi"}, nil),
			old: podLevelRR(rl{cpu: "200m", mem: "128Mi"}, rl{cpu: "400m", mem: "256Mi"}),
			new: podLevelRR(rl{cpu: "200m", mem: "192Mi"}, rl{cpu: "400m", mem: "512Mi"})},
		{name: "cpu request and limit", v135Records: true,
			app: podLevelRR(rl{cpu: "100m", mem: "64Mi"}, nil),
			old: podLevelRR(rl{cpu: "200m", mem: "128Mi"}, rl{cpu: "400m", mem: "256Mi"}),
			new: podLevelRR(rl{cpu: "300m", mem: "128Mi"}, rl{cpu: "600m", mem: "256Mi"})},
		{name: "cpu request only", v135Records: true,
			app: podLevelRR(rl{cpu: "100m", mem: "64Mi"}, nil),
			old: podLevelRR(rl{cpu: "200m", mem: "128Mi"}, rl{cpu: "400m", mem: "256Mi"}),
			new: podLevelRR(rl{cpu: "300m", mem: "128Mi"}, rl{cpu: "400m", mem: "256Mi"})},
		{name: "cpu request within the minimum shares",
			app: podLevelRR(rl{mem: "64Mi"}, nil),
			old: podLevelRR(rl{cpu: "1m", mem: "128Mi"}, rl{mem: "256Mi"}),
			new: podLevelRR(rl{cpu: "2m", mem: "128Mi"}, rl{mem: "256Mi"})},
		{name: "memory request with a container memory limit", v135Records: true,
			app:    podLevelRR(rl{cpu: "100m", mem: "64Mi"}, rl{mem: "128Mi"}),
			appNew: podLevelRR(rl{cpu: "100m", mem: "64Mi"}, rl{mem: "256Mi"}),
			old:    podLevelRR(rl{cpu: "200m", mem: "128Mi"}, nil),
			new:    podLevelRR(rl{cpu: "200m", mem: "192Mi"}, nil)},
	} {
		for _, f := range podLevelVersions(t) {
			where := fmt.Sprintf("%s, %s", tc.name, f.Version())
			appNew := tc.appNew
			if appNew.Requests == nil && appNew.Limits == nil {
				appNew = tc.app
			}
			newRes := tc.new
			pod := testPod(v1.PodSpec{
				Containers: []v1.Container{{Name: "app", Image: "web:1", Resources: *appNew.DeepCopy()}},
				Resources:  &newRes,
			})
			sb := runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Hour)}
			st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
				Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Running,
					CreatedAt: t0.Add(-time.Hour), StartedAt: t0.Add(-time.Hour)}}}
			old := tc.old
			m := Memory{Actuated: podactions.Actuated{
				Containers: map[string]v1.ResourceRequirements{"app": withPodLimits(*tc.app.DeepCopy(), &old, f)},
				Pod:        old.DeepCopy()}}
			first := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0, Memory: m, Kubelet: Kubelet{Features: f}})
			if first.Memory.Resize.InProgress == nil {
				t.Errorf("%s: no PodResizeInProgress at the sync that sees the resize", where)
			}
			records := f.Version().Minor() >= 36 || tc.v135Records
			want := &tc.old
			if records {
				want = &tc.new
			}
			got := first.Memory.Actuated.Pod
			if !samePodLevel(got, want) {
				t.Errorf("%s: actuated pod-level after the resize: %s, want %s", where, podLevelString(got), podLevelString(want))
			}
			second := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0.Add(time.Second), Memory: first.Memory, Kubelet: Kubelet{Features: f}})
			if inProgress := second.Memory.Resize.InProgress != nil; inProgress == records {
				t.Errorf("%s: PodResizeInProgress at the next sync: %v, want %v", where, inProgress, !records)
			}
			if !samePodLevel(second.Memory.Actuated.Pod, want) {
				t.Errorf("%s: actuated pod-level after the next sync: %s, want %s", where, podLevelString(second.Memory.Actuated.Pod), podLevelString(want))
			}
		}
	}
}

// TestRecordPodLevelKeepsOthers: updateActuatedPodLevelResources writes
// only the resource it is given, its request when the allocated requests
// exist and its limit when the allocated limits do (an absent one as
// zero), into the record it finds (an empty one when none), keeping the
// record's other entries.
func TestRecordPodLevelKeepsOthers(t *testing.T) {
	type rl = map[v1.ResourceName]string
	cpu, mem := v1.ResourceCPU, v1.ResourceMemory
	old := podLevelRR(rl{cpu: "200m", mem: "128Mi"}, rl{cpu: "400m", "hugepages-2Mi": "2Mi"})
	alloc := podLevelRR(rl{cpu: "300m", mem: "192Mi"}, nil)
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}, Resources: &alloc})
	a := podactions.Actuated{Pod: old.DeepCopy()}
	recordPodLevel(&a, pod, mem)
	if got := a.Pod.Requests.Memory().String(); got != "192Mi" {
		t.Errorf("memory request %s, want 192Mi", got)
	}
	if got := a.Pod.Requests.Cpu().String(); got != "200m" {
		t.Errorf("cpu request %s, want 200m kept (only memory written)", got)
	}
	if got := a.Pod.Limits.Cpu().String(); got != "400m" || a.Pod.Limits["hugepages-2Mi"] != resource.MustParse("2Mi") {
		t.Errorf("limits %v, want cpu 400m and hugepages-2Mi 2Mi kept (no allocated limits: none written)", a.Pod.Limits)
	}
	if old.Requests.Memory().String() != "128Mi" {
		t.Errorf("the record written in place: old memory request now %s", old.Requests.Memory())
	}
	none := podactions.Actuated{}
	recordPodLevel(&none, pod, cpu)
	if none.Pod == nil || none.Pod.Requests.Cpu().String() != "300m" || len(none.Pod.Requests) != 1 || none.Pod.Limits != nil {
		t.Errorf("from no record: %+v, want requests cpu 300m only", none.Pod)
	}
}
