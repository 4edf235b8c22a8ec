package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// livenessPod is a pod whose app has a liveness probe with these fields
// (0: left out, the API default), after an optional native sidecar whose
// startup probe has period sidecarPeriod (no sidecar when 0).
func livenessPod(period, threshold, delay, timeout, sidecarPeriod int32) string {
	return livenessPodStartup(period, threshold, delay, timeout, sidecarPeriod, 0)
}

// livenessPodStartup is livenessPod whose app also has a startup probe
// with period appStartupPeriod (none when 0).
func livenessPodStartup(period, threshold, delay, timeout, sidecarPeriod, appStartupPeriod int32) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: default\nspec:\n")
	if sidecarPeriod > 0 {
		fmt.Fprintf(&b, "  initContainers:\n  - name: proxy\n    image: proxy\n    restartPolicy: Always\n    startupProbe:\n      exec: {command: [check]}\n      periodSeconds: %d\n", sidecarPeriod)
	}
	b.WriteString("  containers:\n  - name: app\n    image: app\n")
	if appStartupPeriod > 0 {
		fmt.Fprintf(&b, "    startupProbe:\n      exec: {command: [check]}\n      periodSeconds: %d\n", appStartupPeriod)
	}
	b.WriteString("    livenessProbe:\n      exec: {command: [check]}\n")
	for _, f := range []struct {
		name string
		v    int32
	}{{"periodSeconds", period}, {"failureThreshold", threshold}, {"initialDelaySeconds", delay}, {"timeoutSeconds", timeout}} {
		if f.v > 0 {
			fmt.Fprintf(&b, "      %s: %d\n", f.name, f.v)
		}
	}
	return b.String()
}

func probeOfReport(x *explanation, container, kind string) *probeReport {
	for i := range x.Probes.Probes {
		if p := &x.Probes.Probes[i]; p.Container == container && p.Probe == kind {
			return p
		}
	}
	return nil
}

// TestExplainFirstKillEqualsSimulation: for a pod just admitted, the first
// possible liveness kill explain names is the first liveness kill of
// sim.Simulate when the probe always fails, over random periods,
// thresholds, initial delays and timeouts, with and without a native
// sidecar whose startup probe the app waits for, with and without a
// startup probe of the app's own.
func TestExplainFirstKillEqualsSimulation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		period := rapid.Int32Range(0, 12).Draw(t, "period")
		threshold := rapid.Int32Range(0, 6).Draw(t, "failureThreshold")
		delay := rapid.SampledFrom([]int32{0, 1, 2, 3, 5, 9, 10, 17, 30}).Draw(t, "initialDelay")
		timeout := rapid.Int32Range(0, 3).Draw(t, "timeout")
		sidecar := rapid.SampledFrom([]int32{0, 0, 1, 2, 3, 7}).Draw(t, "sidecar startup period")
		startup := rapid.SampledFrom([]int32{0, 0, 1, 2, 5, 10}).Draw(t, "app startup period")
		src := livenessPodStartup(period, threshold, delay, timeout, sidecar, startup)
		pods, err := readPods([]byte(src), "test.yaml")
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		x := explain(explainInput{pod: pods[0].pod, from: "test", gates: features.Set{}})
		rep := probeOfReport(x, "app", "liveness")
		if rep == nil {
			t.Fatalf("no liveness report\n%s", src)
		}

		script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{Liveness: []sim.ProbeStep{{At: 0, Result: vocab.ProbeFailure}}}}}}}
		tl, err := sim.Simulate(sim.Config{For: sim.Duration(5 * time.Minute)}, []sim.PodInput{{Pod: pods[0].pod, Script: script}})
		if err != nil {
			t.Fatal(err)
		}
		kill, ok := tl.First("p", func(e sim.Entry) bool {
			return e.Kind == sim.KindProbe && e.Probe != nil && e.Probe.Container == "app" && e.Probe.Probe == "liveness" && e.Probe.Result == vocab.ProbeFailure && !e.Probe.Initial
		})
		if !ok {
			t.Fatalf("no liveness kill in the simulation\n%s", tl.Events())
		}
		want := "+" + kill.At.String()
		if rep.RacesStartup && rep.FirstKill != want {
			// The liveness tick at which the startup probe succeeds: the
			// simulation's event order decides the race, explain names
			// the earliest outcome and says the other is a period later.
			want = "+" + (kill.At - time.Duration(rep.PeriodSeconds)*time.Second).String()
		}
		if rep.FirstKill != want {
			t.Fatalf("explain says the first possible kill is at %s, the simulation kills at %s\n%s\n%s", rep.FirstKill, want, strings.Join(rep.Say, "\n"), tl.Events())
		}
	})
}

