package kubectlstatus

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// READY counts a regular container that is ready and running unless it
// has a waiting state with a reason or any terminated state (printPod's
// switch: a waiting state with an empty reason falls through to the
// running-and-ready case). Checked over every combination of the three
// states (the waiting one with and without a reason) and the ready flag,
// including statuses that hold more than one state.
func TestReadyCountStateCombinations(t *testing.T) {
	for waiting := 0; waiting < 3; waiting++ { // none, empty reason, a reason
		for _, terminated := range []bool{false, true} {
			for _, running := range []bool{false, true} {
				for _, ready := range []bool{false, true} {
					var st v1.ContainerState
					switch waiting {
					case 1:
						st.Waiting = &v1.ContainerStateWaiting{}
					case 2:
						st.Waiting = &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}
					}
					if terminated {
						st.Terminated = &v1.ContainerStateTerminated{Reason: "Completed"}
					}
					if running {
						st.Running = &v1.ContainerStateRunning{}
					}
					pod := &v1.Pod{
						Spec:   v1.PodSpec{Containers: []v1.Container{{Name: "app"}}},
						Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", Ready: ready, State: st}}},
					}
					want := 0
					if ready && running && waiting != 2 && !terminated {
						want = 1
					}
					name := fmt.Sprintf("waiting=%d terminated=%v running=%v ready=%v", waiting, terminated, running, ready)
					if got, total := ReadyCount(pod); got != want || total != 1 {
						t.Errorf("%s: ReadyCount = %d/%d, want %d/1", name, got, total, want)
					}
				}
			}
		}
	}
}
