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
	const cond = "  - type: PodReadyToStartContainers\n    status: \"False\"\n    reason: PodSandboxNotReady\n    message: pod sandbox is not ready\n"
	if !strings.Contains(string(src), cond) {
		t.Fatalf("%s lacks %q", given, cond)
	}
	out, _, _ = runCmd([]string{"check", "-f", "-"}, strings.Replace(string(src), cond, "", 1))
	const taken = "  - PodReadyToStartContainers: not in the status, taken as False (a runtime with no sandbox and no instance); whether the sandbox is ready is not in the API status\n"
	if !strings.Contains(out, taken) {
		t.Errorf("check output, the condition left out of the status, lacks %q:\n%s", taken, out)
	}
}

// A False PodReadyToStartContainers without the reason and message a
// v1.37 kubelet writes with it (PodSandboxNotReady and one of the
// PodSandboxChanged messages, generate.go:271) is not what that kubelet
// writes: check says so, naming the field; a v1.36 kubelet writes neither,
// so for it the same status is consistent, and the v1.37 one is not.
func TestCheckSandboxConditionWordsPerVersion(t *testing.T) {
	src, err := os.ReadFile("testdata/given/succeeded.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const words = "    reason: PodSandboxNotReady\n    message: pod sandbox is not ready\n"
	if !strings.Contains(string(src), words) {
		t.Fatalf("succeeded.yaml lacks %q", words)
	}
	bare := strings.Replace(string(src), words, "", 1)
	other := strings.Replace(string(src), "message: pod sandbox is not ready", "message: no pod sandbox exists", 1)
	bad := strings.Replace(string(src), "message: pod sandbox is not ready", "message: sandbox gone", 1)
	for _, c := range []struct {
		name, text, version string
		consistent          bool
		want                string
	}{
		{"v1.37 words", string(src), "1.37", true, ""},
		{"another of the five messages", other, "1.37", true, ""},
		{"no words on v1.37", bare, "1.37", false, "status.conditions[PodReadyToStartContainers].reason"},
		{"a message of none of the five", bad, "1.37", false, "status.conditions[PodReadyToStartContainers].message"},
		{"no words on v1.36", bare, "1.36", true, ""},
		{"v1.37 words on v1.36", string(src), "1.36", false, "status.conditions[PodReadyToStartContainers].reason"},
	} {
		out, errOut, code := runCmd([]string{"check", "--kubelet-version", c.version, "-f", "-"}, c.text)
		if (code == 0) != c.consistent {
			t.Errorf("%s: exit %d, consistent %v wanted:\n%s%s", c.name, code, c.consistent, out, errOut)
		}
		if c.want != "" && !strings.Contains(out, c.want) {
			t.Errorf("%s: output does not name %s:\n%s", c.name, c.want, out)
		}
	}
}
