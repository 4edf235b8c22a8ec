package sim_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// A container name in a script or an action that matches no container is
// refused, with the nearest name: silently it would be a container that
// runs forever, or a kill that kills nothing.
func TestSimulateRefusesUnknownNames(t *testing.T) {
	spec := v1.PodSpec{
		InitContainers: []v1.Container{{Name: "setup", Image: "a"}},
		Containers:     []v1.Container{{Name: "app", Image: "a"}, {Name: "proxy", Image: "a"}},
	}
	debug := &v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}
	crash := sim.Behaviour{Runs: []sim.Run{{ExitAfter: sec(5), ExitCode: 1}}}
	for _, tc := range []struct {
		name    string
		script  map[string]sim.Behaviour
		actions []sim.Action
		want    []string // "" for no error
	}{
		{"script misspelt", map[string]sim.Behaviour{"ap": crash}, nil,
			[]string{`script: containers["ap"]: "ap" is not a container of pod default/web (did you mean "app"?) (its containers: setup, app, proxy)`}},
		{"script case", map[string]sim.Behaviour{"Proxy": crash, "app": crash}, nil,
			[]string{`containers["Proxy"]`, `did you mean "proxy"?`}},
		{"kill misspelt", nil, []sim.Action{{At: sec(10), KillContainer: "aap"}},
			[]string{`actions[0] (kill container aap at 10s): "aap" is not a container of pod default/web (did you mean "app"?)`}},
		{"kill before the ephemeral container is added", nil, []sim.Action{{At: sec(10), KillContainer: "debug"}, {At: sec(20), AddEphemeral: debug}},
			[]string{`actions[0] (kill container debug at 10s): ephemeral container debug is added only at 20s`}},
		{"both at once", map[string]sim.Behaviour{"apps": crash}, []sim.Action{{At: sec(1), KillContainer: "setpu"}},
			[]string{`containers["apps"]`, `"setpu" is not a container`, `did you mean "setup"?`}},
		{"ephemeral container under a used name", nil, []sim.Action{{At: sec(5), AddEphemeral: &v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "app", Image: "busybox"}}}},
			[]string{`actions[0] (add ephemeral container app at 5s): pod default/web already has a container app`}},
		{"ephemeral container added twice", nil, []sim.Action{{At: sec(5), AddEphemeral: debug}, {At: sec(6), AddEphemeral: debug}},
			[]string{`actions[1] (add ephemeral container debug at 6s): another action adds an ephemeral container debug too`}},
		{"ephemeral container added by an action", map[string]sim.Behaviour{"debug": crash},
			[]sim.Action{{At: sec(20), AddEphemeral: debug}, {At: sec(30), KillContainer: "debug"}}, nil},
		{"every name right", map[string]sim.Behaviour{"app": crash, "setup": {}}, []sim.Action{{At: sec(3), KillContainer: "proxy"}}, nil},
	} {
		_, err := sim.Simulate(sim.Config{For: sec(40)}, []sim.PodInput{{Pod: apiPod("web", spec), Script: sim.Script{Containers: tc.script}, Actions: tc.actions}})
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tc.name, err, w)
			}
		}
	}
}

// A kill of a container with no running instance says so in the timeline.
func TestKillWithNothingRunning(t *testing.T) {
	spec := v1.PodSpec{
		InitContainers: []v1.Container{{Name: "setup", Image: "a"}},
		Containers:     []v1.Container{{Name: "app", Image: "a"}},
	}
	tl := run(t, sim.Config{For: sec(40)}, sim.PodInput{Pod: apiPod("web", spec),
		Script:  sim.Script{Containers: map[string]sim.Behaviour{"setup": {Runs: []sim.Run{{ExitAfter: sec(1)}}}}},
		Actions: []sim.Action{{At: sec(20), KillContainer: "setup"}, {At: sec(25), KillContainer: "app"}}})
	var msgs []string
	for _, e := range tl.Entries {
		if e.Kind == sim.KindAction && strings.HasPrefix(e.Message, "kill") {
			msgs = append(msgs, e.Message)
		}
	}
	want := []string{"kill container setup: no running instance, nothing killed", "kill container app"}
	if strings.Join(msgs, "|") != strings.Join(want, "|") {
		t.Fatalf("action entries %q, want %q\n%s", msgs, want, tl.Events())
	}
}

// Exit codes no process has, and probe steps whose order changes what they
// say, are refused.
func TestSimulateRefusesMeaninglessScripts(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a", ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}}}})
	for _, tc := range []struct {
		name string
		run  sim.Run
		want string // "" for none
	}{
		{"exit code 256", sim.Run{ExitAfter: sec(1), ExitCode: 256}, `containers.app.runs[0].exitCode: 256 is not an exit code (0-255)`},
		{"exit code -1", sim.Run{ExitAfter: sec(1), ExitCode: -1}, `exitCode: -1 is not an exit code`},
		{"term exit code 300", sim.Run{TermExitCode: 300}, `termExitCode: 300 is not an exit code`},
		{"steps out of order", sim.Run{Readiness: []sim.ProbeStep{{At: sec(20), Result: vocab.ProbeFailure}, {At: sec(0), Result: vocab.ProbeSuccess}}},
			`containers.app.runs[0].readiness[1].at: 0s is not after the step before it (20s)`},
		{"two steps at one age", sim.Run{Readiness: []sim.ProbeStep{{At: sec(5), Result: vocab.ProbeFailure}, {At: sec(5), Result: vocab.ProbeSuccess}}},
			`readiness[1].at: 5s is not after the step before it (5s)`},
		{"exit codes 0 and 255, steps in order", sim.Run{ExitAfter: sec(1), ExitCode: 255, TermExitCode: 0,
			Readiness: []sim.ProbeStep{{At: 0, Result: vocab.ProbeFailure}, {At: sec(5), Result: vocab.ProbeSuccess}}}, ""},
	} {
		_, err := sim.Simulate(sim.Config{For: sec(10)}, []sim.PodInput{{Pod: pod,
			Script: sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{tc.run}}}}}})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A kill of an ephemeral container is checked against the first action
// that adds it: a kill at the very instant of the add is no error, nor is
// a kill between two adds of it (the second add is refused on its own).
func TestKillOfEphemeralFromItsFirstAdd(t *testing.T) {
	spec := v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}}
	debug := &v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}
	_, err := sim.Simulate(sim.Config{For: sec(40)}, []sim.PodInput{{Pod: apiPod("web", spec),
		Actions: []sim.Action{{At: sec(10), AddEphemeral: debug}, {At: sec(10), KillContainer: "debug"}}}})
	if err != nil {
		t.Fatalf("kill at the add's instant: %v", err)
	}
	_, err = sim.Simulate(sim.Config{For: sec(40)}, []sim.PodInput{{Pod: apiPod("web", spec),
		Actions: []sim.Action{{At: sec(5), AddEphemeral: debug}, {At: sec(7), KillContainer: "debug"}, {At: sec(10), AddEphemeral: debug}}}})
	want := `sim: pod default/web: actions[2] (add ephemeral container debug at 10s): another action adds an ephemeral container debug too: the API server would reject the second`
	if err == nil || err.Error() != want {
		t.Fatalf("kill between two adds: error %v, want only %q", err, want)
	}
}