// Done when: explain of a pod with an exec liveness probe (period 5,
// threshold 3) names the first possible kill time, in text, JSON and YAML;
// of a sidecar with a startup probe, that the app waits for it.
func TestExplainNamesProbeTimes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	live := write("live.yaml", livenessPod(5, 3, 0, 0, 0))
	out, errOut, code := runCmd([]string{"explain", "-f", live}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"PROBES:", "app: liveness probe (exec check): initialDelay 0s, every 5s, timeout 1s", "first possible kill at +15s, the 3rd failure in a row", "+16s if each probe hangs until its 1s timeout", `kills app ("Container app failed liveness probe, will be restarted"), grace 30s`} {
		if !strings.Contains(out, want) {
			t.Errorf("explain text lacks %q:\n%s", want, out)
		}
	}
	js, _, code := runCmd([]string{"explain", "-f", live, "-o", "json"}, "")
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	var doc struct {
		Items []explanation `json:"items"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Items) != 1 {
		t.Fatalf("json: %v\n%s", err, js)
	}
	if p := probeOfReport(&doc.Items[0], "app", "liveness"); p == nil || p.FirstKill != "+15s" || p.PeriodSeconds != 5 || p.FailureThreshold != 3 {
		t.Fatalf("json probe report %+v", p)
	}
	ym, _, code := runCmd([]string{"explain", "-f", live, "-o", "yaml"}, "")
	if code != 0 || !strings.Contains(ym, "firstPossibleKill: +15s") {
		t.Fatalf("yaml (exit %d) lacks firstPossibleKill: +15s:\n%s", code, ym)
	}

	side := write("side.yaml", livenessPod(5, 3, 0, 0, 2))
	out, _, _ = runCmd([]string{"explain", "-f", side}, "")
	for _, want := range []string{"proxy: startup probe (exec check)", "proxy counts as started at +2s at the earliest", "proxy is a native sidecar: the kubelet starts the containers after it (app) only once it has started, so they wait for this probe", "times for its earliest start, at +2s"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain text lacks %q:\n%s", want, out)
		}
	}
	js, _, _ = runCmd([]string{"explain", "-f", side, "-o", "json"}, "")
	doc.Items = nil
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Items) != 1 {
		t.Fatalf("json: %v", err)
	}
	if p := probeOfReport(&doc.Items[0], "proxy", "startup"); p == nil || len(p.Waiting) != 1 || p.Waiting[0] != "app" || p.Started != "+2s" {
		t.Fatalf("json startup report %+v", p)
	}
	ym, _, _ = runCmd([]string{"explain", "-f", side, "-o", "yaml"}, "")
	if !strings.Contains(ym, "waiting:\n") || !strings.Contains(ym, "startedAtTheEarliest: +2s") {
		t.Fatalf("yaml lacks the sidecar's waiters:\n%s", ym)
	}
}

// TestExplainReadyWithinSimulation: for a pod just admitted whose
// readiness probe always succeeds, the container becomes ready in
// sim.Simulate no earlier than explain's first probe and no later than
// its "at the latest", over random
// periods, success thresholds and initial delays.
func TestExplainReadyWithinSimulation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		period := rapid.Int32Range(1, 12).Draw(t, "period")
		success := rapid.Int32Range(1, 4).Draw(t, "successThreshold")
		delay := rapid.SampledFrom([]int32{0, 1, 2, 3, 5, 9, 10, 17, 30}).Draw(t, "initialDelay")
		src := fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: default\nspec:\n  containers:\n  - name: app\n    image: app\n    readinessProbe:\n      exec: {command: [check]}\n      periodSeconds: %d\n      successThreshold: %d\n      initialDelaySeconds: %d\n", period, success, delay)
		pods, err := readPods([]byte(src), "test.yaml")
		if err != nil {
			t.Fatal(err)
		}
		x := explain(explainInput{pod: pods[0].pod, from: "test", gates: features.Set{}})
		rep := probeOfReport(x, "app", "readiness")
		if rep == nil {
			t.Fatal("no readiness report")
		}
		tl, err := sim.Simulate(sim.Config{For: sim.Duration(3 * time.Minute)}, []sim.PodInput{{Pod: pods[0].pod}})
		if err != nil {
			t.Fatal(err)
		}
		ready, ok := tl.First("p", func(e sim.Entry) bool {
			return e.Kind == sim.KindProbe && e.Probe != nil && e.Probe.Probe == "readiness" && e.Probe.Result == vocab.ProbeSuccess && !e.Probe.Initial
		})
		if !ok {
			t.Fatalf("never ready\n%s", tl.Events())
		}
		dur := func(s string) time.Duration {
			d, err := time.ParseDuration(strings.TrimPrefix(s, "+"))
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		lo, hi := dur(rep.FirstProbe), dur(rep.ReadyBy)
		if ready.At < lo || ready.At > hi {
			t.Fatalf("ready at %s in the simulation, explain says at the earliest %s, by the ticks %s\n%s\n%s", ready.At, lo, hi, strings.Join(rep.Say, "\n"), tl.Events())
		}
	})
}

// PROBES names each probe's handler: exec, httpGet, tcpSocket, grpc.
func TestExplainNamesProbeHandlers(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - name: app
    image: app
    readinessProbe:
      tcpSocket: {port: 8080}
    livenessProbe:
      grpc: {port: 9090}
    startupProbe:
      httpGet: {path: /healthz, port: 8081}
`
	out, errOut, code := runCmd([]string{"explain", "-f", "-"}, pod)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"app: startup probe (httpGet /healthz port 8081):", "app: liveness probe (grpc port 9090):", "app: readiness probe (tcpSocket port 8080):"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain text lacks %q:\n%s", want, out)
		}
	}
}

