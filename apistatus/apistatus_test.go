package apistatus

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

var (
	t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
)

// diff reports want and got when they differ semantically (quantities by
// value). The library module does not require go-cmp, so a mismatch is
// shown as two renderings rather than a diff.
func diff(want, got any) string {
	if equality.Semantic.DeepEqual(want, got) {
		return ""
	}
	return fmt.Sprintf("want: %s\n got: %s", render(want), render(got))
}

func render(x any) string {
	if l, ok := x.([]v1.ContainerStatus); ok {
		var b strings.Builder
		for i := range l {
			fmt.Fprintf(&b, "\n  %s %+v", Describe(&l[i]), l[i])
		}
		return b.String()
	}
	return fmt.Sprintf("%+v", x)
}

func at(s int) time.Time   { return t0.Add(time.Duration(s) * time.Second) }
func mt(s int) metav1.Time { return metav1.NewTime(at(s)) }
func ptr[E any](v E) *E    { return &v }
func waiting(r string) v1.ContainerState {
	return v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: r}}
}

func pod(policy v1.RestartPolicy, init []v1.Container, containers ...string) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-1"},
		Spec:       v1.PodSpec{RestartPolicy: policy, InitContainers: init},
	}
	for _, n := range containers {
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: n, Image: "img:" + n})
	}
	return p
}

