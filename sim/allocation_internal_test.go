package sim

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

func rl(cpu, mem string) v1.ResourceList {
	l := v1.ResourceList{}
	if cpu != "" {
		l[v1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		l[v1.ResourceMemory] = resource.MustParse(mem)
	}
	return l
}

func podWith(req, lim v1.ResourceList) *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Resources: v1.ResourceRequirements{Requests: req, Limits: lim}}}}}
}

// admitResize: the pod's requests must fit the allocatable minus the other
// pods' requests (a request equal to the room left fits); cpu is checked
// first; the reasons and messages are the predicate handler's; without
// gate InPlacePodVerticalScaling every resize is infeasible.
func TestAdmitResize(t *testing.T) {
	alloc := rl("2", "1Gi")
	old := podWith(rl("100m", "64Mi"), nil)
	for _, tc := range []struct {
		name        string
		pod         *v1.Pod
		other       v1.ResourceList
		f           features.Set
		ok          bool
		reason, msg string
	}{
		{"fits exactly", podWith(rl("500m", "64Mi"), nil), rl("1500m", ""), features.Set{}, true, "", ""},
		{"cpu short", podWith(rl("600m", "64Mi"), nil), rl("1500m", ""), features.Set{}, false, "OutOfcpu",
			"Node didn't have enough resource: cpu, requested: 600, used: 1500, capacity: 2000"},
		{"both short: cpu first", podWith(rl("600m", "1Gi"), nil), rl("1500m", "512Mi"), features.Set{}, false, "OutOfcpu",
			"Node didn't have enough resource: cpu, requested: 600, used: 1500, capacity: 2000"},
		{"memory short", podWith(rl("100m", "600Mi"), nil), rl("", "512Mi"), features.Set{}, false, "OutOfmemory",
			"Node didn't have enough resource: memory, requested: 629145600, used: 536870912, capacity: 1073741824"},
		{"gate off", podWith(rl("100m", "64Mi"), nil), nil, mustParse(t, "InPlacePodVerticalScaling=false"), false, v1.PodReasonInfeasible,
			"InPlacePodVerticalScaling is disabled"},
	} {
		ok, reason, msg := admitResize(tc.pod, old, tc.other, alloc, tc.f)
		if ok != tc.ok || reason != tc.reason || msg != tc.msg {
			t.Errorf("%s: %v %q %q, want %v %q %q", tc.name, ok, reason, msg, tc.ok, tc.reason, tc.msg)
		}
	}
}

func mustParse(t *testing.T, s string) features.Set {
	t.Helper()
	f, err := features.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The status manager's resize conditions: every pending reason but
// Infeasible is Deferred, a change is reported when the reason or the
// generation changes, the transition time stays while the reason does;
// PodResizeInProgress keeps its generation once set.
func TestResizeConditions(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var r ResizeConditions
	if !r.setPending("OutOfcpu", "m", 2, t0) || r.Pending.Reason != v1.PodReasonDeferred {
		t.Fatalf("first pending: %+v", r.Pending)
	}
	if r.setPending("OutOfmemory", "m2", 2, t0.Add(time.Second)) || !r.Pending.LastTransitionTime.Time.Equal(t0) || !r.Pending.LastProbeTime.Time.Equal(t0.Add(time.Second)) {
		t.Fatalf("same reason and generation: reported changed, or times %+v", r.Pending)
	}
	if !r.setPending(v1.PodReasonInfeasible, "m3", 2, t0.Add(2*time.Second)) || r.Pending.Reason != v1.PodReasonInfeasible || !r.Pending.LastTransitionTime.Time.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("infeasible: %+v", r.Pending)
	}
	if !r.setPending(v1.PodReasonInfeasible, "m3", 3, t0) {
		t.Fatal("a new generation is a change")
	}
	r.setInProgress("", "", 3, t0)
	r.setInProgress("", "", 4, t0.Add(time.Second))
	if r.InProgress.ObservedGeneration != 3 || r.InProgress.Status != v1.ConditionTrue {
		t.Fatalf("in progress keeps its generation: %+v", r.InProgress)
	}
	if l := r.list(); len(l) != 2 || l[0].Type != v1.PodResizePending || l[1].Type != v1.PodResizeInProgress {
		t.Fatalf("list order: %+v", l)
	}
}

