package main

import (
	"os"
	"strings"
	"testing"
)

// check takes the PodReadyToStartContainers condition as the status has
// it, False here, whatever the conditions beside it say; and one missing
// from the status as a runtime with no sandbox gives it (False), not as
// another condition of the status.
func TestCheckTakesTheSandboxConditionAsGiven(t *testing.T) {
	const given = "testdata/given/succeeded.yaml"
	out, errOut, code := runCmd([]string{"check", "-f", given}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	const has = "  - PodReadyToStartContainers False: as the status has it; whether the sandbox is ready is not in the API status\n"
	if !strings.Contains(out, has) {
		t.Errorf("check output lacks %q:\n%s", has, out)
	}
	src, err := os.ReadFile(given)
	if err != nil {
		t.Fatal(err)
	}
	const cond = "  - type: PodReadyToStartContainers\n    status: \"False\"\n"
	if !strings.Contains(string(src), cond) {
		t.Fatalf("%s lacks %q", given, cond)
	}
	out, _, _ = runCmd([]string{"check", "-f", "-"}, strings.Replace(string(src), cond, "", 1))
	const taken = "  - PodReadyToStartContainers: not in the status, taken as False (a runtime with no sandbox and no instance); whether the sandbox is ready is not in the API status\n"
	if !strings.Contains(out, taken) {
		t.Errorf("check output, the condition left out of the status, lacks %q:\n%s", taken, out)
	}
}
