package sim

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// The script file's setCondition and restartKubelet actions read into the
// Actions they stand for; a bad one names its field.
func TestScriptNewActions(t *testing.T) {
	sf, err := ReadScript([]byte("actions:\n- {at: 10s, setCondition: {type: example.com/gate, status: \"True\"}}\n- {at: 50s, restartKubelet: 5s}\n"), scriptPods())
	if err != nil {
		t.Fatal(err)
	}
	a0, a1 := sf.Actions[0].Action(), sf.Actions[1].Action()
	if c := a0.SetCondition; c == nil || c.Type != "example.com/gate" || c.Status != v1.ConditionTrue || a0.At.D() != 10*time.Second {
		t.Fatalf("setCondition read as %+v", a0)
	}
	if d := a1.RestartKubelet; d == nil || d.D() != 5*time.Second || a1.At.D() != 50*time.Second {
		t.Fatalf("restartKubelet read as %+v", a1)
	}
	for _, tc := range []struct{ text, path string }{
		{"actions:\n- {at: 5s, restartKubelet: -1s}\n", "actions[0].restartKubelet"},
		{"actions:\n- {at: 5s, setCondition: {type: example.com/gate}}\n", "actions[0].setCondition"},
		{"actions:\n- {at: 5s, restartKubelet: 1s, killSandbox: true}\n", "actions[0]"},
	} {
		_, err := ReadScript([]byte(tc.text), scriptPods())
		se, ok := err.(*ScriptError)
		if !ok || se.Path != tc.path {
			t.Errorf("%q: error %v, want one at %s", tc.text, err, tc.path)
		}
	}
}
