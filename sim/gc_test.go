package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// gcCalls lists the container GC's calls of a timeline as "<at> <method>
// <name>".
func gcCalls(tl *sim.Timeline) []string {
	var out []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindCRI && strings.HasSuffix(e.Message, "(container GC)") {
			out = append(out, fmt.Sprintf("%s %s %s", fmtSec(e.At), e.Call.Method, e.Call.Name))
		}
	}
	return out
}

// A static pod (restartPolicy Never) whose containers have exited, one
// instance each, and whose manifest is then removed: housekeeping forgets its worker
// within 2 s of SyncTerminatedPod, but its exited containers and stopped
// sandbox stay in the runtime until the next pass of the container GC
// (kuberuntime_gc.go: the pod is then unknown to the pod workers, so
// ShouldPodContentBeRemoved), which removes the containers, then stops and
// removes the sandbox (evictSandboxes, removeSandbox). With the passes at
// 40 s + k minutes, the clean-up is at 40 s, after which the simulation of
// the pod ends; the pod's name is free again as soon as it is forgotten.
// The two containers go in either order, drawn from the seed (the
// kubelet's map order): both orders show over the 8 seeds.
func TestContainerGCForgottenPod(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever,
		InitContainers: []v1.Container{{Name: "prepare", Image: "a"}},
		Containers:     []v1.Container{{Name: "app", Image: "a"}}}}
	pod.Name = "static"
	pod.Annotations = map[string]string{"kubernetes.io/config.source": "file"}
	script := sim.Script{Containers: map[string]sim.Behaviour{"prepare": {Runs: []sim.Run{{ExitAfter: sec(1)}}}, "app": {Runs: []sim.Run{{ExitAfter: sec(2)}}}}}
	orders := map[bool]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(300), ContainerGC: sec(40)},
			sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(10), Remove: true}}})
		got := gcCalls(tl)
		// prepare and app in the seed's order (the kubelet's map order).
		want1 := []string{"40.000 RemoveContainer app", "40.002 RemoveContainer prepare", "40.004 StopPodSandbox ", "40.029 RemovePodSandbox "}
		want2 := []string{"40.000 RemoveContainer prepare", "40.002 RemoveContainer app", "40.004 StopPodSandbox ", "40.029 RemovePodSandbox "}
		g := strings.Join(got, "\n")
		if g != strings.Join(want1, "\n") && g != strings.Join(want2, "\n") {
			t.Fatalf("seed %d: container GC calls:\n%s\nwant:\n%s\n%s", seed, g, strings.Join(want1, "\n"), tl.Events())
		}
		orders[g == strings.Join(want1, "\n")] = true
		if last := tl.Entries[len(tl.Entries)-1]; last.At != sec(40.029).D() {
			t.Fatalf("seed %d: last entry at %s, want the RemovePodSandbox at 40.029 s\n%s", seed, last.At, tl.Events())
		}
	}
	if len(orders) != 2 {
		t.Errorf("the 8 seeds all removed prepare and app in one order; the kubelet's map order is random")
	}
	// The name is free once the worker is forgotten, before the GC.
	n := sim.NewNode(sim.Config{Seed: 1, ContainerGC: sec(40)})
	at := n.Start()
	if err := n.AddPod(at, pod, script); err != nil {
		t.Fatal(err)
	}
	if err := n.Do(at.Add(10*time.Second), "", "static", sim.Action{Remove: true}); err != nil {
		t.Fatal(err)
	}
	n.Advance(at.Add(30 * time.Second))
	if got := n.Pods(); len(got) != 0 {
		t.Fatalf("pods at 30 s: %v, want none (forgotten)", got)
	}
	if err := n.AddPod(at.Add(30*time.Second), pod, script); err != nil {
		t.Fatalf("adding the pod again before the GC's clean-up: %v", err)
	}
	r := n.Advance(at.Add(45 * time.Second))
	removed := 0
	for _, e := range r.Entries {
		if e.Kind == sim.KindCRI && e.Call.Method == "RemovePodSandbox" {
			removed++
		}
	}
	if removed != 1 {
		t.Fatalf("%d RemovePodSandbox calls by 45 s, want the old pod's one\n%v", removed, r.Entries)
	}
}

