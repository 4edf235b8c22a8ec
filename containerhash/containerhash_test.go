package containerhash

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"
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

// The fast path and encoding/json agree, including on every character that
// json escapes.
func TestPlainPathMatchesJSON(t *testing.T) {
	for _, s := range []string{"", "busybox:1.36", "a\"b", "a\\\\b", "a<b", "a>b", "a&b", "tab\\t", "\\x7f", "é", "\\u2028", "\\xff"} {
		c := &v1.Container{Name: s, Image: s}
		if got, want := Of(c), slowOf(c); got != want {
			t.Errorf("%q: %#x, want %#x", s, got, want)
		}
	}
}

// Every byte value, every escaped rune, invalid UTF-8 and long strings
// hash as encoding/json plus go-spew do.
func TestOfMatchesJSONEveryByte(t *testing.T) {
	var inputs []string
	for b := 0; b < 256; b++ {
		inputs = append(inputs, string([]byte{byte(b)}), "x"+string([]byte{byte(b)})+"y")
	}
	inputs = append(inputs, "\u2028\u2029", "a\u2029b", "\xe2\x80", "\xf0\x9f\x98\x80", "é<>&\x00\b\f\n\r\t\x1f\x7f",
		strings.Repeat("registry.example/odd-", 40), strings.Repeat("<&>", 200))
	for _, s := range inputs {
		for _, c := range []*v1.Container{{Name: s, Image: "img"}, {Name: "app", Image: s}, {Name: s, Image: s}} {
			if got, want := Of(c), slowOf(c); got != want {
				t.Errorf("Of(%q, %q) = %#x, want %#x", c.Name, c.Image, got, want)
			}
		}
	}
}

// FuzzOf: Of agrees with encoding/json plus go-spew text plus FNV-1a on any
// name and image.
func FuzzOf(f *testing.F) {
	f.Add("app", "busybox:1.36")
	f.Add("a<b", "img&x\u2028\xff\x01")
	f.Fuzz(func(t *testing.T, name, image string) {
		c := &v1.Container{Name: name, Image: image}
		if got, want := Of(c), slowOf(c); got != want {
			t.Fatalf("Of(%q, %q) = %#x, want %#x", name, image, got, want)
		}
	})
}

// Of allocates nothing, whatever the strings (the hot path of
// computePodActions hashes every running container).
func TestOfAllocatesNothing(t *testing.T) {
	for _, c := range []*v1.Container{
		nil,
		{Name: "app", Image: "registry.k8s.io/pause:3.10"},
		{Name: "a<b", Image: "img&x\u2028\xff\x01"},
		{Name: strings.Repeat("n", 300), Image: strings.Repeat("<", 300)},
	} {
		if n := testing.AllocsPerRun(100, func() { Of(c) }); n != 0 {
			t.Errorf("Of(%v) allocates %v times per call, want 0", c, n)
		}
	}
}

func slowOf(c *v1.Container) uint64 {
	js, _ := json.Marshal(map[string]string{"name": c.Name, "image": c.Image})
	text := "([]uint8)["
	for i, b := range js {
		if i > 0 {
			text += " "
		}
		text += strconv.Itoa(int(b))
	}
	text += "]"
	h := fnv.New32a()
	h.Write([]byte(text))
	return uint64(h.Sum32())
}

func BenchmarkOf(b *testing.B) {
	c := &v1.Container{Name: "app", Image: "registry.k8s.io/pause:3.10"}
	for b.Loop() {
		Of(c)
	}
}

func BenchmarkSlowOf(b *testing.B) {
	c := &v1.Container{Name: "app", Image: "registry.k8s.io/pause:3.10"}
	for b.Loop() {
		slowOf(c)
	}
}
