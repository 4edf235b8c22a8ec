package runtimestate

import (
	"github.com/kubeletlogic/kubeletlogic/features"

	"strings"
	"testing"
	"time"
)

const sample = `
uid: 6f1c
name: web
namespace: default
sandboxes:
- {id: s2, ready: true, attempt: 1, ip: 10.244.1.7, createdAt: "2026-11-29T10:00:10Z"}
- {id: s1, ready: false, attempt: 0, ip: 10.244.1.6, createdAt: "2026-11-29T10:00:00Z"}
containers:
- {id: c3, name: app, sandboxID: s2, state: running, restartCount: 1, createdAt: "2026-11-29T10:00:12Z", startedAt: "2026-11-29T10:00:12Z"}
- {id: c2, name: prepare, sandboxID: s2, state: exited, exitCode: 0, reason: Completed, createdAt: "2026-11-29T10:00:11Z"}
- {id: c1, name: app, sandboxID: s1, state: exited, exitCode: 137, reason: Error, createdAt: "2026-11-29T10:00:01Z", finishedAt: "2026-11-29T10:00:05Z"}
`

func TestFromYAMLAndLookups(t *testing.T) {
	p, err := FromYAML([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("valid sample: %v", err)
	}
	if s := p.ActiveSandbox(); s == nil || s.ID != "s2" {
		t.Fatalf("active sandbox %v", s)
	}
	if got := p.IPs(); len(got) != 1 || got[0] != "10.244.1.7" {
		t.Errorf("IPs %v", got)
	}
	if c := p.Newest("app"); c == nil || c.ID != "c3" {
		t.Errorf("newest app %v", c)
	}
	if c := p.NewestExited("app"); c == nil || c.ID != "c1" || c.ExitCode != 137 {
		t.Errorf("newest exited app %v", c)
	}
	if c := p.NewestActive("app"); c == nil || c.ID != "c3" {
		t.Errorf("newest active app %v", c)
	}
	if n := len(p.ActiveContainers()); n != 2 {
		t.Errorf("%d active containers, want 2", n)
	}
	if n := len(p.Instances("app")); n != 2 {
		t.Errorf("%d app instances, want 2", n)
	}
	if !p.IsActive(p.Newest("prepare")) || p.IsActive(&p.Containers[2]) {
		t.Error("IsActive")
	}
	if want := time.Date(2026, 11, 29, 10, 0, 5, 0, time.UTC); !p.Containers[2].FinishedAt.Equal(want) {
		t.Errorf("finishedAt %v", p.Containers[2].FinishedAt)
	}
}

func TestNotReadyLatestSandboxHasNoActiveContainers(t *testing.T) {
	p := &Pod{
		Sandboxes:  []Sandbox{{ID: "s1", Ready: false, IP: "10.0.0.1"}},
		Containers: []Container{{ID: "c1", Name: "app", SandboxID: "s1", State: Running}},
	}
	if p.ActiveSandbox() != nil || p.NewestActive("app") != nil || p.ActiveContainers() != nil || p.IPs() != nil {
		t.Error("a not-ready latest sandbox is not active")
	}
	if p.Newest("app") == nil {
		t.Error("Newest looks at every sandbox")
	}
}

func TestNilPod(t *testing.T) {
	var p *Pod
	if p.Newest("x") != nil || p.NewestActive("x") != nil || p.NewestExited("x") != nil || p.ActiveSandbox() != nil ||
		p.LatestSandbox() != nil || p.IPs() != nil || p.Instances("x") != nil || p.ActiveContainers() != nil ||
		p.IsActive(nil) || p.Validate() != nil || p.DeepCopy() != nil {
		t.Error("nil pod must read as empty")
	}
	p.Normalize()
}

func TestUnknownKeyIsAnError(t *testing.T) {
	_, err := FromYAML([]byte("containers:\n- {id: c, name: a, state: running, exitCodes: 1}\n"))
	if err == nil || !strings.Contains(err.Error(), "exitCodes") {
		t.Errorf("misspelt key: %v", err)
	}
	if _, err := FromJSON([]byte("{")); err == nil {
		t.Error("broken JSON accepted")
	}
}

func TestValidate(t *testing.T) {
	t1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		p    Pod
		want string
	}{
		{"duplicate sandbox", Pod{Sandboxes: []Sandbox{{ID: "s"}, {ID: "s"}}}, "duplicate id"},
		{"empty sandbox id", Pod{Sandboxes: []Sandbox{{}}}, "empty id"},
		{"sandbox order", Pod{Sandboxes: []Sandbox{{ID: "a", Attempt: 0}, {ID: "b", Attempt: 1}}}, "newest first"},
		{"network mode", Pod{Sandboxes: []Sandbox{{ID: "a", NetworkMode: "HOST"}}}, "network mode"},
		{"duplicate container", Pod{Containers: []Container{{ID: "c", Name: "a", State: Running}, {ID: "c", Name: "b", State: Running}}}, "duplicate id"},
		{"no name", Pod{Containers: []Container{{ID: "c", State: Running}}}, "empty name"},
		{"state", Pod{Containers: []Container{{ID: "c", Name: "a", State: "paused"}}}, "unknown state"},
		{"restart count", Pod{Containers: []Container{{ID: "c", Name: "a", State: Running, RestartCount: -1}}}, "negative restartCount"},
		{"container order", Pod{Containers: []Container{{ID: "c1", Name: "a", State: Exited, CreatedAt: t1}, {ID: "c2", Name: "a", State: Running, CreatedAt: t1.Add(time.Second)}}}, "newest first"},
	} {
		err := tc.p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", tc.name, err, tc.want)
		}
		q := tc.p.DeepCopy()
		q.Normalize()
		if tc.want == "newest first" {
			if err := q.Validate(); err != nil {
				t.Errorf("%s: after Normalize: %v", tc.name, err)
			}
		}
	}
}

