package sim_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// The container deletor runs on every ContainerDied event, a sandbox's
// too (kubelet.go syncLoopIteration calls cleanUpContainersInPod with the
// event's ID). Once the pod's content may be removed (deleted and
// terminated) it drops the ID filter and removes every exited instance
// (pod_container_deletor.go deleteContainersInPod). A crash-looping pod
// deleted through the API while its container waits in back-off: the
// container died long before, so the relist after SyncTerminatingPod sees
// only the sandbox die, and the deletor removes the exited instance then,
// not at the container GC's next pass.
func TestDeletorRemovesAllOnSandboxDeath(t *testing.T) {
	pod := apiPod("crash", v1.PodSpec{TerminationGracePeriodSeconds: i64(30),
		Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(1), ExitCode: 1}}}}}
	for seed := uint64(1); seed <= 8; seed++ {
		// Exits at about 1.4 s and 2.5 s, then waits 10 s in back-off:
		// deleted at 6 s, the container is not running.
		// The container GC's passes are at 50 s + k minutes: none
		// before the end.
		tl := run(t, sim.Config{Seed: seed, For: sec(30), ContainerGC: sec(50)}, sim.PodInput{Pod: pod, Script: script,
			Actions: []sim.Action{{At: sec(6), Delete: i64(-1)}}})
		died, ok := tl.First("crash", func(e sim.Entry) bool {
			return e.Kind == sim.KindPLEG && strings.HasPrefix(e.Message, "ContainerDied ") && strings.Contains(e.Message, "sandbox")
		})
		if !ok {
			t.Fatalf("seed %d: no relist saw the sandbox die\n%s", seed, tl.Events())
		}
		for _, e := range tl.Entries {
			if e.Kind == sim.KindPLEG && e.At == died.At && e.Message != died.Message && strings.HasPrefix(e.Message, "ContainerDied ") {
				t.Fatalf("seed %d: the relist at %s saw a container die too (%s): not the case this test is about", seed, died.At, e.Message)
			}
		}
		removed, ok := tl.First("crash", func(e sim.Entry) bool {
			return e.Kind == sim.KindCRI && e.Call.Method == "RemoveContainer" && e.At >= died.At
		})
		if !ok || removed.At != died.At || !strings.HasSuffix(removed.Message, "(container clean-up)") {
			t.Errorf("seed %d: sandbox died at %s; first removal after it %v %q, want the deletor's at once\n%s", seed, died.At, ok, removed.Message, tl.Events())
		}
	}
}