// sandbox is a ready sandbox s1; instances run in it.
func rstate(cs ...runtimestate.Container) *runtimestate.Pod {
	st := &runtimestate.Pod{UID: "uid-1", Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.0.0.2"}}}
	for i := range cs {
		if cs[i].SandboxID == "" {
			cs[i].SandboxID = "s1"
		}
		if cs[i].Image == "" {
			cs[i].Image = "img:" + cs[i].Name
		}
	}
	st.Containers = cs
	st.Normalize()
	return st
}

func running(id, name string, created, restarts int) runtimestate.Container {
	return runtimestate.Container{ID: id, Name: name, State: runtimestate.Running, CreatedAt: at(created), StartedAt: at(created + 1), RestartCount: restarts}
}

func exited(id, name string, created, code int, reason string, restarts int) runtimestate.Container {
	return runtimestate.Container{ID: id, Name: name, State: runtimestate.Exited, CreatedAt: at(created), StartedAt: at(created + 1),
		FinishedAt: at(created + 5), ExitCode: code, Reason: reason, RestartCount: restarts}
}

func terminatedAPI(id string, created, code int, reason string) *v1.ContainerStateTerminated {
	return &v1.ContainerStateTerminated{ExitCode: int32(code), Reason: reason, StartedAt: mt(created + 1), FinishedAt: mt(created + 5), ContainerID: "containerd://" + id}
}

func TestCompute(t *testing.T) {
	defaults := features.V1_37()
	noRA := defaults
	noRA, _ = noRA.With(features.RestartAllContainersOnContainerExits, false)
	deleted := pod(v1.RestartPolicyAlways, nil, "app")
	deleted.DeletionTimestamp = ptr(metav1.NewTime(at(100)))
	initPod := pod(v1.RestartPolicyAlways, []v1.Container{{Name: "init", Image: "img:init"}, {Name: "side", Image: "img:side", RestartPolicy: ptr(v1.ContainerRestartPolicyAlways)}}, "app")
	raPod := pod(v1.RestartPolicyAlways, nil, "a", "b")
	raPod.Spec.Containers[1].RestartPolicy = ptr(v1.ContainerRestartPolicyAlways)
	raPod.Spec.Containers[1].RestartPolicyRules = []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
	crash := map[string]vocab.StartFailure{"app": {Reason: "CrashLoopBackOff", Message: "back-off 10s restarting failed container=app pod=web_default(uid-1)"}}

	tests := []struct {
		name    string
		pod     *v1.Pod
		st      *runtimestate.Pod
		opts    Options
		want    []v1.ContainerStatus // ContainerStatuses
		initW   []v1.ContainerStatus // InitContainerStatuses, checked when not nil
		restart bool
	}{{
		name: "never ran: waiting ContainerCreating with the spec image",
		pod:  pod(v1.RestartPolicyAlways, nil, "app"),
		st:   rstate(),
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", State: waiting(ContainerCreating)}},
	}, {
		name: "with init containers the default reason is PodInitializing",
		pod:  initPod,
		st:   rstate(),
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", State: waiting(PodInitializing)}},
		initW: []v1.ContainerStatus{
			{Name: "init", Image: "img:init", State: waiting(PodInitializing)},
			{Name: "side", Image: "img:side", State: waiting(PodInitializing)},
		},
	}, {
		name: "running: state, IDs and the runtime's restart count",
		pod:  pod(v1.RestartPolicyAlways, nil, "app"),
		st:   rstate(running("c1", "app", 10, 0)),
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://c1",
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: mt(11)}}}},
	}, {
		// Fact 3 (docs/real-cluster-facts.md#fact-3): after SIGKILL the app gets a new ID, restartCount 0 -> 1,
		// and the killed instance becomes lastState.
		name: "restarted after SIGKILL: the older instance becomes lastState",
		pod:  pod(v1.RestartPolicyAlways, nil, "app"),
		st:   rstate(running("c2", "app", 30, 1), exited("c1", "app", 10, 137, "Error", 0)),
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://c2", RestartCount: 1,
			State:                v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: mt(31)}},
			LastTerminationState: v1.ContainerState{Terminated: terminatedAPI("c1", 10, 137, "Error")}}},
	}, {
		name: "only the two newest instances count",
		pod:  pod(v1.RestartPolicyAlways, nil, "app"),
		st:   rstate(exited("c3", "app", 50, 1, "Error", 2), exited("c2", "app", 30, 2, "Error", 1), exited("c1", "app", 10, 3, "Error", 0)),
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://c3", RestartCount: 2,
			State:                v1.ContainerState{Terminated: terminatedAPI("c3", 50, 1, "Error")},
			LastTerminationState: v1.ContainerState{Terminated: terminatedAPI("c2", 30, 2, "Error")}}},
	}, {
		// Fact 16 (docs/real-cluster-facts.md#fact-16): CrashLoopBackOff is a waiting reason from the reason
		// cache; the exit moves to lastState.
		name: "crash loop: reason cache entry turns a terminated container into waiting CrashLoopBackOff",
		pod:  pod(v1.RestartPolicyAlways, nil, "app"),
		st:   rstate(exited("c7", "app", 500, 1, "Error", 6), exited("c6", "app", 300, 1, "Error", 5)),
		opts: Options{Features: defaults, StartFailures: crash},
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://c7", RestartCount: 6,
			State:                v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: crash["app"].Message}},
			LastTerminationState: v1.ContainerState{Terminated: terminatedAPI("c7", 500, 1, "Error")}}},
	}, {
		name: "a reason cache entry is ignored for a container that will not restart",
		pod:  pod(v1.RestartPolicyOnFailure, nil, "app"),
		st:   rstate(exited("c1", "app", 10, 0, "Completed", 0)),
		opts: Options{Features: defaults, StartFailures: crash},
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://c1",
			State: v1.ContainerState{Terminated: terminatedAPI("c1", 10, 0, "Completed")}}},
	}, {
		// Fact 9 (docs/real-cluster-facts.md#fact-9): restartPolicy Never, exit 0 and exit 7, restartCount 0.
		name: "restartPolicy Never: terminated, restartCount 0",
		pod:  pod(v1.RestartPolicyNever, nil, "ok", "bad"),
		st:   rstate(exited("c1", "ok", 10, 0, "Completed", 0), exited("c2", "bad", 11, 7, "Error", 0)),
		want: []v1.ContainerStatus{
			{Name: "bad", Image: "img:bad", ContainerID: "containerd://c2", State: v1.ContainerState{Terminated: terminatedAPI("c2", 11, 7, "Error")}},
			{Name: "ok", Image: "img:ok", ContainerID: "containerd://c1", State: v1.ContainerState{Terminated: terminatedAPI("c1", 10, 0, "Completed")}},
		},
	}, {
		name: "vanished while running: ContainerStatusUnknown last state, one more restart",
		pod:  pod(v1.RestartPolicyAlways, nil, "app"),
		st:   rstate(),
		opts: Options{Features: defaults, Cached: &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", RestartCount: 2,
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}}},
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", RestartCount: 3, State: waiting(ContainerCreating),
			LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: ContainerStatusUnknown, Message: MessageVanishedWhenDeleted, ExitCode: 137}}}},
	}, {
		name: "vanished while running in a pod being deleted: no extra restart",
		pod:  deleted,
		st:   rstate(),
		opts: Options{Features: defaults, Cached: &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", RestartCount: 2,
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}}},
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", RestartCount: 2, State: waiting(ContainerCreating),
			LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: ContainerStatusUnknown, Message: MessageVanishedWhenDeleted, ExitCode: 137}}}},
	}, {
		name: "unknown after running: terminated ContainerStatusUnknown",
		pod:  pod(v1.RestartPolicyAlways, nil, "app"),
		st:   rstate(runtimestate.Container{ID: "c1", Name: "app", State: runtimestate.Unknown, CreatedAt: at(10), StartedAt: at(11), RestartCount: 0}),
		opts: Options{Features: defaults, Cached: &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", RestartCount: 0, ContainerID: "containerd://c1",
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}}},
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://c1", RestartCount: 1,
			State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: ContainerStatusUnknown, Message: MessageVanishedWhenTerminated, ExitCode: 137}}}},
	}, {
		name: "unknown without a previous running state: waiting without reason",
		pod:  pod(v1.RestartPolicyAlways, nil, "app"),
		st:   rstate(runtimestate.Container{ID: "c1", Name: "app", State: runtimestate.Unknown, CreatedAt: at(10), StartedAt: at(11)}),
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://c1", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{}}}},
	}, {
		name: "created: waiting without reason",
		pod:  pod(v1.RestartPolicyAlways, nil, "app"),
		st:   rstate(runtimestate.Container{ID: "c1", Name: "app", State: runtimestate.Created, CreatedAt: at(10)}),
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://c1", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{}}}},
	}, {
		name: "a previous terminated status is reused whole when the runtime has nothing",
		pod:  pod(v1.RestartPolicyNever, nil, "app"),
		st:   rstate(),
		opts: Options{Features: defaults, Cached: &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", Image: "old", Ready: true, RestartCount: 4,
			State: v1.ContainerState{Terminated: terminatedAPI("c1", 10, 0, "Completed")}}}}},
		want: []v1.ContainerStatus{{Name: "app", Image: "old", Ready: true, RestartCount: 4, State: v1.ContainerState{Terminated: terminatedAPI("c1", 10, 0, "Completed")}}},
	}, {
		name: "running keeps the previous Started (gate ChangeContainerStatusOnKubeletRestart off)",
		pod:  pod(v1.RestartPolicyAlways, nil, "app"),
		st:   rstate(running("c1", "app", 10, 0)),
		opts: Options{Features: defaults, Cached: &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", Started: ptr(true), Ready: true,
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}}},
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://c1", Started: ptr(true),
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: mt(11)}}}},
	}, {
		name: "RestartAllContainers: a removed container waits with the reset reason",
		pod:  raPod,
		st:   rstate(exited("c2", "b", 20, 42, "Error", 0)),
		opts: Options{Features: defaults, Cached: &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{
			{Name: "a", RestartCount: 1, ContainerID: "containerd://c1", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}},
		}}},
		restart: true,
		want: []v1.ContainerStatus{
			{Name: "a", Image: "img:a", RestartCount: 2,
				State:                v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: RestartingAllContainers, Message: MessageRestartingAllContainers}},
				LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: RestartingAllContainers, Message: MessageRestartingAllContainers, ExitCode: 137}}},
			{Name: "b", Image: "img:b", ContainerID: "containerd://c2", State: v1.ContainerState{Terminated: terminatedAPI("c2", 20, 42, "Error")}},
		},
	}, {
		name: "RestartAllContainers gate off: the removed container is ContainerStatusUnknown instead",
		pod:  raPod,
		st:   rstate(exited("c2", "b", 20, 42, "Error", 0)),
		opts: Options{Features: noRA, Cached: &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{
			{Name: "a", RestartCount: 1, ContainerID: "containerd://c1", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}},
		}}},
		want: []v1.ContainerStatus{
			{Name: "a", Image: "img:a", RestartCount: 2, State: waiting(ContainerCreating),
				LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: ContainerStatusUnknown, Message: MessageVanishedWhenDeleted, ExitCode: 137}}},
			{Name: "b", Image: "img:b", ContainerID: "containerd://c2", State: v1.ContainerState{Terminated: terminatedAPI("c2", 20, 42, "Error")}},
		},
	}, {
		name: "RestartAllContainers: a rerun keeps the higher previous restart count plus one",
		pod:  raPod,
		st:   rstate(running("c3", "a", 40, 0)),
		opts: Options{Features: defaults, Cached: &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{
			{Name: "a", RestartCount: 2, ContainerID: "containerd://c1", State: v1.ContainerState{Terminated: terminatedAPI("c1", 10, 137, RestartingAllContainers)}},
		}}},
		want: []v1.ContainerStatus{
			{Name: "a", Image: "img:a", ContainerID: "containerd://c3", RestartCount: 3,
				State:                v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: mt(41)}},
				LastTerminationState: v1.ContainerState{Terminated: terminatedAPI("c1", 10, 137, RestartingAllContainers)}},
			{Name: "b", Image: "img:b", State: waiting(ContainerCreating)},
		},
	}, {
		name: "init container gone after the app started: assumed Completed; a sidecar stays waiting",
		pod:  initPod,
		st:   rstate(running("c3", "app", 30, 0)),
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", ContainerID: "containerd://c3",
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: mt(31)}}}},
		initW: []v1.ContainerStatus{
			{Name: "init", Image: "img:init", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: Completed, Message: MessageInitAssumedCompleted}}},
			{Name: "side", Image: "img:side", State: waiting(PodInitializing)},
		},
	}, {
		name: "init container that succeeded ignores its reason cache entry",
		pod:  initPod,
		st:   rstate(exited("c1", "init", 10, 0, "Completed", 0)),
		opts: Options{Features: defaults, StartFailures: map[string]vocab.StartFailure{"init": {Reason: "CrashLoopBackOff"}, "side": {Reason: "ImagePullBackOff", Message: "pulling"}}},
		want: []v1.ContainerStatus{{Name: "app", Image: "img:app", State: waiting(PodInitializing)}},
		initW: []v1.ContainerStatus{
			{Name: "init", Image: "img:init", ContainerID: "containerd://c1", State: v1.ContainerState{Terminated: terminatedAPI("c1", 10, 0, "Completed")}},
			{Name: "side", Image: "img:side", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "pulling"}}},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Compute(tc.pod, tc.st, tc.opts)
			// With gate InPlacePodVerticalScaling (locked on), every status
			// made from a runtime instance reports Resources, empty when the
			// spec sets none. The cases above are all such statuses when
			// they carry a container ID.
			for _, l := range [][]v1.ContainerStatus{tc.want, tc.initW} {
				for i := range l {
					if l[i].ContainerID != "" && l[i].Resources == nil {
						l[i].Resources = &v1.ResourceRequirements{}
					}
				}
			}
			if d := diff(tc.want, got.ContainerStatuses); d != "" {
				t.Errorf("containerStatuses (-want +got):\n%s\n%s", d, got)
			}
			if tc.initW != nil {
				if d := diff(tc.initW, got.InitContainerStatuses); d != "" {
					t.Errorf("initContainerStatuses (-want +got):\n%s\n%s", d, got)
				}
			}
			if got.RestartingAllContainers != tc.restart {
				t.Errorf("RestartingAllContainers = %v, want %v", got.RestartingAllContainers, tc.restart)
			}
		})
	}
}

