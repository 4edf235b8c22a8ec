package main

import (
	"os"
	"strings"
	"testing"
)

// RESTARTS' words for native sidecars, with and without restartPolicyRules,
// gate RestartAllContainersOnContainerExits on and off: the rules of a
// sidecar count only with the gate on, and only a sidecar that has rules
// is said to have them ignored.
func TestExplainSidecarPolicyWords(t *testing.T) {
	const manifest = `apiVersion: v1
kind: Pod
metadata:
  name: sc
spec:
  initContainers:
  - name: proxy
    image: envoy
    restartPolicy: Always
    restartPolicyRules:
    - action: RestartAllContainers
      exitCodes: {operator: In, values: [42]}
  - name: log
    image: fluent
    restartPolicy: Always
  containers:
  - name: app
    image: app
`
	f := t.TempDir() + "/pod.yaml"
	if err := os.WriteFile(f, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	const plain = "  log    native sidecar  always restarted, whatever its exit code (restartPolicy Always)\n"
	for _, tc := range []struct {
		gate  []string
		proxy string
	}{
		{nil, "  proxy  native sidecar  always restarted (restartPolicy Always), unless its exit code matches a RestartAllContainers rule: then the whole pod restarts in place\n"},
		{[]string{"--gate", "RestartAllContainersOnContainerExits=false"}, "  proxy  native sidecar  always restarted, whatever its exit code (restartPolicy Always; its restartPolicyRules are ignored: gate RestartAllContainersOnContainerExits is off)\n"},
	} {
		out, errOut, code := runCmd(append([]string{"explain", "-f", f}, tc.gate...), "")
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.gate, code, errOut)
		}
		for _, want := range []string{tc.proxy, plain} {
			if !strings.Contains(out, want) {
				t.Errorf("explain %v lacks %q:\n%s", tc.gate, want, out)
			}
		}
	}
}

// NEXT for a pod whose status the sync leaves as it is (the status
// manager stores nothing new): restartall-restarting.json, marked
// AllContainersRestarting, removes its containers.
func TestExplainNextWithTheStatusUnchanged(t *testing.T) {
	out, errOut, code := runCmd([]string{"explain", "-f", "testdata/given/restartall-restarting.json"}, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	const want = `NEXT: what the kubelet does on its next sync (SyncPod)
  remove fetch (ml.train-fetch-0): restart all containers
  remove trainer (ml.train-trainer-0): restart all containers (it triggered the restart)
  runtime calls: RemoveContainer fetch, RemoveContainer trainer
`
	if !strings.Contains(out, want) {
		t.Errorf("explain lacks\n%s\nin:\n%s", want, out)
	}
}
