package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// podLevelManifest is a pod in the shape of the docs' pod-level resize
// example: pod-level requests equal to limits, main with requests of its
// own (cpu resized in place), web without resources (restarted for cpu).
const podLevelManifest = `apiVersion: v1
kind: Pod
metadata:
  name: plr
spec:
  resources:
    requests: {cpu: 200m, memory: 256Mi}
    limits: {cpu: 200m, memory: 256Mi}
  containers:
  - name: main
    image: registry.example/main:1
    resources:
      requests: {cpu: 100m, memory: 64Mi}
    resizePolicy:
    - {resourceName: cpu, restartPolicy: NotRequired}
    - {resourceName: memory, restartPolicy: RestartContainer}
  - name: web
    image: registry.example/web:1
    resizePolicy:
    - {resourceName: cpu, restartPolicy: RestartContainer}
    - {resourceName: memory, restartPolicy: RestartContainer}
`

// simulate --resize-pod: the pod-level cpu (request and limit, both of
// which spec.resources has) goes to 400m at 20s; main, without a cpu limit
// of its own, is updated in place to the pod-level limit; web restarts.
// With --resize in the same invocation it is one action.
func TestSimulateResizePodFlag(t *testing.T) {
	out, errOut, code := runCmd([]string{"simulate", "-f", "-", "--resize-pod", "cpu=400m", "--resize-at", "20s", "--for", "40s"}, podLevelManifest)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"actions: resize pod-level requests.cpu=400m,limits.cpu=400m at 20s", "resize-pod: the pod-level resources (spec.resources) change",
		"UpdateContainerResources main plr-main-0 cpu shares 102, cpu quota 40000/100000, memory limit 256Mi",
		"StopContainer web plr-web-0", "CreateContainer web (restart 1) -> plr-web-1"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	out, errOut, code = runCmd([]string{"simulate", "-f", "-", "--resize", "main:requests.cpu=300m", "--resize-pod", "cpu=400m", "--resize-at", "20s", "--for", "40s"}, podLevelManifest)
	if code != 0 {
		t.Fatalf("with --resize: exit %d: %s", code, errOut)
	}
	if want := "actions: resize main requests.cpu=300m; pod-level requests.cpu=400m,limits.cpu=400m at 20s"; !strings.Contains(out, want) {
		t.Errorf("no %q in\n%s", want, out)
	}
}

// Bad --resize-pod input is an error that quotes what was typed and says
// what is wrong; what the API server refuses says why.
func TestSimulateResizePodErrors(t *testing.T) {
	noPodLevel := strings.Replace(podLevelManifest, "  resources:\n    requests: {cpu: 200m, memory: 256Mi}\n    limits: {cpu: 200m, memory: 256Mi}\n", "", 1)
	for _, tc := range []struct {
		name     string
		args     []string
		manifest string
		code     int
		wants    []string
	}{
		{"without when", []string{"--resize-pod", "cpu=400m"}, podLevelManifest, 2, []string{"--resize-pod and --resize-at"}},
		{"a container", []string{"--resize-pod", "web:cpu=1", "--resize-at", "5s"}, podLevelManifest, 2, []string{`"web:cpu=1": --resize-pod takes no container`, "--resize web:cpu=1"}},
		{"not cpu or memory", []string{"--resize-pod", "hugepages-2Mi=2Mi", "--resize-at", "5s"}, podLevelManifest, 1, []string{`--resize-pod "hugepages-2Mi=2Mi"`, "only cpu and memory"}},
		{"bad quantity", []string{"--resize-pod", "memory=big", "--resize-at", "5s"}, podLevelManifest, 1, []string{`--resize-pod "memory=big": memory=big: not a quantity`}},
		{"bad list", []string{"--resize-pod", "limit.cpu=1", "--resize-at", "5s"}, podLevelManifest, 1, []string{`"limit.cpu": want requests.cpu or limits.cpu`}},
		{"no pod-level resources", []string{"--resize-pod", "cpu=400m", "--resize-at", "5s"}, noPodLevel, 1, []string{"pod plr has no pod-level resources (spec.resources)"}},
		{"qos change", []string{"--resize-pod", "requests.cpu=150m", "--resize-at", "5s"}, podLevelManifest, 1, []string{"QoS class would change from Guaranteed to Burstable"}},
		{"below the containers", []string{"--resize-pod", "cpu=50m", "--resize-at", "5s"}, podLevelManifest, 1, []string{"must be greater than or equal to aggregate container requests of 100m"}},
		{"gate off in v1.35", []string{"--resize-pod", "cpu=400m", "--resize-at", "5s", "--kubelet-version", "1.35"}, podLevelManifest, 1,
			[]string{"gate InPlacePodLevelResourcesVerticalScaling is off (its default in v1.35.4)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCmd(append([]string{"simulate", "-f", "-", "--for", "10s"}, tc.args...), tc.manifest)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errOut)
			}
			for _, w := range tc.wants {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
		})
	}
	// A script's resizePod: its errors name the line.
	manifest := filepath.Join(t.TempDir(), "plr.yaml")
	if err := os.WriteFile(manifest, []byte(podLevelManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCmd([]string{"simulate", "-f", manifest, "--script", "-"}, "actions:\n- at: 5s\n  resizePod:\n    limits: {hugepages-2Mi: 2Mi}\n")
	if want := "<stdin>:4: actions[0].resizePod.limits.hugepages-2Mi: only cpu and memory can be resized at pod level"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("script: exit %d, stderr %q, want 1 and %q", code, errOut, want)
	}
	out, errOut, code := runCmd([]string{"simulate", "-f", manifest, "--script", "-", "--for", "30s"}, "actions:\n- {at: 20s, resizePod: {requests: {cpu: 400m}, limits: {cpu: 400m}}}\n")
	if code != 0 || !strings.Contains(out, "UpdateContainerResources main plr-main-0 cpu shares 102, cpu quota 40000/100000") {
		t.Errorf("script resizePod: exit %d, stderr %s\n%s", code, errOut, out)
	}
}