func TestResources(t *testing.T) {
	p := pod(v1.RestartPolicyAlways, nil, "app")
	p.Spec.Containers[0].Resources = v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1m"), v1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")},
	}
	reported := &runtimestate.Resources{CPURequest: ptr(resource.MustParse("2m")), CPULimit: ptr(resource.MustParse("400m"))}
	c := running("c1", "app", 10, 0)
	c.Resources = reported
	prev := &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", ContainerID: "containerd://c1",
		State:     v1.ContainerState{Running: &v1.ContainerStateRunning{}},
		Resources: &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("32Mi")}}}}}
	got := Compute(p, rstate(c), Options{Features: features.V1_37(), Cached: prev})
	want := &v1.ResourceRequirements{
		// 2m reported and 1m allocated are both at the 2m minimum of cpu
		// shares: the allocated value stays. Memory is not reported: the
		// previous status's value of the same running instance stays.
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1m"), v1.ResourceMemory: resource.MustParse("32Mi")},
		Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("400m")},
	}
	if d := diff(want, got.ContainerStatuses[0].Resources); d != "" {
		t.Errorf("resources (-want +got):\n%s", d)
	}
	if d := diff(p.Spec.Containers[0].Resources.Requests, got.ContainerStatuses[0].AllocatedResources); d != "" {
		t.Errorf("allocatedResources (-want +got):\n%s", d)
	}

	off := features.V1_37()
	off, _ = off.With(features.InPlacePodVerticalScaling, false)
	if r := Compute(p, rstate(c), Options{Features: off, Cached: prev}).ContainerStatuses[0]; r.Resources != nil || r.AllocatedResources != nil {
		t.Errorf("gate off: resources %v, allocated %v, want none", r.Resources, r.AllocatedResources)
	}
}

