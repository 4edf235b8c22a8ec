package node

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// TestAllocatableOf: for random capacities, allocatable is capacity with
// 100 Mi and the huge pages taken from memory and 10 % from ephemeral
// storage, never negative, everything else unchanged.
func TestAllocatableOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		mem := rng.Int64N(64 << 30)
		eph := rng.Int64N(1 << 40)
		huge := rng.Int64N(4) << 30
		cpu := rng.Int64N(128000)
		c := v1.ResourceList{
			v1.ResourceCPU:              *resource.NewMilliQuantity(cpu, resource.DecimalSI),
			v1.ResourceMemory:           *resource.NewQuantity(mem, resource.BinarySI),
			v1.ResourceEphemeralStorage: *resource.NewQuantity(eph, resource.BinarySI),
			v1.ResourcePods:             *resource.NewQuantity(rng.Int64N(500), resource.DecimalSI),
			"hugepages-2Mi":             *resource.NewQuantity(huge, resource.BinarySI),
		}
		a := allocatableOf(c)
		wantMem := max(0, max(0, mem-100<<20)-huge)
		wantEph := max(0, eph-int64(float64(eph)*0.1))
		got := a[v1.ResourceMemory]
		if got.Value() != wantMem {
			t.Fatalf("case %d: memory %d huge %d: allocatable %d, want %d", i, mem, huge, got.Value(), wantMem)
		}
		got = a[v1.ResourceEphemeralStorage]
		if got.Value() != wantEph {
			t.Fatalf("case %d: ephemeral %d: allocatable %d, want %d", i, eph, got.Value(), wantEph)
		}
		for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourcePods, "hugepages-2Mi"} {
			if x, y := a[r], c[r]; x.Cmp(y) != 0 {
				t.Fatalf("case %d: %s allocatable %s, capacity %s", i, r, x.String(), y.String())
			}
		}
	}
}

// TestNodeStatusHasChanged: a status that differs only in heartbeat times
// (and in the order of its conditions) is unchanged; any other difference
// in a condition or in the rest of the status is a change.
func TestNodeStatusHasChanged(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	spec, err := NodeSpec{Name: "n", InternalIP: "10.0.0.1"}.validate()
	if err != nil {
		t.Fatal(err)
	}
	base := initialNode(spec, features.V1_37(), t0)
	later := base.DeepCopy()
	setNodeStatus(later, spec, features.V1_37(), t0.Add(time.Hour))
	if nodeStatusHasChanged(&base.Status, &later.Status) {
		t.Fatal("heartbeat times alone count as a change")
	}
	for i := range later.Status.Conditions {
		if !later.Status.Conditions[i].LastTransitionTime.Equal(&base.Status.Conditions[i].LastTransitionTime) {
			t.Fatalf("condition %s: transition time moved with no transition", later.Status.Conditions[i].Type)
		}
	}
	rev := later.DeepCopy()
	c := rev.Status.Conditions
	for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
	if nodeStatusHasChanged(&base.Status, &rev.Status) {
		t.Fatal("the conditions' order counts as a change")
	}
	mutations := map[string]func(*v1.NodeStatus){
		"condition status":     func(s *v1.NodeStatus) { s.Conditions[3].Status = v1.ConditionFalse },
		"condition reason":     func(s *v1.NodeStatus) { s.Conditions[0].Reason = "x" },
		"condition message":    func(s *v1.NodeStatus) { s.Conditions[1].Message = "x" },
		"condition transition": func(s *v1.NodeStatus) { s.Conditions[2].LastTransitionTime = metav1.NewTime(t0.Add(time.Minute)) },
		"condition dropped":    func(s *v1.NodeStatus) { s.Conditions = s.Conditions[:3] },
		"capacity":             func(s *v1.NodeStatus) { s.Capacity[v1.ResourceCPU] = resource.MustParse("5") },
		"allocatable":          func(s *v1.NodeStatus) { s.Allocatable[v1.ResourcePods] = resource.MustParse("1") },
		"address":              func(s *v1.NodeStatus) { s.Addresses[0].Address = "10.0.0.2" },
		"kubelet version":      func(s *v1.NodeStatus) { s.NodeInfo.KubeletVersion = "v1.36.3" },
		"daemon endpoint":      func(s *v1.NodeStatus) { s.DaemonEndpoints.KubeletEndpoint.Port = 1 },
	}
	for name, m := range mutations {
		s := later.Status.DeepCopy()
		m(s)
		if !nodeStatusHasChanged(&base.Status, s) {
			t.Errorf("%s: not seen as a change", name)
		}
	}
}

