package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Script input whose meaning is not what it says is refused or warned
// about, in the style of the other input errors: file, line, field.
func TestScriptMeaning(t *testing.T) {
	const bad = "testdata/bad/"
	job, app := ex+"sidecar-job.yaml", ex+"init-sidecar-app.yaml"
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"exit code 256", []string{"simulate", "-f", job, "--script", bad + "script-exitcode-256.yaml"}, 1,
			[]string{"script-exitcode-256.yaml:5: containers.report.runs[0].exitCode: 256 is not an exit code", "0-255"}},
		{"negative term exit code", []string{"timeline", "-f", job, "--script", bad + "script-termexitcode-negative.yaml"}, 1,
			[]string{"script-termexitcode-negative.yaml:5: containers.proxy.runs[0].termExitCode: -1 is not an exit code"}},
		{"probe steps out of order", []string{"simulate", "-f", app, "--script", bad + "script-steps-out-of-order.yaml"}, 1,
			[]string{"script-steps-out-of-order.yaml:6: containers.app.runs[0].readiness[1].at: 0s is before the step before it (10s)", "increasing order"}},
		{"probe steps at one age", []string{"simulate", "-f", app, "--script", bad + "script-steps-same-age.yaml"}, 1,
			[]string{"script-steps-same-age.yaml:4: containers.proxy.runs[0].startup[1].at: 2s: the step before it has the same age"}},
		{"--delete-at after --for", []string{"simulate", "-f", job, "--for", "1m", "--delete-at", "90s"}, 2,
			[]string{"--delete-at 1m30s is not before the end of the simulation (--for 1m0s)"}},
		{"--delete-at at --for", []string{"timeline", "-f", job, "--for", "1m", "--delete-at", "1m"}, 2,
			[]string{"--delete-at 1m0s is not before the end"}},
		{"--remove-at after the default --for", []string{"simulate", "-f", job, "--remove-at", "11m"}, 2,
			[]string{"--remove-at 11m0s is not before the end of the simulation (--for 10m0s)"}},
		{"--for without a unit", []string{"simulate", "-f", job, "--for", "30"}, 2,
			[]string{"30 has no unit: write 30s"}},
		{"--delete-at without a unit", []string{"simulate", "-f", job, "--delete-at", "1.5"}, 2,
			[]string{"1.5 has no unit"}},
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

// A duration written as a bare number is read as seconds, with a warning
// naming the line; zero is not warned about. A script action after the end
// of the simulation is warned about and marked in the header.
func TestScriptWarnings(t *testing.T) {
	out, errOut, code := runCmd([]string{"simulate", "-f", ex + "sidecar-job.yaml", "--script", "testdata/given/script-bare-numbers.yaml", "--for", "2m"}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := []string{
		"kubeletlogic simulate: warning: testdata/given/script-bare-numbers.yaml:5: containers.report.runs[0].exitAfter: 30 has no unit: read as 30 seconds (30s); write 30s to say so",
		"kubeletlogic simulate: warning: testdata/given/script-bare-numbers.yaml:8: containers.proxy.runs[0].termAfter: 0.2 has no unit: read as 0.2 seconds (200ms); write 200ms to say so",
		"kubeletlogic simulate: warning: testdata/given/script-bare-numbers.yaml:10: runtime.relist: 0.01 has no unit: read as 0.01 seconds (10ms); write 10ms to say so",
		"kubeletlogic simulate: warning: testdata/given/script-bare-numbers.yaml:12: actions[0].at: 45 has no unit: read as 45 seconds (45s); write 45s to say so",
		"kubeletlogic simulate: warning: testdata/given/script-bare-numbers.yaml:13: actions[1].at: 5m0s is after the end of the simulation (--for 2m0s): the action (remove finalizers) never happens",
	}
	if got := strings.Split(strings.TrimSpace(errOut), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, strings.Join(want, "\n"))
	}
	if !strings.Contains(out, "remove the finalizers at 5m0s [after the end: never happens]") {
		t.Errorf("the header does not mark the action after the end:\n%s", out)
	}
	if !strings.Contains(out, "exits 0 after 30s") {
		t.Errorf("30 not read as 30s:\n%s", out)
	}
}

// check says which parts of the status it takes as given, among them the
// AllContainersRestarting condition: it cannot know whether the kubelet
// marked the pod.
func TestCheckTakenAsGiven(t *testing.T) {
	out, errOut, code := runCmd([]string{"check", "-f", "testdata/given/restartall-restarting.json"}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{
		"consistent: a kubelet v1.37.2 could have written this status for this spec",
		"with the parts below taken as given",
		"taken as given (the API status does not show the runtime",
		"  - the container states, restart counts and exit codes: they come from the runtime",
		"  - podHasInitialized true, estimated from the container statuses",
		"  - PodReadyToStartContainers True: as the status has it",
		"  - AllContainersRestarting True: as the status has it; whether the kubelet marked the pod to restart all its containers is not in the API status",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("check output lacks %q:\n%s", w, out)
		}
	}
	// Without the gate, no AllContainersRestarting is read.
	out, _, _ = runCmd([]string{"check", "-f", "testdata/given/restartall-restarting.json", "--gate", "RestartAllContainersOnContainerExits=false"}, "")
	if strings.Contains(out, "AllContainersRestarting True: as the status has it") {
		t.Errorf("gate off, yet AllContainersRestarting is taken as given:\n%s", out)
	}
	js, _, _ := runCmd([]string{"check", "-f", "testdata/given/restartall-restarting.json", "-o", "json"}, "")
	var doc struct {
		Items []struct {
			TakenAsGiven []string `json:"takenAsGiven"`
		} `json:"items"`
	}
	err := json.Unmarshal([]byte(js), &doc)
	reports := doc.Items
	if err != nil || len(reports) != 1 {
		t.Fatalf("check -o json: %v\n%s", err, js)
	}
	found := false
	for _, g := range reports[0].TakenAsGiven {
		found = found || strings.HasPrefix(g, "AllContainersRestarting True")
	}
	if !found {
		t.Errorf("check -o json takenAsGiven lacks AllContainersRestarting: %q", reports[0].TakenAsGiven)
	}
}

