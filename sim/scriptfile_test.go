package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"
)

func scriptPods() []*v1.Pod {
	always := v1.ContainerRestartPolicyAlways
	exec := &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"sh"}}}
	web := testPod(v1.PodSpec{
		InitContainers: []v1.Container{{Name: "proxy", Image: "envoy", RestartPolicy: &always, Lifecycle: &v1.Lifecycle{PreStop: exec}}},
		Containers:     []v1.Container{{Name: "app", Image: "web:1", ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}}}})
	job := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "report", Image: "report:1"}}})
	job.Name = "job"
	return []*v1.Pod{web, job}
}

// TestReadScriptErrors: each error names the line and the field, and a
// misspelt name gets the nearest valid one.
func TestReadScriptErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		line int
		path string
		msg  string
	}{
		{"containers:\n  proxy:\n    runs:\n    - exitAftr: 30s\n", 4, "containers.proxy.runs[0].exitAftr", `unknown field (did you mean "exitAfter"?)`},
		{"contaners: {}\n", 1, "contaners", `unknown field (did you mean "containers"?)`},
		{"containers:\n  prxy:\n    runs: []\n", 2, "containers.prxy", `"prxy" is not a container of pod web, job (did you mean "proxy"?) (its containers: proxy, app, report)`},
		{"containers:\n  proxy:\n    runs:\n    - {exitAfter: 1s}\n    - {exitAfter: soon}\n", 5, "containers.proxy.runs[1].exitAfter", `"soon" is not a duration`},
		{"containers:\n  app:\n    runs:\n    - readiness: [{at: 0s, result: Pass}]\n", 4, "containers.app.runs[0].readiness[0].result", `"Pass": want Success or Failure`},
		{"containers:\n  report:\n    runs:\n    - {liveness: [{at: 1s, result: Failure}]}\n", 4, "containers.report.runs[0].liveness", "no livenessProbe"},
		{"containers:\n  report:\n    runs:\n    - {exitCode: 3}\n", 4, "containers.report.runs[0].exitCode", "never exits"},
		{"containers:\n  report:\n    runs:\n    - {exitAfter: 1s, exitCode: 300}\n", 4, "containers.report.runs[0].exitCode", "not an exit code"},
		{"containers:\n  app:\n    runs:\n    - readiness:\n      - {at: 5s, result: Failure}\n      - {at: 1s, result: Success}\n", 6, "containers.app.runs[0].readiness[1].at", "before the step before it"},
		{"containers:\n  report:\n    runs:\n    - {preStop: 2s}\n", 4, "containers.report.runs[0].preStop", "no preStop hook"},
		{"actions:\n- {at: 5s, delete: true}\n- {at: 6s, remove: true, killSandbox: true}\n", 3, "actions[1]", "exactly one"},
		{"actions:\n- {at: 5s, killContainer: aap}\n", 2, "actions[0].killContainer", `(did you mean "app"?)`},
		{"actions:\n- {at: 5s, remove: true, gracePeriod: 3}\n", 2, "actions[0].gracePeriod", "only a delete"},
		{"actions:\n- {at: 5s, resize: {ap: {}}}\n", 2, "actions[0].resize.ap", `(did you mean "app"?)`},
		{"apiVersion: kubeletlogic/v2\n", 1, "apiVersion", `"kubeletlogic/v2": this library reads kubeletlogic/v1alpha1`},
		{"kind: Scrpt\n", 1, "kind", `want Script (did you mean "Script"?)`},
		{"kind: Simulation\n", 1, "kind", "ReadSimulation"},
		{"containers:\n  proxy: {\n", 2, "", "not valid YAML"},
	} {
		_, err := ReadScript([]byte(tc.text), scriptPods())
		var se *ScriptError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v, want a *ScriptError", tc.text, err)
			continue
		}
		if se.Line != tc.line || se.Path != tc.path || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%q:\n got line %d path %q: %s\nwant line %d path %q: …%s…", tc.text, se.Line, se.Path, se.Msg, tc.line, tc.path, tc.msg)
		}
	}
	if _, err := ReadScript([]byte("{}"), nil); err == nil {
		t.Error("a script read for no pod")
	}
	if _, err := ReadScript([]byte("{}"), []*v1.Pod{nil}); err == nil {
		t.Error("a script read for a nil pod")
	}
}

