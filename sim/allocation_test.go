package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// apiStatuses are the statuses written to the API, in order.
func apiStatuses(tl *sim.Timeline) []sim.Entry {
	var out []sim.Entry
	for _, e := range tl.Entries {
		if e.Kind == sim.KindAPI && e.Status != nil {
			out = append(out, e)
		}
	}
	return out
}

func condition(st *v1.PodStatus, t v1.PodConditionType) *v1.PodCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

func cpuResize(req string) map[string]v1.ResourceRequirements {
	return map[string]v1.ResourceRequirements{"app": {Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(req)}}}
}

func others(cpu string) *v1.ResourceList {
	l := v1.ResourceList{}
	if cpu != "" {
		l[v1.ResourceCPU] = resource.MustParse(cpu)
	}
	return &l
}

// A resize that does not fit next to the node's other pods is deferred:
// PodResizePending Deferred with the predicate's message and the pod's
// generation, no runtime call, the allocated resources unchanged; when the
// other pods release their cpu it is admitted at once: PodResizeInProgress
// for the generation, one UpdateContainerResources, then both conditions
// gone and the status resources and allocatedResources at the new value.
func TestResizeDeferredUntilOtherPodsRelease(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		pod := resizePod(nil)
		gen := int64(2) // the resize's: the API server created the pod with 1
		tl := run(t, sim.Config{Seed: seed, For: sec(120)}, sim.PodInput{Pod: pod, Actions: []sim.Action{
			{At: sec(10), OtherRequests: others("1800m")},
			{At: sec(20), Resize: cpuResize("400m")},
			{At: sec(40), OtherRequests: others("")},
		}})
		ups := calls(tl, "UpdateContainerResources", "app")
		if len(ups) != 1 || ups[0].At < 40*time.Second || ups[0].At > 41*time.Second || ups[0].Resources.CPUShares != 409 {
			t.Fatalf("seed %d: want one UpdateContainerResources (shares 409) right after the release at 40s\n%s", seed, tl.Calls())
		}
		// The call takes the default 30 ms (api-resize's median).
		if d := ups[0].Done - ups[0].At; d != 30*time.Millisecond {
			t.Fatalf("seed %d: UpdateContainerResources took %s, want the default 30ms", seed, d)
		}
		var pending, inProgress, after *v1.PodStatus
		for _, e := range apiStatuses(tl) {
			st := &e.Status.Status
			switch {
			case e.At >= 20*time.Second && e.At < 40*time.Second && pending == nil && condition(st, v1.PodResizePending) != nil:
				pending = st
			case e.At >= 40*time.Second && inProgress == nil && condition(st, v1.PodResizeInProgress) != nil:
				inProgress = st
			case inProgress != nil:
				after = st
			}
		}
		if pending == nil {
			t.Fatalf("seed %d: no PodResizePending between 20s and 40s\n%s", seed, tl.Events())
		}
		c := condition(pending, v1.PodResizePending)
		if c.Status != v1.ConditionTrue || c.Reason != v1.PodReasonDeferred || c.ObservedGeneration != gen ||
			c.Message != "Node didn't have enough resource: cpu, requested: 400, used: 1800, capacity: 2000" {
			t.Errorf("seed %d: pending %+v", seed, *c)
		}
		if got := pending.ContainerStatuses[0].AllocatedResources.Cpu().String(); got != "250m" {
			t.Errorf("seed %d: allocatedResources cpu %s while deferred, want 250m", seed, got)
		}
		if inProgress == nil {
			t.Fatalf("seed %d: no PodResizeInProgress after 40s\n%s", seed, tl.Events())
		}
		if c := condition(inProgress, v1.PodResizeInProgress); c.ObservedGeneration != gen || c.Reason != "" || condition(inProgress, v1.PodResizePending) != nil {
			t.Errorf("seed %d: in progress %+v, pending %v", seed, *c, condition(inProgress, v1.PodResizePending))
		}
		if after == nil || condition(after, v1.PodResizeInProgress) != nil || condition(after, v1.PodResizePending) != nil {
			t.Fatalf("seed %d: the resize conditions stay after it is done: %+v", seed, after)
		}
		cs := after.ContainerStatuses[0]
		if cs.Resources == nil || cs.Resources.Requests.Cpu().String() != "400m" || cs.AllocatedResources.Cpu().String() != "400m" || cs.RestartCount != 0 {
			t.Errorf("seed %d: after the resize: resources %+v, allocated %v, restarts %d", seed, cs.Resources, cs.AllocatedResources, cs.RestartCount)
		}
	}
}