func TestVolumeMounts(t *testing.T) {
	p := pod(v1.RestartPolicyAlways, nil, "app")
	p.Spec.Containers[0].VolumeMounts = []v1.VolumeMount{
		{Name: "rw", MountPath: "/rw"},
		{Name: "ro", MountPath: "/ro", ReadOnly: true},
		{Name: "rro", MountPath: "/rro", ReadOnly: true, RecursiveReadOnly: ptr(v1.RecursiveReadOnlyIfPossible)},
	}
	for _, supported := range []bool{false, true} {
		rro := v1.RecursiveReadOnlyDisabled
		if supported {
			rro = v1.RecursiveReadOnlyEnabled
		}
		want := []v1.VolumeMountStatus{
			{Name: "rw", MountPath: "/rw"},
			{Name: "ro", MountPath: "/ro", ReadOnly: true, RecursiveReadOnly: ptr(v1.RecursiveReadOnlyDisabled)},
			{Name: "rro", MountPath: "/rro", ReadOnly: true, RecursiveReadOnly: &rro},
		}
		got := Compute(p, rstate(), Options{Features: features.V1_37(), RecursiveReadOnlySupported: supported})
		if d := diff(want, got.ContainerStatuses[0].VolumeMounts); d != "" {
			t.Errorf("supported=%v (-want +got):\n%s", supported, d)
		}
	}
}

