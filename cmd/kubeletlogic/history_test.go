package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainRuntimeWithoutTimes: a runtime file whose restarted container
// gives no times is refused, naming the instance, rather than explained
// with a back-off of 0 (issue 23, item 4c).
func TestExplainRuntimeWithoutTimes(t *testing.T) {
	dir := t.TempDir()
	pod := filepath.Join(dir, "pod.yaml")
	rt := filepath.Join(dir, "rt.yaml")
	if err := os.WriteFile(pod, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - {name: app, image: busybox}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rt, []byte("sandboxes:\n- {id: s1, ready: true}\ncontainers:\n- {id: c2, name: app, sandboxID: s1, state: exited, exitCode: 1, restartCount: 1}\n- {id: c1, name: app, sandboxID: s1, state: exited, exitCode: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd([]string{"explain", "-f", pod, "--runtime", rt}, "")
	if code == 0 || !strings.Contains(errOut, "createdAt") || !strings.Contains(errOut, "c2") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant a refusal naming c2 and createdAt", code, errOut, out)
	}
}