// An admitted cpu resize shows PodResizeInProgress until the PLEG's
// reinspection after the UpdateContainerResources call syncs the pod:
// well under a second, not until the next resync.
func TestResizeInProgressClearedByReinspection(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(60)}, sim.PodInput{Pod: resizePod(nil), Actions: []sim.Action{{At: sec(20), Resize: cpuResize("400m")}}})
		var set, cleared time.Duration = -1, -1
		for _, e := range apiStatuses(tl) {
			has := condition(&e.Status.Status, v1.PodResizeInProgress) != nil
			if has && set < 0 {
				set = e.At
			}
			if !has && set >= 0 && cleared < 0 {
				cleared = e.At
			}
		}
		if set < 20*time.Second || cleared < 0 || cleared-set > time.Second {
			t.Fatalf("seed %d: PodResizeInProgress set at %s, cleared at %s; want set at 20s and cleared within a second\n%s", seed, set, cleared, tl.Events())
		}
	}
}

// A memory resize under resizePolicy RestartContainer: PodResizeInProgress
// while the container is restarted, cleared by the status written once
// the new instance runs (restart count 1, status resources at the new
// memory limit).
func TestResizeRestartInProgress(t *testing.T) {
	policy := []v1.ContainerResizePolicy{{ResourceName: v1.ResourceMemory, RestartPolicy: v1.RestartContainer}}
	mem := map[string]v1.ResourceRequirements{"app": {
		Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("256Mi")},
		Limits:   v1.ResourceList{v1.ResourceMemory: resource.MustParse("256Mi")}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: resizePod(policy), Actions: []sim.Action{{At: sec(20), Resize: mem}}})
	var during, done *v1.PodStatus
	for _, e := range apiStatuses(tl) {
		st := &e.Status.Status
		if e.At >= 20*time.Second && condition(st, v1.PodResizeInProgress) != nil && during == nil {
			during = st
		}
		if during != nil && condition(st, v1.PodResizeInProgress) == nil && done == nil {
			done = st
		}
	}
	if during == nil || done == nil {
		t.Fatalf("want PodResizeInProgress set and then cleared\n%s", tl.Events())
	}
	if during.ContainerStatuses[0].RestartCount != 0 || during.ContainerStatuses[0].Resources.Limits.Memory().String() != "128Mi" {
		t.Errorf("during: %+v", during.ContainerStatuses[0])
	}
	cs := done.ContainerStatuses[0]
	if cs.RestartCount != 1 || cs.Resources == nil || cs.Resources.Limits.Memory().String() != "256Mi" {
		t.Errorf("done: restarts %d, resources %+v", cs.RestartCount, cs.Resources)
	}
}

// A deferred resize is retried by the allocation manager's ticker 3
// minutes after the last retry: the PodResizePending condition is set
// again (a new probe time), and the pod synced to write it.
func TestResizePeriodicRetry(t *testing.T) {
	tl := run(t, sim.Config{Seed: 1, For: sec(300)}, sim.PodInput{Pod: resizePod(nil), Actions: []sim.Action{
		{At: sec(10), OtherRequests: others("1800m")},
		{At: sec(20), Resize: cpuResize("400m")},
	}})
	var probes []time.Duration
	for _, e := range apiStatuses(tl) {
		if c := condition(&e.Status.Status, v1.PodResizePending); c != nil {
			p := c.LastProbeTime.Sub(tl.Start)
			if len(probes) == 0 || probes[len(probes)-1] != p {
				probes = append(probes, p)
			}
		}
	}
	if len(probes) != 2 || probes[0] != 20*time.Second || probes[1] != 200*time.Second {
		t.Fatalf("PodResizePending probed at %v, want [20s 3m20s]\n%s", probes, tl.Events())
	}
	if len(calls(tl, "UpdateContainerResources", "app")) != 0 {
		t.Fatalf("a resize still deferred is not actuated\n%s", tl.Calls())
	}
}

