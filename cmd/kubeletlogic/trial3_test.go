package main

import (
	"os"
	"strings"
	"testing"
)

// writeTrial3 writes text to a file in a test's temporary directory.
func writeTrial3(t *testing.T, name, text string) string {
	t.Helper()
	f := t.TempDir() + "/" + name
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// IF DELETED NOW for a pod whose init container has not completed (here in
// crash-loop back-off, the kubernetes.io init-containers example): getPhase
// with podIsTerminal still gives Pending (a regular init container is
// pending), but SyncTerminatedPod ends with the status manager's
// TerminatePod, which marks a pod that is not terminal Failed (kubelet
// v1.37.2 pkg/kubelet/status/status_manager.go:775-784); only then may
// the kubelet delete the object (canBeDeleted wants a terminal phase).
// simulate gives the same pod, deleted, last phase Failed.
func TestExplainDeletedBeforeInitLastPhaseIsFailed(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: myapp-pod, namespace: default, uid: "u2"}
spec:
  nodeName: node1
  initContainers:
  - {name: init-myservice, image: busybox:1.28}
  - {name: init-mydb, image: busybox:1.28}
  containers:
  - {name: myapp-container, image: busybox:1.28}
status:
  phase: Pending
  startTime: "2026-12-01T10:00:00Z"
  podIP: 10.244.3.5
  podIPs: [{ip: 10.244.3.5}]
  initContainerStatuses:
  - name: init-myservice
    image: busybox:1.28
    imageID: docker.io/library/busybox@sha256:abc
    containerID: containerd://c4
    ready: false
    started: false
    restartCount: 3
    lastState:
      terminated: {exitCode: 1, reason: Error, startedAt: "2026-12-01T10:00:48Z", finishedAt: "2026-12-01T10:00:50Z", containerID: containerd://c4}
    state:
      waiting: {reason: CrashLoopBackOff, message: "back-off 40s restarting failed container=init-myservice pod=myapp-pod_default(u2)"}
  - name: init-mydb
    image: busybox:1.28
    imageID: ""
    ready: false
    started: false
    restartCount: 0
    state:
      waiting: {reason: PodInitializing}
  containerStatuses:
  - name: myapp-container
    image: busybox:1.28
    imageID: ""
    ready: false
    started: false
    restartCount: 0
    state:
      waiting: {reason: PodInitializing}
`
	f := writeTrial3(t, "pod.yaml", pod)
	out, errOut, code := runCmd([]string{"explain", "-f", f}, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "last status: phase Pending") {
		t.Errorf("IF DELETED NOW says the last status stays Pending; TerminatePod writes Failed:\n%s", out)
	}
	if !strings.Contains(out, "then the kubelet writes the pod's last status: phase Failed") {
		t.Errorf("IF DELETED NOW lacks the last phase Failed:\n%s", out)
	}
}

// A pod with activeDeadlineSeconds 60 explained with a runtime state (no
// status) at +70 s: the kubelet's status manager has held a startTime since
// the pod's first sync, so the active-deadline handler fails the pod
// (DeadlineExceeded) and SyncPod returns before computePodActions (kubelet
// v1.37.2 pkg/kubelet/active_deadline.go; kubelet_pods.go
// generateAPIPodStatus's PodSyncHandlers). At +30 s it still runs.
func TestExplainRuntimeOnlyPastActiveDeadline(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: deadline-demo}
spec:
  activeDeadlineSeconds: 60
  restartPolicy: Never
  containers:
  - {name: worker, image: busybox, command: ["sh", "-c", "sleep 3600"]}
`
	const rt = `sandboxes:
- {id: s1, ready: true, attempt: 0, ip: 10.244.3.4, createdAt: "2026-12-01T10:00:00Z"}
containers:
- {id: c1, name: worker, sandboxID: s1, state: running, createdAt: "2026-12-01T10:00:01Z", startedAt: "2026-12-01T10:00:01Z"}
`
	f := writeTrial3(t, "pod.yaml", pod)
	r := writeTrial3(t, "rt.yaml", rt)
	out, errOut, code := runCmd([]string{"explain", "-f", f, "--runtime", r, "--at", "70s"}, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"phase Failed", "DeadlineExceeded"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --at 70s lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "keep the pod as it is") {
		t.Errorf("explain --at 70s keeps a pod past its active deadline:\n%s", out)
	}
	out, errOut, code = runCmd([]string{"explain", "-f", f, "--runtime", r, "--at", "30s"}, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "DeadlineExceeded") || !strings.Contains(out, "phase Running") {
		t.Errorf("explain --at 30s: the pod is within its deadline and runs:\n%s", out)
	}
}

// A pod past its activeDeadlineSeconds whose container still runs: the
// kubelet computes phase Failed (DeadlineExceeded), but mergePodStatus
// keeps the API's phase, reason and message until SyncTerminatingPod has
// stopped the containers (status_manager.go:1504-1509 in v1.37.2), so
// kubectl, which reads the API object, shows Running, not the
// DeadlineExceeded the kubelet has in mind; the same with no status given
// (the phase the kubelet wrote before, getPhase's Running).
func TestExplainHeldBackPhaseIsWhatKubectlShows(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: deadline-demo, namespace: default, uid: "1234"}
spec:
  activeDeadlineSeconds: 60
  restartPolicy: Never
  nodeName: node1
  containers:
  - {name: worker, image: busybox, command: ["sh", "-c", "sleep 3600"]}
status:
  phase: Running
  startTime: "2026-12-01T10:00:00Z"
  hostIP: 10.0.0.1
  podIP: 10.244.3.4
  conditions:
  - {type: PodReadyToStartContainers, status: "True", lastTransitionTime: "2026-12-01T10:00:01Z"}
  - {type: Initialized, status: "True", lastTransitionTime: "2026-12-01T10:00:00Z"}
  - {type: Ready, status: "True", lastTransitionTime: "2026-12-01T10:00:01Z"}
  - {type: ContainersReady, status: "True", lastTransitionTime: "2026-12-01T10:00:01Z"}
  - {type: PodScheduled, status: "True", lastTransitionTime: "2026-12-01T10:00:00Z"}
  containerStatuses:
  - name: worker
    image: busybox
    imageID: docker.io/library/busybox@sha256:abc
    containerID: containerd://c1
    ready: true
    started: true
    restartCount: 0
    state:
      running: {startedAt: "2026-12-01T10:00:01Z"}
`
	f := writeTrial3(t, "pod.yaml", pod)
	for _, at := range []string{"70s", "30s"} {
		out, errOut, code := runCmd([]string{"explain", "-f", f, "--at", at}, "")
		if code != exitOK {
			t.Fatalf("--at %s: exit %d: %s", at, code, errOut)
		}
		if !strings.Contains(out, "  kubectl get pods shows STATUS Running\n") {
			t.Errorf("--at %s: kubectl STATUS not Running:\n%s", at, out)
		}
		held := strings.Contains(out, "until then the API keeps phase Running, with the conditions and container statuses below")
		if held != (at == "70s") {
			t.Errorf("--at %s: held-back note %v:\n%s", at, held, out)
		}
		if at == "70s" && !strings.Contains(out, "phase Failed: Failed reason=DeadlineExceeded") {
			t.Errorf("--at %s: the kubelet's phase is not Failed (DeadlineExceeded):\n%s", at, out)
		}
	}
	// -o json: the same kubectl STATUS.
	out, errOut, code := runCmd([]string{"explain", "-f", f, "--at", "70s", "-o", "json"}, "")
	if code != exitOK {
		t.Fatalf("json: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"kubectlStatus": "Running"`) {
		t.Errorf("json: kubectlStatus not Running:\n%s", out)
	}
}