// evictSandboxes for a pod that still runs: the newest sandbox is kept,
// an older one is removed once it is not ready and no container instance
// refers to it. After a sandbox kill the old sandbox still holds app's
// exited instance; when the new instance exits (restartPolicy Never keeps
// it from restarting) the container deletor keeps only the newest exited
// instance of app, so the old sandbox has nothing left and the next GC
// pass stops and removes it, and only it.
func TestContainerGCOldSandbox(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways, Containers: []v1.Container{{Name: "app", Image: "a"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{}, {ExitAfter: sec(5), ExitCode: 0}, {}}}}}
	tl := run(t, sim.Config{Seed: 3, For: sec(200), ContainerGC: sec(59)},
		sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(10), KillSandbox: true}}})
	var first string
	sandboxes := 0
	for _, e := range tl.Entries {
		if e.Kind == sim.KindCRI && e.Call.Method == "RunPodSandbox" {
			sandboxes++
			if first == "" {
				first = e.Call.ID
			}
		}
	}
	if sandboxes != 2 {
		t.Fatalf("%d sandboxes, want 2\n%s", sandboxes, tl.Events())
	}
	got := gcCalls(tl)
	var ids []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindCRI && e.Call.Method == "RemovePodSandbox" {
			ids = append(ids, e.Call.ID)
		}
	}
	if len(ids) != 1 || ids[0] != first || !strings.HasPrefix(strings.Join(got, "\n"), "59.000 StopPodSandbox") {
		t.Fatalf("container GC calls:\n%s\nremoved sandboxes %v, want only the first (%s), at 59 s\n%s", strings.Join(got, "\n"), ids, first, tl.Events())
	}
}

// The same, but the new instance keeps running: app's exited instance in
// the old sandbox is the newest exited one and stays, so the old sandbox
// stays active (a container refers to it) and no GC pass removes it.
func TestContainerGCKeepsReferencedSandbox(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways, Containers: []v1.Container{{Name: "app", Image: "a"}}})
	tl := run(t, sim.Config{Seed: 3, For: sec(200), ContainerGC: sec(59)},
		sim.PodInput{Pod: pod, Actions: []sim.Action{{At: sec(10), KillSandbox: true}}})
	if got := gcCalls(tl); len(got) != 0 {
		t.Fatalf("container GC calls:\n%s\nwant none\n%s", strings.Join(got, "\n"), tl.Events())
	}
}

// A container GC pass that runs after an instance exited but before the
// relist saw it (so before the container deletor pruned): the pass finds
// two exited instances of app and removes the older itself, keeping the
// newest of each container name (kuberuntime_gc.go evictContainers,
// enforceMaxContainersPerEvictUnit with MaxPerPodContainer 1, units keyed
// by pod and container name, kubelet v1.37.2 kuberuntime_gc.go:247-249);
// its RemoveContainer call lasts the runtime's delay.
func TestContainerGCKeepsNewestPerName(t *testing.T) {
	pod := apiPod("gc", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(5)}, {ExitAfter: sec(5)}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(20), ContainerGC: sec(12)}, sim.PodInput{Pod: pod, Script: script})
	exited, ok1 := tl.First("gc", func(e sim.Entry) bool { return e.Kind == sim.KindExit && strings.Contains(e.Message, "gc-app-1") })
	died, ok2 := tl.First("gc", func(e sim.Entry) bool { return e.Kind == sim.KindPLEG && e.Message == "ContainerDied gc-app-1" })
	if !ok1 || !ok2 || exited.At >= 12*time.Second || died.At <= 12*time.Second {
		t.Fatalf("setup: want gc-app-1 to exit before the pass at 12 s and the relist to see it after\n%s", tl.Events())
	}
	if got, want := strings.Join(gcCalls(tl), "\n"), "12.000 RemoveContainer app"; got != want {
		t.Fatalf("container GC calls:\n%s\nwant:\n%s\n%s", got, want, tl.Events())
	}
	e, ok := tl.First("gc", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "RemoveContainer" })
	if !ok || e.Call.ID != "gc-app-0" {
		t.Fatalf("the GC must remove the older instance gc-app-0\n%s", tl.Events())
	}
	// The call lasts the runtime's RemoveContainer delay (2 ms).
	if e.Call.At != 12*time.Second || e.Call.Done != e.Call.At+2*time.Millisecond {
		t.Fatalf("the GC's RemoveContainer %+v: want from 12 s to 12.002 s", *e.Call)
	}
}

// The new kubelet's container GC runs its first pass as the process
// starts (StartGarbageCollection right after NewMainKubelet, whose
// wait.UntilWithContext runs at once; gcFromStart): with the setup of
// TestContainerGCOldSandbox and the kubelet restarted at 30 s for 5 s,
// the old sandbox, not ready and empty since about 16 s, is removed at
// 35 s, not a minute later.
func TestContainerGCAtKubeletStart(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways, Containers: []v1.Container{{Name: "app", Image: "a"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{}, {ExitAfter: sec(5), ExitCode: 0}, {}}}}}
	down := sec(5)
	tl := run(t, sim.Config{Seed: 3, For: sec(200), ContainerGC: sec(59)},
		sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(10), KillSandbox: true}, {At: sec(30), RestartKubelet: &down}}})
	if got := gcCalls(tl); len(got) == 0 || got[0] != "35.000 StopPodSandbox " {
		t.Fatalf("container GC calls %q, want the old sandbox stopped (and removed) from 35 s\n%s", got, tl.Events())
	}
}
