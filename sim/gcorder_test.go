package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// With Config.ContainerGC a whole number of minutes, a pod arriving at
// Start has a container GC pass at Start (nothing to evict yet) and the
// next a minute after it, scheduled by that pass: after the events the
// pod's arrival scheduled for that instant. A pod adopted at Start with a
// dead instance of app (its last termination) and a running one that
// exits exactly a minute later: the exit comes first, so the pass finds
// two dead instances of app and evicts the older (kuberuntime_gc.go
// evictContainers keeps one per name).
func TestContainerGCPassAfterTheExitOfItsInstant(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	for _, gc := range []time.Duration{time.Minute, 3 * time.Minute} {
		n := sim.NewNode(sim.Config{Seed: 1, Start: start, ContainerGC: sim.Duration(gc)})
		p := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
		p.Status = adoptedStatus(start, "10.1.1.1", "app")
		cs := &p.Status.ContainerStatuses[0]
		cs.RestartCount = 1
		cs.LastTerminationState = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 1, ContainerID: "containerd://app-old",
			StartedAt: metav1.NewTime(start.Add(-50 * time.Second)), FinishedAt: metav1.NewTime(start.Add(-40 * time.Second))}}
		// Run 1 (restart count 1) started 30 s before Start: it exits at
		// Start + 60 s.
		script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{}, {ExitAfter: sec(90)}}}}}
		if err := n.AdoptPod(start, p, script); err != nil {
			t.Fatal(err)
		}
		var lines []string
		var gcAt []time.Duration
		for _, e := range n.Advance(start.Add(70 * time.Second)).Entries {
			lines = append(lines, fmt.Sprintf("%s %s", e.At, e.Message))
			if e.Kind == sim.KindCRI && strings.HasSuffix(e.Message, "(container GC)") {
				gcAt = append(gcAt, e.At)
			}
		}
		if len(gcAt) != 1 || gcAt[0] != time.Minute {
			t.Errorf("ContainerGC %s: container GC removals at %v, want one at 1m0s\n%s", gc, gcAt, strings.Join(lines, "\n"))
		}
	}
}
