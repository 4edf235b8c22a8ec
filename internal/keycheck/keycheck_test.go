package keycheck

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

func TestInstanceKeys(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app"}, {Name: "db"}}}}
	st := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c-2", Name: "app"}, {ID: "c-1", Name: "app"}, {ID: "g-1", Name: "ghost"}}}
	keys := []string{"app", "c-1", "c-2", "c-9", "containerd://c-2", "db", "ghost"}
	strict := errors.Join(InstanceKeys("P", keys, pod, st, true)...).Error()
	for _, w := range []string{
		`P["app"]: keyed by name "app", want instance ID "c-2" (the newest instance of app)`,
		`P["c-9"]: no container instance in the runtime state has ID "c-9" (did you mean "c-1"?) (its instances: c-2 (app), c-1 (app), g-1 (ghost))`,
		`P["containerd://c-2"]: keyed by a container ID with its runtime scheme, want the bare instance ID "c-2"`,
		`P["db"]: keyed by name "db", want an instance ID, and the runtime state has no instance of db`,
		`P["ghost"]: keyed by name "ghost", want instance ID "g-1"`,
	} {
		if !strings.Contains(strict, w) {
			t.Errorf("strict: %q lacks %q", strict, w)
		}
	}
	if n := len(InstanceKeys("P", keys, pod, st, true)); n != 5 {
		t.Errorf("strict: %d errors, want 5", n)
	}
	// Without strict, an unknown ID is accepted; names and schemes are not.
	if n := len(InstanceKeys("P", keys, pod, st, false)); n != 4 {
		t.Errorf("lenient: %d errors, want 4", n)
	}
	if errs := InstanceKeys("P", []string{"x"}, nil, nil, true); len(errs) != 1 || !strings.Contains(errs[0].Error(), "lists no instance") {
		t.Errorf("nil pod and state: %v", errs)
	}
}

func TestNames(t *testing.T) {
	pod := &v1.Pod{}
	pod.Name, pod.Namespace = "web", "shop"
	errs := Names("F", []string{"zzzz", "b"}, pod, []string{"b"})
	if len(errs) != 1 || errs[0].Error() != `F["zzzz"]: "zzzz" is not a container of pod shop/web (its containers: b)` {
		t.Errorf("got %v", errs)
	}
	if got := NotAContainerText("x", pod, nil); got != `"x" is not a container of pod shop/web (it has none)` {
		t.Errorf("got %q", got)
	}
	if got := PodName(nil); got != "(nil)" {
		t.Errorf("PodName(nil) = %q", got)
	}
}

func TestContainers(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers:      []v1.Container{{Name: "i"}},
		Containers:          []v1.Container{{Name: "a"}, {Name: "b"}},
		EphemeralContainers: []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "e", Image: "busybox"}}},
	}}
	got := Containers(pod)
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "i,a,b,e" || got[3].Image != "busybox" {
		t.Fatalf("Containers = %v", names)
	}
	if got[0] != &pod.Spec.InitContainers[0] || got[2] != &pod.Spec.Containers[1] {
		t.Error("init and regular containers do not point into the pod")
	}
	if Containers(nil) != nil {
		t.Error("a nil pod has containers")
	}
}
