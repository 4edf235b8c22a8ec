package sim

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fullStatus is a pod status with every field the kubelet writes set, and
// the rare ones (compared through equality.Semantic) too.
func fullStatus() *v1.PodStatus {
	t := func(s int) metav1.Time { return metav1.NewTime(time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC)) }
	start, yes, no := t(1), true, false
	sig := v1.SIGTERM
	uid, gid := int64(1000), int64(2000)
	rro := v1.RecursiveReadOnlyEnabled
	q := resource.MustParse("100m")
	term := func(code int32) *v1.ContainerStateTerminated {
		return &v1.ContainerStateTerminated{ExitCode: code, Signal: 9, Reason: "Error", Message: "m", StartedAt: t(2), FinishedAt: t(3), ContainerID: "containerd://old"}
	}
	return &v1.PodStatus{
		ObservedGeneration: 2, Phase: v1.PodRunning, Message: "msg", Reason: "why", NominatedNodeName: "n1",
		Conditions: []v1.PodCondition{{Type: v1.PodReady, ObservedGeneration: 2, Status: v1.ConditionTrue, LastProbeTime: t(4), LastTransitionTime: t(5), Reason: "r", Message: "m"},
			{Type: v1.PodInitialized, Status: v1.ConditionTrue}},
		HostIP: "10.0.0.1", HostIPs: []v1.HostIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}},
		PodIP: "10.1.0.1", PodIPs: []v1.PodIP{{IP: "10.1.0.1"}, {IP: "fd01::1"}},
		StartTime: &start, QOSClass: v1.PodQOSBurstable, Resize: v1.PodResizeStatusInProgress,
		InitContainerStatuses: []v1.ContainerStatus{{Name: "init", State: v1.ContainerState{Terminated: term(0)}, Ready: true, RestartCount: 1,
			Image: "i:1", ImageID: "sha256:i", ContainerID: "containerd://i", Started: &no, LastTerminationState: v1.ContainerState{Terminated: term(1)}}},
		ContainerStatuses: []v1.ContainerStatus{
			{Name: "app", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: t(6)}}, Ready: true, RestartCount: 2,
				Image: "a:1", ImageID: "sha256:a", ContainerID: "containerd://a", Started: &yes, LastTerminationState: v1.ContainerState{Terminated: term(2)}},
			// The rare fields, compared through equality.Semantic, on a status
			// of their own: on another they would hide a common field left out
			// of the comparison.
			{Name: "rare", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: t(7)}},
				AllocatedResources: v1.ResourceList{v1.ResourceCPU: q}, Resources: &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q}},
				VolumeMounts:             []v1.VolumeMountStatus{{Name: "v", MountPath: "/v", ReadOnly: true, RecursiveReadOnly: &rro}},
				User:                     &v1.ContainerUser{Linux: &v1.LinuxContainerUser{UID: uid, GID: gid, SupplementalGroups: []int64{3}}},
				AllocatedResourcesStatus: []v1.ResourceStatus{{Name: "example.com/dev", Resources: []v1.ResourceHealth{{ResourceID: "d1", Health: v1.ResourceHealthStatusHealthy, Message: ptrString("ok")}}}},
				StopSignal:               &sig},
			{Name: "side", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off"}}, Image: "s:1"},
		},
		EphemeralContainerStatuses: []v1.ContainerStatus{{Name: "debug", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "PodInitializing"}}, Image: "d:1"}},
		Resources:                  &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceCPU: q}},
		AllocatedResources:         v1.ResourceList{v1.ResourceCPU: q},
		ResourceClaimStatuses:      []v1.PodResourceClaimStatus{{Name: "c", ResourceClaimName: ptrString("claim")}},
	}
}

func ptrString(s string) *string { return &s }

// statusChange is one change to one field of a status: a path of field
// names and indexes, and what is done there.
type statusChange struct {
	path []string
	op   string // change, nil, drop
}

func (c statusChange) String() string { return c.op + " " + strings.Join(c.path, ".") }

