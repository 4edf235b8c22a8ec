package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docsPodLevelManifest is the Kubernetes docs' pod-level resources example:
// pod-level limits cpu 1, memory 200Mi, requests cpu 1, memory 100Mi, one
// nginx container without resources of its own.
const docsPodLevelManifest = `apiVersion: v1
kind: Pod
metadata:
  name: pod-resources-demo
  namespace: pod-resources-example
spec:
  resources:
    limits:
      cpu: "1"
      memory: "200Mi"
    requests:
      cpu: "1"
      memory: "100Mi"
  containers:
  - name: pod-resources-demo-ctr-1
    image: nginx
`

// mixedPodLevelManifest has pod-level resources and containers with
// limits of their own: proxy (a sidecar) has both, db a memory limit
// alone, app and cache none (they follow the pod-level limits); cache
// restarts for a memory change (resizePolicy RestartContainer).
const mixedPodLevelManifest = `apiVersion: v1
kind: Pod
metadata:
  name: mixed
spec:
  resources:
    requests: {cpu: "1", memory: 512Mi}
    limits: {cpu: "2", memory: 1Gi}
  initContainers:
  - name: proxy
    image: envoy
    restartPolicy: Always
    resources:
      requests: {cpu: 100m, memory: 64Mi}
      limits: {cpu: 200m, memory: 128Mi}
  containers:
  - name: app
    image: app
    resources:
      requests: {cpu: 500m, memory: 256Mi}
  - name: cache
    image: cache
    resizePolicy:
    - {resourceName: memory, restartPolicy: RestartContainer}
    resources:
      requests: {cpu: 100m, memory: 64Mi}
  - name: db
    image: db
    resources:
      requests: {cpu: 200m, memory: 128Mi}
      limits: {memory: 256Mi}
`

// resizeSection is explain's RESIZE section: from its heading to the blank
// line that ends it.
func resizeSection(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "\nRESIZE: ")
	if i < 0 {
		t.Fatalf("no RESIZE section in\n%s", out)
	}
	s := out[i+1:]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j+1]
	}
	return s
}

// explain --resize-pod prints, for each pod-level resize, the RESIZE
// section kept in testdata/golden (go test -update rewrites them):
//   - docs-grow: the docs' pod, cpu doubled: the pod cgroup's cpu quota and
//     shares set before the container, which has no cpu limit of its own
//     and is updated in place to the pod-level one;
//   - mixed-shrink: both pod-level limits shrink: the containers that
//     follow them go down first (app, db for cpu), cache restarts for its
//     memory policy, and the pod cgroup is set after them, the memory usage
//     checked first;
//   - mixed-grow-restart: the pod-level memory limit grows: the pod cgroup
//     first, app in place, cache restarted by its resizePolicy, db (with a
//     memory limit of its own) and proxy unchanged;
//   - mixed-request: a pod-level cpu request alone changes only the pod
//     cgroup's cpu shares;
//   - mixed-with-resize: --resize beside --resize-pod is one request;
//   - docs-v1.35-gate-on: v1.35 with the gate on records the pod-level
//     memory only with a pod cgroup write.
func TestExplainResizePodGolden(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for name, m := range map[string]string{"docs": docsPodLevelManifest, "mixed": mixedPodLevelManifest} {
		files[name] = filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(files[name], []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, pod string
		args      []string
	}{
		{"docs-grow", "docs", []string{"--resize-pod", "cpu=2"}},
		{"mixed-shrink", "mixed", []string{"--resize-pod", "limits.cpu=1500m,limits.memory=768Mi"}},
		{"mixed-grow-restart", "mixed", []string{"--resize-pod", "limits.memory=2Gi"}},
		{"mixed-request", "mixed", []string{"--resize-pod", "requests.cpu=1500m"}},
		{"mixed-with-resize", "mixed", []string{"--resize", "db:requests.cpu=300m", "--resize-pod", "limits.cpu=3"}},
		{"docs-v1.35-gate-on", "docs", []string{"--resize-pod", "requests.memory=150Mi", "--kubelet-version", "1.35", "--gate", "InPlacePodLevelResourcesVerticalScaling=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCmd(append([]string{"explain", "-f", files[tc.pod]}, tc.args...), "")
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %s", code, errOut)
			}
			got := resizeSection(t, out)
			path := filepath.Join("testdata", "golden", "explain-resize-pod-"+tc.name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("RESIZE differs from %s (go test -update rewrites it):\n%s", path, lineDiff(string(want), got))
			}
		})
	}
}