// TestCheckTerminalWithRunningContainer: an API status with phase Failed
// beside a running container is one no kubelet writes (mergePodStatus
// holds the terminal phase until SyncTerminatingPod has stopped every
// container); the kubelet's own copy of a static pod (its /pods endpoint)
// may show it, and is not reported.
func TestCheckTerminalWithRunningContainer(t *testing.T) {
	out, errOut, code := runCmd([]string{"check", "-f", "testdata/given/deadline-failed-running.yaml"}, "")
	if code != 3 || !strings.Contains(out, "status.containerStatuses[main].state: a kubelet writes phase Failed to the API only after SyncTerminatingPod stopped every container") {
		t.Errorf("exit %d (want 3), output:\n%s%s", code, out, errOut)
	}
	static, err := os.ReadFile("testdata/given/deadline-failed-running.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(static), "  namespace: default\n", "  namespace: default\n  annotations:\n    kubernetes.io/config.source: file\n", 1)
	out, errOut, code = runCmd([]string{"check", "-f", "-"}, s)
	if strings.Contains(out, "status.containerStatuses[main].state") || !strings.Contains(out, "the status is the kubelet's own (a static pod from its /pods endpoint)") {
		t.Errorf("a static pod's own status (exit %d): want no state mismatch and the note on the kubelet's cache:\n%s%s", code, out, errOut)
	}
	// Its mirror pod went through the API: reported again.
	s = strings.Replace(s, "kubernetes.io/config.source: file\n", "kubernetes.io/config.source: file\n    kubernetes.io/config.mirror: abc\n", 1)
	out, _, code = runCmd([]string{"check", "-f", "-"}, s)
	if code != 3 || !strings.Contains(out, "status.containerStatuses[main].state") {
		t.Errorf("a mirror pod (exit %d): want the state mismatch:\n%s", code, out)
	}
}

// TestExplainDeletionStopsEphemeral: with no runtime state given, IF
// DELETED NOW kills the ephemeral containers too (they run from when they
// are added; killContainersWithSyncResult stops every running container).
func TestExplainDeletionStopsEphemeral(t *testing.T) {
	out, errOut, code := runCmd([]string{"explain", "-f", "testdata/given/ephemeral-debug.yaml"}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{
		"once its sidecars, containers and ephemeral containers run",
		"debugger-8xzrl (e1): grace 30s; StopContainer (SIGTERM) at 0s",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("explain lacks %q:\n%s", w, out)
		}
	}
}

// TestExplainTerminalPhaseHeldBack: past activeDeadlineSeconds with its
// container running, explain's STATUS is generateAPIPodStatus's phase
// Failed, and says the API keeps the phase it has until the containers
// have stopped (mergePodStatus); before the deadline there is no such
// note.
func TestExplainTerminalPhaseHeldBack(t *testing.T) {
	out, errOut, code := runCmd([]string{"explain", "-f", "testdata/given/deadline-running.yaml", "--at", "40s"}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "(containers still run: the status manager writes phase Failed (with its reason and message) to the API only once SyncTerminatingPod has stopped them (mergePodStatus); until then the API keeps phase Running"
	if !strings.Contains(out, "phase Failed:") || !strings.Contains(out, want) {
		t.Errorf("explain --at 40s lacks the held-back note %q:\n%s", want, out)
	}
	out, _, _ = runCmd([]string{"explain", "-f", "testdata/given/deadline-running.yaml", "--at", "10s"}, "")
	if strings.Contains(out, "containers still run:") {
		t.Errorf("before the deadline: no held-back note wanted:\n%s", out)
	}
}

// A script action at exactly --for happens (the simulation delivers it at
// its last instant): no warning that it never happens, none in the header,
// and the timeline shows it.
func TestScriptActionAtTheEnd(t *testing.T) {
	script := t.TempDir() + "/script.yaml"
	if err := os.WriteFile(script, []byte("actions:\n- {at: 1m, delete: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd([]string{"simulate", "-f", ex + "init-sidecar-app.yaml", "--script", script, "--for", "1m", "--events"}, "")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, want 0; stderr: %s", code, errOut)
	}
	for _, w := range []string{"actions: delete at 1m0s (grace 30s, the pod's)\n", "  60.000s  action web  delete\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("simulate lacks %q:\n%s", w, out)
		}
	}
}
