package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

const scripts = ex + "scripts/"

// The simulations the golden tests and the picture tests run: one per
// example manifest, with its script.
var simCases = []struct {
	name string
	args []string
}{
	{"crashloop", []string{"-f", ex + "crashloop.yaml", "--script", scripts + "crashloop.yaml", "--for", "20m"}},
	{"sidecar-job-crash", []string{"-f", ex + "sidecar-job.yaml", "--script", scripts + "sidecar-job-crash.yaml"}},
	{"delete-prestop-sidecar", []string{"-f", ex + "delete-prestop-sidecar.yaml", "--script", scripts + "delete-prestop-sidecar.yaml"}},
	{"init-sidecar-app", []string{"-f", ex + "init-sidecar-app.yaml", "--script", scripts + "init-sidecar-app.yaml", "--for", "30s"}},
	{"restartall-42", []string{"-f", ex + "restartall-42.yaml", "--script", scripts + "restartall-42.yaml"}},
	{"finalizer", []string{"-f", ex + "finalizer.yaml", "--script", scripts + "finalizer.yaml"}},
	{"web-hooks-resize", []string{"-f", ex + "web-hooks-resize.yaml", "--script", scripts + "web-hooks-resize.yaml", "--for", "4m"}},
}

// golden compares out with testdata/golden/name (go test -update rewrites
// it).
func golden(t *testing.T, name, out string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if out != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, lineDiff(string(want), out))
	}
}

// TestGoldenSimulate runs simulate and timeline on the example manifests
// and compares what they print with testdata/golden.
func TestGoldenSimulate(t *testing.T) {
	type tc struct {
		name string
		args []string
	}
	var cases []tc
	for _, c := range simCases {
		cases = append(cases,
			tc{"simulate-" + c.name + ".txt", append([]string{"simulate"}, c.args...)},
			tc{"timeline-" + c.name + ".svg", append([]string{"timeline"}, c.args...)})
	}
	cases = append(cases,
		tc{"simulate-sidecar-job-no-script.txt", []string{"simulate", "-f", ex + "sidecar-job.yaml", "--for", "2m"}},
		tc{"simulate-delete-at-no-script.txt", []string{"simulate", "-f", ex + "delete-prestop-sidecar.yaml", "--delete-at", "60s"}},
		tc{"simulate-delete-at-grace-5.txt", []string{"simulate", "-f", ex + "delete-prestop-sidecar.yaml", "--script", scripts + "delete-prestop-sidecar.yaml", "--delete-at", "20s", "--grace", "5"}},
		tc{"simulate-resize-at-no-script.txt", []string{"simulate", "-f", ex + "web-hooks-resize.yaml", "--resize", "web:cpu=1", "--resize-at", "30s", "--for", "1m"}},
		tc{"simulate-remove-at.txt", []string{"simulate", "-f", ex + "delete-prestop-sidecar.yaml", "--remove-at", "30s"}},
		tc{"simulate-restartall-42-gate-off.txt", []string{"simulate", "-f", ex + "restartall-42.yaml", "--script", scripts + "restartall-42.yaml", "--gate", "RestartAllContainersOnContainerExits=false"}},
		tc{"simulate-crashloop-events.txt", []string{"simulate", "-f", ex + "crashloop.yaml", "--script", scripts + "crashloop.yaml", "--for", "25s", "--events"}},
		tc{"simulate-crashloop-seed-7.txt", []string{"simulate", "-f", ex + "crashloop.yaml", "--script", scripts + "crashloop.yaml", "--for", "5m", "--seed", "7"}},
		tc{"simulate-two-pods-one-static.txt", []string{"simulate", "-f", "testdata/sim/two-pods.yaml", "--script", "testdata/sim/two-pods-script.yaml", "--for", "1m"}},
		tc{"simulate-two-pods-contention-off.txt", []string{"simulate", "-f", "testdata/sim/two-pods.yaml", "--script", "testdata/sim/two-pods-script.yaml", "--for", "1m", "--runtime-contention", "off"}},
		tc{"simulate-two-pods-contention-100ms.txt", []string{"simulate", "-f", "testdata/sim/two-pods.yaml", "--script", "testdata/sim/two-pods-script.yaml", "--for", "1m", "--runtime-contention", "100ms"}},
		tc{"timeline-two-pods-one-static.svg", []string{"timeline", "-f", "testdata/sim/two-pods.yaml", "--script", "testdata/sim/two-pods-script.yaml", "--for", "1m"}},
		tc{"timeline-delete-prestop-sidecar.html", []string{"timeline", "-o", "html", "-f", ex + "delete-prestop-sidecar.yaml", "--script", scripts + "delete-prestop-sidecar.yaml"}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCmd(c.args, "")
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d; stderr: %s", code, errOut)
			}
			golden(t, c.name, out)
		})
	}
}