var (
	timeType     = reflect.TypeOf(metav1.Time{})
	quantityType = reflect.TypeOf(resource.Quantity{})
)

// statusChanges lists every single-field change of v: each leaf changed,
// each set pointer made nil, each non-empty slice or map shortened.
func statusChanges(v reflect.Value, path []string, out *[]statusChange) {
	at := func(op string) { *out = append(*out, statusChange{append([]string(nil), path...), op}) }
	switch {
	case v.Type() == timeType || v.Type() == quantityType:
		at("change")
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			at("nil")
			statusChanges(v.Elem(), path, out)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				statusChanges(v.Field(i), append(path, v.Type().Field(i).Name), out)
			}
		}
	case reflect.Slice:
		if v.Len() > 0 {
			at("drop")
		}
		for i := 0; i < v.Len(); i++ {
			statusChanges(v.Index(i), append(path, fmt.Sprint(i)), out)
		}
	case reflect.Map:
		if v.Len() > 0 {
			at("drop")
		}
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64:
		at("change")
	}
}

// applyChange applies c to the status v points into.
func applyChange(v reflect.Value, c statusChange) {
	for _, step := range c.path {
		for v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if v.Kind() == reflect.Slice {
			var i int
			fmt.Sscan(step, &i)
			v = v.Index(i)
		} else {
			v = v.FieldByName(step)
		}
	}
	for c.op != "nil" && v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	switch {
	case c.op == "nil":
		v.Set(reflect.Zero(v.Type()))
	case c.op == "drop" && v.Kind() == reflect.Map:
		v.Set(reflect.Zero(v.Type()))
	case c.op == "drop":
		v.Set(v.Slice(0, v.Len()-1))
	case v.Type() == timeType:
		tm := v.Addr().Interface().(*metav1.Time)
		*tm = metav1.NewTime(tm.Add(time.Second))
	case v.Type() == quantityType:
		v.Addr().Interface().(*resource.Quantity).Add(resource.MustParse("1"))
	case v.Kind() == reflect.String:
		v.SetString(v.String() + "x")
	case v.Kind() == reflect.Bool:
		v.SetBool(!v.Bool())
	default:
		v.SetInt(v.Int() + 1)
	}
}

// The status manager stores a status only when it differs from the one it
// holds (status_manager.go updateStatusInternal, equality.Semantic): a
// status differing in any one field, anywhere in it, is a new status. A
// field statusEqual left out would make the simulated kubelet drop a
// status change.
func TestStatusEqualSeesEveryField(t *testing.T) {
	base := fullStatus()
	if !statusEqual(base, fullStatus()) || !equalStatus(*base, *base.DeepCopy()) {
		t.Fatal("a status is not equal to its copy")
	}
	var changes []statusChange
	statusChanges(reflect.ValueOf(base).Elem(), nil, &changes)
	if len(changes) < 100 {
		t.Fatalf("only %d changes of the full status: is it still full?", len(changes))
	}
	for _, c := range changes {
		b := fullStatus()
		applyChange(reflect.ValueOf(b), c)
		if reflect.DeepEqual(base, b) {
			t.Fatalf("%s changed nothing", c)
		}
		if statusEqual(base, b) || statusEqual(b, base) {
			t.Errorf("%s: statusEqual reports the statuses equal", c)
		}
	}
}

