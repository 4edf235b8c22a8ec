package phase

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// Each container kind in each state adds to exactly the counters its
// doc names (getPhase's counters in kubelet_pods.go), under
// restartPolicy Never, with ContainerRestartRules on and off. The phase
// branches read most counters only as "any" or "none", so a counter
// stepped the wrong way is caught only by the counts themselves, which
// Result reports and String prints.
func TestCountsPerKindAndState(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	tr := func(code int32) *v1.ContainerStateTerminated { return &v1.ContainerStateTerminated{ExitCode: code} }
	yes, no := true, false
	states := map[string]v1.ContainerStatus{
		"running started":     {State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}, Started: &yes},
		"running not started": {State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}, Started: &no},
		"terminated 0":        {State: v1.ContainerState{Terminated: tr(0)}},
		"terminated 1":        {State: v1.ContainerState{Terminated: tr(1)}},
		"waiting":             {State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{}}},
		"waiting after 0":     {State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{}}, LastTerminationState: v1.ContainerState{Terminated: tr(0)}},
		"waiting after 1":     {State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{}}, LastTerminationState: v1.ContainerState{Terminated: tr(1)}},
		"no state":            {},
	}
	for _, tc := range []struct {
		kind, state string
		rules       bool
		want        Counts
	}{
		{"sidecar", "", true, Counts{Unknown: 1}},
		{"sidecar", "running started", true, Counts{Running: 1}},
		{"sidecar", "running not started", true, Counts{PendingSidecars: 1, Running: 1}},
		{"sidecar", "terminated 1", true, Counts{}},
		{"sidecar", "waiting", true, Counts{PendingSidecars: 1, Waiting: 1}},
		{"sidecar", "waiting after 1", true, Counts{}},
		{"sidecar", "no state", true, Counts{PendingSidecars: 1, Unknown: 1}},
		{"init", "", true, Counts{PendingInit: 1}},
		{"init", "running started", true, Counts{PendingInit: 1}},
		{"init", "terminated 0", true, Counts{}},
		{"init", "terminated 1", true, Counts{FailedInit: 1, FailedInitNotRestartable: 1}},
		{"init", "terminated 1", false, Counts{FailedInit: 1}},
		{"init", "waiting", true, Counts{PendingInit: 1}},
		{"init", "waiting after 0", true, Counts{}},
		{"init", "waiting after 1", true, Counts{FailedInit: 1, FailedInitNotRestartable: 1}},
		// Counted whatever the gate (the kubelet reads it only with it on).
		{"init", "waiting after 1", false, Counts{FailedInit: 1, FailedInitNotRestartable: 1}},
		{"init", "no state", true, Counts{PendingInit: 1}},
		{"regular", "", true, Counts{Unknown: 1}},
		{"regular", "running started", true, Counts{Running: 1}},
		{"regular", "terminated 0", true, Counts{Stopped: 1, StoppedNotRestartable: 1, Succeeded: 1}},
		{"regular", "terminated 0", false, Counts{Stopped: 1, Succeeded: 1}},
		{"regular", "terminated 1", true, Counts{Stopped: 1, StoppedNotRestartable: 1}},
		{"regular", "waiting", true, Counts{Waiting: 1}},
		{"regular", "waiting after 0", true, Counts{Stopped: 1, StoppedNotRestartable: 1}},
		{"regular", "waiting after 1", false, Counts{Stopped: 1}},
		{"regular", "no state", true, Counts{Unknown: 1}},
	} {
		c := v1.Container{Name: "c", Image: "i"}
		pod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever}}
		st := &v1.PodStatus{}
		var list *[]v1.ContainerStatus
		switch tc.kind {
		case "sidecar":
			c.RestartPolicy = &always
			pod.Spec.InitContainers = []v1.Container{c}
			list = &st.InitContainerStatuses
		case "init":
			pod.Spec.InitContainers = []v1.Container{c}
			list = &st.InitContainerStatuses
		default:
			pod.Spec.Containers = []v1.Container{c}
			list = &st.ContainerStatuses
		}
		if tc.state != "" {
			cs, ok := states[tc.state]
			if !ok {
				t.Fatalf("no state %q", tc.state)
			}
			cs.Name = "c"
			*list = []v1.ContainerStatus{cs}
		}
		f, err := features.V1_37().With(features.ContainerRestartRules, tc.rules)
		if err != nil {
			t.Fatal(err)
		}
		if got := Compute(pod, st, Options{Features: f}).Counts; got != tc.want {
			t.Errorf("%s %q (ContainerRestartRules %v): counts %+v, want %+v", tc.kind, tc.state, tc.rules, got, tc.want)
		}
	}
}
