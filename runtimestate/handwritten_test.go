package runtimestate_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// TestSandboxWithoutIPHandWritten: a ready sandbox that leaves its IP out is
// taken to have one (issue 23, item 4a); NoIP is the faithful reading of a
// runtime reporting none, which the kubelet kills on a pod-network pod.
func TestSandboxWithoutIPHandWritten(t *testing.T) {
	podNet, hostNet := &v1.Pod{}, &v1.Pod{Spec: v1.PodSpec{HostNetwork: true}}
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		sb   runtimestate.Sandbox
		want string // SandboxChanged's message
	}{
		{"IP left out: taken to have one", podNet, runtimestate.Sandbox{ID: "s1", Ready: true}, ""},
		{"IP left out, additional IPs given", podNet, runtimestate.Sandbox{ID: "s1", Ready: true, AdditionalIPs: []string{"fd00::1"}}, ""},
		{"NoIP: the kubelet kills it", podNet, runtimestate.Sandbox{ID: "s1", Ready: true, NoIP: true}, vocab.MsgNoIPAddress},
		{"NoIP with only additional IPs: the kubelet kills it", podNet, runtimestate.Sandbox{ID: "s1", Ready: true, NoIP: true, AdditionalIPs: []string{"fd00::1"}}, vocab.MsgNoIPAddress},
		{"NoIP on a hostNetwork pod: no IP needed", hostNet, runtimestate.Sandbox{ID: "s1", Ready: true, NetworkMode: runtimestate.NamespaceNode, NoIP: true}, ""},
		{"no network status", podNet, runtimestate.Sandbox{ID: "s1", Ready: true, NoNetworkStatus: true}, ""},
		{"an IP", podNet, runtimestate.Sandbox{ID: "s1", Ready: true, IP: "10.0.0.1"}, ""},
	} {
		st := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{tc.sb}}
		if got := runtimestate.SandboxChanged(tc.pod, st); got.Message != tc.want || got.Changed != (tc.want != "") {
			t.Errorf("%s: %+v, want message %q", tc.name, got, tc.want)
		}
		if ips := st.IPs(); tc.sb.IP == "" && len(tc.sb.AdditionalIPs) == 0 && ips != nil {
			t.Errorf("%s: IPs %q, want none (no address is known)", tc.name, ips)
		}
	}
	// The same from YAML.
	st, err := runtimestate.FromYAML([]byte("sandboxes:\n- {id: s1, ready: true}\n"))
	if err != nil || runtimestate.SandboxChanged(podNet, st).Changed {
		t.Errorf("YAML sandbox without ip: %v %+v", err, runtimestate.SandboxChanged(podNet, st))
	}
	st, err = runtimestate.FromYAML([]byte("sandboxes:\n- {id: s1, ready: true, noIP: true}\n"))
	if err != nil || runtimestate.SandboxChanged(podNet, st).Message != vocab.MsgNoIPAddress {
		t.Errorf("YAML sandbox with noIP: %v %+v", err, runtimestate.SandboxChanged(podNet, st))
	}
	for _, bad := range []string{
		"sandboxes:\n- {id: s1, ready: true, noIP: true, ip: 10.0.0.1}\n",
		"sandboxes:\n- {id: s1, ready: true, noIP: true, noNetworkStatus: true}\n",
	} {
		if _, err := runtimestate.FromYAML([]byte(bad)); err == nil || !strings.Contains(err.Error(), "noIP") {
			t.Errorf("%q: error %v, want one about noIP", bad, err)
		}
	}
}

// TestValidateOldestFirstWithoutTimes: instances written oldest first and
// without creation times are reported by their restart counts (issue 23,
// item 4b); with times, by the times; newest first passes.
func TestValidateOldestFirstWithoutTimes(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	oldestFirst := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c1", Name: "app", State: runtimestate.Exited, ExitCode: 1},
		{ID: "c2", Name: "app", State: runtimestate.Running, RestartCount: 1},
	}}
	err := oldestFirst.Validate()
	if err == nil || !strings.Contains(err.Error(), "newest first") || !strings.Contains(err.Error(), "c2") {
		t.Errorf("oldest first without times: %v, want an order error naming c2", err)
	}
	newestFirst := &runtimestate.Pod{Containers: []runtimestate.Container{oldestFirst.Containers[1], oldestFirst.Containers[0]}}
	if err := newestFirst.Validate(); err != nil {
		t.Errorf("newest first: %v", err)
	}
	// Other containers' counts say nothing about the order.
	mixed := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c1", Name: "app", State: runtimestate.Running},
		{ID: "c2", Name: "log", State: runtimestate.Running, RestartCount: 3},
	}}
	if err := mixed.Validate(); err != nil {
		t.Errorf("two containers: %v", err)
	}
	// With times the times decide; Normalize puts them right.
	timed := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c1", Name: "app", State: runtimestate.Exited, CreatedAt: t0},
		{ID: "c2", Name: "app", State: runtimestate.Running, RestartCount: 1, CreatedAt: t0.Add(time.Minute)},
	}}
	if err := timed.Validate(); err == nil {
		t.Errorf("oldest first with times: no error")
	}
	timed.Normalize()
	if err := timed.Validate(); err != nil || timed.Newest("app").ID != "c2" {
		t.Errorf("normalized: %v, newest %s", err, timed.Newest("app").ID)
	}
	// And from YAML.
	if _, err := runtimestate.FromYAML([]byte("containers:\n- {id: c1, name: app, state: exited}\n- {id: c2, name: app, state: running, restartCount: 1}\n")); err == nil {
		t.Errorf("YAML oldest first: no error")
	}
}
