package termination

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// Written from the intent of TestTerminationOrderingSidecarStopAfterMain and
// TestTerminationOrderingSidecarsInReverseOrder
// (pkg/kubelet/kuberuntime/kuberuntime_termination_order_test.go).
func TestNewOrdering(t *testing.T) {
	f := features.V1_37()
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{{Name: "s1", RestartPolicy: &always}, {Name: "init"}, {Name: "s2", RestartPolicy: &always}, {Name: "s3", RestartPolicy: &always}},
		Containers:     []v1.Container{{Name: "a"}, {Name: "b"}},
	}}
	o := NewOrdering(pod, []string{"a", "b", "s1", "s2", "s3"}, f)
	want := map[string][]string{"s3": {"a", "b"}, "s2": {"a", "b", "s3"}, "s1": {"a", "b", "s2"}}
	for n, w := range want {
		if got := o.WaitNames(n); !reflect.DeepEqual(got, w) {
			t.Errorf("%s waits for %v, want %v", n, got, w)
		}
	}
	for _, n := range []string{"a", "b", "init"} {
		if got := o.WaitNames(n); got != nil {
			t.Errorf("%s waits for %v, want nothing", n, got)
		}
	}
	o = NewOrdering(pod, []string{"s1", "b"}, f)
	for _, s := range o.Signals {
		if want := s.Name != "s1" && s.Name != "b"; s.Given != want {
			t.Errorf("signal %s given = %v, want %v", s.Name, s.Given, want)
		}
	}
	if NewOrdering(&v1.Pod{Spec: v1.PodSpec{InitContainers: []v1.Container{{Name: "init"}}, Containers: []v1.Container{{Name: "a"}}}}, []string{"a"}, f) != nil {
		t.Errorf("ordering for a pod without sidecars")
	}
	if NewOrdering(nil, nil, f) != nil || (*Ordering)(nil).WaitNames("x") != nil {
		t.Errorf("nil pod")
	}
}

// refWaits is who waits for whom as the kubelet's map of lists builds it
// (one list per sidecar name, grown for a name declared twice), by names.
func refWaits(pod *v1.Pod) map[string][]string {
	var signals []string
	newest := func(name string) string {
		for i := len(signals) - 1; i >= 0; i-- {
			if signals[i] == name {
				return signals[i]
			}
		}
		return ""
	}
	signals = append(signals, containerNames(pod.Spec.Containers)...)
	out := map[string][]string{}
	later := ""
	for i := len(pod.Spec.InitContainers) - 1; i >= 0; i-- {
		ic := pod.Spec.InitContainers[i]
		signals = append(signals, ic.Name)
		if ic.RestartPolicy == nil || *ic.RestartPolicy != v1.ContainerRestartPolicyAlways {
			continue
		}
		ws := out[ic.Name]
		ws = append(ws, containerNames(pod.Spec.Containers)...)
		if later != "" {
			ws = append(ws, newest(later))
		}
		if len(ws) == 0 {
			ws = nil
		}
		out[ic.Name] = ws
		later = ic.Name
	}
	return out
}

func containerNames(cs []v1.Container) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// TestNewOrderingLarge covers pods beyond the room of one allocation (more
// than 10 containers, 6 sidecars or 30 waits) and sidecar names declared
// twice, against refWaits.
func TestNewOrderingLarge(t *testing.T) {
	f := features.V1_37()
	always := v1.ContainerRestartPolicyAlways
	side := func(n string) v1.Container { return v1.Container{Name: n, RestartPolicy: &always} }
	for _, tc := range []struct {
		name    string
		init    []v1.Container
		regular int
		maxAl   float64
	}{
		{"small", []v1.Container{side("s1"), {Name: "i"}, side("s2")}, 2, 1},
		{"duplicate sidecar", []v1.Container{side("s1"), {Name: "i"}, side("s1"), side("s2")}, 2, 2},
		{"no regular", []v1.Container{side("s1"), side("s2")}, 0, 1},
		{"eight sidecars", []v1.Container{side("s1"), side("s2"), side("s3"), side("s4"), side("s5"), side("s6"), side("s7"), side("s8")}, 1, 4},
		{"many regular", []v1.Container{side("s1"), side("s2"), {Name: "i"}, side("s3")}, 12, 4},
		{"many waits", []v1.Container{side("s1"), side("s2"), side("s3"), side("s4"), side("s5"), side("s6")}, 4, 4},
	} {
		pod := &v1.Pod{Spec: v1.PodSpec{InitContainers: tc.init}}
		for i := range tc.regular {
			pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: string(rune('a' + i))})
		}
		o := NewOrdering(pod, []string{"a", "s1"}, f)
		got := map[string][]string{}
		for _, w := range o.Waits {
			got[w.Name] = o.WaitNames(w.Name)
		}
		if want := refWaits(pod); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: waits %v, want %v", tc.name, got, want)
		}
		if n := testing.AllocsPerRun(3, func() { NewOrdering(pod, nil, f) }); n > tc.maxAl {
			t.Errorf("%s: %v allocations, budget %v", tc.name, n, tc.maxAl)
		}
	}
}

// A sidecar named "" is not waited for by the sidecar before it: the
// kubelet's "no later sidecar" is the empty name.
func TestNewOrderingEmptyName(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{{Name: "s1", RestartPolicy: &always}, {Name: "", RestartPolicy: &always}},
		Containers:     []v1.Container{{Name: "a"}},
	}}
	o := NewOrdering(pod, nil, features.V1_37())
	if got, want := o.WaitNames("s1"), []string{"a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("s1 waits for %v, want %v", got, want)
	}
	if got, want := o.WaitNames("s1"), refWaits(pod)["s1"]; !reflect.DeepEqual(got, want) {
		t.Errorf("s1 waits for %v, reference %v", got, want)
	}
}
