package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

const hooksManifest = `apiVersion: v1
kind: Pod
metadata:
  name: hooks
spec:
  initContainers:
  - name: proxy
    image: envoy
    restartPolicy: Always
    lifecycle:
      preStop:
        httpGet: {path: /drain, port: 9901}
  containers:
  - name: app
    image: nginx
    lifecycle:
      postStart:
        exec: {command: [warm-up]}
      preStop:
        exec: {command: [nginx, -s, quit]}
  - name: batch
    image: batch
    lifecycle:
      preStop:
        sleep: {seconds: 5}
`

// What explain and simulate take for granted is printed: every exec or
// httpGet preStop hook of unknown length and every postStart hook, in
// explain (text and JSON); in simulate's header (and its JSON) the hooks
// the script does not time and what sim does not model; a sleep hook,
// whose length the spec gives, is no assumption; a script that gives a
// preStop length removes it.
func TestAssumptionsPrinted(t *testing.T) {
	dir := t.TempDir()
	pod := dir + "/pod.yaml"
	if err := os.WriteFile(pod, []byte(hooksManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"proxy's preStop hook (httpGet /drain port 9901) is taken to return at once: its length is not known",
		"app's preStop hook (exec nginx -s quit) is taken to return at once: its length is not known",
		"app's postStart hook (exec warm-up)",
	}
	out, _, code := runCmd([]string{"explain", "-f", pod}, "")
	if code != 0 {
		t.Fatalf("explain: exit %d", code)
	}
	_, assumed, ok := strings.Cut(out, "\nASSUMED: what these answers take for granted\n")
	if !ok {
		t.Fatalf("explain prints no ASSUMED section:\n%s", out)
	}
	for _, w := range want {
		if !strings.Contains(assumed, w) {
			t.Errorf("explain's ASSUMED lacks %q:\n%s", w, assumed)
		}
	}
	if strings.Contains(assumed, "batch") {
		t.Errorf("a sleep preStop is listed as an assumption:\n%s", assumed)
	}
	js, _, _ := runCmd([]string{"explain", "-f", pod, "-o", "json"}, "")
	var doc struct {
		Items []explanation `json:"items"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Items) != 1 || len(doc.Items[0].Assumptions) != 3 {
		t.Fatalf("explain json assumptions: %v %+v", err, doc.Items)
	}

	out, _, code = runCmd([]string{"simulate", "-f", pod, "--for", "20s"}, "")
	if code != 0 {
		t.Fatalf("simulate: exit %d", code)
	}
	header, _, _ := strings.Cut(out, "\nAT ")
	for _, w := range []string{"assumed:\n", "proxy: httpGet preStop hook not scripted: taken to return at once", "app: exec preStop hook not scripted", "app: exec postStart hook not scripted", "images are present (no pull time)", "the kubelet has run for an hour"} {
		if !strings.Contains(header, w) {
			t.Errorf("simulate's header lacks %q:\n%s", w, header)
		}
	}
	js, _, _ = runCmd([]string{"simulate", "-f", pod, "--for", "20s", "-o", "json"}, "")
	sdoc, err := sim.ReadSimulation([]byte(js))
	if err != nil || len(sdoc.Assumptions) < 3 {
		t.Fatalf("simulate json assumptions: %v %v", err, sdoc.Assumptions)
	}

	script := dir + "/script.yaml"
	if err := os.WriteFile(script, []byte("containers:\n  app:\n    runs:\n    - preStop: 3s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ = runCmd([]string{"simulate", "-f", pod, "--script", script, "--for", "20s"}, "")
	header, _, _ = strings.Cut(out, "\nAT ")
	if strings.Contains(header, "app: exec preStop hook") || !strings.Contains(header, "proxy: httpGet preStop hook") {
		t.Errorf("with app's preStop scripted, the header should drop app's and keep proxy's assumption:\n%s", header)
	}
}

// A tcpSocket postStart hook is one the kubelet cannot run: its handler
// runner fails it at once ("invalid handler") and the kubelet kills the
// container (FailedPostStartHook), as the simulation shows. explain must
// not take it to succeed, nor say the kubelet does nothing; simulate's
// header must not call it unscripted and taken to succeed.
func TestTCPSocketPostStartFails(t *testing.T) {
	pod := t.TempDir() + "/pod.yaml"
	manifest := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: tcp\nspec:\n  containers:\n  - name: app\n    image: nginx\n    lifecycle:\n      postStart:\n        tcpSocket: {port: 80}\n"
	if err := os.WriteFile(pod, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := runCmd([]string{"explain", "-f", pod}, "")
	if code != 0 {
		t.Fatalf("explain: exit %d", code)
	}
	_, assumed, _ := strings.Cut(out, "\nASSUMED: what these answers take for granted\n")
	want := "app's postStart hook (tcpSocket, which the kubelet cannot run) fails at once after every start of app: the kubelet kills app (FailedPostStartHook)"
	if !strings.Contains(assumed, want) || strings.Contains(assumed, "to succeed") {
		t.Errorf("explain's ASSUMED for a tcpSocket postStart: want %q, and no hook taken to succeed:\n%s", want, assumed)
	}
	out, _, code = runCmd([]string{"simulate", "-f", pod, "--for", "5s"}, "")
	if code != 0 {
		t.Fatalf("simulate: exit %d", code)
	}
	header, watch, _ := strings.Cut(out, "\nAT ")
	if strings.Contains(header, "postStart hook not scripted") {
		t.Errorf("simulate's header takes the tcpSocket postStart to succeed:\n%s", header)
	}
	if !strings.Contains(watch, "PostStartHookError") {
		t.Errorf("the simulated tcpSocket postStart does not fail:\n%s", watch)
	}
}
