package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
)

const resizeManifest = `apiVersion: v1
kind: Pod
metadata:
  name: resize-demo
spec:
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
    resizePolicy:
    - {resourceName: cpu, restartPolicy: NotRequired}
    - {resourceName: memory, restartPolicy: RestartContainer}
    resources:
      requests: {cpu: 250m, memory: 512Mi}
      limits: {cpu: "1", memory: 512Mi}
  - name: worker
    image: worker
    resources:
      requests: {cpu: 250m, memory: 512Mi}
      limits: {cpu: "1", memory: 512Mi}
`

func resizeOf(t *testing.T, x *explanation, container, res string) resizeChange {
	t.Helper()
	if x.Resize == nil {
		t.Fatalf("no resize report")
	}
	for _, c := range x.Resize.Containers {
		if c.Name == container {
			for _, ch := range c.Resources {
				if ch.Resource == res {
					return ch
				}
			}
		}
	}
	t.Fatalf("no %s %s in the resize report", container, res)
	return resizeChange{}
}

// Done when: explain --resize says what the kubelet does for cpu and for
// memory under each resizePolicy, in text, JSON and YAML; a name that
// matches nothing is an error with the nearest name.
func TestExplainResize(t *testing.T) {
	f := t.TempDir() + "/pod.yaml"
	if err := os.WriteFile(f, []byte(resizeManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"explain", "-f", f, "--resize", "app:cpu=500m,memory=256Mi", "--resize", "worker:limits.cpu=2,memory=256Mi"}
	out, errOut, code := runCmd(args, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"RESIZE: what the kubelet does with the running pod after an in-place resize",
		`app memory: request 512Mi limit 512Mi -> request 256Mi limit 256Mi, resizePolicy RestartContainer`,
		`its resizePolicy for memory is RestartContainer: the kubelet kills app ("Container app resize requires restart") and starts it again in the same sync`,
		"another resource's resizePolicy is RestartContainer, so the whole container restarts",
		"in place: UpdateContainerResources(worker) with cpu request 250m limit 2000m (was 250m, 1000m), memory as last actuated; no restart",
		"in place: UpdateContainerResources(worker) with memory request 256Mi limit 256Mi (was 512Mi, 512Mi), cpu as last actuated; no restart",
		"validateMemoryResizeAction",
		"proxy cpu: unchanged",
		"1. memory: the pod cgroup's memory limit shrinks 1152Mi -> 640Mi: set after the containers",
		"2. cpu: the pod cgroup's cpu quota (from the limits) grows 2200m -> 2700m: set before the containers",
		"not modelled: before computePodActions the kubelet's allocation manager admits the resize",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --resize lacks %q:\n%s", want, out)
		}
	}
	js, _, code := runCmd(append(args, "-o", "json"), "")
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	var doc struct {
		Items []explanation `json:"items"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Items) != 1 {
		t.Fatalf("json: %v", err)
	}
	x := &doc.Items[0]
	for _, tc := range []struct{ c, res, action string }{
		{"app", "cpu", "restart"}, {"app", "memory", "restart"}, {"worker", "cpu", "in place"}, {"worker", "memory", "in place"}, {"proxy", "cpu", "unchanged"},
	} {
		if got := resizeOf(t, x, tc.c, tc.res).Action; got != tc.action {
			t.Errorf("%s %s: action %q, want %q", tc.c, tc.res, got, tc.action)
		}
	}
	ym, _, _ := runCmd(append(args, "-o", "yaml"), "")
	if !strings.Contains(ym, "action: in place") || !strings.Contains(ym, "action: restart") {
		t.Errorf("yaml lacks the resize actions:\n%s", ym)
	}

	for _, tc := range []struct {
		resize []string
		msg    string
	}{
		{[]string{"apps:cpu=1"}, `"apps" is not a container of pod resize-demo that can be resized (did you mean "app"?)`},
		{[]string{"gpu=1"}, `only cpu and memory can be resized`},
		{[]string{"cpu=500m,memory=256Mi"}, "the QoS class would change from Burstable to Guaranteed"},
		{[]string{"proxy:requests.cpu=200m,requests.memory=128Mi", "app:requests.cpu=1", "worker:requests.cpu=1"}, "the QoS class would change from Burstable to Guaranteed"},
		{[]string{"worker:requests.cpu=2"}, "must be less than or equal to cpu limit"},
		{[]string{"app:cpu"}, "want name=quantity"},
	} {
		a := []string{"explain", "-f", f}
		for _, r := range tc.resize {
			a = append(a, "--resize", r)
		}
		_, errOut, code := runCmd(a, "")
		if code != exitBadInput || !strings.Contains(errOut, tc.msg) {
			t.Errorf("--resize %s: exit %d, stderr %q; want exit %d and %q", tc.resize, code, errOut, exitBadInput, tc.msg)
		}
	}
}

// TestExplainResizeFollowsPolicy: over random resizes of random
// containers with random resizePolicies, explain --resize restarts a
// running container exactly when one of its changed resources has policy
// RestartContainer, resizes in place exactly the changed resources of the
// others, and leaves unchanged resources alone (no phantom resize from the
// actuated record).
func TestExplainResizeFollowsPolicy(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 3).Draw(t, "containers")
		pod := &v1.Pod{}
		pod.Name, pod.Namespace = "p", "default"
		policies := []v1.ResourceResizeRestartPolicy{"", v1.NotRequired, v1.RestartContainer}
		for i := 0; i < n; i++ {
			c := v1.Container{Name: fmt.Sprintf("c%d", i), Image: "img"}
			for _, res := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
				if p := rapid.SampledFrom(policies).Draw(t, fmt.Sprintf("c%d %s policy", i, res)); p != "" {
					c.ResizePolicy = append(c.ResizePolicy, v1.ContainerResizePolicy{ResourceName: res, RestartPolicy: p})
				}
			}
			cpu := resource.MustParse(fmt.Sprintf("%dm", 100*rapid.IntRange(1, 8).Draw(t, fmt.Sprintf("c%d cpu", i))))
			mem := resource.MustParse(fmt.Sprintf("%dMi", 64*rapid.IntRange(1, 8).Draw(t, fmt.Sprintf("c%d mem", i))))
			c.Resources.Requests = v1.ResourceList{v1.ResourceCPU: cpu, v1.ResourceMemory: mem}
			c.Resources.Limits = v1.ResourceList{v1.ResourceCPU: cpu, v1.ResourceMemory: mem}
			pod.Spec.Containers = append(pod.Spec.Containers, c)
		}
		pods, err := readPods(mustYAML(t, pod), "test.yaml")
		if err != nil {
			t.Fatal(err)
		}
		var specs []string
		changed := map[string]map[v1.ResourceName]bool{}
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("c%d", i)
			changed[name] = map[v1.ResourceName]bool{}
			for _, res := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
				if !rapid.Bool().Draw(t, name+" "+string(res)+" resized") {
					continue
				}
				old := pods[0].pod.Spec.Containers[i].Resources.Requests[res]
				var q resource.Quantity
				if res == v1.ResourceCPU {
					q = resource.MustParse(fmt.Sprintf("%dm", 100*rapid.IntRange(1, 8).Draw(t, name+" new cpu")))
				} else {
					q = resource.MustParse(fmt.Sprintf("%dMi", 64*rapid.IntRange(1, 8).Draw(t, name+" new mem")))
				}
				specs = append(specs, name+":"+string(res)+"="+q.String())
				changed[name][res] = changed[name][res] || q.Cmp(old) != 0
			}
		}
		if len(specs) == 0 {
			return
		}
		r, err := explainResize(pods[0].pod, nil, specs, nil, features.Set{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Containers {
			spec := containerSpec(pods[0].pod, c.Name)
			restarts := false
			for res, ch := range changed[c.Name] {
				if ch && policyFor(spec, res) == string(v1.RestartContainer) {
					restarts = true
				}
			}
			for _, ch := range c.Resources {
				res := v1.ResourceName(ch.Resource)
				want := "unchanged"
				switch {
				case changed[c.Name][res] && restarts:
					want = "restart"
				case changed[c.Name][res]:
					want = "in place"
				}
				if ch.Action != want {
					t.Fatalf("%s %s (%s -> %s, policy %s): action %q, want %q\n%s", c.Name, res, ch.From, ch.To, ch.Policy, ch.Action, want, strings.Join(r.Say, "\n"))
				}
			}
		}
	})
}

func mustYAML(t *rapid.T, pod *v1.Pod) []byte {
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": pod.ObjectMeta, "spec": pod.Spec})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A hostNetwork pod's assumed running state has its sandbox in the node's
// network namespace (the mode the kubelet created it with), so the resize
// is the same as for any pod: no sandbox change, worker resized in place.
// Plant: steadyState leaving the sandbox in POD mode (SandboxChanged then
// reports a network namespace change and the kubelet would kill the pod).
func TestExplainResizeHostNetwork(t *testing.T) {
	f := t.TempDir() + "/pod.yaml"
	m := strings.Replace(resizeManifest, "spec:\n", "spec:\n  hostNetwork: true\n", 1)
	if err := os.WriteFile(f, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd([]string{"explain", "-f", f, "--resize", "worker:limits.cpu=2"}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "in place: UpdateContainerResources(worker) with cpu request 250m limit 2000m (was 250m, 1000m), memory as last actuated; no restart"
	if !strings.Contains(out, want) || strings.Contains(out, "network namespace") {
		t.Errorf("explain --resize of a hostNetwork pod lacks %q (or mentions a network namespace change):\n%s", want, out)
	}
}

// explain --resize with a runtime state whose containers run resizes those
// running instances, and says so; it falls back to the pod as started from
// its manifest only when no container runs.
func TestExplainResizeOnRunningContainers(t *testing.T) {
	dir := t.TempDir()
	f, rt := dir+"/pod.yaml", dir+"/runtime.yaml"
	const running = `sandboxes:
- {id: s1, ready: true, attempt: 0, ip: 10.244.3.4, createdAt: "2026-12-01T10:00:00Z"}
containers:
- {id: c3, name: worker, sandboxID: s1, state: running, createdAt: "2026-12-01T10:00:03Z", startedAt: "2026-12-01T10:00:03Z"}
- {id: c2, name: app, sandboxID: s1, state: running, createdAt: "2026-12-01T10:00:03Z", startedAt: "2026-12-01T10:00:03Z"}
- {id: c1, name: proxy, sandboxID: s1, state: running, createdAt: "2026-12-01T10:00:01Z", startedAt: "2026-12-01T10:00:01Z"}
`
	if err := os.WriteFile(f, []byte(resizeManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rt, []byte(running), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd([]string{"explain", "-f", f, "--runtime", rt, "--resize", "app:cpu=500m"}, "")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	if want := "--resize app:cpu=500m, on the runtime state: the containers running now:"; !strings.Contains(out, want) {
		t.Errorf("explain --resize --runtime lacks %q:\n%s", want, out)
	}
}

// A --resize value without a container is read for every container; when
// one of them cannot take it, the error quotes the value as typed (not the
// per-container form it was read as) and names the container.
func TestExplainResizeErrorQuotesTheValueAsTyped(t *testing.T) {
	const manifest = `apiVersion: v1
kind: Pod
metadata:
  name: two
spec:
  containers:
  - name: pause
    image: pause
    resources:
      requests: {cpu: 100m}
  - name: web
    image: nginx
`
	f := t.TempDir() + "/pod.yaml"
	if err := os.WriteFile(f, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCmd([]string{"explain", "-f", f, "--resize", "cpu=300m"}, "")
	if code != exitBadInput {
		t.Fatalf("exit %d, want %d: %s", code, exitBadInput, errOut)
	}
	for _, want := range []string{
		`--resize "cpu=300m" (read for every container and native sidecar): container web has no cpu request or limit`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, `"web:cpu=300m"`) {
		t.Errorf("stderr quotes the rewritten value, not the one typed:\n%s", errOut)
	}
}

// A cpu-only resize (the docs' pod-resize.yaml, cpu 700m -> 800m) has no
// memory step: its one step is numbered 1, not "2. cpu" under no 1.
func TestExplainResizeStepsNumberedAsListed(t *testing.T) {
	f := t.TempDir() + "/pod.yaml"
	if err := os.WriteFile(f, []byte(resizeManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd([]string{"explain", "-f", f, "--resize", "app:cpu=500m"}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "\n      1. cpu: ") || strings.Contains(out, "2. cpu") {
		t.Errorf("a cpu-only resize's one step is not numbered 1:\n%s", out)
	}
}

// An error in a --resize value is quoted as typed: a value naming its
// container as it is, without "read for every container"; a value
// without one, in a pod of one container, as typed and said to be read
// for every container (not as "web:cpu=abc", which the user never wrote).
func TestExplainResizeErrorQuotesTheValueAsTypedEveryShape(t *testing.T) {
	f := t.TempDir() + "/pod.yaml"
	if err := os.WriteFile(f, []byte(resizeManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCmd([]string{"explain", "-f", f, "--resize", "app:cpu=abc"}, "")
	if want := "kubeletlogic explain: --resize \"app:cpu=abc\": cpu=abc: not a quantity (as 500m, 1, 256Mi)\n"; code != exitBadInput || errOut != want {
		t.Errorf("--resize app:cpu=abc: exit %d, stderr %q; want exit %d, %q", code, errOut, exitBadInput, want)
	}
	const one = `apiVersion: v1
kind: Pod
metadata:
  name: one
spec:
  containers:
  - name: web
    image: nginx
    resources:
      requests: {cpu: 100m, memory: 64Mi}
`
	if err := os.WriteFile(f, []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCmd([]string{"explain", "-f", f, "--resize", "cpu=abc"}, "")
	if want := "kubeletlogic explain: --resize \"cpu=abc\" (read for every container and native sidecar): cpu=abc: not a quantity (as 500m, 1, 256Mi)\n"; code != exitBadInput || errOut != want {
		t.Errorf("--resize cpu=abc on one container: exit %d, stderr %q; want exit %d, %q", code, errOut, exitBadInput, want)
	}
}

// A pod with volumes, a configMap and emptyDirs with and without a size
// limit, is resized like any other (the actuated record keeps the
// memory-backed emptyDir's limit).
func TestExplainResizePodWithVolumes(t *testing.T) {
	const manifest = `apiVersion: v1
kind: Pod
metadata:
  name: one
spec:
  containers:
  - name: web
    image: nginx
    resources:
      requests: {cpu: 100m, memory: 64Mi}
      limits: {memory: 128Mi}
    volumeMounts:
    - {name: scratch, mountPath: /scratch}
    - {name: shm, mountPath: /dev/shm}
    - {name: config, mountPath: /etc/web}
  volumes:
  - name: scratch
    emptyDir: {}
  - name: shm
    emptyDir: {medium: Memory, sizeLimit: 64Mi}
  - name: config
    configMap: {name: web}
`
	f := t.TempDir() + "/pod.yaml"
	if err := os.WriteFile(f, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd([]string{"explain", "-f", f, "--resize", "memory=256Mi"}, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "in place: UpdateContainerResources(web) with memory request 256Mi limit 256Mi (was 64Mi, 128Mi), cpu as last actuated; no restart"; !strings.Contains(out, want) {
		t.Errorf("explain --resize lacks %q:\n%s", want, out)
	}
}

// A resize of the requests alone, the limits kept, goes down or up by
// the request: worker's memory request shrinks, its cpu request grows;
// then app's cpu request shrinks beside worker's growing.
func TestExplainResizeRequestOnlyDirection(t *testing.T) {
	f := t.TempDir() + "/pod.yaml"
	if err := os.WriteFile(f, []byte(resizeManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd([]string{"explain", "-f", f, "--resize", "worker:requests.memory=256Mi,requests.cpu=500m"}, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"1. memory: the pod cgroup's memory limit stays 1152Mi; containers, decreases before increases: worker (down)\n",
		"2. cpu: the pod cgroup's cpu quota (from the limits) stays 2200m; the pod cgroup's cpu shares (from the requests) grows 600m -> 850m: set before the containers; containers, decreases before increases: worker (up)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --resize lacks %q:\n%s", want, out)
		}
	}
	// A cpu request that shrinks goes down, first.
	out, errOut, code = runCmd([]string{"explain", "-f", f, "--resize", "app:requests.cpu=100m", "--resize", "worker:requests.cpu=500m"}, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "1. cpu: the pod cgroup's cpu quota (from the limits) stays 2200m; the pod cgroup's cpu shares (from the requests) grows 600m -> 700m: set before the containers; containers, decreases before increases: app (down), worker (up)\n"; !strings.Contains(out, want) {
		t.Errorf("explain --resize lacks %q:\n%s", want, out)
	}
}

// The memory-usage check (validateMemoryResizeAction) is named for a
// memory limit that shrinks or appears, and only then: not for one that
// grows, nor for a change of the request alone.
func TestExplainResizeMemoryLimitCheckOnlyWhenItShrinks(t *testing.T) {
	const check = "A memory limit that shrinks (or appears) is checked first"
	dir := t.TempDir()
	for _, tc := range []struct {
		name, manifest, resize string
		want                   bool
	}{
		{"request alone", resizeManifest, "worker:requests.memory=256Mi", false},
		{"limit grows", "apiVersion: v1\nkind: Pod\nmetadata: {name: one}\nspec:\n  containers:\n  - name: web\n    image: nginx\n    resources:\n      requests: {cpu: 100m, memory: 64Mi}\n      limits: {memory: 128Mi}\n", "web:limits.memory=256Mi", false},
		{"limit appears", "apiVersion: v1\nkind: Pod\nmetadata: {name: one}\nspec:\n  containers:\n  - name: web\n    image: nginx\n    resources:\n      requests: {cpu: 100m, memory: 64Mi}\n", "web:limits.memory=256Mi", true},
		{"limit shrinks", resizeManifest, "worker:memory=256Mi", true},
	} {
		f := dir + "/pod.yaml"
		if err := os.WriteFile(f, []byte(tc.manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCmd([]string{"explain", "-f", f, "--resize", tc.resize}, "")
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		if !strings.Contains(out, "in place: UpdateContainerResources(") {
			t.Fatalf("%s: no in-place update:\n%s", tc.name, out)
		}
		if got := strings.Contains(out, check); got != tc.want {
			t.Errorf("%s (--resize %s): says %q: %v, want %v:\n%s", tc.name, tc.resize, check, got, tc.want, out)
		}
	}
}

// RESIZE's order (doPodResizeAction) lists a step for each resource the
// kubelet sets, the containers it updates in place under it, and nothing
// when nothing changes: a container restarted for the resize gives the pod
// cgroup's steps without containers, a memory-only resize no cpu step, a
// pod with a container without a cpu limit no cpu quota; the pod cgroup
// takes a pod-level value where the pod sets one, and the containers' sum
// where it sets none (pod-level requests alone leave the memory limit to
// the containers: ResourceConfigForPod).
func TestExplainResizeOrderListsOnlyWhatChanges(t *testing.T) {
	const oneWeb = "apiVersion: v1\nkind: Pod\nmetadata: {name: one}\nspec:\n  containers:\n  - name: web\n    image: nginx\n    resources:\n      requests: {cpu: 100m, memory: 64Mi}\n      limits: {memory: 128Mi}\n"
	const reread = "then the kubelet re-reads the pod (RequestPodReinspect); the resize is done when the runtime reports the new values, and the PodResizeInProgress condition goes away"
	dir := t.TempDir()
	for _, tc := range []struct {
		name, manifest, resize string
		want                   []string
	}{
		{"restart alone", resizeManifest, "app:memory=256Mi", []string{
			"1. memory: the pod cgroup's memory limit shrinks 1152Mi -> 896Mi: set after the containers, once the pod's memory usage is checked to be below it",
			"2. cpu: the pod cgroup's cpu quota (from the limits) stays 2200m; the pod cgroup's cpu shares (from the requests) stays 600m",
			"containers restarted for the resize are killed first, the pod cgroup resized, and they start again with the new values in the same sync",
			reread,
		}},
		{"memory alone, in place", oneWeb, "web:memory=256Mi", []string{
			"1. memory: the pod cgroup's memory limit grows 128Mi -> 256Mi: set before the containers; containers, decreases before increases: web (up)",
			reread,
		}},
		{"cpu request of a container without a cpu limit", oneWeb, "web:requests.cpu=200m", []string{
			"1. cpu: the pod cgroup has no cpu quota (from the limits) (a container has no limit): left as it is; the pod cgroup's cpu shares (from the requests) grows 100m -> 200m: set before the containers; containers, decreases before increases: web (up)",
			reread,
		}},
		{"pod-level resources left empty", strings.Replace(oneWeb, "spec:\n", "spec:\n  resources: {}\n", 1), "web:memory=256Mi", []string{
			"1. memory: the pod cgroup's memory limit grows 128Mi -> 256Mi: set before the containers; containers, decreases before increases: web (up)",
			reread,
		}},
		{"pod-level requests", strings.Replace(oneWeb, "spec:\n", "spec:\n  resources: {requests: {cpu: 200m, memory: 256Mi}}\n", 1), "web:memory=200Mi", []string{
			"1. memory: the pod cgroup's memory limit grows 128Mi -> 200Mi: set before the containers; containers, decreases before increases: web (up)",
			reread,
		}},
		{"nothing changes", resizeManifest, "worker:requests.cpu=250m", nil},
	} {
		f := dir + "/pod.yaml"
		if err := os.WriteFile(f, []byte(tc.manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCmd([]string{"explain", "-f", f, "--resize", tc.resize}, "")
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		var got []string
		in := false
		for _, l := range strings.Split(out, "\n") {
			switch {
			case l == "    in this order (doPodResizeAction):":
				in = true
			case in && strings.HasPrefix(l, "      "):
				got = append(got, strings.TrimPrefix(l, "      "))
			default:
				in = false
			}
		}
		if tc.want == nil && strings.Contains(out, "in this order") {
			t.Errorf("%s (--resize %s): an order for a resize that changes nothing:\n%s", tc.name, tc.resize, out)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s (--resize %s): order\n%s\nwant\n%s\nin:\n%s", tc.name, tc.resize, strings.Join(got, "\n"), strings.Join(tc.want, "\n"), out)
		}
	}
}
