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
