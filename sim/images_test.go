package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// Image pulls as kubelet v1.37.2 makes them (images/image_manager.go
// EnsureImageExists, pullImage; kuberuntime_container.go startContainer).

// waitingReasons lists, in order, the distinct waiting reasons of
// container name in the pod's stored statuses.
func waitingReasons(tl *sim.Timeline, pod, name string) []string {
	var out []string
	for _, e := range tl.Entries {
		if e.Kind != sim.KindStatus || e.Pod != pod {
			continue
		}
		for _, cs := range e.Status.Status.ContainerStatuses {
			if cs.Name == name && cs.State.Waiting != nil {
				r := cs.State.Waiting.Reason
				if len(out) == 0 || out[len(out)-1] != r {
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// An image whose every pull fails: the pulls are spaced by the image
// back-off (10 s, 20 s, 40 s … from each failed pull; flowcontrol Next,
// IsInBackOffSinceUpdate), no container is created, and the status
// alternates between ErrImagePull and ImagePullBackOff.
func TestImagePullBackOff(t *testing.T) {
	pod := apiPod("pf", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "reg/app:1", ImagePullPolicy: v1.PullIfNotPresent}}})
	script := sim.Script{Images: map[string]sim.Image{"reg/app:1": {Missing: true, Pulls: []sim.Pull{{Took: sec(0.05), Fails: true}}}}}
	for seed := uint64(1); seed <= 8; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(400)}, sim.PodInput{Pod: pod, Script: script})
		pulls := calls(tl, "PullImage", "app")
		if len(pulls) < 4 {
			t.Fatalf("seed %d: %d pulls in 400 s, want at least 4\n%s", seed, len(pulls), tl.Calls())
		}
		window := 10 * time.Second
		for i := 1; i < len(pulls); i++ {
			gap := pulls[i].At - pulls[i-1].Done
			// Retried at the first sync at or after the window's end; syncs
			// come every J(10 s) plus the tick, so at most 16 s late.
			if gap < window || gap > window+16*time.Second {
				t.Fatalf("seed %d: pull %d came %s after the failed pull %d; want the window %s (+ at most 16 s)\n%s", seed, i, gap, i-1, window, tl.Calls())
			}
			if !pulls[i].PullFailed || pulls[i].Image != "reg/app:1" {
				t.Fatalf("seed %d: pull %+v", seed, pulls[i])
			}
			window = min(2*window, 300*time.Second)
		}
		if n := len(calls(tl, "CreateContainer", "")); n != 0 {
			t.Fatalf("seed %d: %d CreateContainer calls for an image never pulled", seed, n)
		}
		got := strings.Join(waitingReasons(tl, "pf", "app"), " ")
		if !strings.HasPrefix(got, "ContainerCreating ErrImagePull ImagePullBackOff ErrImagePull ImagePullBackOff") {
			t.Fatalf("seed %d: waiting reasons %q", seed, got)
		}
		_, last := tl.LastStatus("pf")
		w := last.ContainerStatuses[0].State.Waiting
		if w == nil || (w.Reason == "ImagePullBackOff" && !strings.HasPrefix(w.Message, `Back-off pulling image "reg/app:1": ErrImagePull: `)) {
			t.Fatalf("seed %d: last waiting state %+v", seed, w)
		}
	}
}

// imagePullPolicy Never with the image missing: ErrImageNeverPull, no pull,
// no back-off; a present image is used as it is.
func TestImageNeverPull(t *testing.T) {
	pod := apiPod("np", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "local/app:1", ImagePullPolicy: v1.PullNever}}})
	script := sim.Script{Images: map[string]sim.Image{"local/app:1": {Missing: true}}}
	tl := run(t, sim.Config{Seed: 3, For: sec(60)}, sim.PodInput{Pod: pod, Script: script})
	if n := len(calls(tl, "PullImage", "")); n != 0 {
		t.Fatalf("%d PullImage calls under imagePullPolicy Never", n)
	}
	if got := strings.Join(waitingReasons(tl, "np", "app"), " "); got != "ContainerCreating ErrImageNeverPull" {
		t.Fatalf("waiting reasons %q, want ContainerCreating ErrImageNeverPull", got)
	}
	_, last := tl.LastStatus("np")
	if w := last.ContainerStatuses[0].State.Waiting; w.Message != `Container image "local/app:1" is not present with pull policy of Never` {
		t.Fatalf("message %q", w.Message)
	}
	tl = run(t, sim.Config{Seed: 3, For: sec(20)}, sim.PodInput{Pod: pod})
	if _, last := tl.LastStatus("np"); last.ContainerStatuses[0].State.Running == nil {
		t.Fatalf("a present image under Never must run: %+v", last.ContainerStatuses[0].State)
	}
}

