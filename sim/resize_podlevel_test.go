package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// podLevelPod is a pod in the shape of the docs' pod-level resize example
// (pods/resource/pod-level-resize.yaml): pod-level requests equal to
// limits (Guaranteed), one container with requests of its own (cpu
// resized in place, memory by a restart) and one without resources that
// restarts for either resource.
func podLevelPod() *v1.Pod {
	q := resource.MustParse
	return apiPod("plr", v1.PodSpec{
		Containers: []v1.Container{
			{Name: "main", Image: "a", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("100m"), v1.ResourceMemory: q("64Mi")}},
				ResizePolicy: []v1.ContainerResizePolicy{{ResourceName: v1.ResourceCPU, RestartPolicy: v1.NotRequired}, {ResourceName: v1.ResourceMemory, RestartPolicy: v1.RestartContainer}}},
			{Name: "web", Image: "b",
				ResizePolicy: []v1.ContainerResizePolicy{{ResourceName: v1.ResourceCPU, RestartPolicy: v1.RestartContainer}, {ResourceName: v1.ResourceMemory, RestartPolicy: v1.RestartContainer}}},
		},
		Resources: &v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: q("200m"), v1.ResourceMemory: q("256Mi")},
			Limits:   v1.ResourceList{v1.ResourceCPU: q("200m"), v1.ResourceMemory: q("256Mi")},
		},
	})
}

// podCPU is a pod-level resize of the cpu request and limit to v.
func podCPU(v string) *v1.ResourceRequirements {
	return &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(v)}, Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse(v)}}
}

// A pod-level cpu resize (200m -> 400m, requests and limits) of the docs'
// shape, on every version whose gate InPlacePodLevelResourcesVerticalScaling
// is on by default: the API server bumps the generation once (2); the
// kubelet admits it at once (no PodResizePending) and sets
// PodResizeInProgress for generation 2; it actuates it through
// computePodActions: main, without a cpu limit of its own, follows the
// pod-level limit and is updated in place (UpdateContainerResources with
// a 40000/100000 quota: pkg/kubelet/util GetLimits), web restarts (its cpu
// resizePolicy is RestartContainer); PodResizeInProgress then goes, and
// the pod-level allocatedResources show 400m.
func TestPodLevelResizeAdmittedAndActuated(t *testing.T) {
	for _, f := range []features.Set{features.V1_37(), features.V1_36()} {
		for seed := uint64(1); seed <= 3; seed++ {
			tl := run(t, sim.Config{Kubelet: sim.Kubelet{Features: f}, Seed: seed, For: sec(90)},
				sim.PodInput{Pod: podLevelPod(), Actions: []sim.Action{{At: sec(20), ResizePod: podCPU("400m")}}})
			where := func() string { return f.Version().String() + " seed " + string(rune('0'+seed)) }
			ups := calls(tl, "UpdateContainerResources", "main")
			if len(ups) != 1 || ups[0].At < 20*time.Second || ups[0].Resources == nil || ups[0].Resources.CPUQuota != 40000 || ups[0].Resources.CPUShares != 102 {
				t.Fatalf("%s: UpdateContainerResources of main: %+v, want one after 20s with quota 40000 and shares 102\n%s", where(), ups, tl.Calls())
			}
			if n := len(calls(tl, "UpdateContainerResources", "web")); n != 0 {
				t.Errorf("%s: web updated in place %d times, want a restart", where(), n)
			}
			starts := calls(tl, "StartContainer", "web")
			if stops := calls(tl, "StopContainer", "web"); len(stops) != 1 || stops[0].At < 20*time.Second || len(starts) != 2 {
				t.Fatalf("%s: web stopped %d times, started %d times: want one restart after 20s\n%s", where(), len(stops), len(starts), tl.Calls())
			}
			var inProgress, last *sim.StatusEntry
			for _, e := range apiStatuses(tl) {
				st := &e.Status.Status
				if condition(st, v1.PodResizePending) != nil {
					t.Fatalf("%s: PodResizePending at %s: %+v", where(), e.At, *condition(st, v1.PodResizePending))
				}
				if e.At >= 20*time.Second && inProgress == nil && condition(st, v1.PodResizeInProgress) != nil {
					inProgress = e.Status
				}
				last = e.Status
			}
			if inProgress == nil {
				t.Fatalf("%s: no PodResizeInProgress\n%s", where(), tl.Events())
			}
			if c := condition(&inProgress.Status, v1.PodResizeInProgress); c.ObservedGeneration != 2 || inProgress.Generation != 2 {
				t.Errorf("%s: PodResizeInProgress for generation %d on a pod of generation %d, want 2 and 2", where(), c.ObservedGeneration, inProgress.Generation)
			}
			if condition(&last.Status, v1.PodResizeInProgress) != nil || last.Generation != 2 || last.Status.ObservedGeneration != 2 {
				t.Errorf("%s: last status: in progress %v, generation %d, observed %d", where(), condition(&last.Status, v1.PodResizeInProgress), last.Generation, last.Status.ObservedGeneration)
			}
			if got := last.Status.AllocatedResources.Cpu().String(); got != "400m" {
				t.Errorf("%s: pod-level allocatedResources cpu %s, want 400m", where(), got)
			}
		}
	}
}

