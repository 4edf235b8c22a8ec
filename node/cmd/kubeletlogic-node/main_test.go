package main

import (
	"bytes"
	"context"
	"github.com/kubeletlogic/kubeletlogic/features"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	c, err := parse(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := config{mode: "kwok", nodes: 1, nodePrefix: "kubeletlogic", nodeSelector: "kwok.x-k8s.io/node=fake",
		version: "v1.37.2", qps: 50, burst: 100, jobRunTime: 10 * time.Second}
	if c != want {
		t.Errorf("defaults %+v: want %+v", c, want)
	}
	c, err = parse([]string{"--mode", "standalone", "--nodes", "3", "--node-prefix", "fake", "--qps", "5", "--burst", "7",
		"--kubeconfig", "/k", "--kubelet-version", "1.35", "--feature-gates", "A=true", "--seed", "9", "--job-run-time", "2s"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want = config{kubeconfig: "/k", mode: "standalone", nodes: 3, nodePrefix: "fake", nodeSelector: "kwok.x-k8s.io/node=fake",
		version: "1.35", gates: "A=true", qps: 5, burst: 7, jobRunTime: 2 * time.Second, seed: 9}
	if c != want {
		t.Errorf("standalone %+v: want %+v", c, want)
	}
	// --qps and --burst limit each node's pod status writer too.
	if o := c.options(features.V1_37(), nil); o.QPS != 5 || o.Burst != 7 || o.Pods.JobRunTime != 2*time.Second || o.Pods.Seed != 9 {
		t.Errorf("options %+v: want QPS 5, Burst 7, JobRunTime 2s, Seed 9", o)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "kwk"}, "want kwok or standalone"},
		{[]string{"--nodes", "3"}, "--nodes is a standalone-mode flag"},
		{[]string{"--mode", "kwok", "--node-prefix", "x"}, "--node-prefix is a standalone-mode flag"},
		{[]string{"--mode", "standalone", "--node-selector", "a=b"}, "--node-selector is a kwok-mode flag"},
		{[]string{"--mode", "standalone", "--node-label-selector", "a=b"}, "--node-label-selector is a kwok-mode flag"},
		{[]string{"--node-selector", ""}, "both empty"},
		{[]string{"--mode", "standalone", "--nodes", "0"}, "--nodes 0"},
		{[]string{"--qps", "0"}, "--qps 0"},
		{[]string{"--burst", "0"}, "--burst 0"},
		{[]string{"--job-run-time", "0s"}, "--job-run-time"},
		{[]string{"kwok"}, "unexpected argument"},
		{[]string{"--bogus"}, "not defined"},
	} {
		if _, err := parse(bad.args, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err %v: want one containing %q", bad.args, err, bad.want)
		}
	}
}

// TestRunFlags: --help prints the usage and exits 0; bad flags, versions and
// gates exit 2 before any API call; an unreachable API server exits 1.
func TestRunFlags(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &out); code != 0 {
		t.Errorf("--help exit %d", code)
	}
	for _, want := range []string{"--mode kwok", "--mode standalone", "-node-selector", "kwok.x-k8s.io/node=fake", "-qps", "SIGTERM", "in-cluster"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help does not say %q:\n%s", want, out.String())
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--mode", "x"}, 2, "want kwok or standalone"},
		{[]string{"--kubelet-version", "1.20"}, 2, "--kubelet-version"},
		{[]string{"--feature-gates", "NoSuchGate=true"}, 2, "--feature-gates"},
		{[]string{"--kubeconfig", "/nonexistent/kubeconfig"}, 1, "/nonexistent/kubeconfig"},
	} {
		out.Reset()
		if code := run(context.Background(), c.args, &out); code != c.code || !strings.Contains(out.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q: want exit %d and %q", c.args, code, out.String(), c.code, c.want)
		}
	}
}