// IsPodResizeInProgress: a running container whose allocated resources
// differ from the actuated ones; a container not running is not.
func TestResizeInProgressRule(t *testing.T) {
	pod := podWith(rl("200m", "64Mi"), rl("200m", "64Mi"))
	act := podactions.Actuated{Containers: map[string]v1.ResourceRequirements{"app": {Requests: rl("100m", "64Mi"), Limits: rl("100m", "64Mi")}}}
	running := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "a", Name: "app", State: runtimestate.Running}}}
	exited := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "a", Name: "app", State: runtimestate.Exited}}}
	if !resizeInProgress(pod, running, act, features.Set{}) {
		t.Error("running with cpu 100m actuated, 200m allocated: in progress")
	}
	if resizeInProgress(pod, exited, act, features.Set{}) {
		t.Error("an exited container is sized when it starts again: not in progress")
	}
	act.Containers["app"] = pod.Spec.Containers[0].Resources
	if resizeInProgress(pod, running, act, features.Set{}) {
		t.Error("actuated equals allocated: not in progress")
	}
}

// The runtime's Linux values as the kubelet reads them back: shares to
// millicores rounded up (204 shares: 200m), the quota over the period, the
// memory limit in bytes, the memory request from the actuated record.
func TestReportedResources(t *testing.T) {
	got := reportedResources(linuxResources(200, 200, 64<<20), resource.MustParse("64Mi"))
	if got.CPURequest.String() != "200m" || got.CPULimit.String() != "200m" || got.MemoryLimit.String() != "64Mi" || got.MemoryRequest.String() != "64Mi" {
		t.Fatalf("%+v", got)
	}
	none := reportedResources(linuxResources(0, 0, 0), resource.Quantity{})
	if none.CPULimit != nil || none.MemoryLimit != nil || none.MemoryRequest != nil || none.CPURequest.String() != "2m" {
		t.Fatalf("no limits: %+v", none)
	}
}

// A script file's otherRequests: read into Action.OtherRequests; a
// resource other than cpu and memory, or a negative one, is an error at
// its field.
func TestScriptOtherRequests(t *testing.T) {
	pod := podWith(rl("100m", "64Mi"), nil)
	pod.Name = "p"
	f, err := ReadScript([]byte("actions:\n- {at: 5s, otherRequests: {cpu: 1500m}}\n- {at: 9s, otherRequests: {}}\n"), []*v1.Pod{pod})
	if err != nil {
		t.Fatal(err)
	}
	if a := f.Actions[0].Action(); a.OtherRequests == nil || a.OtherRequests.Cpu().String() != "1500m" {
		t.Fatalf("action %+v", a)
	}
	if a := f.Actions[1].Action(); a.OtherRequests == nil || len(*a.OtherRequests) != 0 {
		t.Fatalf("action %+v", a)
	}
	for _, text := range []string{"actions:\n- {at: 5s, otherRequests: {pods: 3}}\n", "actions:\n- {at: 5s, otherRequests: {cpu: -1}}\n"} {
		if _, err := ReadScript([]byte(text), []*v1.Pod{pod}); err == nil || !strings.Contains(err.Error(), "otherRequests") {
			t.Errorf("%q: error %v", text, err)
		}
	}
}

