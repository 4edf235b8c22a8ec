package runtimestate_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// The tests in this file kill the mutants gremlins left alive in
// runtimestate (tooling/mutation/gremlins/triage/runtimestate.md).

func ids(cs []runtimestate.Container) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.ID)
	}
	return strings.Join(s, ",")
}

func at(sec int) metav1.Time {
	return metav1.NewTime(time.Date(2026, 12, 1, 10, 0, sec, 0, time.UTC))
}

// TestFromStatusSandbox: the sandbox is created at status.startTime (none
// given: zero time), its IP is podIP or else podIPs[0], and the other
// podIPs (not empty ones) are its additional IPs.
func TestFromStatusSandbox(t *testing.T) {
	running := []v1.ContainerStatus{{Name: "app", ContainerID: "containerd://a", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: at(5)}}}}
	start := at(1)
	for _, tc := range []struct {
		name    string
		status  v1.PodStatus
		created time.Time
		ip      string
		more    []string
	}{
		{"startTime and dual stack", v1.PodStatus{StartTime: &start, PodIP: "10.1.0.7",
			PodIPs: []v1.PodIP{{IP: "10.1.0.7"}, {IP: "fd00::7"}}}, start.Time, "10.1.0.7", []string{"fd00::7"}},
		{"no startTime, podIPs only", v1.PodStatus{PodIPs: []v1.PodIP{{IP: "10.1.0.8"}, {IP: ""}, {IP: "fd00::8"}}},
			time.Time{}, "10.1.0.8", []string{"fd00::8"}},
	} {
		tc.status.ContainerStatuses = running
		st, _ := runtimestate.FromStatus(&v1.Pod{Status: tc.status})
		if len(st.Sandboxes) != 1 {
			t.Fatalf("%s: sandboxes %+v, want one", tc.name, st.Sandboxes)
		}
		sb := st.Sandboxes[0]
		if !sb.CreatedAt.Equal(tc.created) || sb.IP != tc.ip || strings.Join(sb.AdditionalIPs, ",") != strings.Join(tc.more, ",") {
			t.Errorf("%s: sandbox created %v ip %q more %q, want %v %q %q", tc.name, sb.CreatedAt, sb.IP, sb.AdditionalIPs, tc.created, tc.ip, tc.more)
		}
	}
}