// A resize above the node's allocatable is refused by the API server
// (PodResizeValidator): an error of Simulate, with Config.Allocatable
// taken as the node's.
func TestResizeAboveAllocatable(t *testing.T) {
	pod := resizePod(nil)
	r := map[string]v1.ResourceRequirements{"app": {Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("3")},
		Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")}}}
	_, err := sim.Simulate(sim.Config{}, []sim.PodInput{{Pod: pod, Actions: []sim.Action{{At: sec(5), Resize: r}}}})
	if err == nil || !strings.Contains(err.Error(), "cpu, requested: 3000, allocatable: 2000") {
		t.Fatalf("error %v, want the PodResizeValidator's", err)
	}
	big := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi")}
	if _, err := sim.Simulate(sim.Config{Allocatable: big, For: sec(10)}, []sim.PodInput{{Pod: pod, Actions: []sim.Action{{At: sec(5), Resize: r}}}}); err != nil {
		t.Fatalf("a node with 4 cpus takes it: %v", err)
	}
	bad := v1.ResourceList{v1.ResourceEphemeralStorage: resource.MustParse("1Gi")}
	if _, err := sim.Simulate(sim.Config{}, []sim.PodInput{{Pod: pod, Actions: []sim.Action{{At: sec(5), OtherRequests: &bad}}}}); err == nil || !strings.Contains(err.Error(), "only cpu and memory") {
		t.Fatalf("otherRequests of ephemeral-storage: error %v", err)
	}
}

// Every status the kubelet writes around a deferred, then admitted resize
// is one podstatus.Check accepts for the pod the API holds then.
func TestResizeStatusesPassCheck(t *testing.T) {
	pod := resizePod(nil)
	tl := run(t, sim.Config{Seed: 1, For: sec(120)}, sim.PodInput{Pod: pod, Actions: []sim.Action{
		{At: sec(10), OtherRequests: others("1800m")},
		{At: sec(20), Resize: cpuResize("400m")},
		{At: sec(40), OtherRequests: others("")},
	}})
	for _, e := range apiStatuses(tl) {
		p := pod.DeepCopy()
		p.Generation = 1 // as the API server created it
		if e.At >= 20*time.Second {
			p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("400m")
			p.Generation++
		}
		p.Status = e.Status.Status
		if m := podstatus.Check(p, podstatus.RecomputeOptions{Now: tl.Start.Add(e.At)}); len(m) > 0 {
			t.Errorf("%s: %+v", e.At, m)
		}
	}
}

// A deferred resize is retried only when the node's other pods release
// requests: a rise (1800m to 1900m) retries nothing, nor does the same
// value again. Released at 150s, after resyncs that wrote no status, the
// resize is admitted at once and the container resized to the new
// request: one UpdateContainerResources (shares 409), allocatedResources
// 400m.
func TestResizeRetriedOnlyWhenOthersRelease(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(180)}, sim.PodInput{Pod: resizePod(nil), Actions: []sim.Action{
			{At: sec(10), OtherRequests: others("1800m")},
			{At: sec(20), Resize: cpuResize("400m")},
			{At: sec(30), OtherRequests: others("1900m")},
			{At: sec(40), OtherRequests: others("1900m")},
			{At: sec(150), OtherRequests: others("")},
		}})
		for _, e := range tl.Entries {
			if e.Kind == sim.KindAction && strings.Contains(e.Message, "pods_removed") && e.At < 150*time.Second {
				t.Errorf("seed %d: %s: a retry at %s, before the other pods released anything\n%s", seed, e.Message, e.At, tl.Events())
			}
		}
		ups := calls(tl, "UpdateContainerResources", "app")
		if len(ups) != 1 || ups[0].At < 150*time.Second || ups[0].At > 151*time.Second || ups[0].Resources.CPUShares != 409 {
			t.Fatalf("seed %d: want one UpdateContainerResources (shares 409) right after the release at 150s\n%s", seed, tl.Calls())
		}
		sts := apiStatuses(tl)
		last := sts[len(sts)-1].Status.Status
		if cs := last.ContainerStatuses[0]; cs.AllocatedResources.Cpu().String() != "400m" || cs.Resources == nil || cs.Resources.Requests.Cpu().String() != "400m" {
			t.Errorf("seed %d: last status: allocated %v, resources %+v; want cpu 400m", seed, cs.AllocatedResources, cs.Resources)
		}
	}
}

// An otherRequests action says what the other pods now request, cpu then
// memory, or nothing.
func TestOtherRequestsActionString(t *testing.T) {
	both := v1.ResourceList{v1.ResourceMemory: resource.MustParse("16Mi"), v1.ResourceCPU: resource.MustParse("1500m")}
	for _, tc := range []struct {
		l    *v1.ResourceList
		want string
	}{
		{&both, "other pods request cpu=1500m,memory=16Mi"},
		{others("1"), "other pods request cpu=1"},
		{others(""), "other pods request nothing"},
	} {
		if got := (sim.Action{OtherRequests: tc.l}).String(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}
