package sim

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestReadScriptBoundaries: ReadScript's range checks accept their bounds
// (ages, takes, times, downtimes and grace periods of 0, exit codes 0 and
// 255) and refuse one step past them, naming the field; two probe steps of
// the same age are refused with their own message.
func TestReadScriptBoundaries(t *testing.T) {
	for _, text := range []string{
		"containers:\n  app:\n    runs:\n    - readiness: [{at: 0s, result: Success, takes: 0s}]\n",
		"actions:\n- {at: 0s, delete: true, gracePeriod: 0}\n",
		"actions:\n- {at: 1s, restartKubelet: 0s}\n",
		"actions:\n- {at: 1s, evict: {gracePeriod: 0}}\n",
		"containers:\n  report:\n    runs:\n    - {exitAfter: 1s, exitCode: 255, termExitCode: 255}\n",
		"containers:\n  report:\n    runs:\n    - {exitAfter: 1s, exitCode: 0, termExitCode: 0}\n",
	} {
		if _, err := ReadScript([]byte(text), scriptPods()); err != nil {
			t.Errorf("%q: %v, want it read", text, err)
		}
	}
	for _, tc := range []struct{ text, path, msg string }{
		{"containers:\n  app:\n    runs:\n    - readiness: [{at: -1ns, result: Success}]\n", "containers.app.runs[0].readiness[0].at", "0s or later"},
		{"containers:\n  app:\n    runs:\n    - readiness: [{at: 0s, result: Success, takes: -1ns}]\n", "containers.app.runs[0].readiness[0].takes", "0s or more"},
		{"actions:\n- {at: -1ns, delete: true}\n", "actions[0].at", "0s or later"},
		{"actions:\n- {at: 1s, delete: true, gracePeriod: -1}\n", "actions[0].gracePeriod", "0 or more"},
		{"actions:\n- {at: 1s, restartKubelet: -1ns}\n", "actions[0].restartKubelet", "0s or more"},
		{"actions:\n- {at: 1s, evict: {gracePeriod: -1}}\n", "actions[0].evict.gracePeriod", "0 or more"},
		{"containers:\n  report:\n    runs:\n    - {exitAfter: 1s, exitCode: 256}\n", "containers.report.runs[0].exitCode", "not an exit code"},
		{"containers:\n  report:\n    runs:\n    - {exitAfter: 1s, exitCode: -1}\n", "containers.report.runs[0].exitCode", "not an exit code"},
		{"containers:\n  report:\n    runs:\n    - {termExitCode: 256}\n", "containers.report.runs[0].termExitCode", "not an exit code"},
		{"containers:\n  app:\n    runs:\n    - readiness: [{at: 1s, result: Success}, {at: 1s, result: Failure}]\n", "containers.app.runs[0].readiness[1].at", "the same age"},
		{"containers:\n  app:\n    runs:\n    - readiness: [{at: 2s, result: Success}, {at: 1s, result: Failure}]\n", "containers.app.runs[0].readiness[1].at", "before the step before it"},
	} {
		_, err := ReadScript([]byte(tc.text), scriptPods())
		var se *ScriptError
		if !errors.As(err, &se) || se.Path != tc.path || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%q: error %v, want one at %s: …%s…", tc.text, err, tc.path, tc.msg)
		}
	}
}

// TestReadScriptWarningsOnOneLine: two bare numbers on one line give their
// warnings in the order the line writes them (the sort by line is stable),
// each with the duration it is read as.
func TestReadScriptWarningsOnOneLine(t *testing.T) {
	f, err := ReadScript([]byte("containers:\n  proxy:\n    runs:\n    - {exitAfter: 30, termAfter: 2}\n"), scriptPods())
	if err != nil {
		t.Fatal(err)
	}
	w := f.Warnings()
	if len(w) != 2 || w[0].Path != "containers.proxy.runs[0].exitAfter" || w[1].Path != "containers.proxy.runs[0].termAfter" || w[0].Line != 4 || w[1].Line != 4 ||
		!strings.Contains(w[0].Msg, "read as 30 seconds (30s); write 30s") || !strings.Contains(w[1].Msg, "read as 2 seconds (2s); write 2s") {
		t.Errorf("warnings: %+v", w)
	}
}

