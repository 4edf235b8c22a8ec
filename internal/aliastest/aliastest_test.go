package aliastest

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Mutate reaches through pointers, slices and maps, and changes every kind
// of leaf a pod status holds.
func TestMutateChangesEverything(t *testing.T) {
	started := true
	s := &v1.ContainerStatus{
		Name:    "app",
		Started: &started,
		State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
			ExitCode: 1, FinishedAt: metav1.NewTime(time.Unix(10, 0)),
		}},
		VolumeMounts:       []v1.VolumeMountStatus{{Name: "v"}},
		AllocatedResources: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")},
	}
	shared := *s // shares every pointer, slice and map with s
	before := *s.DeepCopy()
	Mutate(s)
	switch {
	case s.Name != "app#", *shared.Started, shared.State.Terminated.ExitCode != 2,
		!shared.State.Terminated.FinishedAt.Time.Equal(time.Unix(11, 0)), shared.VolumeMounts[0].Name != "v#",
		len(shared.AllocatedResources) != 2:
		t.Errorf("not everything changed: %+v", shared)
	}
	q := shared.AllocatedResources[v1.ResourceCPU]
	if q.Cmp(resource.MustParse("12345")) != 0 {
		t.Errorf("quantity not changed: %v", q.String())
	}
	if reflect.DeepEqual(before, *s) {
		t.Error("s unchanged")
	}
}
