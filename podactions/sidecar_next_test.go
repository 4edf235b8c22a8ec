package podactions_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// TestComputeSidecarDoesNotRestartDoneInit: a running sidecar starts the
// init container after it only when no later init container has run yet;
// once the next one has run and exited 0, the one after that starts, and
// the finished one is not started again. (The mutation run's
// podactions-sidecar-starts-next-always was caught only by the
// differential suite.)
func TestComputeSidecarDoesNotRestartDoneInit(t *testing.T) {
	init2 := ctr("init-2")
	run(t, []tcase{{
		name: "sidecar running, next init container done: start the one after it only",
		pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{side1, init1, init2}, app0),
		st:   state(exited("c2", init1, 0), inst("c1", side1, runtimestate.Running)),
		want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(2, "init-2")},
	}})
}