func TestOrderAndNil(t *testing.T) {
	if got := Compute(nil, nil, Options{}); !equality.Semantic.DeepEqual(got, Statuses{}) {
		t.Errorf("nil pod: %v", got)
	}
	p := pod(v1.RestartPolicyAlways, []v1.Container{{Name: "z"}, {Name: "a"}}, "zeta", "alpha", "mid")
	got := Compute(p, nil, Options{Features: features.V1_37()})
	var names []string
	for _, s := range got.ContainerStatuses {
		names = append(names, s.Name)
	}
	for _, s := range got.InitContainerStatuses {
		names = append(names, s.Name)
	}
	if d := diff([]string{"alpha", "mid", "zeta", "z", "a"}, names); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	if got.EphemeralContainerStatuses == nil || len(got.EphemeralContainerStatuses) != 0 {
		t.Errorf("ephemeral statuses = %#v, want empty and not nil (as the kubelet)", got.EphemeralContainerStatuses)
	}
}

func TestRuntimeType(t *testing.T) {
	got := Compute(pod(v1.RestartPolicyAlways, nil, "app"), rstate(running("c1", "app", 1, 0)), Options{RuntimeType: "cri-o"})
	if id := got.ContainerStatuses[0].ContainerID; id != "cri-o://c1" {
		t.Errorf("containerID = %q", id)
	}
}
