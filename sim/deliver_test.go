package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// An action at the very instant of one of the pod's own events (here the
// PLEG relist that sees app's exit) runs before it, on both engines
// (Node.deliver runs the pod's events before the action's time, then the
// action): the action's entry comes first among that instant's.
func TestActionBeforeThePodsEventsOfItsInstant(t *testing.T) {
	period := time.Second + sim.DefaultRuntimeDelays().Relist.D()
	relist := 500*time.Millisecond + 5*period
	pod := apiPod("web", v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(4.5)}}}}}
	for _, contention := range []sim.Duration{0, -1} {
		cfg := sim.Config{Seed: 1, For: sec(20), RelistPhase: sec(0.5), RuntimeContention: contention}
		tl := run(t, cfg, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sim.Duration(relist), KillContainer: "app"}}})
		var at []string
		for _, e := range tl.Entries {
			if e.At == relist {
				at = append(at, e.Message)
			}
		}
		if len(at) < 2 || !strings.HasPrefix(at[0], "kill container app") || !strings.HasPrefix(at[1], "ContainerDied ") {
			t.Errorf("contention %s: entries at %s %q, want the kill first, then the relist's ContainerDied\n%s", contention, relist, at, tl.Events())
		}
	}
}

// A pod released (forgotten by the kubelet, its API object gone) while
// the node brings it up to an action's time leaves the node at once: its
// name is free for a new pod (Node.settle), on the engine that runs each
// pod on its own (no runtime contention).
func TestPodReleasedBeforeAnActionLeavesTheNode(t *testing.T) {
	start := sim.DefaultStart
	n := sim.NewNode(sim.Config{Seed: 1, RuntimeContention: -1})
	pod := apiPod("web", v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(1)}}}}}
	if err := n.AddPod(start, pod, script); err != nil {
		t.Fatal(err)
	}
	if err := n.DeletePod(start.Add(5*time.Second), "", "web", 0); err != nil {
		t.Fatal(err)
	}
	// Ten minutes on: the pod was forgotten and its instances collected
	// before this action, which finds it gone.
	if err := n.DeletePod(start.Add(10*time.Minute), "", "web", 0); err != nil {
		t.Fatal(err)
	}
	if got := n.Pods(); len(got) != 0 {
		t.Fatalf("pods on the node %v, want none: the released pod stays", got)
	}
	if err := n.AddPod(start.Add(10*time.Minute), pod, script); err != nil {
		t.Fatalf("a new pod under the released one's name: %v", err)
	}
}

// Report.Entries (and Simulate's timeline) list entries of one time pods
// in the order they were added, each pod's in the order they happened:
// three identical pods added at once, on both engines and with parallel
// workers, log the same entries at the same times in pod order.
func TestSameInstantEntriesInPodOrder(t *testing.T) {
	pods := []sim.PodInput{}
	for _, name := range []string{"c", "a", "b"} {
		pods = append(pods, sim.PodInput{Pod: apiPod(name, v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})})
	}
	for _, cfg := range []sim.Config{
		{Seed: 1, For: sec(5)},
		{Seed: 1, For: sec(5), RuntimeContention: -1, Parallelism: 1},
		{Seed: 1, For: sec(5), RuntimeContention: -1, Parallelism: 3},
	} {
		tl := run(t, cfg, pods...)
		var first []string
		for _, e := range tl.Entries {
			if e.At == 0 && e.Kind == sim.KindAction {
				first = append(first, e.Pod)
			}
		}
		if strings.Join(first, " ") != "c a b" {
			t.Errorf("contention %s, parallelism %d: pods' first entries in the order %q, want c a b (the order added)\n%s", cfg.RuntimeContention, cfg.Parallelism, first, tl.Events())
		}
	}
}

// Advance(t) runs what happens at t itself: a node advanced exactly to
// each time its timeline has entries at reports those entries then, on
// both engines, as Simulate lists them.
func TestAdvanceRunsTheEventsAtItsTime(t *testing.T) {
	pods := []sim.PodInput{{Pod: apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})}}
	for _, contention := range []sim.Duration{0, -1} {
		cfg := sim.Config{Seed: 1, For: sec(3), RuntimeContention: contention}
		want := run(t, cfg, pods...)
		n := sim.NewNode(cfg)
		if err := n.AddPod(n.Start(), pods[0].Pod, sim.Script{}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range n.Advance(n.Start()).Entries {
			got = append(got, e.At.String()+" "+e.Message)
		}
		var wantLines []string
		for i, e := range want.Entries {
			wantLines = append(wantLines, e.At.String()+" "+e.Message)
			if i+1 < len(want.Entries) && want.Entries[i+1].At == e.At {
				continue
			}
			// e is the last entry at its time: the node advanced to it
			// has reported every entry up to it.
			if e.At > 0 {
				for _, r := range n.Advance(n.Start().Add(e.At)).Entries {
					got = append(got, r.At.String()+" "+r.Message)
				}
			}
			if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
				t.Fatalf("contention %s: advanced to %s, the node reported\n%s\nwant\n%s", contention, e.At, strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
			}
		}
	}
}