// simDoc is simulate -o json's output.
type simDoc struct {
	Kind           string         `json:"kind"`
	KubeletVersion string         `json:"kubeletVersion"`
	Config         sim.Config     `json:"config"`
	Pods           []sim.PodInput `json:"pods"`
	Timeline       *sim.Timeline  `json:"timeline"`
}

func simulateJSON(t *testing.T, args []string) simDoc {
	t.Helper()
	out, errOut, code := runCmd(append(append([]string{"simulate"}, args...), "-o", "json"), "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d simDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// simulate -o json prints the inputs and the timeline, and the inputs
// replay to the same timeline.
func TestSimulateJSONReplays(t *testing.T) {
	for _, c := range simCases {
		t.Run(c.name, func(t *testing.T) {
			d := simulateJSON(t, c.args)
			if d.Kind != "Simulation" || d.KubeletVersion != kubeletVersion || d.Timeline == nil || len(d.Timeline.Entries) == 0 {
				t.Fatalf("not a simulation: kind %q, version %q", d.Kind, d.KubeletVersion)
			}
			again, err := sim.Simulate(d.Config, d.Pods)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(d.Timeline)
			b, _ := json.Marshal(again)
			if !bytes.Equal(a, b) {
				t.Errorf("replaying the printed inputs gives another timeline (%d and %d entries)", len(d.Timeline.Entries), len(again.Entries))
			}
		})
	}
}

// xmlNode is any element of the SVG.
type xmlNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []xmlNode  `xml:",any"`
	Text    string     `xml:",chardata"`
}

func (n *xmlNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *xmlNode) hasClass(c string) bool {
	for _, f := range strings.Fields(n.attr("class")) {
		if f == c {
			return true
		}
	}
	return false
}

// find returns every element under n (n included) for which match holds.
func (n *xmlNode) find(match func(*xmlNode) bool) []*xmlNode {
	var out []*xmlNode
	if match(n) {
		out = append(out, n)
	}
	for i := range n.Nodes {
		out = append(out, n.Nodes[i].find(match)...)
	}
	return out
}

func parseSVG(t *testing.T, s string) *xmlNode {
	t.Helper()
	var root xmlNode
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.Strict = true
	if err := dec.Decode(&root); err != nil {
		t.Fatalf("the SVG is not well-formed XML: %v", err)
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root element %v, want svg in the SVG namespace", root.XMLName)
	}
	return &root
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + "s" }

// The picture against the simulation it draws, read back from the SVG's
// XML: one lane per container in spec order, a SIGKILL mark exactly where
// the timeline has a StopContainer with Killed (at its time and x), a
// SIGTERM mark per StopContainer, a start mark per StartContainer, a dashed
// line per action, and each lane's last state the container's last status.
func TestTimelineMatchesSimulation(t *testing.T) {
	killedSeen := 0
	for _, c := range simCases {
		t.Run(c.name, func(t *testing.T) {
			d := simulateJSON(t, c.args)
			tl := d.Timeline
			pod := d.Pods[0].Pod
			out, errOut, code := runCmd(append([]string{"timeline"}, c.args...), "")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			root := parseSVG(t, out)

			// The axis: x = x0 + t/end * (x1 - x0).
			axes := root.find(func(n *xmlNode) bool { return n.hasClass("axis") })
			if len(axes) != 1 {
				t.Fatalf("%d axes", len(axes))
			}
			x0, _ := strconv.ParseFloat(axes[0].attr("data-x0"), 64)
			x1, _ := strconv.ParseFloat(axes[0].attr("data-x1"), 64)
			end, _ := strconv.ParseFloat(strings.TrimSuffix(axes[0].attr("data-end"), "s"), 64)
			if !(x0 < x1 && end > 0) {
				t.Fatalf("axis x0 %v x1 %v end %v", x0, x1, end)
			}
			xOf := func(d time.Duration) float64 { return x0 + d.Seconds()/end*(x1-x0) }

			// One lane per container, in spec order.
			var want []string
			for _, c := range pod.Spec.InitContainers {
				want = append(want, c.Name)
			}
			for _, c := range pod.Spec.Containers {
				want = append(want, c.Name)
			}
			lanes := root.find(func(n *xmlNode) bool { return n.hasClass("lane") })
			var got []string
			laneOf := map[string]*xmlNode{}
			for _, l := range lanes {
				got = append(got, l.attr("data-container"))
				laneOf[l.attr("data-container")] = l
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("lanes %v, want one per container %v", got, want)
			}

			marks := func(class, container string) map[string]*xmlNode {
				out := map[string]*xmlNode{}
				if l := laneOf[container]; l != nil {
					for _, m := range l.find(func(n *xmlNode) bool { return n.hasClass("mark") && n.hasClass(class) }) {
						out[m.attr("data-at")] = m
					}
				}
				return out
			}
			count := func(class string) int {
				return len(root.find(func(n *xmlNode) bool { return n.hasClass("mark") && n.hasClass(class) }))
			}
			var killed, stops, starts int
			for _, e := range tl.Entries {
				if e.Kind != sim.KindCRI || e.Call == nil {
					continue
				}
				call := e.Call
				switch call.Method {
				case "StartContainer":
					starts++
					if marks("start", call.Name)[secs(e.At)] == nil {
						t.Errorf("no start mark for %s at %s", call.ID, secs(e.At))
					}
				case "StopContainer":
					stops++
					if marks("sigterm", call.Name)[secs(e.At)] == nil {
						t.Errorf("no SIGTERM mark for %s at %s", call.ID, secs(e.At))
					}
					if !call.Killed {
						continue
					}
					killed++
					at := e.At + call.Ended() - call.At
					m := marks("sigkill", call.Name)[secs(at)]
					if m == nil {
						t.Errorf("no SIGKILL mark for %s at %s (StopContainer at %s, timeout %ds)", call.ID, secs(at), secs(e.At), *call.Timeout)
						continue
					}
					lines := m.find(func(n *xmlNode) bool { return n.XMLName.Local == "line" })
					if len(lines) == 0 {
						t.Errorf("SIGKILL mark of %s has no line", call.ID)
						continue
					}
					x, _ := strconv.ParseFloat(lines[0].attr("x1"), 64)
					if math.Abs(x-xOf(at)) > 0.01 {
						t.Errorf("SIGKILL line of %s at x=%.2f, want %.2f (t=%s)", call.ID, x, xOf(at), secs(at))
					}
				}
			}
			killedSeen += killed
			if n := count("sigkill"); n != killed {
				t.Errorf("%d SIGKILL marks, the timeline has %d StopContainer calls with Killed", n, killed)
			}
			if n := count("sigterm"); n != stops {
				t.Errorf("%d SIGTERM marks, the timeline has %d StopContainer calls", n, stops)
			}
			if n := count("start"); n != starts {
				t.Errorf("%d start marks, the timeline has %d StartContainer calls", n, starts)
			}

			// A dashed line per action, at its time.
			events := map[string]bool{}
			for _, n := range root.find(func(n *xmlNode) bool { return n.hasClass("event") }) {
				events[n.attr("data-at")] = true
			}
			for _, a := range d.Pods[0].Actions {
				if !events[secs(a.At.D())] {
					t.Errorf("no event line for %s at %s", a, secs(a.At.D()))
				}
			}

			// Each lane's last state is the container's last status.
			_, last := tl.LastStatus(pod.Name)
			if last == nil {
				t.Fatal("no status")
			}
			for _, l := range [][]v1.ContainerStatus{last.InitContainerStatuses, last.ContainerStatuses} {
				for _, cs := range l {
					spans := laneOf[cs.Name].find(func(n *xmlNode) bool { return n.hasClass("span") })
					if len(spans) == 0 {
						t.Errorf("lane %s has no state", cs.Name)
						continue
					}
					got := strings.Fields(spans[len(spans)-1].attr("class"))[1]
					if w := wantClass(cs); got != w {
						t.Errorf("lane %s ends %s, its last status says %s", cs.Name, got, w)
					}
				}
			}

			// Every text stays on the picture.
			width, _ := strconv.ParseFloat(root.attr("width"), 64)
			for _, n := range root.find(func(n *xmlNode) bool { return n.XMLName.Local == "text" }) {
				x, _ := strconv.ParseFloat(n.attr("x"), 64)
				size, _ := strconv.ParseFloat(n.attr("font-size"), 64)
				w := textWidth(n.Text, size)
				left, right := x, x+w
				switch n.attr("text-anchor") {
				case "middle":
					left, right = x-w/2, x+w/2
				case "end":
					left, right = x-w, x
				}
				if left < 0 || right > width {
					t.Errorf("text %q runs off the picture (%.0f to %.0f of %.0f)", n.Text, left, right, width)
				}
			}
		})
	}
	if killedSeen == 0 {
		t.Error("no example has a SIGKILL: the SIGKILL check checked nothing")
	}
}

// wantClass is the lane state a container status shows.
func wantClass(cs v1.ContainerStatus) string {
	switch s := cs.State; {
	case s.Waiting != nil && s.Waiting.Reason == "CrashLoopBackOff":
		return "backoff"
	case s.Waiting != nil:
		return "waiting"
	case s.Running != nil && cs.Ready:
		return "ready"
	case s.Running != nil:
		return "running"
	case s.Terminated != nil && s.Terminated.ExitCode == 0:
		return "done"
	case s.Terminated != nil:
		return "failed"
	}
	return "?"
}

// The delete example, checked by hand against its spec: grace 30 s, the
// app's preStop sleeps 25 s, the proxy's 10 s; deleted at 60 s. Both hooks
// start at the deletion; the app gets SIGTERM at 85 s with the 5 s left,
// ignores it and is killed at 90 s; the proxy waits for it, gets SIGTERM
// at 90 s with the 2 s minimum and exits 100 ms later.
func TestTimelineDeleteByHand(t *testing.T) {
	out, errOut, code := runCmd(append([]string{"timeline"}, simCases[2].args...), "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	root := parseSVG(t, out)
	want := map[string][]string{
		"app":   {"overlay prestop 60.000s-85.000s", "mark sigterm 85.000s", "mark sigkill 90.000s"},
		"proxy": {"overlay prestop 60.000s-70.000s", "mark sigterm 90.000s"},
	}
	for _, l := range root.find(func(n *xmlNode) bool { return n.hasClass("lane") }) {
		var got []string
		for _, n := range l.find(func(n *xmlNode) bool {
			return n.hasClass("prestop") || n.hasClass("sigterm") || n.hasClass("sigkill")
		}) {
			if n.hasClass("overlay") {
				got = append(got, fmt.Sprintf("%s %s-%s", n.attr("class"), n.attr("data-from"), n.attr("data-to")))
			} else {
				got = append(got, n.attr("class")+" "+n.attr("data-at"))
			}
		}
		name := l.attr("data-container")
		if strings.Join(got, "; ") != strings.Join(want[name], "; ") {
			t.Errorf("lane %s: %v, want %v", name, got, want[name])
		}
	}
	for _, s := range []string{"kubectl delete (grace 30s)", "API object deleted", "preStop 25s", "preStop 10s", "SIGTERM (timeout 5s)", "SIGTERM (timeout 2s)", "exited 137 (Error)"} {
		if !strings.Contains(out, ">"+s+"<") {
			t.Errorf("the picture does not say %q", s)
		}
	}
}

// The lanes follow the spec order and kinds, and an ephemeral container
// added by an action gets its own lane.
func TestTimelineKinds(t *testing.T) {
	script := "actions:\n- {at: 5s, addEphemeral: {name: debug, image: busybox}}\n"
	out, errOut, code := runCmd([]string{"timeline", "-f", ex + "init-sidecar-app.yaml", "--script", "-", "--for", "20s"}, script)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	root := parseSVG(t, out)
	var got []string
	for _, l := range root.find(func(n *xmlNode) bool { return n.hasClass("lane") }) {
		got = append(got, l.attr("data-container")+"="+l.attr("data-kind"))
	}
	want := "migrate=init container,proxy=native sidecar,app=container,debug=ephemeral"
	if strings.Join(got, ",") != want {
		t.Errorf("lanes %v, want %s", got, want)
	}
}

// Bad scripts and simulation flags: the file, the line and the field, and
// the exit code.
func TestBadSimInput(t *testing.T) {
	const bad = "testdata/bad/"
	job, del, app := ex+"sidecar-job.yaml", ex+"delete-prestop-sidecar.yaml", ex+"init-sidecar-app.yaml"
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"unknown field", []string{"simulate", "-f", job, "--script", bad + "script-unknown-field.yaml"}, 1,
			[]string{"script-unknown-field.yaml:5:", "containers.proxy.runs[0].exitAftr", "unknown field", `did you mean "exitAfter"`}},
		{"bad duration", []string{"simulate", "-f", job, "--script", bad + "script-bad-duration.yaml"}, 1,
			[]string{"script-bad-duration.yaml:5:", "containers.proxy.runs[1].exitAfter", `"soon" is not a duration`}},
		{"wrong type", []string{"timeline", "-f", job, "--script", bad + "script-bad-type.yaml"}, 1,
			[]string{"script-bad-type.yaml:5:", "containers.report.runs[0].exitCode", "whole number", `"one"`}},
		{"container not in the spec", []string{"simulate", "-f", job, "--script", bad + "script-unknown-container.yaml"}, 1,
			[]string{"script-unknown-container.yaml:5:", `"reprot" is not a container of pod report`, `did you mean "report"`}},
		{"bad probe result", []string{"simulate", "-f", app, "--script", bad + "script-bad-probe-result.yaml"}, 1,
			[]string{"script-bad-probe-result.yaml:8:", "containers.app.runs[0].readiness[1].result", `"Pass"`, "Success or Failure"}},
		{"probe the container lacks", []string{"simulate", "-f", job, "--script", bad + "script-no-such-probe.yaml"}, 1,
			[]string{"script-no-such-probe.yaml:5:", "containers.report.runs[0].liveness", "no livenessProbe"}},
		{"preStop of a sleep hook", []string{"simulate", "-f", del, "--script", bad + "script-prestop-sleep.yaml"}, 1,
			[]string{"script-prestop-sleep.yaml:6:", "containers.app.runs[0].preStop", "sleep"}},
		{"two kinds in one action", []string{"simulate", "-f", del, "--script", bad + "script-two-actions.yaml"}, 1,
			[]string{"script-two-actions.yaml:4:", "actions[1]", "exactly one"}},
		{"exit code without exitAfter", []string{"simulate", "-f", job, "--script", bad + "script-exitcode-alone.yaml"}, 1,
			[]string{"script-exitcode-alone.yaml:4:", "containers.report.runs[0].exitCode", "never exits"}},
		{"YAML syntax", []string{"simulate", "-f", job, "--script", bad + "script-bad-yaml.yaml"}, 1,
			[]string{"script-bad-yaml.yaml:4:", "not valid YAML"}},
		{"kill an unknown container", []string{"simulate", "-f", job, "--script", bad + "script-kill-unknown.yaml"}, 1,
			[]string{"script-kill-unknown.yaml:2:", "actions[0].killContainer", `"worker" is not a container`}},
		{"script file missing", []string{"simulate", "-f", job, "--script", bad + "nosuch.yaml"}, 1,
			[]string{"nosuch.yaml", "no such file"}},
		{"bad manifest", []string{"timeline", "-f", bad + "unknown-field.yaml"}, 1,
			[]string{"unknown-field.yaml:9:", `unknown field "restartPolicey"`}},
		{"misspelt gate", []string{"simulate", "-f", job, "--gate", "RestartAllContainersOnContainerExit=false"}, 1,
			[]string{`did you mean "RestartAllContainersOnContainerExits"`}},
		{"no -f", []string{"simulate"}, 2, []string{"-f FILE is required"}},
		{"timeline without -f", []string{"timeline", "-o", "svg"}, 2, []string{"-f FILE is required"}},
		{"--for 0", []string{"simulate", "-f", job, "--for", "0s"}, 2, []string{"-for", "longer than 0s"}},
		{"bad --delete-at", []string{"simulate", "-f", job, "--delete-at", "later"}, 2, []string{"-delete-at", "duration"}},
		{"negative --remove-at", []string{"simulate", "-f", job, "--remove-at", "-1s"}, 2, []string{"-remove-at", "0s or later"}},
		{"--grace alone", []string{"simulate", "-f", job, "--grace", "5"}, 2, []string{"--grace", "--delete-at"}},
		{"simulate -o yaml", []string{"simulate", "-f", job, "-o", "yaml"}, 2, []string{`-o "yaml"`, "text or json"}},
		{"timeline -o png", []string{"timeline", "-f", job, "-o", "png"}, 2, []string{`-o "png"`, "svg or html"}},
		{"unknown flag", []string{"simulate", "-f", job, "--scrpit", "x"}, 2, []string{"unknown flag --scrpit", `did you mean "script"`}},
		{"both from stdin", []string{"simulate", "-f", "-", "--script", "-"}, 2, []string{"standard input"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCmd(tc.args, "")
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, errOut)
			}
			if out != "" {
				t.Errorf("stdout on bad input: %.200s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// A script may be JSON, with durations as numbers of seconds.
func TestScriptJSON(t *testing.T) {
	yamlOut, _, code := runCmd(append([]string{"simulate"}, simCases[1].args...), "")
	if code != 0 {
		t.Fatal("yaml script failed")
	}
	js := `{"containers": {"proxy": {"runs": [{"exitAfter": 30, "exitCode": 1}, {"termAfter": 0.2}]}, "report": {"runs": [{"exitAfter": "1m"}]}}}`
	jsonOut, errOut, code := runCmd([]string{"simulate", "-f", ex + "sidecar-job.yaml", "--script", "-"}, js)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	strip := func(s string) string {
		_, rest, _ := strings.Cut(s, "\nAT ")
		return rest
	}
	if strip(yamlOut) != strip(jsonOut) || strip(jsonOut) == "" {
		t.Errorf("the JSON script simulates otherwise than the YAML one:\n%s", lineDiff(strip(yamlOut), strip(jsonOut)))
	}
}

// The README shows a simulate output and timeline pictures as the command
// writes them now (go test -update rewrites the pictures in docs/).
func TestREADMESimulate(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "prints (the watch view, then the CRI calls):\n\n```\n")
	shown, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README has no simulate output block")
	}
	out, _, _ := runCmd(append([]string{"simulate"}, simCases[1].args...), "")
	out = strings.ReplaceAll(out, ex, "examples/manifests/")
	if shown != out {
		t.Errorf("README's simulate output is stale:\n%s", lineDiff(shown, out))
	}
	for _, p := range []struct{ file, name string }{
		{"../../docs/timeline-delete-prestop-sidecar.svg", "delete-prestop-sidecar"},
		{"../../docs/timeline-sidecar-job-crash.svg", "sidecar-job-crash"},
		{"../../docs/timeline-init-sidecar-app.svg", "init-sidecar-app"},
	} {
		if !strings.Contains(string(readme), strings.TrimPrefix(p.file, "../../")) {
			t.Errorf("README does not show %s", p.file)
		}
		for _, c := range simCases {
			if c.name != p.name {
				continue
			}
			out, _, _ := runCmd(append([]string{"timeline"}, c.args...), "")
			out = strings.ReplaceAll(out, ex, "examples/manifests/")
			if *update {
				if err := os.WriteFile(p.file, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			b, err := os.ReadFile(p.file)
			if err != nil || string(b) != out {
				t.Errorf("%s is stale (go test -update rewrites it): %v", p.file, err)
			}
		}
	}
}

// FuzzSimulate: no script makes simulate or timeline panic, and each ends
// with exit 0 or 1 (bad input).
func FuzzSimulate(f *testing.F) {
	paths, _ := filepath.Glob(scripts + "*.yaml")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"containers": {"report": {"runs": [{"exitAfter": 0.001, "exitCode": 3}]}}, "actions": [{"at": 1, "killSandbox": true}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, cmd := range []string{"simulate", "timeline"} {
			_, _, code := runCmd([]string{cmd, "-f", ex + "sidecar-job.yaml", "--script", "-", "--for", "2m"}, string(data))
			if code != 0 && code != 1 {
				t.Fatalf("%s: exit %d", cmd, code)
			}
		}
	})
}

// TestRuntimeContentionFlag: --runtime-contention takes a positive
// duration or off; zero, a negative duration or a word is a usage error.
func TestRuntimeContentionFlag(t *testing.T) {
	base := []string{"simulate", "-f", "testdata/sim/two-pods.yaml", "--for", "5s"}
	for _, v := range []string{"0s", "-5ms", "none", "14"} {
		_, errOut, code := runCmd(append(base, "--runtime-contention", v), "")
		if code != exitUsage || !strings.Contains(errOut, "runtime-contention") {
			t.Errorf("--runtime-contention %s: exit %d, stderr %q; want a usage error", v, code, errOut)
		}
	}
	for _, v := range []string{"off", "14ms", "1s"} {
		if _, errOut, code := runCmd(append(base, "--runtime-contention", v), ""); code != 0 {
			t.Errorf("--runtime-contention %s: exit %d, stderr %q", v, code, errOut)
		}
	}
}

// With --runtime-contention off, simulate's header says the pods' runtime
// calls do not slow each other only when there are several pods: a single
// pod has no other calls to be slowed by.
func TestRuntimeContentionOffNamesSeveralPods(t *testing.T) {
	out, _, code := runCmd([]string{"simulate", "-f", "testdata/sim/two-pods.yaml", "--for", "5s", "--runtime-contention", "off"}, "")
	if code != 0 || !strings.Contains(out, "the 2 pods' runtime calls do not slow each other (--runtime-contention off") {
		t.Errorf("two pods, contention off: exit %d, header without the 2 pods' line:\n%s", code, out)
	}
	out, _, code = runCmd([]string{"simulate", "-f", ex + "crashloop.yaml", "--for", "5s", "--runtime-contention", "off"}, "")
	if code != 0 || strings.Contains(out, "do not slow each other") || strings.Contains(out, "share the node's container runtime") {
		t.Errorf("one pod, contention off: exit %d, a line about several pods' runtime calls:\n%s", code, out)
	}
}

// simulate's header names each action of the script in its own words,
// those without a phrase of the command's own (a kubelet restart, a
// condition set by another client) as the library says them.
func TestSimulateActionWords(t *testing.T) {
	script := t.TempDir() + "/script.yaml"
	if err := os.WriteFile(script, []byte("actions:\n- at: 10s\n  restartKubelet: 5s\n- at: 20s\n  setCondition: {type: example.com/gate, status: \"True\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd([]string{"simulate", "-f", ex + "crashloop.yaml", "--script", script, "--for", "30s"}, "")
	want := "\nactions: restart kubelet (down 5s) at 10s; set condition example.com/gate True at 20s\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, stderr %q; header without %q:\n%s", code, errOut, want, out)
	}
}

// A static pod whose manifest is removed at 0s ends as one removed then,
// not as one still running when the simulation stopped.
func TestSimulateStaticPodRemovedAtStart(t *testing.T) {
	pod := t.TempDir() + "/static.yaml"
	if err := os.WriteFile(pod, []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n  annotations: {kubernetes.io/config.source: file}\nspec:\n  containers: [{name: app, image: x}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd([]string{"simulate", "-f", pod, "--remove-at", "0s", "--for", "20s"}, "")
	want := "\nend: b: static pod, its manifest removed at 0.000s; the kubelet's last status at "
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, stderr %q; no %q:\n%s", code, errOut, want, out)
	}
}

// --grace 0 is a grace period of 0 s (the API deletes the object at once),
// not "no --grace": the header, the end and the timeline's label say 0s;
// alone, without --delete-at, it is a usage error as any --grace.
func TestSimulateGraceZero(t *testing.T) {
	args := []string{"-f", ex + "crashloop.yaml", "--delete-at", "10s", "--grace", "0", "--for", "30s"}
	out, errOut, code := runCmd(append([]string{"simulate"}, args...), "")
	for _, w := range []string{"\nactions: delete at 10s (grace 0s)\n", "\nend: api-7c9f5d-x2kq8: API object deleted at 10.000s "} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("simulate --grace 0: exit %d, stderr %q; no %q:\n%s", code, errOut, w, out)
		}
	}
	out, errOut, code = runCmd(append([]string{"timeline"}, args...), "")
	if code != 0 || !strings.Contains(out, "kubectl delete (grace 0s)") {
		t.Errorf("timeline --grace 0: exit %d, stderr %q; no label \"kubectl delete (grace 0s)\"", code, errOut)
	}
	_, errOut, code = runCmd([]string{"simulate", "-f", ex + "crashloop.yaml", "--grace", "0"}, "")
	if code != exitUsage || !strings.Contains(errOut, "--delete-at") {
		t.Errorf("--grace 0 alone: exit %d, stderr %q; want a usage error naming --delete-at", code, errOut)
	}
}

// A script action at the very end of the simulation (--for) happens: the
// header does not say it never happens; one after the end, it does.
func TestSimulateActionAtTheEnd(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		at    string
		never bool
	}{{"30s", false}, {"31s", true}} {
		script := dir + "/kill-" + c.at + ".yaml"
		if err := os.WriteFile(script, []byte("actions:\n- at: "+c.at+"\n  killContainer: app\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCmd([]string{"simulate", "-f", ex + "crashloop.yaml", "--script", script, "--for", "30s"}, "")
		line := "\nactions: SIGKILL app's process at " + c.at
		if c.never {
			line += " [after the end: never happens]"
		}
		if code != 0 || !strings.Contains(out, line+"\n") {
			t.Errorf("action at %s, --for 30s: exit %d, stderr %q; no %q:\n%s", c.at, code, errOut, line, out)
		}
	}
}

// Actions at the same time keep their order: the script's, then
// --delete-at, then --remove-at.
func TestSimulateSameTimeActionsKeepOrder(t *testing.T) {
	out, errOut, code := runCmd([]string{"simulate", "-f", ex + "crashloop.yaml", "--delete-at", "10s", "--remove-at", "10s", "--for", "30s"}, "")
	want := "\nactions: delete at 10s (grace 30s, the pod's); remove at 10s "
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, stderr %q; no %q:\n%s", code, errOut, want, out)
	}
}