// -o json carries the pod-level rows beside the containers' and the order.
func TestExplainResizePodJSON(t *testing.T) {
	out, errOut, code := runCmd([]string{"explain", "-f", "-", "--resize-pod", "cpu=2", "-o", "json"}, docsPodLevelManifest)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Items []struct {
			Resize resizeReport `json:"resize"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	if len(doc.Items) != 1 {
		t.Fatalf("%d items in\n%s", len(doc.Items), out)
	}
	r := doc.Items[0].Resize
	if r.Asked != "" || r.AskedPod != "cpu=2" {
		t.Errorf("asked %q, askedPod %q", r.Asked, r.AskedPod)
	}
	if len(r.PodLevel) != 2 || r.PodLevel[0].Resource != "cpu" || r.PodLevel[0].Action != "resized" || r.PodLevel[0].From != "request 1 limit 1" || r.PodLevel[0].To != "request 2 limit 2" || r.PodLevel[1].Action != "unchanged" {
		t.Errorf("podLevel %+v", r.PodLevel)
	}
	if len(r.Containers) != 1 || r.Containers[0].Resources[0].Action != "in place" || r.Containers[0].Resources[0].To != "request - limit 2 (pod-level)" {
		t.Errorf("containers %+v", r.Containers)
	}
	if len(r.Order) < 2 || !strings.HasPrefix(r.Order[1], "2. cpu: the pod cgroup's cpu quota (from the limits) grows 1 -> 2 (the pod-level value): set before the containers") {
		t.Errorf("order %q", r.Order)
	}
}

// Each pod-level resize the API server (or the flag) refuses is an error
// that says why, exactly.
func TestExplainResizePodRefusals(t *testing.T) {
	noPodLevel := strings.Replace(docsPodLevelManifest, "  resources:\n    limits:\n      cpu: \"1\"\n      memory: \"200Mi\"\n    requests:\n      cpu: \"1\"\n      memory: \"100Mi\"\n", "", 1)
	if noPodLevel == docsPodLevelManifest {
		t.Fatal("manifest without pod-level resources not made")
	}
	static := strings.Replace(docsPodLevelManifest, "  namespace: pod-resources-example\n", "  namespace: pod-resources-example\n  annotations: {kubernetes.io/config.source: file}\n", 1)
	for _, tc := range []struct {
		name, manifest string
		args           []string
		code           int
		want           string
	}{
		{"no pod-level resources", noPodLevel, []string{"--resize-pod", "cpu=2"}, exitBadInput,
			`kubeletlogic explain: --resize-pod "cpu=2": pod pod-resources-demo has no pod-level resources (spec.resources): --resize-pod changes them, and adding them by a resize is not modelled; resize its containers with --resize` + "\n"},
		{"gate off by default in v1.35", docsPodLevelManifest, []string{"--resize-pod", "cpu=2", "--kubelet-version", "1.35"}, exitBadInput,
			"kubeletlogic explain: --resize-pod cpu=2: the pod has pod-level resources (spec.resources) and gate InPlacePodLevelResourcesVerticalScaling is off (its default in v1.35.4): the API server forbids resizing such a pod\n"},
		{"gate set off", docsPodLevelManifest, []string{"--resize-pod", "cpu=2", "--gate", "InPlacePodLevelResourcesVerticalScaling=false"}, exitBadInput,
			"kubeletlogic explain: --resize-pod cpu=2: the pod has pod-level resources (spec.resources) and gate InPlacePodLevelResourcesVerticalScaling is off (set off): the API server forbids resizing such a pod\n"},
		{"a container resize of such a pod, gate off", docsPodLevelManifest, []string{"--resize", "limits.cpu=500m", "--kubelet-version", "1.35"}, exitBadInput,
			"kubeletlogic explain: --resize limits.cpu=500m: the pod has pod-level resources (spec.resources) and gate InPlacePodLevelResourcesVerticalScaling is off (its default in v1.35.4): the API server forbids resizing such a pod\n"},
		{"requests below the containers' aggregate", mixedPodLevelManifest, []string{"--resize-pod", "requests.cpu=800m"}, exitBadInput,
			"kubeletlogic explain: --resize-pod requests.cpu=800m: the API server would reject the resized pod: spec.resources.requests[cpu]: 800m: must be greater than or equal to aggregate container requests of 900m\n"},
		{"QoS class change", docsPodLevelManifest, []string{"--resize-pod", "requests.memory=200Mi"}, exitBadInput,
			"kubeletlogic explain: --resize-pod requests.memory=200Mi: the pod's QoS class would change from Burstable to Guaranteed: the API server rejects that (Pod QOS Class may not change as a result of resizing)\n"},
		{"a container's limit above the pod-level one", mixedPodLevelManifest, []string{"--resize-pod", "limits.memory=200Mi"}, exitBadInput,
			`kubeletlogic explain: --resize-pod limits.memory=200Mi: the API server would reject the resized pod: spec.resources.requests[memory]: Invalid value: "512Mi": must be less than or equal to memory limit of 200Mi; spec.containers[2].resources.limits[memory]: Invalid value: "256Mi": must be less than or equal to pod limits of 200Mi` + "\n"},
		{"static pod", static, []string{"--resize-pod", "cpu=2"}, exitBadInput,
			"kubeletlogic explain: --resize-pod cpu=2: a static pod cannot be resized (the API server forbids resizing its mirror pod); change its manifest instead, which replaces the pod\n"},
		{"not cpu or memory", docsPodLevelManifest, []string{"--resize-pod", "hugepages-2Mi=2Mi"}, exitBadInput,
			`kubeletlogic explain: --resize-pod "hugepages-2Mi=2Mi": "hugepages-2Mi": only cpu and memory can be resized (cpu, memory, requests.cpu, limits.memory, …)` + "\n"},
		{"a container named", docsPodLevelManifest, []string{"--resize-pod", "web:cpu=1"}, exitUsage,
			`kubeletlogic explain: invalid value "web:cpu=1" for flag -resize-pod: "web:cpu=1": --resize-pod takes no container (it resizes spec.resources): write cpu=300m,memory=256Mi, or --resize web:cpu=1 for container web` + "\nRun 'kubeletlogic explain -h' for its flags.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCmd(append([]string{"explain", "-f", "-"}, tc.args...), tc.manifest)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errOut)
			}
			if out != "" {
				t.Errorf("stdout %q, want none", out)
			}
			if strings.HasSuffix(tc.want, "\n") && errOut != tc.want || !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr\n%q\nwant\n%q", errOut, tc.want)
			}
		})
	}
}

// A pod-level memory request change alone on v1.35 (gate on) writes no
// pod cgroup value, so v1.35 never records it as actuated and the resize
// never completes (sim.PodLevelRecorded; v1.35.4 kuberuntime_manager.go
// :886, :902-903); v1.37 records it at the end of the memory step and the
// resize completes. explain says which.
func TestExplainResizePodMemoryRequestOnV135NeverCompletes(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: pod-resources-demo}
spec:
  resources:
    limits: {cpu: "1", memory: 200Mi}
    requests: {cpu: "1", memory: 100Mi}
  containers:
  - {name: pod-resources-demo-ctr-1, image: nginx}
`
	f := t.TempDir() + "/pod.yaml"
	if err := os.WriteFile(f, []byte(pod), 0o644); err != nil {
		t.Fatal(err)
	}
	const never = "the resize never completes: the pod-level record keeps the old values, so the PodResizeInProgress condition stays"
	const notRecorded = "but does not record the new pod-level memory values as actuated: v1.35.4 records them only after writing them to the pod cgroup"
	const done = "the resize is done when the runtime reports the new values, and the PodResizeInProgress condition goes away"
	for _, c := range []struct {
		name  string
		args  []string
		stuck bool
	}{
		{"v1.35 memory request", []string{"--kubelet-version", "1.35", "--gate", "InPlacePodLevelResourcesVerticalScaling=true", "--resize-pod", "requests.memory=150Mi"}, true},
		{"v1.35 memory limit", []string{"--kubelet-version", "1.35", "--gate", "InPlacePodLevelResourcesVerticalScaling=true", "--resize-pod", "limits.memory=300Mi"}, false},
		{"v1.37 memory request", []string{"--resize-pod", "requests.memory=150Mi"}, false},
	} {
		out, errOut, code := runCmd(append([]string{"explain", "-f", f}, c.args...), "")
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.name, code, errOut)
		}
		if got := strings.Contains(out, never) && strings.Contains(out, notRecorded); got != c.stuck {
			t.Errorf("%s: says the resize never completes %v, want %v:\n%s", c.name, got, c.stuck, out)
		}
		if got := strings.Contains(out, done); got == c.stuck {
			t.Errorf("%s: says the resize is done %v, want %v:\n%s", c.name, got, !c.stuck, out)
		}
	}
}
