package apistatus

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Tests for mutants gremlins v0.6.0 left alive in this package on
// 2026-12-03 (tooling/mutation/gremlins/triage/apistatus.md).

// Repeated container names (a spec the API server refuses, which the
// kubelet still converts): one status per name in the regular list, by
// name, for the last container of that name.
func TestRepeatedRegularNames(t *testing.T) {
	p := pod(v1.RestartPolicyAlways, nil, "b", "a", "b")
	got := Compute(p, rstate(running("c1", "a", 10, 0), running("c2", "b", 10, 0)), Options{Features: features.V1_37()})
	var names []string
	for _, s := range got.ContainerStatuses {
		names = append(names, s.Name)
	}
	if len(names) != 2 || names[0] != "a" || names[1] != "b" {
		t.Errorf("statuses %v, want one per name, sorted: [a b]", names)
	}
}

// With RestartAllContainersOnContainerExits, the restart count and the
// last termination carried across a reset: the higher count of the
// previous status and the runtime's stays; the previous status's last
// termination of the same instance stays; a running instance whose
// previous status was terminated with as many restarts counts one more.
func TestRestartAllCarriesOver(t *testing.T) {
	f := features.V1_37()
	p := pod(v1.RestartPolicyAlways, nil, "app")
	last := &v1.ContainerStateTerminated{ExitCode: 42, Reason: "Error"}
	for _, tc := range []struct {
		name string
		prev v1.ContainerStatus
		in   runtimestate.Container
		rc   int32
		last *v1.ContainerStateTerminated
	}{
		{"previous count higher", v1.ContainerStatus{Name: "app", ContainerID: "containerd://c1", RestartCount: 5,
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}, running("c1", "app", 10, 2), 5, nil},
		{"runtime count higher", v1.ContainerStatus{Name: "app", ContainerID: "containerd://c1", RestartCount: 1,
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}, running("c1", "app", 10, 3), 3, nil},
		{"same instance's last termination", v1.ContainerStatus{Name: "app", ContainerID: "containerd://c1", RestartCount: 3,
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}, LastTerminationState: v1.ContainerState{Terminated: last}},
			running("c1", "app", 10, 3), 3, last},
		{"terminated before, as many restarts: one more", v1.ContainerStatus{Name: "app", ContainerID: "containerd://c0", RestartCount: 2,
			State: v1.ContainerState{Terminated: last}}, running("c1", "app", 10, 2), 3, last},
	} {
		got := Compute(p, rstate(tc.in), Options{Features: f, Cached: &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{tc.prev}}}).ContainerStatuses[0]
		if got.RestartCount != tc.rc {
			t.Errorf("%s: restartCount %d, want %d", tc.name, got.RestartCount, tc.rc)
		}
		if d := diff(tc.last, got.LastTerminationState.Terminated); d != "" {
			t.Errorf("%s: last termination: %s", tc.name, d)
		}
	}
}

// A recursive read-only mount is refused with any propagation but None.
func TestRecursiveReadOnlyPropagation(t *testing.T) {
	ifPossible := v1.RecursiveReadOnlyIfPossible
	for _, tc := range []struct {
		prop v1.MountPropagationMode
		want bool
	}{{v1.MountPropagationNone, true}, {v1.MountPropagationHostToContainer, false}} {
		m := v1.VolumeMount{Name: "v", MountPath: "/v", ReadOnly: true, RecursiveReadOnly: &ifPossible, MountPropagation: &tc.prop}
		if got := recursiveReadOnly(m, true); got != tc.want {
			t.Errorf("propagation %s: %v, want %v", tc.prop, got, tc.want)
		}
	}
}

// The Linux kubelet reports a cpu limit or request at or below its
// minimum (10m limit, 2m of shares) only when the spec's is above it:
// each side of each boundary.
func TestCPUMinimums(t *testing.T) {
	m := resource.MustParse
	for _, tc := range []struct {
		name            string
		spec, rep, want string
		request         bool
	}{
		{"limit: reported at the minimum, spec below", "5m", "10m", "5m", false},
		{"limit: spec at the minimum, reported below", "10m", "5m", "10m", false},
		{"limit: reported above, spec below", "5m", "20m", "20m", false},
		{"limit: spec above, reported below", "20m", "5m", "5m", false},
		{"request: spec at the minimum, reported below", "2m", "1m", "2m", true},
		{"request: reported at the minimum, spec below", "1m", "2m", "1m", true},
	} {
		p := pod(v1.RestartPolicyAlways, nil, "app")
		c := running("c1", "app", 10, 0)
		list := v1.ResourceList{v1.ResourceCPU: m(tc.spec)}
		q := m(tc.rep)
		if tc.request {
			p.Spec.Containers[0].Resources.Requests = list
			c.Resources = &runtimestate.Resources{CPURequest: &q}
		} else {
			p.Spec.Containers[0].Resources.Limits = list
			c.Resources = &runtimestate.Resources{CPULimit: &q}
		}
		r := Compute(p, rstate(c), Options{Features: features.V1_37()}).ContainerStatuses[0].Resources
		got := r.Limits.Cpu()
		if tc.request {
			got = r.Requests.Cpu()
		}
		if got.Cmp(m(tc.want)) != 0 {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
