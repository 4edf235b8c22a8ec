package sim_test

import (
	"os"
	"strings"
	"testing"
)

// docs/simulator.md shows Example_deleteWithSidecar's output and says
// go test checks it: this is that check (the block after "prints" equals
// the example's Output comment).
func TestDocsShowExampleOutput(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	i := strings.Index(s, "func Example_deleteWithSidecar")
	if i < 0 {
		t.Fatal("no Example_deleteWithSidecar")
	}
	s = s[i:]
	j := strings.Index(s, "// Output:\n")
	k := strings.Index(s, "\n}")
	if j < 0 || k < j {
		t.Fatal("no Output comment")
	}
	var want []string
	for _, l := range strings.Split(s[j+len("// Output:\n"):k], "\n") {
		l = strings.TrimPrefix(strings.TrimSpace(l), "//")
		want = append(want, strings.TrimPrefix(l, " "))
	}
	doc, err := os.ReadFile("../docs/simulator.md")
	if err != nil {
		t.Fatal(err)
	}
	d := string(doc)
	a := strings.Index(d, "prints (from `sim/example_test.go`")
	if a < 0 {
		t.Fatal("docs/simulator.md: no example output")
	}
	d = d[a:]
	b := strings.Index(d, "```\n")
	e := strings.Index(d[b+4:], "```")
	if b < 0 || e < 0 {
		t.Fatal("docs/simulator.md: no block after the example")
	}
	got := strings.Split(strings.TrimRight(d[b+4:b+4+e], "\n"), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	for i := range want {
		want[i] = strings.TrimRight(want[i], " ")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/simulator.md shows:\n%s\nthe example prints:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