// TestReadScriptIgnoreSIGTERMField: a run that ignores SIGTERM and gives
// what only a SIGTERM exit uses is refused at the field that says it
// (termAfter first, then termStep, termSpread, termExitCode).
func TestReadScriptIgnoreSIGTERMField(t *testing.T) {
	for run, field := range map[string]string{
		"{ignoreSIGTERM: true, termAfter: 1s, termStep: 1s}":     "termAfter",
		"{ignoreSIGTERM: true, termSpread: 1s, termStep: 1s}":    "termStep",
		"{ignoreSIGTERM: true, termSpread: 1s, termExitCode: 3}": "termSpread",
		"{ignoreSIGTERM: true, termExitCode: 3}":                 "termExitCode",
		"{ignoreSIGTERM: true, termStep: 1s, termExitCode: 3}":   "termStep",
	} {
		_, err := ReadScript([]byte("containers:\n  report:\n    runs:\n    - "+run+"\n"), scriptPods())
		var se *ScriptError
		if !errors.As(err, &se) || se.Path != "containers.report.runs[0]."+field || !strings.Contains(se.Msg, "ignores SIGTERM") {
			t.Errorf("%s: error %v, want one at %s", run, err, field)
		}
	}
	if _, err := ReadScript([]byte("containers:\n  report:\n    runs:\n    - {ignoreSIGTERM: true, exitAfter: 1s, exitCode: 3}\n"), scriptPods()); err != nil {
		t.Errorf("ignoreSIGTERM with an exit of its own: %v", err)
	}
}

// TestReadScriptHookChecks: a script times a preStop or postStart hook
// only for a container with an exec or httpGet hook of that kind (in one
// of the pods that have a container of that name); a sleep hook runs its
// spec's seconds, and a container without the hook has nothing to time.
func TestReadScriptHookChecks(t *testing.T) {
	exec := &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"sh"}}}
	nap := &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 3}}
	one := testPod(v1.PodSpec{Containers: []v1.Container{
		{Name: "hooked", Image: "a", Lifecycle: &v1.Lifecycle{PreStop: exec, PostStart: exec}},
		{Name: "nap", Image: "a", Lifecycle: &v1.Lifecycle{PreStop: nap, PostStart: nap}},
		{Name: "bare", Image: "a"},
		{Name: "mix", Image: "a", Lifecycle: &v1.Lifecycle{PreStop: nap, PostStart: nap}}}})
	two := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "mix", Image: "a", Lifecycle: &v1.Lifecycle{PreStop: exec, PostStart: exec}}}})
	two.Name = "two"
	pods := []*v1.Pod{one, two}
	for _, run := range []string{
		"hooked: {runs: [{preStop: 2s, postStart: 1s, postStartFails: true}]}",
		"mix: {runs: [{preStop: 2s, postStart: 1s}]}",
		"bare: {runs: [{exitAfter: 1s}]}",
	} {
		if _, err := ReadScript([]byte("containers:\n  "+run+"\n"), pods); err != nil {
			t.Errorf("%s: %v, want it read", run, err)
		}
	}
	for _, tc := range []struct{ run, path, msg string }{
		{"nap: {runs: [{preStop: 2s}]}", "containers.nap.runs[0].preStop", "preStop hook is a sleep"},
		{"bare: {runs: [{preStop: 2s}]}", "containers.bare.runs[0].preStop", "has no preStop hook"},
		{"nap: {runs: [{postStart: 1s}]}", "containers.nap.runs[0].postStart", "postStart hook is a sleep"},
		{"nap: {runs: [{postStartFails: true}]}", "containers.nap.runs[0].postStartFails", "postStart hook is a sleep"},
		{"bare: {runs: [{postStart: 1s}]}", "containers.bare.runs[0].postStart", "has no postStart hook"},
		{"bare: {runs: [{postStartFails: true}]}", "containers.bare.runs[0].postStartFails", "has no postStart hook"},
		{"bare: {runs: [{postStart: -1ns}]}", "containers.bare.runs[0].postStart", "want 0s or more"},
	} {
		_, err := ReadScript([]byte("containers:\n  "+tc.run+"\n"), pods)
		var se *ScriptError
		if !errors.As(err, &se) || se.Path != tc.path || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%s: error %v, want one at %s: …%s…", tc.run, err, tc.path, tc.msg)
		}
	}
}

// TestScriptErrorText: a ScriptError reads "line N: path: what", the line
// only when known (above 0) and the path only when given.
func TestScriptErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    ScriptError
		want string
	}{
		{ScriptError{Msg: "m"}, "m"},
		{ScriptError{Path: "a.b", Msg: "m"}, "a.b: m"},
		{ScriptError{Line: 1, Msg: "m"}, "line 1: m"},
		{ScriptError{Line: 5, Path: "a", Msg: "m"}, "line 5: a: m"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}