// A pod-level resize that does not fit next to the node's other pods is
// deferred like a container resize: PodResizePending Deferred with the
// predicate's message (the pod's requests are its pod-level ones: 400m),
// nothing actuated, allocatedResources still 200m; admitted and actuated
// when the other pods release their cpu.
func TestPodLevelResizeDeferred(t *testing.T) {
	tl := run(t, sim.Config{Seed: 1, For: sec(120)}, sim.PodInput{Pod: podLevelPod(), Actions: []sim.Action{
		{At: sec(10), OtherRequests: others("1700m")},
		{At: sec(20), ResizePod: podCPU("400m")},
		{At: sec(40), OtherRequests: others("")},
	}})
	ups := calls(tl, "UpdateContainerResources", "main")
	if len(ups) != 1 || ups[0].At < 40*time.Second || ups[0].At > 41*time.Second {
		t.Fatalf("want one UpdateContainerResources of main right after the release at 40s\n%s", tl.Calls())
	}
	var pending *v1.PodStatus
	for _, e := range apiStatuses(tl) {
		if e.At >= 20*time.Second && e.At < 40*time.Second && condition(&e.Status.Status, v1.PodResizePending) != nil {
			pending = &e.Status.Status
			break
		}
	}
	if pending == nil {
		t.Fatalf("no PodResizePending between 20s and 40s\n%s", tl.Events())
	}
	c := condition(pending, v1.PodResizePending)
	if c.Reason != v1.PodReasonDeferred || c.ObservedGeneration != 2 || c.Message != "Node didn't have enough resource: cpu, requested: 400, used: 1700, capacity: 2000" {
		t.Errorf("pending %+v", *c)
	}
	if got := pending.AllocatedResources.Cpu().String(); got != "200m" {
		t.Errorf("pod-level allocatedResources cpu %s while deferred, want 200m", got)
	}
}

