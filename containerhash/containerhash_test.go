package containerhash

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// Vectors the kubelet's own tests pin (TestHashContainer,
// TestHashContainerWithoutResources), plus one with characters that
// encoding/json escapes.
func TestOfKnownVectors(t *testing.T) {
	for _, tc := range []struct {
		name, image string
		want        uint64
	}{
		{"test_container", "foo/image:v1", 0x8e45cbd0},
		{"foo", "bar", 0x11a6d6d6},
		{"a<b", "img&x", 0x80f55e02},
	} {
		got := Of(&v1.Container{Name: tc.name, Image: tc.image})
		if got != tc.want {
			t.Errorf("Of(%q, %q) = %#x, want %#x", tc.name, tc.image, got, tc.want)
		}
	}
}

func TestOnlyNameAndImageCount(t *testing.T) {
	a := &v1.Container{Name: "app", Image: "busybox"}
	b := a.DeepCopy()
	b.Command = []string{"sh"}
	b.Resources.Limits = v1.ResourceList{v1.ResourceCPU: {}}
	b.Env = []v1.EnvVar{{Name: "X", Value: "1"}}
	if Of(a) != Of(b) {
		t.Errorf("hash changed with fields other than name and image")
	}
	c := a.DeepCopy()
	c.Image = "busybox:2"
	if !Changed(c, Of(a)) {
		t.Errorf("image change not detected")
	}
	if !Changed(a, 0) {
		t.Errorf("a missing hash annotation must read as changed")
	}
	if Of(nil) != Of(&v1.Container{}) {
		t.Errorf("nil container must hash like an empty one")
	}
}
