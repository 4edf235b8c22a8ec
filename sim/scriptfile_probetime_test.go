package sim

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestReadScriptProbeTimeFields: the script file reads a probe step's
// takes and a run's termSpread, and refuses what cannot be: a negative
// time, a spread for a process that ignores SIGTERM.
func TestReadScriptProbeTimeFields(t *testing.T) {
	f, err := ReadScript([]byte("containers:\n  app:\n    runs:\n    - termSpread: 1s\n      readiness: [{at: 0s, result: Success, takes: 3s}]\n"), scriptPods())
	if err != nil {
		t.Fatal(err)
	}
	r := f.Containers["app"].Runs[0]
	if r.TermSpread != Duration(time.Second) || len(r.Readiness) != 1 || r.Readiness[0].Takes != Duration(3*time.Second) {
		t.Fatalf("read %+v", r)
	}
	for _, tc := range []struct{ text, path, msg string }{
		{"containers:\n  app:\n    runs:\n    - readiness: [{at: 0s, result: Success, takes: -1s}]\n", "containers.app.runs[0].readiness[0].takes", "want how long the probe runs"},
		{"containers:\n  app:\n    runs:\n    - {termSpread: -1s}\n", "containers.app.runs[0].termSpread", "want 0s or more"},
		{"containers:\n  app:\n    runs:\n    - {ignoreSIGTERM: true, termSpread: 1s}\n", "containers.app.runs[0].termSpread", "ignores SIGTERM"},
	} {
		_, err := ReadScript([]byte(tc.text), scriptPods())
		var se *ScriptError
		if !errors.As(err, &se) || se.Path != tc.path || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%q: error %v, want %s: …%s…", tc.text, err, tc.path, tc.msg)
		}
	}
	// Simulate refuses the negative times too.
	for _, s := range []Script{
		{Containers: map[string]Behaviour{"app": {Runs: []Run{{Liveness: []ProbeStep{{Result: "Success", Takes: -1}}}}}}},
		{Containers: map[string]Behaviour{"app": {Runs: []Run{{TermSpread: -1}}}}},
	} {
		if err := s.validate(); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}