// SetPodResizeInProgressCondition: a condition already there keeps its
// reason and message when none is given, and takes a new reason when one
// is (a kubelet restart backfills an Error condition from the API status).
func TestSetInProgressKeepsReason(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := ResizeConditions{InProgress: resizeCondition(v1.PodResizeInProgress, nil, v1.PodReasonError, "update failed", 2, t0)}
	r.setInProgress("", "", 3, t0.Add(time.Second))
	if c := r.InProgress; c.Reason != v1.PodReasonError || c.Message != "update failed" || c.ObservedGeneration != 2 || !c.LastTransitionTime.Time.Equal(t0) {
		t.Fatalf("no reason given: %+v, want Error, its message, generation 2 and the old transition time", *c)
	}
	r.setInProgress("", "other", 3, t0.Add(2*time.Second))
	if c := r.InProgress; c.Reason != "" || c.Message != "other" || !c.LastTransitionTime.Time.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("a message given: %+v, want it with no reason, a new transition time", *c)
	}
}

func memoryEmptyDir(name, limit string) v1.Volume {
	v := v1.Volume{Name: name, VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory}}}
	if limit != "" {
		q := resource.MustParse(limit)
		v.EmptyDir.SizeLimit = &q
	}
	return v
}

// IsPodResizeInProgress for memory-backed emptyDir limits (gate
// InPlacePodVerticalScalingMemoryBackedVolumes) and pod-level resources
// (gate InPlacePodLevelResourcesVerticalScaling): a running pod whose
// allocated limit differs from the actuated one is resizing; one whose
// limits equal the actuated ones is not; a disk emptyDir is never looked at.
func TestResizeInProgressVolumesAndPodLevel(t *testing.T) {
	f := mustParse(t, "InPlacePodVerticalScalingMemoryBackedVolumes=true,InPlacePodLevelResourcesVerticalScaling=true")
	res := v1.ResourceRequirements{Requests: rl("100m", "64Mi")}
	running := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "a", Name: "app", State: runtimestate.Running}}}
	pod := podWith(res.Requests, nil)
	disk := resource.MustParse("1Gi")
	pod.Spec.Volumes = []v1.Volume{memoryEmptyDir("mem", "64Mi"), {Name: "disk", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{SizeLimit: &disk}}}}
	act := podactions.Actuated{Containers: map[string]v1.ResourceRequirements{"app": res},
		EmptyDirLimits: map[string]resource.Quantity{"mem": resource.MustParse("64Mi"), "disk": resource.MustParse("2Gi")}}
	if resizeInProgress(pod, running, act, f) {
		t.Error("memory emptyDir at its actuated limit (a disk emptyDir's differing): not in progress")
	}
	act.EmptyDirLimits["mem"] = resource.MustParse("32Mi")
	if !resizeInProgress(pod, running, act, f) {
		t.Error("memory emptyDir limit 64Mi, 32Mi actuated: in progress")
	}
	act.EmptyDirLimits["mem"] = resource.MustParse("64Mi")
	pod.Spec.Resources = &v1.ResourceRequirements{Limits: rl("500m", "128Mi")}
	act.Pod = pod.Spec.Resources.DeepCopy()
	// app has no limits of its own: the kubelet recorded it with the
	// pod-level ones (setActuatedContainerResources, GetLimits).
	act.Containers["app"] = withPodLimits(res, pod.Spec.Resources, f)
	if resizeInProgress(pod, running, act, f) {
		t.Error("pod-level resources at their actuated values: not in progress")
	}
	act.Pod = &v1.ResourceRequirements{Limits: rl("400m", "128Mi")}
	if !resizeInProgress(pod, running, act, f) {
		t.Error("pod-level cpu limit 500m, 400m actuated: in progress")
	}
	// No container running: the pod-level check does not look at the
	// containers (isPodLevelResourcesResizeInProgress).
	exited := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "a", Name: "app", State: runtimestate.Exited}}}
	if !resizeInProgress(pod, exited, act, f) {
		t.Error("pod-level cpu limit 500m, 400m actuated, no container running: in progress")
	}
	// No pod-level record: no resize from v1.36 on; v1.35 compares the
	// missing record as no resources.
	act.Pod = nil
	for _, v := range features.Versions() {
		fv, err := features.ParseFor(v, "InPlacePodVerticalScalingMemoryBackedVolumes=true,InPlacePodLevelResourcesVerticalScaling=true")
		if err != nil {
			fv, err = features.ParseFor(v, "InPlacePodLevelResourcesVerticalScaling=true")
		}
		if err != nil {
			t.Fatal(err)
		}
		act.Containers["app"] = withPodLimits(res, pod.Spec.Resources, fv)
		want := v.Minor() < 36
		if got := resizeInProgress(pod, running, act, fv); got != want {
			t.Errorf("%s: pod-level limits, none actuated: in progress %v, want %v", v, got, want)
		}
	}
}

