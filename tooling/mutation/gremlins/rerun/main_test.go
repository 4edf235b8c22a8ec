package main

import (
	"strings"
	"testing"

	"github.com/kubeletlogic/kubeletlogic/tooling/mutation/gremlins/report"
)

// TestMapLine: a line unchanged since the run is found where it moved to;
// a changed or removed one is not (0).
func TestMapLine(t *testing.T) {
	old := strings.Split("package x\n\nfunc f(a int) bool {\n\treturn a > 0\n}\n\nfunc g() {}\n", "\n")
	now := strings.Split("package x\n\n// f tells.\nfunc f(a int) bool {\n\treturn a > 0\n}\n\nfunc g() { h() }\n", "\n")
	for _, c := range []struct{ old, want int }{
		{1, 1}, // package clause, unchanged
		{3, 4}, // moved down one line by the comment
		{4, 5},
		{7, 0}, // g changed
		{0, 0}, // out of range
		{99, 0},
	} {
		if got := mapLine(old, now, c.old); got != c.want {
			t.Errorf("line %d: got %d, want %d", c.old, got, c.want)
		}
	}
	// A repeated line keeps its place among its twins.
	old = []string{"a", "}", "b", "}", "c"}
	now = []string{"a", "}", "x", "b", "}", "c"}
	if got := mapLine(old, now, 4); got != 5 {
		t.Errorf("second }: got %d, want 5", got)
	}
	if got := mapLine(old, now, 2); got != 2 {
		t.Errorf("first }: got %d, want 2", got)
	}
}

// TestNamedTests: the tests a LIVED row names; an equivalent row names
// none; the first row of a mutant wins; other statuses are not read.
func TestNamedTests(t *testing.T) {
	md := "| a.go:1:2 | CONDITIONALS_NEGATION | LIVED | killed by `TestA` and `TestB_c` (planted) |\n" +
		"| a.go:1:2 | CONDITIONALS_NEGATION | LIVED | killed by `TestLater` |\n" +
		"| a.go:3:4 | ARITHMETIC_BASE | LIVED | equivalent: `TestX` shows it cannot differ |\n" +
		"| a.go:5:6 | ARITHMETIC_BASE | NOT COVERED | killed by hand: `TestY` |\n" +
		"| a.go:7:8 | ARITHMETIC_BASE | LIVED | fixed in abc |\n"
	got := namedTests(md)
	if ts := got["a.go:1:2 CONDITIONALS_NEGATION"]; strings.Join(ts, ",") != "TestA,TestB_c" {
		t.Errorf("a.go:1:2: %v", ts)
	}
	if ts, ok := got["a.go:3:4 ARITHMETIC_BASE"]; !ok || ts != nil {
		t.Errorf("equivalent row: %v %v", ts, ok)
	}
	if _, ok := got["a.go:5:6 ARITHMETIC_BASE"]; ok {
		t.Error("a NOT COVERED row read")
	}
	if ts := got["a.go:7:8 ARITHMETIC_BASE"]; len(ts) != 0 {
		t.Errorf("a row naming no test: %v", ts)
	}
}

// TestReuse: with -keep, an earlier KILLED or TIMED OUT result of the same
// mutant with the same tests is kept; a LIVED or CHANGED one, one run with
// other tests, another mutant's, or any without -keep is run again.
func TestReuse(t *testing.T) {
	mu := report.RerunMutant{Result: "p.part1of4", Where: "a.go:1:2", Type: "CONDITIONALS_BOUNDARY", Tests: "^(TestA)$"}
	earlier := func(status, tests, typ string) map[string]report.RerunMutant {
		e := mu
		e.Status, e.Tests, e.Type, e.Ran = status, tests, typ, "abc1234"
		return map[string]report.RerunMutant{e.Result + " " + e.Where + " " + e.Type: e}
	}
	for _, c := range []struct {
		name              string
		status, tests, ty string
		keep, want        bool
	}{
		{"killed, same tests", "KILLED", mu.Tests, mu.Type, true, true},
		{"timed out, same tests", "TIMED OUT", mu.Tests, mu.Type, true, true},
		{"killed, without -keep", "KILLED", mu.Tests, mu.Type, false, false},
		{"lived", "LIVED", mu.Tests, mu.Type, true, false},
		{"changed", "CHANGED", mu.Tests, mu.Type, true, false},
		{"killed by other tests", "KILLED", "^(TestB)$", mu.Type, true, false},
		{"another mutator's", "KILLED", mu.Tests, "ARITHMETIC_BASE", true, false},
	} {
		e, ok := reuse(earlier(c.status, c.tests, c.ty), mu, c.keep)
		if ok != c.want {
			t.Errorf("%s: kept %v, want %v", c.name, ok, c.want)
		}
		if ok && (e.Ran != "abc1234" || e.Status != c.status) {
			t.Errorf("%s: kept %+v, want the earlier result with its commit", c.name, e)
		}
	}
}
