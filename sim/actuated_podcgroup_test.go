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

// podLevelVersions are the three kubelets with gate
// InPlacePodLevelResourcesVerticalScaling on (v1.35 has it off by default).
func podLevelVersions(t *testing.T) []features.Set {
	t.Helper()
	v135, err := features.V1_35().With(features.InPlacePodLevelResourcesVerticalScaling, true)
	if err != nil {
		t.Fatal(err)
	}
	return []features.Set{features.V1_37(), features.V1_36(), v135}
}

// TestNewSandboxLeavesPodLevelResizeToDo: the kubelet records the pod-level
// resources when it creates the pod cgroup, at the pod's first SyncPod
// (kubelet.go SyncPod, UpdateActuatedPodLevelResources under !pcm.Exists:
// v1.37.2 :2212, v1.36.3 :2178, v1.35.4 :2102), never at a later sandbox,
// which finds the cgroup there. A pod-level resize allocated (cpu limit
// 500m -> 800m) but not actuated when the sandbox died is thus still to do
// after the new sandbox: the sync that creates it leaves the record at
// 500m (computePodActions resizes nothing with a new sandbox), the next one
// resizes the pod-level resources and records 800m. Every version with the
// pod-level gate.
func TestNewSandboxLeavesPodLevelResizeToDo(t *testing.T) {
	res := v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}
	pod := testPod(v1.PodSpec{
		Containers: []v1.Container{{Name: "app", Image: "web:1", Resources: res}},
		Resources:  &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("800m"), v1.ResourceMemory: resource.MustParse("256Mi")}},
	})
	dead := runtimestate.Sandbox{ID: "s1", IP: "10.88.0.2", CreatedAt: t0.Add(-time.Hour)}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{dead},
		Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 137, Reason: "Error",
			CreatedAt: t0.Add(-time.Hour), StartedAt: t0.Add(-time.Hour), FinishedAt: t0.Add(-time.Second)}}}
	old := &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m"), v1.ResourceMemory: resource.MustParse("256Mi")}}
	cpuLimit := func(r *v1.ResourceRequirements) string {
		if r == nil {
			return "none"
		}
		return r.Limits.Cpu().String()
	}
	for _, f := range podLevelVersions(t) {
		m := Memory{Actuated: podactions.Actuated{Containers: map[string]v1.ResourceRequirements{"app": res}, Pod: old.DeepCopy()}}
		first := Sync(SyncInput{Pod: pod, Runtime: st, Now: t0, Memory: m, Kubelet: Kubelet{Features: f}})
		var run *Call
		for i, c := range first.Calls {
			if c.Method == "RunPodSandbox" {
				run = &first.Calls[i]
			}
		}
		if run == nil {
			t.Fatalf("%s: calls %s, want a new sandbox", f.Version(), methods(first.Calls))
		}
		if got := cpuLimit(first.Memory.Actuated.Pod); got != "500m" {
			t.Errorf("%s: after the new sandbox the actuated pod-level cpu limit is %s, want 500m still (the pod cgroup was not created again)", f.Version(), got)
		}
		// The runtime after that sync: the new sandbox ready, app running in it.
		sb := runtimestate.Sandbox{ID: run.ID, Attempt: run.Attempt, Ready: true, IP: "10.88.0.3", CreatedAt: t0.Add(time.Second)}
		var appID string
		for _, c := range first.Calls {
			if c.Method == "StartContainer" && c.Name == "app" {
				appID = c.ID
			}
		}
		if appID == "" {
			t.Fatalf("%s: calls %s, want app started", f.Version(), methods(first.Calls))
		}
		st2 := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb, dead},
			Containers: []runtimestate.Container{
				{ID: appID, Name: "app", SandboxID: sb.ID, State: runtimestate.Running, RestartCount: 1, CreatedAt: t0.Add(2 * time.Second), StartedAt: t0.Add(2 * time.Second)},
				st.Containers[0]}}
		second := Sync(SyncInput{Pod: pod, Runtime: st2, Now: t0.Add(3 * time.Second), Memory: first.Memory, Kubelet: Kubelet{Features: f}})
		if !strings.Contains(second.Decision, "resize pod-level resources") {
			t.Errorf("%s: the sync after the new sandbox decided %q, want the pod-level resize", f.Version(), second.Decision)
		}
		if got := cpuLimit(second.Memory.Actuated.Pod); got != "800m" {
			t.Errorf("%s: after the pod-level resize the actuated cpu limit is %s, want 800m", f.Version(), got)
		}
	}
}