// A slow pull holds the sync: CreateContainer comes when the pull returns,
// and the container waits as ContainerCreating meanwhile. A pull that fails
// once and then succeeds starts the container after the back-off.
func TestImagePullSlowAndFlaky(t *testing.T) {
	pod := apiPod("sl", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "reg/app:1", ImagePullPolicy: v1.PullIfNotPresent}}})
	script := sim.Script{Images: map[string]sim.Image{"reg/app:1": {Missing: true, Pulls: []sim.Pull{{Took: sec(15)}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(40)}, sim.PodInput{Pod: pod, Script: script})
	pulls, creates := calls(tl, "PullImage", "app"), calls(tl, "CreateContainer", "app")
	if len(pulls) != 1 || pulls[0].Done-pulls[0].At != 15*time.Second || len(creates) != 1 || creates[0].At != pulls[0].Done {
		t.Fatalf("want one 15 s pull and the container created when it returns\n%s", tl.Calls())
	}
	if got := strings.Join(waitingReasons(tl, "sl", "app"), " "); got != "ContainerCreating" {
		t.Fatalf("waiting reasons during a slow pull %q, want ContainerCreating only", got)
	}

	script.Images["reg/app:1"] = sim.Image{Missing: true, Pulls: []sim.Pull{{Took: sec(0.02), Fails: true}, {Took: sec(0.3)}}}
	tl = run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script})
	pulls, creates = calls(tl, "PullImage", "app"), calls(tl, "CreateContainer", "app")
	if len(pulls) != 2 || !pulls[0].PullFailed || pulls[1].PullFailed || pulls[1].At-pulls[0].Done < 10*time.Second || len(creates) != 1 || creates[0].RestartCount != 0 {
		t.Fatalf("want a failed pull, a successful one at least 10 s later, then one container (restart 0)\n%s", tl.Calls())
	}
	_, last := tl.LastStatus("sl")
	if cs := last.ContainerStatuses[0]; cs.State.Running == nil || cs.RestartCount != 0 {
		t.Fatalf("last state %+v restarts %d, want running, 0", cs.State, cs.RestartCount)
	}
}

// imagePullPolicy Always pulls at every container start, even when the
// image is present; IfNotPresent pulls only a missing image.
func TestImagePullAlways(t *testing.T) {
	spec := v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "reg/app:1", ImagePullPolicy: v1.PullAlways}}}
	script := sim.Script{
		Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(1), ExitCode: 1}}}},
		Images:     map[string]sim.Image{"reg/app:1": {Pulls: []sim.Pull{{Took: sec(2)}}}},
	}
	tl := run(t, sim.Config{Seed: 2, For: sec(60)}, sim.PodInput{Pod: apiPod("al", spec), Script: script})
	creates, pulls := calls(tl, "CreateContainer", "app"), calls(tl, "PullImage", "app")
	if len(creates) < 3 || len(pulls) != len(creates) {
		t.Fatalf("Always: %d creates, %d pulls; want a pull before each create\n%s", len(creates), len(pulls), tl.Calls())
	}
	for i := range creates {
		if creates[i].At != pulls[i].Done {
			t.Fatalf("Always: create %d at %s, pull done at %s", i, creates[i].At, pulls[i].Done)
		}
	}
	spec.Containers[0].ImagePullPolicy = v1.PullIfNotPresent
	tl = run(t, sim.Config{Seed: 2, For: sec(60)}, sim.PodInput{Pod: apiPod("al", spec), Script: script})
	if n := len(calls(tl, "PullImage", "")); n != 0 {
		t.Fatalf("IfNotPresent with the image present: %d pulls", n)
	}
}