func TestNormalizeSandboxTies(t *testing.T) {
	t1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &Pod{Sandboxes: []Sandbox{
		{ID: "b", Attempt: 1, CreatedAt: t1},
		{ID: "a", Attempt: 1, CreatedAt: t1},
		{ID: "z", Attempt: 1, CreatedAt: t1.Add(time.Second)},
		{ID: "y", Attempt: 2},
	}}
	p.Normalize()
	var got []string
	for _, s := range p.Sandboxes {
		got = append(got, s.ID)
	}
	if strings.Join(got, ",") != "y,z,a,b" {
		t.Errorf("order %v, want y,z,a,b", got)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("normalized pod does not validate: %v", err)
	}

	// D14: kubelet v1.35.4 orders by attempt only; ties keep the
	// runtime's listing order (the example of shared/kubelet-versions.md:
	// an older ready sandbox listed after a newer one of the same attempt
	// stays second; a v1.37 node puts the newer first either way).
	old := &Pod{Sandboxes: []Sandbox{
		{ID: "b", Attempt: 1, CreatedAt: t1},
		{ID: "a", Attempt: 1, CreatedAt: t1},
		{ID: "z", Attempt: 1, CreatedAt: t1.Add(time.Second)},
		{ID: "y", Attempt: 2},
	}}
	old.NormalizeFor(features.V1_35_4)
	got = got[:0]
	for _, s := range old.Sandboxes {
		got = append(got, s.ID)
	}
	if strings.Join(got, ",") != "y,b,a,z" {
		t.Errorf("v1.35 order %v, want y,b,a,z", got)
	}
	if err := old.ValidateFor(features.V1_35_4); err != nil {
		t.Errorf("v1.35 order does not validate for v1.35: %v", err)
	}
	if err := old.Validate(); err == nil {
		t.Error("v1.35 order (older sandbox of the same attempt first) validates for v1.37")
	}
}

func TestDeepCopyIsIndependent(t *testing.T) {
	p, err := FromYAML([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	q := p.DeepCopy()
	q.Containers[0].Name = "changed"
	q.Sandboxes[0].ID = "changed"
	if p.Containers[0].Name == "changed" || p.Sandboxes[0].ID == "changed" {
		t.Error("DeepCopy shares memory")
	}
}

func FuzzFromJSON(f *testing.F) {
	f.Add([]byte(`{"containers":[{"id":"c","name":"a","state":"exited","exitCode":-1}]}`))
	f.Add([]byte(`{"sandboxes":[{"id":"s","ready":true}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if p, err := FromJSON(data); err == nil && p.Validate() != nil {
			t.Fatal("FromJSON returned a state that does not validate")
		}
		p, err := decodeJSON(data)
		if err != nil {
			return
		}
		_ = p.Validate()
		p.Normalize()
		p.Newest("a")
		p.NewestActive("a")
		p.ActiveContainers()
		p.IPs()
		p.DeepCopy()
	})
}
