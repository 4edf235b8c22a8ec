package main

import (
	"strings"
	"testing"
)

// simulate answers the resize question from a manifest: a cpu resize is
// done in place, a memory resize under resizePolicy RestartContainer
// restarts the container; the header says how the kubelet admits it and
// what is not modelled.
func TestSimulateResizeFlag(t *testing.T) {
	web := ex + "web-hooks-resize.yaml"
	out, errOut, code := runCmd([]string{"simulate", "-f", web, "--resize", "web:cpu=1", "--resize-at", "30s", "--for", "1m"}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"resize: the kubelet admits it when", "PodResizeInProgress", "actions: resize web requests.cpu=1,limits.cpu=1 at 30s",
		"30.000s  web  UpdateContainerResources web shop.web-web-0 cpu shares 1024, cpu quota 100000/100000, memory limit 128Mi"} {
		if !strings.Contains(out, want) {
			t.Errorf("cpu resize: no %q in\n%s", want, out)
		}
	}
	if _, calls, _ := strings.Cut(out, "CRI calls:"); strings.Contains(calls, "StopContainer") {
		t.Errorf("cpu resize must not restart:\n%s", out)
	}

	out, errOut, code = runCmd([]string{"simulate", "-f", web, "--resize", "web:memory=256Mi", "--resize-at", "30s", "--for", "1m"}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"StopContainer web shop.web-web-0 timeout 30s", "CreateContainer web (restart 1) -> shop.web-web-1"} {
		if !strings.Contains(out, want) {
			t.Errorf("memory resize: no %q in\n%s", want, out)
		}
	}
	if _, calls, _ := strings.Cut(out, "CRI calls:"); strings.Contains(calls, "UpdateContainerResources") {
		t.Errorf("memory resize with RestartContainer is a restart, not an update:\n%s", out)
	}
}

// Bad resize input and scripted hooks the pod does not have are errors
// that say what is wrong.
func TestSimulateHooksAndResizeErrors(t *testing.T) {
	web := ex + "web-hooks-resize.yaml"
	job := ex + "sidecar-job.yaml"
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		code  int
		wants []string
	}{
		{"resize without when", []string{"simulate", "-f", web, "--resize", "web:cpu=1"}, "", 2, []string{"--resize and --resize-at go together"}},
		{"when without resize", []string{"simulate", "-f", web, "--resize-at", "5s"}, "", 2, []string{"--resize and --resize-at go together"}},
		{"container needed", []string{"simulate", "-f", web, "--resize", "cpu=1", "--resize-at", "5s"}, "", 1, []string{"name the container", "web, log-shipper"}},
		{"misspelt container", []string{"simulate", "-f", web, "--resize", "wbe:cpu=1", "--resize-at", "5s"}, "", 1, []string{`did you mean "web"?`}},
		{"not cpu or memory", []string{"simulate", "-f", web, "--resize", "web:ephemeral-storage=1Gi", "--resize-at", "5s"}, "", 1, []string{"only cpu and memory"}},
		{"bad quantity", []string{"simulate", "-f", web, "--resize", "web:cpu=lots", "--resize-at", "5s"}, "", 1, []string{"not a quantity"}},
		{"qos change", []string{"simulate", "-f", web, "--resize", "web:requests.cpu=500m", "--resize", "log-shipper:requests.cpu=100m", "--resize-at", "5s"}, "", 1, []string{"QoS"}},
		{"script resize unknown container", []string{"simulate", "-f", web, "--script", "-"}, "actions:\n- {at: 5s, resize: {wbe: {limits: {cpu: 1}}}}\n", 1,
			[]string{"actions[0].resize.wbe", `did you mean "web"?`}},
		{"postStart without a hook", []string{"simulate", "-f", job, "--script", "-"}, "containers:\n  proxy:\n    runs:\n    - postStart: 2s\n", 1,
			[]string{"containers.proxy.runs[0].postStart", "no postStart hook in its spec"}},
		{"negative postStart", []string{"simulate", "-f", web, "--script", "-"}, "containers:\n  web:\n    runs:\n    - postStart: -2s\n", 1,
			[]string{"postStart", "want 0s or more"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCmd(tc.args, tc.stdin)
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
}

// The header names every exec or httpGet hook the script does not time
// (taken to return at once), and none it times.
func TestSimulateHookAssumptions(t *testing.T) {
	web := ex + "web-hooks-resize.yaml"
	out, errOut, code := runCmd([]string{"simulate", "-f", web, "--for", "10s"}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"web: exec postStart hook not scripted: taken to succeed at once", "web: exec preStop hook not scripted: taken to return at once",
		"ExecSync web shop.web-web-0 (postStart hook, 0s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	out, _, _ = runCmd([]string{"simulate", "-f", web, "--script", "-", "--for", "10s"}, "containers:\n  web:\n    runs:\n    - {postStart: 3s, preStop: 1s}\n")
	if strings.Contains(out, "hook not scripted") || !strings.Contains(out, "postStart hook runs 3s") {
		t.Errorf("a scripted hook is not an assumption:\n%s", out)
	}
}
