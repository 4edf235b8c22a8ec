package main

import (
	"os"
	"strings"
	"testing"
)

// simulate's header names each unscripted preStop hook by its kind: a
// tcpSocket one as the kubelet runs it (it fails at once), an httpGet one
// as httpGet.
func TestSimulateNamesPreStopKinds(t *testing.T) {
	pod := t.TempDir() + "/pod.yaml"
	manifest := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: tcp\nspec:\n  containers:\n" +
		"  - name: app\n    image: nginx\n    lifecycle:\n      preStop:\n        tcpSocket: {port: 80}\n" +
		"  - name: web\n    image: nginx\n    lifecycle:\n      preStop:\n        httpGet: {port: 80}\n"
	if err := os.WriteFile(pod, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd([]string{"simulate", "-f", pod, "--for", "5s", "--delete-at", "2s"}, "")
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	header, _, _ := strings.Cut(out, "\nAT ")
	for _, want := range []string{
		"\n  app: tcpSocket (fails at once: not supported as a hook) preStop hook not scripted: taken to return at once (script preStop:)\n",
		"\n  web: httpGet preStop hook not scripted: taken to return at once (script preStop:)\n",
	} {
		if !strings.Contains(header, want) {
			t.Errorf("header lacks %q:\n%s", want, header)
		}
	}
}

// A script that runs a container but times none of its hooks leaves them
// unscripted: the header still says what it takes them to do.
func TestSimulateHooksUnscriptedBesideRuns(t *testing.T) {
	dir := t.TempDir()
	pod, script := dir+"/pod.yaml", dir+"/script.yaml"
	manifest := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: hooks\nspec:\n  containers:\n" +
		"  - name: app\n    image: nginx\n    lifecycle:\n      postStart:\n        exec: {command: [\"true\"]}\n      preStop:\n        exec: {command: [\"true\"]}\n"
	for f, s := range map[string]string{pod: manifest, script: "containers:\n  app:\n    runs:\n    - {exitAfter: 30s}\n"} {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runCmd([]string{"simulate", "-f", pod, "--script", script, "--for", "5s"}, "")
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	header, _, _ := strings.Cut(out, "\nAT ")
	for _, want := range []string{
		"\n  app: exec postStart hook not scripted: taken to succeed at once (script postStart: and postStartFails:)\n",
		"\n  app: exec preStop hook not scripted: taken to return at once (script preStop:)\n",
	} {
		if !strings.Contains(header, want) {
			t.Errorf("header lacks %q:\n%s", want, header)
		}
	}
}