// The failure that commits a liveness probe's result is named with its
// English ordinal: 2nd, 3rd, 4th, 10th, 11th to 13th, 21st, 22nd, 23rd,
// 111th, 112th.
func TestExplainProbeOrdinals(t *testing.T) {
	for n, want := range map[int32]string{2: "2nd", 3: "3rd", 4: "4th", 10: "10th", 11: "11th", 12: "12th", 13: "13th", 20: "20th", 21: "21st", 22: "22nd", 23: "23rd", 111: "111th", 112: "112th"} {
		out, errOut, code := runCmd([]string{"explain", "-f", "-"}, livenessPod(5, n, 0, 0, 0))
		if code != exitOK {
			t.Fatalf("failureThreshold %d: exit %d: %s", n, code, errOut)
		}
		if w := "the " + want + " failure in a row"; !strings.Contains(out, w) {
			t.Errorf("failureThreshold %d: explain text lacks %q:\n%s", n, w, out)
		}
	}
}

// PROBES says which init containers a probed container's earliest start
// takes to complete at once (none: nothing said), and names its preStop
// hook in the kill's grace only when it has one (a postStart hook alone is
// no preStop).
func TestExplainProbeBasisAndPreStop(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  initContainers:
  - {name: a, image: a}
  - {name: b, image: b}
  containers:
  - name: app
    image: app
    lifecycle:
      preStop:
        exec: {command: [drain]}
    livenessProbe:
      exec: {command: [check]}
`
	bare := strings.NewReplacer("  initContainers:\n  - {name: a, image: a}\n  - {name: b, image: b}\n", "", "preStop:", "postStart:").Replace(pod)
	for _, tc := range []struct {
		name, pod string
		want      []string
	}{
		{"two init containers, a preStop hook", pod, []string{
			"    times for its earliest start: at the pod's start (+0s), in the pod's first second, taking the 2 init containers before it to complete at once\n",
			`kills app ("Container app failed liveness probe, will be restarted"), grace 30s (the pod's terminationGracePeriodSeconds, its preStop hook first)` + "\n"}},
		{"no init container, a postStart hook", bare, []string{
			"    times for its earliest start: at the pod's start (+0s), in the pod's first second\n",
			`kills app ("Container app failed liveness probe, will be restarted"), grace 30s (the pod's terminationGracePeriodSeconds)` + "\n"}},
	} {
		out, errOut, code := runCmd([]string{"explain", "-f", "-"}, tc.pod)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: explain text lacks %q:\n%s", tc.name, w, out)
			}
		}
	}
}

// A liveness probe with failureThreshold 1 commits at its first failure.
func TestExplainProbeThresholdOne(t *testing.T) {
	out, errOut, code := runCmd([]string{"explain", "-f", "-"}, livenessPod(5, 1, 0, 0, 0))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if w := "the first possible kill at +5s, at the first failure (failureThreshold 1) (+6s if each probe hangs until its 1s timeout)"; !strings.Contains(out, w) {
		t.Errorf("explain text lacks %q:\n%s", w, out)
	}
}