// TestFromStatusInstanceOrder: instances are newest first; a current
// instance without a start time is newer than the last terminated one (it
// is put at that one's finish), as is one started the second the last one
// finished; instances of different containers started at one instant keep
// the status's order.
func TestFromStatusInstanceOrder(t *testing.T) {
	last := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ContainerID: "containerd://old", ExitCode: 1, StartedAt: at(1), FinishedAt: at(3)}}
	for _, tc := range []struct {
		name string
		cs   []v1.ContainerStatus
		want string
	}{
		{"current without a start time", []v1.ContainerStatus{{Name: "app", ContainerID: "containerd://new", RestartCount: 1,
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}, LastTerminationState: last}}, "new,old"},
		{"current started as the last finished", []v1.ContainerStatus{{Name: "app", ContainerID: "containerd://new", RestartCount: 1,
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: at(3)}}, LastTerminationState: last}}, "new,old"},
		{"two containers started at once", []v1.ContainerStatus{
			{Name: "a", ContainerID: "containerd://a", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: at(2)}}},
			{Name: "b", ContainerID: "containerd://b", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: at(2)}}},
		}, "a,b"},
		{"two containers, no times", []v1.ContainerStatus{
			{Name: "a", ContainerID: "containerd://a", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}},
			{Name: "b", ContainerID: "containerd://b", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}},
		}, "a,b"},
	} {
		st, _ := runtimestate.FromStatus(&v1.Pod{Status: v1.PodStatus{ContainerStatuses: tc.cs}})
		if got := ids(st.Containers); got != tc.want {
			t.Errorf("%s: instances %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestFromStatusSyntheticTermination: a terminated state with neither a
// containerID nor a time is made up by the kubelet and gives no instance;
// one with a containerID and no time is an instance.
func TestFromStatusSyntheticTermination(t *testing.T) {
	unknown := &v1.ContainerStateTerminated{ExitCode: 137, Reason: "ContainerStatusUnknown"}
	untimed := &v1.ContainerStateTerminated{ContainerID: "containerd://x", ExitCode: 2}
	for _, tc := range []struct {
		name string
		cs   v1.ContainerStatus
		want string
	}{
		{"made up, current", v1.ContainerStatus{Name: "app", State: v1.ContainerState{Terminated: unknown}}, ""},
		{"made up, last", v1.ContainerStatus{Name: "app", ContainerID: "containerd://r", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: at(4)}},
			LastTerminationState: v1.ContainerState{Terminated: unknown}}, "r"},
		{"untimed, current", v1.ContainerStatus{Name: "app", State: v1.ContainerState{Terminated: untimed}}, "x"},
	} {
		st, _ := runtimestate.FromStatus(&v1.Pod{Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{tc.cs}}})
		if got := ids(st.Containers); got != tc.want {
			t.Errorf("%s: instances %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestNormalizeFullTieKeepsOrder: sandboxes equal in attempt, creation time
// and ID (an invalid Pod, but Normalize takes any) keep their order.
func TestNormalizeFullTieKeepsOrder(t *testing.T) {
	p := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s", IP: "10.0.0.1"}, {ID: "s", IP: "10.0.0.2"}}}
	p.Normalize()
	if p.Sandboxes[0].IP != "10.0.0.1" {
		t.Errorf("Normalize swapped two tied sandboxes: %+v", p.Sandboxes)
	}
	// Validate reports the repeated ID only, not an order.
	if err := p.Validate(); err == nil || strings.Contains(err.Error(), "newest first") {
		t.Errorf("Validate: %v, want only the duplicate id", err)
	}
}

// TestValidateMessages: the order errors name the element before by its
// index; hashMissing goes with hash 0 only; instances of one container
// with equal times and equal restart counts are in no wrong order.
func TestValidateMessages(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		p    runtimestate.Pod
		want string // "" for valid
	}{
		{"sandboxes oldest first", runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "a", Attempt: 0}, {ID: "b", Attempt: 1}}},
			"sandboxes[1] (b) is newer than sandboxes[0] (a)"},
		{"containers oldest first", runtimestate.Pod{Containers: []runtimestate.Container{
			{ID: "a", Name: "app", State: runtimestate.Exited, CreatedAt: t0},
			{ID: "b", Name: "app", State: runtimestate.Running, CreatedAt: t0.Add(time.Second)}}},
			"containers[1] (b) was created after containers[0] (a)"},
		{"hashMissing with hash", runtimestate.Pod{Containers: []runtimestate.Container{{ID: "a", Name: "app", State: runtimestate.Running, HashMissing: true, Hash: 5}}},
			"hashMissing with hash 5"},
		{"hashMissing, hash 0", runtimestate.Pod{Containers: []runtimestate.Container{{ID: "a", Name: "app", State: runtimestate.Running, HashMissing: true}}}, ""},
		{"equal restart counts, no times", runtimestate.Pod{Containers: []runtimestate.Container{
			{ID: "a", Name: "app", State: runtimestate.Running, RestartCount: 2},
			{ID: "b", Name: "app", State: runtimestate.Exited, RestartCount: 2}}}, ""},
	} {
		err := tc.p.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want valid", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestSandboxChangedAttempts: two ready sandboxes need a new one
// (podSandboxChanged: readySandboxCount > 1), and a new sandbox's attempt
// is the latest's plus one.
func TestSandboxChangedAttempts(t *testing.T) {
	two := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{
		{ID: "s2", Attempt: 4, Ready: true, IP: "10.0.0.2"},
		{ID: "s1", Attempt: 3, Ready: true, IP: "10.0.0.1"},
	}}
	got := runtimestate.SandboxChanged(&v1.Pod{}, two)
	if want := (runtimestate.SandboxCheck{Changed: true, Attempt: 5, SandboxID: "s2", Message: vocab.MsgMultipleSandboxes}); got != want {
		t.Errorf("two ready sandboxes: %+v, want %+v", got, want)
	}
	notReady := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s7", Attempt: 7}}}
	got = runtimestate.SandboxChanged(&v1.Pod{}, notReady)
	if want := (runtimestate.SandboxCheck{Changed: true, Attempt: 8, SandboxID: "s7", Message: vocab.MsgSandboxNotReady}); got != want {
		t.Errorf("not ready: %+v, want %+v", got, want)
	}
}

// TestFromStatusInstanceIDs: an instance's ID is its containerID without
// the scheme, the containerID itself when it has none, and <name>-now or
// <name>-last (listed in the assumptions) when the status gives none.
func TestFromStatusInstanceIDs(t *testing.T) {
	for _, tc := range []struct {
		name, id, want string
		madeUp         bool
	}{
		{"with a scheme", "containerd://abc", "abc", false},
		{"without a scheme", "abc", "abc", false},
		{"none", "", "app-now", true},
	} {
		st, assumed := runtimestate.FromStatus(&v1.Pod{Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{
			Name: "app", ContainerID: tc.id, State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: at(1)}},
		}}}})
		madeUp := strings.Contains(strings.Join(assumed, "\n"), "made-up IDs")
		if got := ids(st.Containers); got != tc.want || madeUp != tc.madeUp {
			t.Errorf("%s: instance %q (made-up IDs assumed: %v), want %q (%v)", tc.name, got, madeUp, tc.want, tc.madeUp)
		}
	}
}
