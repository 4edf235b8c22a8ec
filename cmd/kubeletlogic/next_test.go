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

// RESTARTS says that the sync starts again an init container its policy
// does not restart (it succeeded, in a sandbox since gone), and "in the new
// sandbox" only when NEXT creates one: with the sandbox dead, NEXT
// re-creates it; with attempt 1 already ready, NEXT only starts migrate.
func TestExplainStartsAgainInTheNewSandboxOnlyWhenCreated(t *testing.T) {
	const exited = `- {id: c3, name: app, sandboxID: s1, state: exited, exitCode: 137, createdAt: "2026-12-01T10:00:09Z", startedAt: "2026-12-01T10:00:09Z", finishedAt: "2026-12-01T10:05:00Z"}
- {id: c2, name: proxy, sandboxID: s1, state: exited, exitCode: 137, createdAt: "2026-12-01T10:00:07Z", startedAt: "2026-12-01T10:00:07Z", finishedAt: "2026-12-01T10:05:00Z"}
- {id: c1, name: migrate, sandboxID: s1, state: exited, exitCode: 0, createdAt: "2026-12-01T10:00:01Z", startedAt: "2026-12-01T10:00:01Z", finishedAt: "2026-12-01T10:00:06Z"}
`
	const s1 = `- {id: s1, ready: false, attempt: 0, ip: 10.244.3.4, createdAt: "2026-12-01T10:00:00Z"}
`
	const s2 = `- {id: s2, ready: true, attempt: 1, ip: 10.244.3.5, createdAt: "2026-12-01T10:06:00Z"}
`
	dir := t.TempDir()
	for _, tc := range []struct {
		name, sandboxes, next, now string
	}{
		{"sandbox dead", s1, "  kill the pod and create sandbox attempt 1: pod sandbox is not ready\n",
			"now: exited 0 at +6s; by its policy not restarted, but this sync starts it again, in the new sandbox (see NEXT)\n"},
		{"sandbox re-created", s2 + s1, "  runtime calls: CreateContainer migrate, StartContainer migrate\n",
			"now: exited 0 at +6s; by its policy not restarted, but this sync starts it again (see NEXT)\n"},
	} {
		rt := dir + "/runtime.yaml"
		if err := os.WriteFile(rt, []byte("sandboxes:\n"+tc.sandboxes+"containers:\n"+exited), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCmd([]string{"explain", "-f", ex + "init-sidecar-app.yaml", "--runtime", rt}, "")
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		for _, want := range []string{tc.next, tc.now} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: explain lacks %q:\n%s", tc.name, want, out)
			}
		}
	}
}
