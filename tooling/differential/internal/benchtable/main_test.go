package main

import (
	"io"
	"strings"
	"testing"
)

func TestParseAndRender(t *testing.T) {
	in := `goos: linux
BenchmarkVs/getPhase/kubeletlogic-2   	 1000	       100.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkVs/getPhase/kubelet-2        	 1000	      1000 ns/op	      64 B/op	       2 allocs/op
BenchmarkVs/getPhase/kubeletlogic-2   	 1000	       300.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkVs/getPhase/kubelet-2        	 1000	      3000 ns/op	      64 B/op	       2 allocs/op
BenchmarkVs/getPhase/kubeletlogic-2   	 1000	       200.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkVs/getPhase/kubelet-2        	 1000	      2000 ns/op	      64 B/op	       2 allocs/op
BenchmarkVs/computePodActions(resize)/kubeletlogic-2 	 10	 1234.5 ns/op	 16 B/op	 1 allocs/op
BenchmarkVs/computePodActions(resize)/kubelet-2 	 10	 12345 ns/op	 640 B/op	 32 allocs/op
PASS
`
	var echo strings.Builder
	rows, err := parse(strings.NewReader(in), &echo)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].name != "getPhase" || rows[1].name != "computePodActions(resize)" {
		t.Fatalf("rows %+v", rows)
	}
	if echo.String() != "goos: linux\nPASS\n" {
		t.Errorf("echoed %q", echo.String())
	}
	out := render(rows)
	for _, want := range []string{
		"| getPhase                  |        200 |          2000 | 10.0x |         0 |           64 |   inf |           0 |              2 |    inf |",
		"| computePodActions(resize) |       1234 |         12345 | 10.0x |        16 |          640 | 40.0x |           1 |             32 |  32.0x |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "answer copy") {
		t.Errorf("a table without answer copies has the copy table:\n%s", out)
	}

	// An answer copy joins the row of its name, before or after it.
	rows, err = parse(strings.NewReader(`BenchmarkAnswerCopy/generateAPIPodStatus/copy-2 	 100	 5000 ns/op	 4000 B/op	 30 allocs/op
BenchmarkVs/generateAPIPodStatus/kubeletlogic-2 	 100	 20000 ns/op	 8000 B/op	 33 allocs/op
BenchmarkVs/generateAPIPodStatus/kubelet-2 	 100	 50000 ns/op	 28000 B/op	 171 allocs/op
`), io.Discard)
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	out = render(rows)
	for _, want := range []string{
		"| generateAPIPodStatus |      20000 |         50000 | 2.5x |",
		"| generateAPIPodStatus |              5000 |                 30 |      20000 |         50000 |          10.0x |        4.0x |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}

	if _, err := parse(strings.NewReader(""), io.Discard); err != nil {
		t.Error(err)
	}
}