// TestFirstSyncRecordsPodLevel: the pod's first SyncPod records the
// pod-level resources as the spec gives them, on every version
// (UpdateActuatedPodLevelResources when it creates the pod cgroup), and
// only when spec.resources has requests or limits (kuberuntime_manager.go
// UpdateActuatedPodLevelResources: v1.37.2 :2336, v1.36.3 :2167,
// v1.35.4 :2083); no version before v1.37 records an emptyDir limit (those
// kubelets keep none).
func TestFirstSyncRecordsPodLevel(t *testing.T) {
	lim := resource.MustParse("64Mi")
	spec := func(r *v1.ResourceRequirements) *v1.Pod {
		return testPod(v1.PodSpec{
			Containers: []v1.Container{{Name: "app", Image: "web:1"}},
			Resources:  r,
			Volumes:    []v1.Volume{{Name: "shm", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory, SizeLimit: &lim}}}},
		})
	}
	withLimits := spec(&v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")}, Limits: v1.ResourceList{v1.ResourceMemory: resource.MustParse("256Mi")}})
	for _, f := range append(podLevelVersions(t), features.V1_35()) {
		out := Sync(SyncInput{Pod: withLimits, Now: t0, Kubelet: Kubelet{Features: f}})
		a := out.Memory.Actuated
		if a.Pod == nil || a.Pod.Requests.Cpu().MilliValue() != 500 || a.Pod.Limits.Memory().Value() != 256<<20 {
			t.Errorf("%s: first sync: actuated pod-level %+v, want the spec's", f, a.Pod)
		}
		if f.Version().Minor() < 37 && a.EmptyDirLimits != nil {
			t.Errorf("%s: first sync: emptyDir limits %v recorded; this kubelet keeps none", f, a.EmptyDirLimits)
		}
		// spec.resources with neither requests nor limits: nothing written.
		out = Sync(SyncInput{Pod: spec(&v1.ResourceRequirements{}), Now: t0, Kubelet: Kubelet{Features: f}})
		if p := out.Memory.Actuated.Pod; f.Version().Minor() < 37 && p != nil {
			t.Errorf("%s: first sync of empty spec.resources: actuated pod-level %+v, want none", f, *p)
		}
	}
}

// TestFirstSyncPodLevelPreemptsInitialActuated: on v1.37 the pod-level
// record written when the pod cgroup is created (kubelet.go:2212) comes
// before InitializeActuatedPod (kubelet.go:2244), which writes nothing for a
// pod the checkpoint already has an entry for (kuberuntime_manager.go:835).
// With gate InPlacePodVerticalScalingMemoryBackedVolumes, a pod with
// pod-level requests or limits thus has no emptyDir limit recorded after
// its first sync, and its next sync grows the volume (a missing record,
// computeVolumeResizeAction) and records it. A pod without pod-level
// resources, or with a spec.resources that has neither requests nor limits
// (UpdateActuatedPodLevelResources writes nothing), gets the limit from
// InitializeActuatedPod at once and its next sync grows nothing.
func TestFirstSyncPodLevelPreemptsInitialActuated(t *testing.T) {
	f, err := features.V1_37().With(features.InPlacePodVerticalScalingMemoryBackedVolumes, true)
	if err != nil {
		t.Fatal(err)
	}
	lim := resource.MustParse("64Mi")
	spec := func(r *v1.ResourceRequirements) *v1.Pod {
		return testPod(v1.PodSpec{
			Containers: []v1.Container{{Name: "app", Image: "web:1"}},
			Resources:  r,
			Volumes:    []v1.Volume{{Name: "shm", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory, SizeLimit: &lim}}}},
		})
	}
	for _, tc := range []struct {
		name     string
		pod      *v1.Pod
		podLevel bool
	}{
		{"pod-level limits", spec(&v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceMemory: resource.MustParse("256Mi")}}), true},
		{"no pod-level resources", spec(nil), false},
		{"empty spec.resources", spec(&v1.ResourceRequirements{}), false},
	} {
		first := Sync(SyncInput{Pod: tc.pod, Now: t0, Kubelet: Kubelet{Features: f}})
		if len(first.Calls) == 0 || first.Calls[0].Method != "RunPodSandbox" {
			t.Fatalf("%s: calls %s, want a sandbox first", tc.name, methods(first.Calls))
		}
		_, recorded := first.Memory.Actuated.EmptyDirLimits["shm"]
		if recorded == tc.podLevel {
			t.Errorf("%s: after the first sync shm's limit recorded: %v, want %v", tc.name, recorded, !tc.podLevel)
		}
		sb := runtimestate.Sandbox{ID: first.Calls[0].ID, Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(time.Second)}
		var appID string
		for _, c := range first.Calls {
			if c.Method == "StartContainer" && c.Name == "app" {
				appID = c.ID
			}
		}
		st := &runtimestate.Pod{UID: tc.pod.UID, Name: tc.pod.Name, Namespace: tc.pod.Namespace, Sandboxes: []runtimestate.Sandbox{sb},
			Containers: []runtimestate.Container{{ID: appID, Name: "app", SandboxID: sb.ID, State: runtimestate.Running, CreatedAt: t0.Add(2 * time.Second), StartedAt: t0.Add(2 * time.Second)}}}
		second := Sync(SyncInput{Pod: tc.pod, Runtime: st, Now: t0.Add(3 * time.Second), Memory: first.Memory, Kubelet: Kubelet{Features: f}})
		if grows := strings.Contains(second.Decision, "grow emptyDir volumes: shm"); grows != tc.podLevel {
			t.Errorf("%s: second sync decided %q; want shm grown: %v", tc.name, second.Decision, tc.podLevel)
		}
		if q, ok := second.Memory.Actuated.EmptyDirLimits["shm"]; !ok || q.Cmp(lim) != 0 {
			t.Errorf("%s: after the second sync emptyDir limits %v, want shm: 64Mi", tc.name, second.Memory.Actuated.EmptyDirLimits)
		}
	}
}
