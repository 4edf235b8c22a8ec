package sim

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// An empty actuated record is filled, from v1.37 on, from the whole pod
// (InitializeActuatedPod, D21): a container never started is in it. Before
// v1.37 it holds only what the kubelet recorded starting what the runtime
// holds. Checked under each version.
func TestInitActuatedVersions(t *testing.T) {
	res := v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1", Resources: res}, {Name: "late", Image: "web:1", Resources: res}}})
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.88.0.2", CreatedAt: t0.Add(-time.Minute)}},
		Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Running,
			CreatedAt: t0.Add(-50 * time.Second), StartedAt: t0.Add(-50 * time.Second)}}}
	for _, f := range []features.Set{features.V1_35(), features.V1_36(), features.V1_37()} {
		a := initActuated(pod, st, f)
		_, app := a.Containers["app"]
		_, late := a.Containers["late"]
		if want := f.Version().Minor() >= 37; !app || late != want || a.Exact {
			t.Errorf("%s: actuated record %+v: app %v, late %v (want %v), exact %v (want false)", f.Version(), a, app, late, want, a.Exact)
		}
	}
}
