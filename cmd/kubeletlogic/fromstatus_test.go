package main

import (
	"strings"
	"testing"
)

// runningWithResources is a running pod with resources, a readiness and a
// startup probe, as `kubectl get pod -o yaml` shows it; STATUS_RESOURCES
// is replaced by the container status's resources.
const runningWithResources = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, uid: u1}
spec:
  restartPolicy: Always
  containers:
  - name: app
    image: nginx
    resources:
      requests: {cpu: 200m, memory: 64Mi}
      limits: {cpu: 200m, memory: 64Mi}
    readinessProbe: {exec: {command: ["true"]}}
    startupProbe: {exec: {command: ["true"]}}
status:
  phase: Running
  podIP: 10.244.0.7
  podIPs: [{ip: 10.244.0.7}]
  hostIP: 192.168.1.2
  hostIPs: [{ip: 192.168.1.2}]
  startTime: "2026-01-01T10:00:00Z"
  qosClass: Guaranteed
  conditions:
  - {type: PodReadyToStartContainers, status: "True", lastTransitionTime: "2026-01-01T10:00:01Z"}
  - {type: Initialized, status: "True", lastTransitionTime: "2026-01-01T10:00:00Z"}
  - {type: Ready, status: "True", lastTransitionTime: "2026-01-01T10:00:05Z"}
  - {type: ContainersReady, status: "True", lastTransitionTime: "2026-01-01T10:00:05Z"}
  - {type: PodScheduled, status: "True", lastTransitionTime: "2026-01-01T10:00:00Z"}
  containerStatuses:
  - name: app
    image: docker.io/library/nginx:latest
    imageID: docker.io/library/nginx@sha256:abcd
    containerID: containerd://c1
    ready: true
    started: true
    restartCount: 0
    state: {running: {startedAt: "2026-01-01T10:00:02Z"}}
STATUS_RESOURCES`

// TestExplainFromStatusNoPhantomResize: explain of a running pod with
// resources, read off its status, says nothing of a resize or a kill
// whether the status shows the resources or not, and resizes when the
// status shows other resources than the spec's (a resize in flight).
func TestExplainFromStatusNoPhantomResize(t *testing.T) {
	for _, tc := range []struct {
		name, res string
		resize    bool
	}{
		{"no resources in the status", "", false},
		{"the spec's resources in the status", "    resources: {requests: {cpu: 200m, memory: 64Mi}, limits: {cpu: 200m, memory: 64Mi}}", false},
		{"a resize in flight", "    resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 100m, memory: 64Mi}}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCmd([]string{"explain", "-f", "-"}, strings.Replace(runningWithResources, "STATUS_RESOURCES", tc.res, 1))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			next := section(out, "NEXT")
			if got := strings.Contains(next, "resize"); got != tc.resize {
				t.Errorf("NEXT mentions a resize: %v, want %v:\n%s", got, tc.resize, next)
			}
			if strings.Contains(next, "kill") {
				t.Errorf("NEXT kills a healthy container:\n%s", next)
			}
			if !strings.Contains(out, "assumed: every instance runs the container's current spec") {
				t.Errorf("explain does not say what it assumes:\n%s", out)
			}
		})
	}
}

// section returns the lines of explain's text output from the heading that
// starts with name to the next blank line.
func section(out, name string) string {
	i := strings.Index(out, "\n"+name)
	if i < 0 {
		return ""
	}
	s := out[i+1:]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j]
	}
	return s
}

// TestGateOffWarning: a pod using a RestartAllContainers rule, explained,
// simulated or checked as kubelet v1.35 (where the gate is off by
// default), is told so, with what that kubelet does instead; as v1.37 it
// is not.
func TestGateOffWarning(t *testing.T) {
	for _, cmd := range [][]string{
		{"explain", "-f", ex + "restartall-42.yaml"},
		{"simulate", "-f", ex + "restartall-42.yaml", "--for", "10s"},
		{"check", "-f", ex + "restartall-42.yaml"},
	} {
		out, errOut, code := runCmd(append(cmd, "--kubelet-version", "1.35"), "")
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", cmd, code, errOut)
		}
		if !strings.Contains(out, "warning: ") || !strings.Contains(out, "RestartAllContainersOnContainerExits is off by default in kubelet v1.35.4") ||
			!strings.Contains(out, "trainer: its restartPolicy Never") {
			t.Errorf("%v --kubelet-version 1.35 gives no warning about the gate:\n%s", cmd, out)
		}
		out, _, _ = runCmd(cmd, "")
		if strings.Contains(out, "warning: ") {
			t.Errorf("%v on v1.37 warns:\n%s", cmd, out)
		}
	}
}