// At a pod's first sync the kubelet has no actuated record; v1.35 with gate
// InPlacePodLevelResourcesVerticalScaling takes the missing pod-level
// record as no resources (kuberuntime_manager.go:2140 in v1.35.4), so
// SyncPod sets PodResizeInProgress before it creates the pod cgroup and
// records them; the next sync clears it. v1.36 and v1.37 do not.
func TestFirstSyncPodLevelInProgressOnV135(t *testing.T) {
	for _, v := range features.Versions() {
		f, err := features.ParseFor(v, "InPlacePodLevelResourcesVerticalScaling=true")
		if err != nil {
			t.Fatal(err)
		}
		pod := podWith(rl("100m", "64Mi"), nil)
		pod.Spec.Resources = &v1.ResourceRequirements{Requests: rl("200m", "128Mi"), Limits: rl("500m", "256Mi")}
		s := &syncer{pod: pod, in: SyncInput{Kubelet: Kubelet{Features: f}}}
		s.resizeProgress()
		got := s.out.Memory.Resize.InProgress != nil
		if want := v.Minor() < 36; got != want {
			t.Errorf("%s: first sync, pod-level resources: PodResizeInProgress %v, want %v", v, got, want)
		}
		// A pod whose sandbox the runtime shows had its record written as
		// it went: nothing in progress.
		s = &syncer{pod: pod, in: SyncInput{Kubelet: Kubelet{Features: f}, Runtime: &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s", Ready: true}}}}}
		s.resizeProgress()
		if s.out.Memory.Resize.InProgress != nil {
			t.Errorf("%s: a running pod with no record yet: PodResizeInProgress set", v)
		}
	}
}

// The predicate's fit looks only at the resources the pod requests: a pod
// requesting no cpu fits even beside other pods requesting more cpu than
// the node has.
func TestAdmitResizeWithoutCPURequest(t *testing.T) {
	old := podWith(rl("", "64Mi"), nil)
	ok, reason, msg := admitResize(podWith(rl("", "128Mi"), nil), old, rl("2500m", ""), rl("2", "1Gi"), features.Set{})
	if !ok {
		t.Fatalf("refused: %s %s", reason, msg)
	}
}

// IsMemoryBackedVolumeResizeRequested: a memory-backed emptyDir with a
// size limit whose limit changed (or whose emptyDir is gone) is a resize;
// an unchanged limit, a disk emptyDir or a memory one without a limit is
// not; neither are volume lists of different lengths.
func TestEmptyDirLimitChanged(t *testing.T) {
	withVols := func(vs ...v1.Volume) *v1.Pod { p := podWith(nil, nil); p.Spec.Volumes = vs; return p }
	disk := func(limit string) v1.Volume {
		q := resource.MustParse(limit)
		return v1.Volume{Name: "disk", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{SizeLimit: &q}}}
	}
	cm := v1.Volume{Name: "mem", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}}
	for _, tc := range []struct {
		name               string
		allocated, desired *v1.Pod
		want               bool
	}{
		{"grown", withVols(memoryEmptyDir("mem", "64Mi")), withVols(memoryEmptyDir("mem", "128Mi")), true},
		{"unchanged", withVols(memoryEmptyDir("mem", "64Mi")), withVols(memoryEmptyDir("mem", "64Mi")), false},
		{"emptyDir gone", withVols(memoryEmptyDir("mem", "64Mi")), withVols(cm), true},
		{"disk emptyDir changed", withVols(disk("1Gi")), withVols(disk("2Gi")), false},
		{"no limit before", withVols(memoryEmptyDir("mem", "")), withVols(memoryEmptyDir("mem", "64Mi")), false},
		{"not an emptyDir", withVols(cm), withVols(memoryEmptyDir("mem", "64Mi")), false},
		{"a volume added", withVols(memoryEmptyDir("mem", "64Mi")), withVols(memoryEmptyDir("mem", "128Mi"), cm), false},
	} {
		if got := emptyDirLimitChanged(tc.allocated, tc.desired); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// ResourceInfoForPod and UpdatePodFromAllocation: with the gates on, the
// allocation holds the pod-level resources and the memory-backed emptyDir
// limits; a desired pod differing in them is synced with the allocated
// values, an equal one as it is.
func TestAllocationPodLevelAndEmptyDirs(t *testing.T) {
	f := mustParse(t, "InPlacePodVerticalScalingMemoryBackedVolumes=true,InPlacePodLevelResourcesVerticalScaling=true")
	pod := podWith(rl("100m", "64Mi"), nil)
	disk := resource.MustParse("1Gi")
	pod.Spec.Volumes = []v1.Volume{memoryEmptyDir("mem", "64Mi"), {Name: "disk", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{SizeLimit: &disk}}},
		{Name: "cm", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}}}
	pod.Spec.Resources = &v1.ResourceRequirements{Limits: rl("500m", "128Mi")}
	a := allocationOf(pod, f)
	if a.pod == nil || !a.pod.Limits.Cpu().Equal(resource.MustParse("500m")) {
		t.Fatalf("allocated pod-level resources %+v, want the pod's", a.pod)
	}
	if q, ok := a.emptyDirs["mem"]; len(a.emptyDirs) != 1 || !ok || !q.Equal(resource.MustParse("64Mi")) {
		t.Fatalf("allocated emptyDir limits %v, want mem 64Mi alone", a.emptyDirs)
	}
	if got, differs := a.apply(pod); differs || got != pod {
		t.Error("the admitted pod itself: applied as is")
	}
	desired := pod.DeepCopy()
	desired.Spec.Resources.Limits = rl("800m", "128Mi")
	q := resource.MustParse("128Mi")
	desired.Spec.Volumes[0].EmptyDir.SizeLimit = &q
	got, differs := a.apply(desired)
	if !differs || got.Spec.Resources == nil || !got.Spec.Resources.Limits.Cpu().Equal(resource.MustParse("500m")) ||
		!got.Spec.Volumes[0].EmptyDir.SizeLimit.Equal(resource.MustParse("64Mi")) {
		t.Fatalf("a desired pod-level cpu limit and emptyDir limit: synced %+v, %v; want the allocated ones", got.Spec, differs)
	}
	if !desired.Spec.Resources.Limits.Cpu().Equal(resource.MustParse("800m")) {
		t.Error("apply changed the desired pod")
	}
}

// toKubeContainerResources: no cpu limit without a cfs period; shares
// read back as millicores rounded up (1024 shares: exactly 1 cpu).
func TestReportedResourcesEdges(t *testing.T) {
	if got := reportedResources(ContainerResources{CPUShares: 2, CPUQuota: 50000}, resource.Quantity{}); got.CPULimit != nil {
		t.Errorf("no period: cpu limit %v, want none", got.CPULimit)
	}
	if got := reportedResources(linuxResources(1000, 0, 0), resource.Quantity{}); got.CPURequest.String() != "1" {
		t.Errorf("1024 shares: cpu request %v, want 1", got.CPURequest)
	}
}
