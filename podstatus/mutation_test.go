package podstatus

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The QoS class of a pod without pod-level resources combines its
// containers' classes (GetPodQOS): Guaranteed when every init and regular
// container has cpu and memory limits equal to non-zero requests,
// BestEffort when none sets any, Burstable in any other mix, including a
// Guaranteed container beside a BestEffort one, or a container with only
// cpu (or only memory) guaranteed.
func TestQOSOfContainerMixes(t *testing.T) {
	rl := func(kv ...string) v1.ResourceList {
		l := v1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	guaranteed := v1.ResourceRequirements{Requests: rl("cpu", "100m", "memory", "64Mi"), Limits: rl("cpu", "100m", "memory", "64Mi")}
	bestEffort := v1.ResourceRequirements{}
	cpuOnly := v1.ResourceRequirements{Requests: rl("cpu", "100m"), Limits: rl("cpu", "100m")}
	memOnly := v1.ResourceRequirements{Requests: rl("memory", "64Mi"), Limits: rl("memory", "64Mi")}
	requestsOnly := v1.ResourceRequirements{Requests: rl("cpu", "100m", "memory", "64Mi")}
	for _, tc := range []struct {
		name         string
		init, normal []v1.ResourceRequirements
		want         v1.PodQOSClass
	}{
		{"one guaranteed", nil, []v1.ResourceRequirements{guaranteed}, v1.PodQOSGuaranteed},
		{"two guaranteed", nil, []v1.ResourceRequirements{guaranteed, guaranteed}, v1.PodQOSGuaranteed},
		{"guaranteed init and container", []v1.ResourceRequirements{guaranteed}, []v1.ResourceRequirements{guaranteed}, v1.PodQOSGuaranteed},
		{"none", nil, []v1.ResourceRequirements{bestEffort, bestEffort}, v1.PodQOSBestEffort},
		{"guaranteed then best effort", nil, []v1.ResourceRequirements{guaranteed, bestEffort}, v1.PodQOSBurstable},
		{"best effort then guaranteed", nil, []v1.ResourceRequirements{bestEffort, guaranteed}, v1.PodQOSBurstable},
		{"guaranteed init, best-effort container", []v1.ResourceRequirements{guaranteed}, []v1.ResourceRequirements{bestEffort}, v1.PodQOSBurstable},
		{"cpu only", nil, []v1.ResourceRequirements{cpuOnly}, v1.PodQOSBurstable},
		{"memory only", nil, []v1.ResourceRequirements{memOnly}, v1.PodQOSBurstable},
		{"requests only", nil, []v1.ResourceRequirements{requestsOnly}, v1.PodQOSBurstable},
		{"guaranteed then requests only", nil, []v1.ResourceRequirements{guaranteed, requestsOnly}, v1.PodQOSBurstable},
	} {
		pod := &v1.Pod{}
		for i, r := range tc.init {
			pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: "init-" + string(rune('a'+i)), Image: "i", Resources: r})
		}
		for i, r := range tc.normal {
			pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: "app-" + string(rune('a'+i)), Image: "i", Resources: r})
		}
		if got := Compute(pod, nil, Options{}).Status.QOSClass; got != tc.want {
			t.Errorf("%s: QoS %s, want %s", tc.name, got, tc.want)
		}
	}
}

// A container's state reads "waiting" when its waiting state has no
// reason, and "no state" when it has none, both in Result.String and in
// CheckTransition's refusal.
func TestStateWithoutReasonOrState(t *testing.T) {
	var r Result
	r.Status.ContainerStatuses = []v1.ContainerStatus{
		{Name: "w", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{}}},
		{Name: "n"},
	}
	s := r.String()
	if !strings.Contains(s, "container w: waiting ready=") || !strings.Contains(s, "container n: no state ready=") {
		t.Errorf("Result.String:\n%s\nwant container w waiting and container n in no state", s)
	}
	spec := &v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "i"}}}
	old := &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 1}}}}}
	for _, tc := range []struct {
		state v1.ContainerState
		want  string
	}{
		{v1.ContainerState{Waiting: &v1.ContainerStateWaiting{}}, "it is waiting is refused"},
		{v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "ContainerCreating"}}, "it is waiting (ContainerCreating) is refused"},
		{v1.ContainerState{Running: &v1.ContainerStateRunning{}}, "it is running is refused"},
	} {
		next := &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", State: tc.state}}}
		if err := CheckTransition(spec, old, next, Options{}.Features); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("state %+v: error %v, want one saying %q", tc.state, err, tc.want)
		}
	}
}

// The actuated resources RuntimeFromStatus builds hold the size limit of
// every memory-backed emptyDir that has one, and no other volume.
func TestRuntimeFromStatusEmptyDirLimits(t *testing.T) {
	limit := func(s string) *resource.Quantity { q := resource.MustParse(s); return &q }
	pod := &v1.Pod{Spec: v1.PodSpec{
		Containers: []v1.Container{{Name: "app", Image: "i"}},
		Volumes: []v1.Volume{
			{Name: "mem-a", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory, SizeLimit: limit("64Mi")}}},
			{Name: "mem-b", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory, SizeLimit: limit("1Gi")}}},
			{Name: "mem-unlimited", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory}}},
			{Name: "disk", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{SizeLimit: limit("2Gi")}}},
		},
	}}
	pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}
	got := RuntimeFromStatus(pod).Actuated.EmptyDirLimits
	if len(got) != 2 {
		t.Fatalf("EmptyDirLimits %v, want mem-a and mem-b", got)
	}
	for name, want := range map[string]string{"mem-a": "64Mi", "mem-b": "1Gi"} {
		if q, ok := got[name]; !ok || q.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("EmptyDirLimits[%s] = %v, want %s", name, got[name], want)
		}
	}
}
