package names

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
	}{
		{"", ""}, {"a", ""}, {"", "a"}, {"a", "a"}, {"a", "b"}, {"app-0", "app-1"},
		{"app-0", "bpp-0"}, {"app-0", "app-0"}, {"app-0", "app-00"}, {"init-1", "app-1"},
		{"x\x00", "x\x00"}, {"ab", "ba"},
	} {
		if got, want := Equal(tc.a, tc.b), tc.a == tc.b; got != want {
			t.Errorf("Equal(%q, %q) = %v, want %v", tc.a, tc.b, got, want)
		}
	}
}

func FuzzEqual(f *testing.F) {
	f.Add("app-0", "app-1")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		if Equal(a, b) != (a == b) {
			t.Fatalf("Equal(%q, %q) = %v", a, b, Equal(a, b))
		}
		if !Equal(a, a) {
			t.Fatalf("Equal(%q, itself) = false", a)
		}
	})
}

func TestLookup(t *testing.T) {
	first := []v1.ContainerStatus{{Name: "a"}, {Name: "b", Ready: true}, {Name: "b"}}
	second := []v1.ContainerStatus{{Name: "c"}, {Name: "a", Ready: true}}
	if got := Lookup(first, second, "a"); got != &first[0] {
		t.Errorf("a: %v, want the first list's", got)
	}
	if got := Lookup(first, second, "b"); got != &first[1] {
		t.Errorf("b: %v, want the first b", got)
	}
	if got := Lookup(first, second, "c"); got != &second[0] {
		t.Errorf("c: %v, want the second list's", got)
	}
	if got := Lookup(first, second, "d"); got != nil {
		t.Errorf("d: %v, want nil", got)
	}
	if Lookup(nil, nil, "") != nil || Index(nil, "a") != -1 {
		t.Error("empty lists found something")
	}
	cs := []v1.Container{{Name: "x"}, {Name: "y"}, {Name: "y"}}
	if ContainerIndex(cs, "y") != 1 || ContainerIndex(cs, "z") != -1 {
		t.Error("ContainerIndex")
	}
}

func TestAllocationBudgets(t *testing.T) {
	first := []v1.ContainerStatus{{Name: "app-0"}, {Name: "app-1"}}
	second := []v1.ContainerStatus{{Name: "init-0"}}
	if n := testing.AllocsPerRun(10, func() {
		Lookup(first, second, "init-0")
		Equal("app-0", "app-1")
	}); n != 0 {
		t.Errorf("Lookup allocates %v times, budget 0", n)
	}
}
