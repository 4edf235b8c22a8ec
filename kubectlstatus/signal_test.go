package kubectlstatus

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// A container that ended without a reason shows Signal:N when a signal
// ended it, else ExitCode:N (printers.go printPod), as an init container
// shows Init:Signal:N or Init:ExitCode:N.
func TestComputeSignalOrExitCode(t *testing.T) {
	term := func(code, sig int32) v1.ContainerStatus {
		return v1.ContainerStatus{Name: "c", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: code, Signal: sig}}}
	}
	for _, tc := range []struct {
		st         v1.ContainerStatus
		want, init string
	}{
		{term(137, 9), "Signal:9", "Init:Signal:9"},
		{term(0, 15), "Signal:15", ""}, // an init container that exited 0 is done
		{term(2, 0), "ExitCode:2", "Init:ExitCode:2"},
	} {
		pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c"}}}, Status: v1.PodStatus{Phase: v1.PodRunning, ContainerStatuses: []v1.ContainerStatus{tc.st}}}
		if got := Compute(pod); got != tc.want {
			t.Errorf("container %+v: %q, want %q", tc.st.State.Terminated, got, tc.want)
		}
		if tc.init == "" {
			continue
		}
		ipod := &v1.Pod{Spec: v1.PodSpec{InitContainers: []v1.Container{{Name: "c"}}, Containers: []v1.Container{{Name: "app"}}},
			Status: v1.PodStatus{Phase: v1.PodPending, InitContainerStatuses: []v1.ContainerStatus{tc.st}}}
		if got := Compute(ipod); got != tc.init {
			t.Errorf("init container %+v: %q, want %q", tc.st.State.Terminated, got, tc.init)
		}
	}
}
