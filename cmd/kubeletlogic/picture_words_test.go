package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// writeFiles writes name -> content into a temporary folder and returns
// the folder with a trailing slash.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir() + "/"
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A simulation still running at --for is drawn from 0s to --for exactly:
// --to at --for is inside it, and a --to after it is refused with that
// end, to the millisecond.
func TestTimelineWindowToTheEnd(t *testing.T) {
	args := append([]string{"timeline"}, simArgs(t, "init-sidecar-app")...) // --for 30s
	if _, errOut, code := runCmd(append(args, "--to", "30s"), ""); code != 0 {
		t.Errorf("--to 30s with --for 30s: exit %d, stderr %q; want it drawn", code, errOut)
	}
	_, errOut, code := runCmd(append(args, "--to", "31s"), "")
	if want := "which is drawn from 0s to 30.000s "; code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("--to 31s with --for 30s: exit %d, stderr %q; want exit %d and %q", code, errOut, exitUsage, want)
	}
}

// In a window, an exit mark carries no label of its own when the state it
// leads to is wide enough, in the window's scale, to carry one: fetch's
// exit 0 at 27.429s in restartall-42 drawn from 20s to 30s.
func TestTimelineExitLabelInWindow(t *testing.T) {
	out, errOut, code := runCmd(append(append([]string{"timeline"}, simArgs(t, "restartall-42")...), "--from", "20s", "--to", "30s"), "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	root := parseSVG(t, out)
	exits := root.find(func(n *xmlNode) bool {
		return n.hasClass("mark") && n.hasClass("exit") && n.attr("data-container") == "fetch" && n.attr("data-at") == "27.429s"
	})
	if len(exits) != 1 {
		t.Fatalf("%d exit marks of fetch at 27.429s, want 1: the test checks nothing", len(exits))
	}
	if strings.Contains(out, ">exit 0<") {
		t.Error("fetch's exit at 27.429s labelled \"exit 0\", though its Completed state, 2.6 s of a 10 s window, carries its own label")
	}
}

// A condition the kubelet never writes gets no row: kubelet v1.35 with
// PodReadyToStartContainersCondition off draws no PodReadyToStartContainers
// row; with the gate on, it does.
func TestTimelineNoRowForAbsentCondition(t *testing.T) {
	base := []string{"timeline", "-f", ex + "crashloop.yaml", "--for", "20s", "--kubelet-version", "1.35"}
	for _, c := range []struct {
		gate string
		want bool
	}{{"PodReadyToStartContainersCondition=false", false}, {"PodReadyToStartContainersCondition=true", true}} {
		out, errOut, code := runCmd(append(base, "--gate", c.gate), "")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.gate, code, errOut)
		}
		rows := parseSVG(t, out).find(func(n *xmlNode) bool {
			return n.hasClass("row") && n.attr("data-row") == "PodReadyToStartContainers"
		})
		if got := len(rows) > 0; got != c.want {
			t.Errorf("%s: a PodReadyToStartContainers row %v, want %v", c.gate, got, c.want)
		}
	}
}

// Each exec preStop hook is drawn as a preStop overlay from when its
// ExecSync started to when it ended: a hook cut by the grace period in a
// deletion and in a sandbox kill (SyncPod), and the hook of a restarted
// container's second instance, which the script times apart from the
// first's.
func TestTimelinePreStopOverlayIsTheHook(t *testing.T) {
	pod := func(grace string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: s\nspec:\n  terminationGracePeriodSeconds: " + grace +
			"\n  containers:\n  - name: app\n    image: x\n    lifecycle:\n      preStop:\n        exec: {command: [drain]}\n"
	}
	dir := writeFiles(t, map[string]string{
		"grace10.yaml": pod("10"),
		"grace30.yaml": pod("30"),
		"long.yaml":    "containers:\n  app:\n    runs:\n    - {preStop: 60s}\n",
		"sandbox.yaml": "containers:\n  app:\n    runs:\n    - {preStop: 30s}\nactions:\n- {at: 20s, killSandbox: true}\n",
		"restart.yaml": "containers:\n  app:\n    runs:\n    - {exitAfter: 5s, exitCode: 1, preStop: 1s}\n    - {preStop: 4s}\n",
	})
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"deletion, hook cut by the grace", []string{"-f", dir + "grace10.yaml", "--script", dir + "long.yaml", "--delete-at", "20s", "--for", "60s"}, "20.000s-30.000s"},
		{"sandbox kill, hook cut by the grace", []string{"-f", dir + "grace10.yaml", "--script", dir + "sandbox.yaml", "--for", "60s"}, "20.328s-30.328s"},
		{"second instance's hook", []string{"-f", dir + "grace30.yaml", "--script", dir + "restart.yaml", "--delete-at", "40s", "--for", "90s"}, "40.000s-44.000s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var hooks []string
			for _, e := range simulateJSON(t, c.args).Timeline.Entries {
				if e.Kind == sim.KindCRI && e.Call != nil && e.Call.Method == "ExecSync" && e.Call.Hook == "preStop" {
					hooks = append(hooks, secs(e.At)+"-"+secs(e.At+e.Call.Done-e.Call.At))
				}
			}
			if strings.Join(hooks, " ") != c.want {
				t.Fatalf("the simulation's preStop ExecSync calls %v, want %s: the case checks something else", hooks, c.want)
			}
			out, errOut, code := runCmd(append([]string{"timeline"}, c.args...), "")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var drawn []string
			for _, n := range parseSVG(t, out).find(func(n *xmlNode) bool { return n.hasClass("overlay") && n.hasClass("prestop") }) {
				drawn = append(drawn, n.attr("data-from")+"-"+n.attr("data-to"))
			}
			if strings.Join(drawn, " ") != c.want {
				t.Errorf("preStop overlays %v, want the hook's ExecSync %s", drawn, c.want)
			}
		})
	}
}