// Quantities in resource lists (a running container's resources and
// allocatedResources, the pod's) are compared by value as equality.Semantic
// does: another value is a new status, the same value written otherwise
// ("100m", "0.1") is not, nor is an empty list where there was none.
// (statusChanges cannot reach map values.)
func TestStatusEqualQuantitiesByValue(t *testing.T) {
	lists := []func(*v1.PodStatus) *v1.ResourceList{
		func(s *v1.PodStatus) *v1.ResourceList { return &s.ContainerStatuses[1].AllocatedResources },
		func(s *v1.PodStatus) *v1.ResourceList { return &s.ContainerStatuses[1].Resources.Requests },
		func(s *v1.PodStatus) *v1.ResourceList { return &s.Resources.Limits },
		func(s *v1.PodStatus) *v1.ResourceList { return &s.AllocatedResources },
	}
	for i, list := range lists {
		for _, tc := range []struct {
			set  func(*v1.ResourceList)
			want bool
		}{
			{func(l *v1.ResourceList) { (*l)[v1.ResourceCPU] = resource.MustParse("200m") }, false},
			{func(l *v1.ResourceList) { (*l)[v1.ResourceCPU] = resource.MustParse("0.1") }, true},
			{func(l *v1.ResourceList) { (*l)[v1.ResourceMemory] = resource.MustParse("1Gi") }, false},
			{func(l *v1.ResourceList) { *l = v1.ResourceList{v1.ResourceMemory: resource.MustParse("100m")} }, false},
		} {
			a, b := fullStatus(), fullStatus()
			tc.set(list(b))
			if got, sem := statusEqual(a, b), equality.Semantic.DeepEqual(a, b); got != tc.want || got != sem || statusEqual(b, a) != got {
				t.Errorf("list %d set to %v: statusEqual %v, equality.Semantic %v, want %v", i, *list(b), got, sem, tc.want)
			}
		}
		a, b := fullStatus(), fullStatus()
		*list(a), *list(b) = nil, v1.ResourceList{}
		if !statusEqual(a, b) || !equality.Semantic.DeepEqual(a, b) {
			t.Errorf("list %d: nil and empty differ", i)
		}
	}
}

// TestStatusEqualRareFieldsAlone: the fields the kubelet rarely writes
// (resource claims, extended and node-allocatable claims, volume health)
// count when only one of the two statuses has one, in either order, and
// when both have them and differ; two statuses with none are compared by
// the other fields alone.
func TestStatusEqualRareFieldsAlone(t *testing.T) {
	plain := func() *v1.PodStatus {
		s := fullStatus()
		s.ResourceClaimStatuses = nil
		return s
	}
	if !statusEqual(plain(), plain()) {
		t.Fatal("two statuses without the rare fields are not equal")
	}
	for name, set := range map[string]func(*v1.PodStatus, string){
		"resourceClaimStatuses": func(s *v1.PodStatus, v string) {
			s.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: v}}
		},
		"extendedResourceClaimStatus": func(s *v1.PodStatus, v string) {
			s.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{ResourceClaimName: v}
		},
		"nodeAllocatableResourceClaimStatuses": func(s *v1.PodStatus, v string) {
			s.NodeAllocatableResourceClaimStatuses = []v1.NodeAllocatableResourceClaimStatus{{ResourceClaimName: v}}
		},
		"volumeHealth": func(s *v1.PodStatus, v string) {
			s.VolumeHealth = []v1.PodVolumeHealth{{Name: v}}
		},
	} {
		one := plain()
		set(one, "a")
		if statusEqual(plain(), one) || statusEqual(one, plain()) {
			t.Errorf("%s on one side only: equal", name)
		}
		other := plain()
		set(other, "b")
		if statusEqual(one, other) {
			t.Errorf("%s differing: equal", name)
		}
		same := plain()
		set(same, "a")
		if !statusEqual(one, same) {
			t.Errorf("%s the same on both sides: not equal", name)
		}
	}
}

// TestStatusEqualResourceClaims: the claims of a container's resources
// count: the same claims are equal, another claim is not.
func TestStatusEqualResourceClaims(t *testing.T) {
	with := func(claim string) *v1.PodStatus {
		s := fullStatus()
		s.ContainerStatuses[0].Resources = &v1.ResourceRequirements{Claims: []v1.ResourceClaim{{Name: claim}}}
		return s
	}
	if !statusEqual(with("gpu"), with("gpu")) {
		t.Error("the same claims: not equal")
	}
	if statusEqual(with("gpu"), with("fpga")) {
		t.Error("another claim: equal")
	}
}
