package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// callOf is the first CRI call of method for container name at or after
// from.
func callOf(t *testing.T, tl *sim.Timeline, method, name string, from time.Duration) sim.Call {
	t.Helper()
	for _, e := range tl.Entries {
		if e.Kind == sim.KindCRI && e.Call.Method == method && e.Call.Name == name && e.At >= from {
			return *e.Call
		}
	}
	t.Fatalf("no %s of %s from %s\n%s", method, name, from, tl.Events())
	return sim.Call{}
}

// stepEnd is how long after at the step of a process that started at
// start and works in steps of step ends.
func stepEnd(start, at, step time.Duration) time.Duration {
	return (step - (at-start)%step) % step
}

// A trap loop (`trap 'exit 0' TERM; while true; do sleep 1; done`) exits
// on SIGTERM when its current `sleep 1` returns: Run.TermStep. The
// StopContainer call lasts from the signal to the end of the step the
// signal fell in, counted from the instance's start, plus TermAfter; so it
// differs with when the pod is removed. With a native sidecar the
// sidecar's signal waits for the app's exit (sidecar ordering), and the
// sidecar's own step decides its exit from then on.
func TestTermStepExitsAtTheEndOfTheStep(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	pod := staticPod("loop", v1.PodSpec{TerminationGracePeriodSeconds: i64(30),
		InitContainers: []v1.Container{{Name: "sidecar", Image: "busybox", RestartPolicy: &always}},
		Containers:     []v1.Container{{Name: "app", Image: "busybox"}}})
	loop := sim.Run{TermStep: sec(1), TermAfter: sec(0.03)}
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{loop}}, "sidecar": {Runs: []sim.Run{loop}}}}
	const after = 30 * time.Millisecond
	lasted := map[time.Duration]bool{}
	for _, removeAt := range []float64{10.1, 10.4, 10.75} {
		tl := run(t, sim.Config{Seed: 3, For: sec(30)}, sim.PodInput{Pod: pod, Script: script,
			Actions: []sim.Action{{At: sec(removeAt), Remove: true}}})
		from := time.Duration(removeAt * float64(time.Second))
		for _, name := range []string{"app", "sidecar"} {
			start := callOf(t, tl, "StartContainer", name, 0).Done
			stop := callOf(t, tl, "StopContainer", name, from)
			want := stepEnd(start, stop.At, time.Second) + after
			if got := stop.Ended() - stop.At; absDur(got-want) > time.Microsecond {
				t.Errorf("removed at %.2fs: %s (started %s) stopped in %s from its signal at %s, want %s (the end of its step, plus 30ms)\n%s",
					removeAt, name, start, got, stop.At, want, tl.Events())
			}
			if name == "app" {
				lasted[stop.Done-stop.At] = true
				// The sidecar's signal waits for the app's exit.
				if sc := callOf(t, tl, "StopContainer", "sidecar", from); sc.At != stop.Done {
					t.Errorf("removed at %.2fs: sidecar signalled at %s, want at the app's exit %s", removeAt, sc.At, stop.Done)
				}
			}
		}
	}
	if len(lasted) < 3 {
		t.Errorf("the app's stop took the same time for three different removal times: %v", lasted)
	}
}

// A process with a TermStep that ignores SIGTERM is refused in a script
// file, as one with a TermSpread is.
func TestReadScriptTermStep(t *testing.T) {
	f, err := sim.ReadScript([]byte("containers:\n  app:\n    runs:\n    - {termStep: 1.001s, termAfter: 30ms}\n"), []*v1.Pod{apiPod("p", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})})
	if err != nil {
		t.Fatal(err)
	}
	if r := f.Containers["app"].Runs[0]; r.TermStep != sim.Duration(1001*time.Millisecond) || r.TermAfter != sim.Duration(30*time.Millisecond) {
		t.Fatalf("read %+v", r)
	}
	_, err = sim.ReadScript([]byte("containers:\n  app:\n    runs:\n    - {ignoreSIGTERM: true, termStep: 1s}\n"), []*v1.Pod{apiPod("p", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})})
	if err == nil || !strings.Contains(err.Error(), "termStep") || !strings.Contains(err.Error(), "ignores SIGTERM") {
		t.Errorf("ignoreSIGTERM with termStep: error %v, want one about termStep", err)
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