// What the API server refuses, as an error of Simulate that says why: a
// change of the QoS class (a pod-level cpu request below its limit makes
// the Guaranteed pod Burstable), a pod-level request below the
// containers' aggregate request (validatePodResourceConsistency), a
// resource other than cpu and memory, a pod without pod-level resources,
// and, on v1.35 (gate InPlacePodLevelResourcesVerticalScaling off by
// default), any resize of a pod with pod-level resources, its containers'
// included. On v1.35 with the gate set on, the resize is accepted.
func TestPodLevelResizeRefused(t *testing.T) {
	q := resource.MustParse
	noPodLevel := podLevelPod()
	noPodLevel.Spec.Resources = nil
	for _, c := range []struct {
		name   string
		f      features.Set
		pod    *v1.Pod
		action sim.Action
		want   string
	}{
		{"qos", features.V1_37(), podLevelPod(), sim.Action{ResizePod: &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("150m")}}},
			"QoS class would change from Guaranteed to Burstable"},
		{"below containers", features.V1_37(), podLevelPod(), sim.Action{ResizePod: podCPU("50m")},
			"spec.resources.requests[cpu]: 50m: must be greater than or equal to aggregate container requests of 100m"},
		{"hugepages", features.V1_37(), podLevelPod(), sim.Action{ResizePod: &v1.ResourceRequirements{Limits: v1.ResourceList{"hugepages-2Mi": q("2Mi")}}},
			"pod-level: limits.hugepages-2Mi: only cpu and memory can be resized"},
		{"no pod-level resources", features.V1_37(), noPodLevel, sim.Action{ResizePod: podCPU("400m")},
			"has no pod-level resources (spec.resources): adding them by a resize is not modelled"},
		{"gate off", features.V1_35(), podLevelPod(), sim.Action{ResizePod: podCPU("400m")},
			"gate InPlacePodLevelResourcesVerticalScaling is off (its default in v1.35.4): the API server forbids resizing such a pod"},
		{"gate off, container", features.V1_35(), podLevelPod(), sim.Action{Resize: map[string]v1.ResourceRequirements{"main": {Requests: v1.ResourceList{v1.ResourceCPU: q("150m")}}}},
			"the API server forbids resizing such a pod"},
		{"gate off, none to resize", features.V1_35(), noPodLevel, sim.Action{ResizePod: podCPU("400m")},
			"the API server drops spec.resources from a resize, which would change nothing"},
	} {
		c.action.At = sec(20)
		_, err := sim.Simulate(sim.Config{Kubelet: sim.Kubelet{Features: c.f}, For: sec(30)}, []sim.PodInput{{Pod: c.pod, Actions: []sim.Action{c.action}}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	on, err := features.V1_35().With(features.InPlacePodLevelResourcesVerticalScaling, true)
	if err != nil {
		t.Fatal(err)
	}
	tl := run(t, sim.Config{Kubelet: sim.Kubelet{Features: on}, Seed: 1, For: sec(60)},
		sim.PodInput{Pod: podLevelPod(), Actions: []sim.Action{{At: sec(20), ResizePod: podCPU("400m")}}})
	if ups := calls(tl, "UpdateContainerResources", "main"); len(ups) != 1 {
		t.Errorf("v1.35 with the gate on: %d UpdateContainerResources of main, want 1\n%s", len(ups), tl.Calls())
	}
}

// A pod-level resize and a container resize in one action are one request:
// the API server checks the resized pod as a whole (raising main's cpu
// request to 300m is refused alone, the pod-level request being 200m, and
// accepted with the pod-level request raised to 400m in the same action),
// and bumps the generation once.
func TestPodLevelResizeWithContainers(t *testing.T) {
	main := map[string]v1.ResourceRequirements{"main": {Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("300m")}}}
	_, err := sim.Simulate(sim.Config{For: sec(30)}, []sim.PodInput{{Pod: podLevelPod(), Actions: []sim.Action{{At: sec(20), Resize: main}}}})
	if err == nil || !strings.Contains(err.Error(), "aggregate container requests of 300m") {
		t.Fatalf("main to 300m alone: error %v, want the pod-level request's", err)
	}
	a := sim.Action{At: sec(20), Resize: main, ResizePod: podCPU("400m")}
	if got, want := a.String(), "resize main requests.cpu=300m; pod-level requests.cpu=400m,limits.cpu=400m"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: podLevelPod(), Actions: []sim.Action{a}})
	var gen int64
	for _, e := range apiStatuses(tl) {
		gen = e.Status.Generation
	}
	if gen != 2 {
		t.Errorf("generation %d after one resize, want 2", gen)
	}
	ups := calls(tl, "UpdateContainerResources", "main")
	if len(ups) != 1 || ups[0].Resources.CPUShares != 307 || ups[0].Resources.CPUQuota != 40000 {
		t.Errorf("UpdateContainerResources of main: %+v, want one with shares 307 and quota 40000\n%s", ups, tl.Calls())
	}
}
