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