// A script image no container uses is an error naming it.
func TestImageScriptChecked(t *testing.T) {
	pod := apiPod("ck", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "reg/app:1"}}})
	_, err := sim.Simulate(sim.Config{For: sec(5)}, []sim.PodInput{{Pod: pod, Script: sim.Script{Images: map[string]sim.Image{"reg/app:2": {Missing: true}}}}})
	if err == nil || !strings.Contains(err.Error(), "images.reg/app:2") {
		t.Fatalf("err %v, want one naming images.reg/app:2", err)
	}
	_, err = sim.Simulate(sim.Config{For: sec(5)}, []sim.PodInput{{Pod: pod, Script: sim.Script{Images: map[string]sim.Image{"reg/app:1": {Pulls: []sim.Pull{{Took: -1}}}}}}})
	if err == nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("err %v, want a negative pull time refused", err)
	}
	f, err := sim.ReadScript([]byte("images:\n  reg/app:1:\n    missing: true\n    pulls: [{took: 2s, fails: true}, {took: 1s}]\n"), []*v1.Pod{pod})
	if err != nil {
		t.Fatal(err)
	}
	im := f.PodScript(pod).Images["reg/app:1"]
	if !im.Missing || len(im.Pulls) != 2 || !im.Pulls[0].Fails || im.Pulls[1].Took != sec(1) {
		t.Fatalf("read %+v", im)
	}
	if _, err := sim.ReadScript([]byte("images:\n  reg/ap:1: {missing: true}\n"), []*v1.Pod{pod}); err == nil || !strings.Contains(err.Error(), "reg/app:1") {
		t.Fatalf("err %v, want the nearest image suggested", err)
	}
	// In a script file a pull of 0s is a pull that returns at once; a
	// negative one is refused at its line.
	if _, err := sim.ReadScript([]byte("images:\n  reg/app:1:\n    pulls: [{took: 0s}]\n"), []*v1.Pod{pod}); err != nil {
		t.Fatalf("a pull of 0s: %v", err)
	}
	if _, err := sim.ReadScript([]byte("images:\n  reg/app:1:\n    pulls: [{took: 0s}, {took: -1s}]\n"), []*v1.Pod{pod}); err == nil || !strings.Contains(err.Error(), "want 0s or more") || !strings.Contains(err.Error(), "pulls[1].took") {
		t.Fatalf("err %v, want pulls[1].took refused (want 0s or more)", err)
	}
}

// An OOM kill: the runtime reports exit code 137 with reason OOMKilled; the
// status shows it, and restartPolicy OnFailure restarts the container
// through the crash-loop back-off like any failure.
func TestOOMKilled(t *testing.T) {
	pod := apiPod("oom", v1.PodSpec{RestartPolicy: v1.RestartPolicyOnFailure, Containers: []v1.Container{{Name: "app", Image: "a"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{OOMAfter: sec(3)}}}}}
	tl := run(t, sim.Config{Seed: 5, For: sec(60)}, sim.PodInput{Pod: pod, Script: script})
	var exits []sim.ExitEntry
	for _, e := range tl.Entries {
		if e.Kind == sim.KindExit {
			exits = append(exits, *e.Exit)
		}
	}
	if len(exits) < 3 {
		t.Fatalf("%d exits in 60 s, want the OOM-killed container restarted at least twice", len(exits))
	}
	for _, x := range exits {
		if x.ExitCode != 137 || x.Reason != "OOMKilled" {
			t.Fatalf("exit %+v, want 137 OOMKilled", x)
		}
	}
	e, ok := tl.First("oom", func(e sim.Entry) bool {
		if e.Kind != sim.KindStatus {
			return false
		}
		lt := e.Status.Status.ContainerStatuses[0].LastTerminationState.Terminated
		return lt != nil && lt.Reason == "OOMKilled" && lt.ExitCode == 137
	})
	if !ok || e.Status.Status.ContainerStatuses[0].RestartCount < 1 {
		t.Fatalf("no status with lastState terminated OOMKilled 137 after a restart\n%s", tl.Events())
	}
	// An own exit before the OOM kill ends the run as scripted.
	script.Containers["app"] = sim.Behaviour{Runs: []sim.Run{{OOMAfter: sec(3), ExitAfter: sec(1), ExitCode: 0}}}
	tl = run(t, sim.Config{Seed: 5, For: sec(20)}, sim.PodInput{Pod: pod, Script: script})
	if _, last := tl.LastStatus("oom"); last.Phase != v1.PodSucceeded {
		t.Fatalf("phase %s, want Succeeded (exit 0 before the OOM kill)", last.Phase)
	}
	// So does an own exit at the very time of the OOM kill (the script's
	// exit is the run's; OOMAfter only cuts a run that would go on).
	script.Containers["app"] = sim.Behaviour{Runs: []sim.Run{{OOMAfter: sec(3), ExitAfter: sec(3), ExitCode: 0}}}
	tl = run(t, sim.Config{Seed: 5, For: sec(20)}, sim.PodInput{Pod: pod, Script: script})
	if _, last := tl.LastStatus("oom"); last.Phase != v1.PodSucceeded {
		t.Fatalf("phase %s, want Succeeded (exit 0 at the OOM kill's time)", last.Phase)
	}
}