// explain --at with nothing that shows the pod ran (no runtime state, no
// status): the answer is for a pod admitted that long ago and never
// started; a warning says so and points at simulate. --at 0s, or a
// runtime state, gives no such warning.
func TestExplainAtWithoutRuntimeWarns(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: liveness-exec}
spec:
  containers:
  - name: liveness
    image: registry.k8s.io/busybox
    livenessProbe:
      exec: {command: [cat, /tmp/healthy]}
      initialDelaySeconds: 5
      periodSeconds: 5
`
	f := writeTrial3(t, "pod.yaml", pod)
	const warn = "warning: --at 40s with no runtime state and no times in the status: the pod is taken as never started in those 40s (no sandbox, no container); what the kubelet does with it over that time is simulate --for 40s\n"
	out, errOut, code := runCmd([]string{"explain", "-f", f, "--at", "40s"}, "")
	if code != exitOK || !strings.Contains(out, warn) {
		t.Errorf("--at 40s: exit %d, want the warning %q:\n%s%s", code, warn, out, errOut)
	}
	for _, args := range [][]string{{"--at", "0s"}, {}} {
		out, _, _ := runCmd(append([]string{"explain", "-f", f}, args...), "")
		if strings.Contains(out, "warning: --at") {
			t.Errorf("%v: a warning:\n%s", args, out)
		}
	}
	rt := writeTrial3(t, "rt.yaml", `sandboxes:
- {id: s1, ready: true, createdAt: "2026-12-01T10:00:00Z"}
containers:
- {id: c1, name: liveness, sandboxID: s1, state: running, createdAt: "2026-12-01T10:00:00Z", startedAt: "2026-12-01T10:00:01Z"}
`)
	out, errOut, code = runCmd([]string{"explain", "-f", f, "--runtime", rt, "--at", "40s"}, "")
	if code != exitOK || strings.Contains(out, "warning: --at") {
		t.Errorf("--runtime, --at 40s: exit %d, warning or failure:\n%s%s", code, out, errOut)
	}
}

// explain's PROBES says that a container with a startup probe, started
// again after an instance that had started, reads started from that
// instance's status until its startup worker's next tick (kubelet_pods.go
// convertToAPIContainerStatuses keeps Started by name while gate
// ChangeContainerStatusOnKubeletRestart is off, its default); with the gate
// on the status is not carried over and the line is not printed.
func TestExplainStartupProbeRestartWindow(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: startup}
spec:
  containers:
  - name: app
    image: app
    startupProbe:
      httpGet: {path: /healthz, port: 8080}
      failureThreshold: 30
      periodSeconds: 10
`
	f := writeTrial3(t, "pod.yaml", pod)
	const line = "  if app starts again after an instance that had started (a crash or a liveness kill), the new instance reads started from that instance's status until its startup worker's next tick (up to 10s later) sets it back to not started"
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--gate", "ChangeContainerStatusOnKubeletRestart=true"}, false},
	} {
		out, errOut, code := runCmd(append([]string{"explain", "-f", f}, c.args...), "")
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		if got := strings.Contains(out, line); got != c.want {
			t.Errorf("%v: the restart window line %v, want %v:\n%s", c.args, got, c.want, out)
		}
	}
}
