package runtimestate

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// DeepCopy returns a Pod equal to p that shares no memory with it: for
// every combination of the four resource quantities set or left out,
// changing anything reachable from the copy leaves p as it was.
func TestDeepCopySharesNothing(t *testing.T) {
	if (*Pod)(nil).DeepCopy() != nil {
		t.Fatal("DeepCopy of a nil Pod is not nil")
	}
	build := func(mask int) *Pod {
		q := func(bit int, s string) *resource.Quantity {
			if mask&bit == 0 {
				return nil
			}
			v := resource.MustParse(s)
			return &v
		}
		return &Pod{
			UID: "u", Name: "p", Namespace: "ns",
			Sandboxes: []Sandbox{{ID: "s1", Ready: true, IP: "10.0.0.1", AdditionalIPs: []string{"fd00::1"}}},
			Containers: []Container{
				{ID: "c1", Name: "app", SandboxID: "s1", State: Running, Resources: &Resources{
					CPURequest: q(1, "100m"), CPULimit: q(2, "200m"), MemoryRequest: q(4, "64Mi"), MemoryLimit: q(8, "128Mi"),
				}},
				{ID: "c2", Name: "side", SandboxID: "s1", State: Exited},
			},
		}
	}
	for mask := 0; mask < 16; mask++ {
		orig, pristine := build(mask), build(mask)
		cp := orig.DeepCopy()
		if !reflect.DeepEqual(cp, pristine) {
			t.Fatalf("mask %d: copy %+v differs from the original %+v", mask, cp, pristine)
		}
		cp.Sandboxes[0].ID = "changed"
		cp.Sandboxes[0].AdditionalIPs[0] = "changed"
		cp.Containers[0].Name = "changed"
		r := cp.Containers[0].Resources
		for _, q := range []*resource.Quantity{r.CPURequest, r.CPULimit, r.MemoryRequest, r.MemoryLimit} {
			if q != nil {
				q.Add(resource.MustParse("1"))
			}
		}
		r.CPURequest = resource.NewQuantity(9, resource.DecimalSI)
		if !reflect.DeepEqual(orig, pristine) {
			t.Errorf("mask %d: changing the copy changed the original: %+v, want %+v", mask, orig.Containers[0].Resources, pristine.Containers[0].Resources)
		}
	}
}