// TestReadyTransition: Ready's transition time moves only when its status
// does; the pressure conditions' likewise.
func TestReadyTransition(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	spec, _ := NodeSpec{Name: "n", InternalIP: "10.0.0.1"}.validate()
	n := initialNode(spec, features.V1_37(), t0)
	for i := range n.Status.Conditions {
		n.Status.Conditions[i].Status = v1.ConditionUnknown
	}
	setNodeStatus(n, spec, features.V1_37(), t0.Add(time.Minute))
	for _, c := range n.Status.Conditions {
		if !c.LastTransitionTime.Time.Equal(t0.Add(time.Minute)) || !c.LastHeartbeatTime.Time.Equal(t0.Add(time.Minute)) {
			t.Errorf("%s after Unknown: transition %s heartbeat %s, want both at +1m", c.Type, c.LastTransitionTime, c.LastHeartbeatTime)
		}
	}
}

// TestNewStandaloneRejects: every malformed input is an error naming it,
// never a panic and never a node registered with a made-up value.
func TestNewStandaloneRejects(t *testing.T) {
	client, err := kubernetes.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	ok := NodeSpec{Name: "n", InternalIP: "10.0.0.1"}
	with := func(f func(*NodeSpec)) []NodeSpec { s := ok; f(&s); return []NodeSpec{s} }
	cases := map[string]struct {
		nodes []NodeSpec
		o     Options
		want  string
	}{
		"no nodes":         {nil, Options{}, "no nodes"},
		"bad name":         {with(func(s *NodeSpec) { s.Name = "Bad_Name" }), Options{}, "Bad_Name"},
		"no ip":            {with(func(s *NodeSpec) { s.InternalIP = "" }), Options{}, "InternalIP"},
		"bad ip":           {with(func(s *NodeSpec) { s.InternalIP = "10.0.0.300" }), Options{}, "10.0.0.300"},
		"bad label key":    {with(func(s *NodeSpec) { s.Labels = map[string]string{"a b": "c"} }), Options{}, "a b"},
		"bad label value":  {with(func(s *NodeSpec) { s.Labels = map[string]string{"a": "b c"} }), Options{}, "b c"},
		"bad taint effect": {with(func(s *NodeSpec) { s.Taints = []v1.Taint{{Key: "k", Effect: "Never"}} }), Options{}, "Never"},
		"no cpu": {with(func(s *NodeSpec) {
			s.Capacity = v1.ResourceList{v1.ResourceMemory: resource.MustParse("1Gi"), v1.ResourcePods: resource.MustParse("1")}
		}), Options{}, "cpu"},
		"allocatable too big": {with(func(s *NodeSpec) { s.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("5")} }), Options{}, "exceeds"},
		"allocatable unknown": {with(func(s *NodeSpec) { s.Allocatable = v1.ResourceList{"example.com/gpu": resource.MustParse("1")} }), Options{}, "not in capacity"},
		"duplicate":           {[]NodeSpec{ok, ok}, Options{}, "twice"},
		"negative frequency":  {[]NodeSpec{ok}, Options{StatusUpdateFrequency: -time.Second}, "negative"},
		"negative lease":      {[]NodeSpec{ok}, Options{LeaseDurationSeconds: -1}, "negative"},
	}
	for name, c := range cases {
		_, err := NewStandalone(client, c.nodes, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", name, err, c.want)
		}
	}
	if _, err := NewStandalone(nil, []NodeSpec{ok}, Options{}); err == nil {
		t.Error("nil client accepted")
	}
	s, err := NewStandalone(client, []NodeSpec{ok}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.RenewInterval() != 10*time.Second {
		t.Errorf("renew interval %s, want 10 s (40 s × 0.25)", s.RenewInterval())
	}
	specs, err := Numbered("w", 300)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, sp := range specs {
		if _, err := sp.validate(); err != nil || seen[sp.InternalIP] {
			t.Fatalf("Numbered gave %+v (%v, repeated %v)", sp, err, seen[sp.InternalIP])
		}
		seen[sp.InternalIP] = true
	}
	if _, err := Numbered("w", -1); err == nil {
		t.Error("Numbered(-1) accepted")
	}
}