// TestReadScriptReads: what a script says reaches the PodInputs: each
// pod's behaviours, the runtime's delays, the actions; the version fields
// are optional; bare numbers are seconds, with a warning on their line.
func TestReadScriptReads(t *testing.T) {
	text := `apiVersion: kubeletlogic/v1alpha1
kind: Script
containers:
  proxy:
    runs:
    - exitAfter: 30
      exitCode: 1
    - termAfter: 200ms
  report:
    runs:
    - {exitAfter: 5s}
runtime: {runPodSandbox: 1s}
actions:
- {at: 60s, delete: true}
- {at: 70s, delete: true, gracePeriod: 5}
- {at: 10s, addEphemeral: {name: debug, image: busybox}}
`
	pods := scriptPods()
	f, err := ReadScript([]byte(text), pods)
	if err != nil {
		t.Fatal(err)
	}
	web, job := f.PodScript(pods[0]), f.PodScript(pods[1])
	if got := web.Containers["proxy"].Runs; len(got) != 2 || got[0].ExitAfter != Duration(30*time.Second) || got[0].ExitCode != 1 || got[1].TermAfter != Duration(200*time.Millisecond) {
		t.Errorf("proxy's runs: %+v", got)
	}
	if _, ok := web.Containers["report"]; ok || len(job.Containers) != 1 || job.Containers["report"].Runs[0].ExitAfter != Duration(5*time.Second) {
		t.Errorf("each pod's containers: web %v, job %v", web.Containers, job.Containers)
	}
	if web.Runtime.RunPodSandbox != Duration(time.Second) || job.Runtime != web.Runtime {
		t.Errorf("runtime: %+v", web.Runtime)
	}
	var acts []string
	for _, a := range f.Actions {
		acts = append(acts, fmt.Sprintf("%s at %s", a.Action(), a.At))
	}
	if got := strings.Join(acts, "; "); got != "delete at 1m0s; delete --grace-period=5 at 1m10s; add ephemeral container debug at 10s" {
		t.Errorf("actions: %s", got)
	}
	w := f.Warnings()
	if len(w) != 1 || w[0].Line != 6 || w[0].Path != "containers.proxy.runs[0].exitAfter" || !strings.Contains(w[0].Msg, "read as 30 seconds") {
		t.Errorf("warnings: %+v", w)
	}
	for path, line := range map[string]int{"actions[1].at": 15, "actions[2].addEphemeral": 16, "containers.report.runs[0]": 11, "runtime": 12, "nosuch": 0} {
		if got := f.Line(path); got != line {
			t.Errorf("Line(%q) = %d, want %d", path, got, line)
		}
	}
	// Without apiVersion and kind it reads the same.
	g, err := ReadScript([]byte(strings.SplitN(text, "\n", 3)[2]), pods)
	if err != nil || !reflect.DeepEqual(g.Containers, f.Containers) || !reflect.DeepEqual(g.Actions, f.Actions) {
		t.Errorf("without the version: %v", err)
	}
	if e, err := ReadScript(nil, pods); err != nil || len(e.Containers)+len(e.Actions) != 0 {
		t.Errorf("an empty script: %+v, %v", e, err)
	}
}

// TestReadScriptRoundTrip: a script written as JSON by encoding/json
// (random behaviours, made to fit the containers' specs, and random
// actions) reads back as the same script.
func TestReadScriptRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t, 0, time.Minute)
		for name, b := range in.Script.Containers {
			c := containerByName(in.Pod, name)
			for i := range b.Runs {
				r := &b.Runs[i]
				if r.IgnoreSIGTERM {
					r.TermAfter, r.TermSpread, r.TermStep, r.TermExitCode = 0, 0, 0, 0
				}
				if c == nil || c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep != nil {
					r.PreStop = 0
				}
				if c == nil || c.Lifecycle == nil || c.Lifecycle.PostStart == nil || c.Lifecycle.PostStart.Sleep != nil {
					r.PostStart, r.PostStartFails = 0, false
				}
				if c == nil || c.LivenessProbe == nil {
					r.Liveness = nil
				}
				if c == nil || c.ReadinessProbe == nil {
					r.Readiness = nil
				}
				if c == nil || c.StartupProbe == nil {
					r.Startup = nil
				}
			}
		}
		f := ScriptFile{APIVersion: ScriptAPIVersion, Kind: ScriptKind, Containers: in.Script.Containers, Runtime: RuntimeDelays{Relist: Duration(rapid.IntRange(0, 50).Draw(t, "relist ms")) * Duration(time.Millisecond)}}
		for _, a := range in.Actions {
			sa := ScriptAction{At: a.At, Remove: a.Remove, RemoveFinalizers: a.RemoveFinalizers, KillContainer: a.KillContainer, KillSandbox: a.KillSandbox,
				SetCondition: a.SetCondition, RestartKubelet: a.RestartKubelet, Evict: a.Evict}
			if a.Delete != nil {
				sa.Delete = true
				if *a.Delete >= 0 {
					sa.GracePeriod = a.Delete
				}
			}
			f.Actions = append(f.Actions, sa)
		}
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadScript(b, []*v1.Pod{in.Pod})
		if err != nil {
			t.Fatalf("ReadScript(%s): %v", b, err)
		}
		b2, _ := json.Marshal(got)
		if string(b2) != string(b) {
			t.Fatalf("read back otherwise:\n %s\n %s", b, b2)
		}
		ps := got.PodScript(in.Pod)
		if want := (Script{Containers: in.Script.Containers, Runtime: f.Runtime}); !reflect.DeepEqual(ps, want) && len(in.Script.Containers) > 0 {
			t.Fatalf("PodScript: %+v, want %+v", ps, want)
		}
		for i, a := range got.Actions {
			if g, w := a.Action().String(), in.Actions[i].String(); g != w || a.Action().At != in.Actions[i].At {
				t.Fatalf("action %d: %s at %s, want %s at %s", i, g, a.At, w, in.Actions[i].At)
			}
		}
	})
}