// A liveness probe reaching its failure threshold is a "liveness failed"
// mark on the container's lane at the probe result's time, one per
// failure the simulation reports.
func TestTimelineProbeFailureMarks(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"pod.yaml":    livenessPod(5, 2, 0, 0, 0),
		"script.yaml": "containers:\n  app:\n    runs:\n    - liveness: [{at: 0s, result: Success}, {at: 12s, result: Failure}]\n",
	})
	args := []string{"-f", dir + "pod.yaml", "--script", dir + "script.yaml", "--for", "60s"}
	var want []string
	for _, e := range simulateJSON(t, args).Timeline.Entries {
		if e.Kind == sim.KindProbe && e.Probe != nil && e.Probe.Probe == "liveness" && e.Probe.Result == vocab.ProbeFailure {
			want = append(want, secs(e.At))
		}
	}
	if len(want) == 0 {
		t.Fatal("no liveness failure in the simulation: the test checks nothing")
	}
	out, errOut, code := runCmd(append([]string{"timeline"}, args...), "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []string
	for _, n := range parseSVG(t, out).find(func(n *xmlNode) bool { return n.hasClass("mark") && n.hasClass("probe") }) {
		if n.attr("data-container") == "app" {
			got = append(got, n.attr("data-at"))
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("probe marks at %v, want one per liveness failure %v", got, want)
	}
	if !strings.Contains(out, ">liveness failed<") {
		t.Error("no \"liveness failed\" label")
	}
}

// A delete with the pod's own grace period (no --grace) says the pod's
// terminationGracePeriodSeconds, 10 s here, not the API default 30 s: in
// simulate's header and on the timeline's label.
func TestDeleteWithThePodsGrace(t *testing.T) {
	dir := writeFiles(t, map[string]string{"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: g\nspec:\n  terminationGracePeriodSeconds: 10\n  containers: [{name: app, image: x}]\n"})
	args := []string{"-f", dir + "pod.yaml", "--delete-at", "20s", "--for", "60s"}
	out, errOut, code := runCmd(append([]string{"simulate"}, args...), "")
	if want := "\nactions: delete at 20s (grace 10s, the pod's)\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("simulate: exit %d, stderr %q; no %q:\n%s", code, errOut, want, out)
	}
	out, errOut, code = runCmd(append([]string{"timeline"}, args...), "")
	if want := ">kubectl delete (grace 10s)<"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("timeline: exit %d, stderr %q; no label %q", code, errOut, want)
	}
}

// A pod deleted while its finalizers stay ends as one the finalizers
// hold, not as a terminal pod nothing deleted.
func TestSimulateFinalizersHold(t *testing.T) {
	out, errOut, code := runCmd([]string{"simulate", "-f", ex + "finalizer.yaml", "--delete-at", "30s", "--for", "2m"}, "")
	want := "\nend: db-0: the kubelet deleted the API object at 30.373s, and its finalizers hold it (last phase Succeeded)\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, stderr %q; no %q:\n%s", code, errOut, want, out)
	}
}

// A static pod whose manifest is never removed ends as a running pod when
// the simulation stopped, not as one removed at 0s.
func TestSimulateStaticPodNotRemoved(t *testing.T) {
	dir := writeFiles(t, map[string]string{"static.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n  annotations: {kubernetes.io/config.source: file}\nspec:\n  containers: [{name: app, image: x}]\n"})
	out, errOut, code := runCmd([]string{"simulate", "-f", dir + "static.yaml", "--for", "20s"}, "")
	want := "\nend: b: phase Running when the simulation stopped at 20s (--for)\n"
	if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "manifest removed") {
		t.Errorf("exit %d, stderr %q; want %q and no \"manifest removed\":\n%s", code, errOut, want, out)
	}
}

// A manifest with a status is simulated afresh and simulate says so,
// whatever the numbers of init and app container statuses (one of each
// here).
func TestSimulateStatusNotReplayed(t *testing.T) {
	dir := writeFiles(t, map[string]string{"pod.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: w
spec:
  initContainers: [{name: init, image: x}]
  containers: [{name: app, image: x}]
status:
  phase: Running
  initContainerStatuses:
  - {name: init, image: x, imageID: "", ready: true, restartCount: 0, state: {terminated: {exitCode: 0, reason: Completed}}}
  containerStatuses:
  - {name: app, image: x, imageID: "", ready: true, restartCount: 0, state: {running: {}}}
`})
	out, errOut, code := runCmd([]string{"simulate", "-f", dir + "pod.yaml", "--for", "20s"}, "")
	want := "pod w: the manifest's status is not replayed: the simulated pod starts afresh, created at 0s"
	if code != 0 || !strings.Contains(out+errOut, want) {
		t.Errorf("exit %d; no %q in:\n%s%s", code, want, errOut, out)
	}
}
