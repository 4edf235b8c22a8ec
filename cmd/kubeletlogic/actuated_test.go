package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A running pod with resources everywhere: pod level, a sidecar, an app
// with a RestartContainer policy for memory, a memory-backed emptyDir.
const resourcesPod = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, uid: u-1}
spec:
  resources:
    limits: {cpu: "1", memory: 256Mi}
  volumes:
  - name: scratch
    emptyDir: {medium: Memory, sizeLimit: 16Mi}
  initContainers:
  - name: log
    image: busybox:1.37
    restartPolicy: Always
    resources:
      requests: {cpu: 50m}
      limits: {cpu: 200m, memory: 32Mi}
  containers:
  - name: app
    image: nginx:1.27
    resizePolicy:
    - {resourceName: memory, restartPolicy: RestartContainer}
    resources:
      requests: {cpu: 100m, memory: 32Mi}
      limits: {memory: 64Mi}
`

const resourcesStatus = `status:
  phase: Running
  startTime: "2026-12-01T10:00:00Z"
  podIP: 10.244.1.7
  podIPs: [{ip: 10.244.1.7}]
  conditions:
  - {type: Initialized, status: "True", lastTransitionTime: "2026-12-01T10:00:02Z"}
  - {type: Ready, status: "True", lastTransitionTime: "2026-12-01T10:00:03Z"}
  - {type: ContainersReady, status: "True", lastTransitionTime: "2026-12-01T10:00:03Z"}
  - {type: PodScheduled, status: "True", lastTransitionTime: "2026-12-01T10:00:00Z"}
  initContainerStatuses:
  - name: log
    image: busybox:1.37
    imageID: docker.io/library/busybox@sha256:1
    containerID: containerd://c1
    ready: true
    started: true
    restartCount: 0
    state: {running: {startedAt: "2026-12-01T10:00:01Z"}}
  containerStatuses:
  - name: app
    image: nginx:1.27
    imageID: docker.io/library/nginx@sha256:2
    containerID: containerd://c2
    ready: true
    started: true
    restartCount: 0
    state: {running: {startedAt: "2026-12-01T10:00:02Z"}}
`

const resourcesRuntime = `sandboxes:
- {id: s1, ready: true, attempt: 0, ip: 10.244.1.7, createdAt: "2026-12-01T10:00:00Z"}
containers:
- {id: c2, name: app, sandboxID: s1, state: running, createdAt: "2026-12-01T10:00:02Z", startedAt: "2026-12-01T10:00:02Z"}
- {id: c1, name: log, sandboxID: s1, state: running, createdAt: "2026-12-01T10:00:01Z", startedAt: "2026-12-01T10:00:01Z"}
`

// TestExplainRunningPodWithResourcesNoResize: explain of a running pod with
// resources, from a runtime file and from its status, says nothing about a
// resize (issue 23, item 1): the kubelet has the spec's resources actuated.
func TestExplainRunningPodWithResourcesNoResize(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pod, withStatus, rt := write("pod.yaml", resourcesPod), write("status.yaml", resourcesPod+resourcesStatus), write("rt.yaml", resourcesRuntime)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"runtime file", []string{"explain", "-f", pod, "--runtime", rt}},
		{"runtime file, v1.35", []string{"explain", "-f", pod, "--runtime", rt, "--kubelet-version", "1.35"}},
		{"runtime file, memory-backed volumes", []string{"explain", "-f", pod, "--runtime", rt, "--gate", "InPlacePodVerticalScalingMemoryBackedVolumes=true"}},
		{"status", []string{"explain", "-f", withStatus}},
	} {
		out, errOut, code := runCmd(tc.args, "")
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, errOut)
		}
		// The NEXT section (other sections may name resizes, such as a
		// warning that a gate is off).
		next := out
		if i := strings.Index(next, "NEXT:"); i >= 0 {
			next = next[i:]
			if j := strings.Index(next, "\n\n"); j >= 0 {
				next = next[:j]
			}
		}
		if !strings.Contains(next, "keep the pod as it is") {
			t.Errorf("%s: NEXT is not \"keep the pod as it is\":\n%s", tc.name, out)
		}
		for _, word := range []string{"resize", "grow", "shrink", "cgroup"} {
			if strings.Contains(next, word) {
				t.Errorf("%s: explain's NEXT mentions %q:\n%s", tc.name, word, out)
			}
		}
		if !strings.Contains(out, "app") || !strings.Contains(out, "running") {
			t.Errorf("%s: the pod is not explained as running:\n%s", tc.name, out)
		}
	}
}
