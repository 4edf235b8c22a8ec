package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A result of one package: 3 killed, 1 lived, 6 not covered, 1 timed out,
// 1 not viable.
const resultJSON = `{"go_module":"example.com/m","elapsed_time":90,"files":[
 {"file_name":"a.go","mutations":[
  {"type":"CONDITIONALS_NEGATION","status":"KILLED","line":1,"column":2},
  {"type":"CONDITIONALS_NEGATION","status":"KILLED","line":2,"column":2},
  {"type":"ARITHMETIC_BASE","status":"LIVED","line":3,"column":4},
  {"type":"CONDITIONALS_NEGATION","status":"NOT COVERED","line":10,"column":5},
  {"type":"CONDITIONALS_BOUNDARY","status":"NOT COVERED","line":10,"column":5},
  {"type":"CONDITIONALS_NEGATION","status":"NOT COVERED","line":11,"column":7},
  {"type":"TIMED OUT placeholder","status":"TIMED OUT","line":12,"column":1}]},
 {"file_name":"b.go","mutations":[
  {"type":"INCREMENT_DECREMENT","status":"KILLED","line":5,"column":3},
  {"type":"ARITHMETIC_BASE","status":"NOT COVERED","line":20,"column":30},
  {"type":"ARITHMETIC_BASE","status":"NOT COVERED","line":21,"column":30},
  {"type":"ARITHMETIC_BASE","status":"NOT COVERED","line":22,"column":30},
  {"type":"ARITHMETIC_BASE","status":"NOT VIABLE","line":23,"column":30}]}]}`

// Its triage: a.go:10:5 NEGATION killed by hand (its BOUNDARY twin has no
// row), a.go:11:7 lived by hand, b.go:20:30 not viable by hand, b.go:21:30
// killed but not in the words that count, a stale row (a.go:99:1), a row
// at a real position with another mutator, and a prose line.
const triageMD = "# x\n\n" +
	"killed by hand | in prose | is not a row\n\n" +
	"| where | mutator | status | test that kills it, or why equivalent |\n" +
	"|---|---|---|---|\n" +
	"| a.go:3:4 | ARITHMETIC_BASE | LIVED | equivalent: the sum is only printed |\n" +
	"| a.go:10:5 | CONDITIONALS_NEGATION | NOT COVERED | killed by hand: `TestA` |\n" +
	"| a.go:11:7 | CONDITIONALS_NEGATION | NOT COVERED | lived by hand: equivalent, x is never 0 |\n" +
	"| b.go:20:30 | ARITHMETIC_BASE | NOT COVERED | not viable by hand: `-` between strings |\n" +
	"| b.go:21:30 | ARITHMETIC_BASE | NOT COVERED | killed by `TestB` (planted by hand) |\n" +
	"| a.go:99:1 | CONDITIONALS_NEGATION | NOT COVERED | killed by hand: a stale position |\n" +
	"| b.go:22:30 | CONDITIONALS_NEGATION | NOT COVERED | killed by hand: another mutator |\n"

func TestTally(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "triage"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "internal_x.json"), []byte(resultJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "triage", "internal_x.md"), []byte(triageMD), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := write(&out, dir); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		// gremlins' own: 3 / 4 = 75 %, 4 / 10 = 40 %.
		"| internal/x | 3 | 1 | 6 | 1 | 1 | 75.0 % | 40.0 % | 1.5 |",
		// Hand-run: killed 3+1 of 4+1+... : efficacy 4 / 6 = 66.7 %;
		// coverage (4 + 2) / (10 - 1) = 66.7 %; 3 still not covered
		// (a.go:10:5 BOUNDARY, b.go:21:30, b.go:22:30); untriaged: the
		// BOUNDARY twin and b.go:22:30. Equivalent: a.go:3:4 (LIVED) and
		// a.go:11:7 (lived by hand, "equivalent"): 4 / (4 + 2 - 2) = 100 %.
		"| internal/x | 6 | 1 | 1 | 1 | 3 | 2 | 2 | 0 | 75.0 % | 66.7 % | 100.0 % | 100.0 % | 40.0 % | 66.7 % |",
		"| a.go:10:5 | CONDITIONALS_NEGATION | NOT COVERED | killed by hand |",
		"| a.go:10:5 | CONDITIONALS_BOUNDARY | NOT COVERED | untriaged |",
		"| a.go:11:7 | CONDITIONALS_NEGATION | NOT COVERED | lived by hand |",
		"| a.go:3:4 | ARITHMETIC_BASE | LIVED | equivalent |",
		"| b.go:20:30 | ARITHMETIC_BASE | NOT COVERED | not viable by hand |",
		"| b.go:21:30 | ARITHMETIC_BASE | NOT COVERED | triaged |",
		"| b.go:22:30 | ARITHMETIC_BASE | NOT COVERED | untriaged |",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("no line %q in\n%s", want, got)
		}
	}
}

func TestParseTriage(t *testing.T) {
	rows := parseTriage(triageMD + "| a.go:10:5 | CONDITIONALS_NEGATION | NOT COVERED | lived by hand: a repeat |\n")
	if len(rows) != 7 {
		t.Errorf("%d rows, want 7: %v", len(rows), rows)
	}
	r, ok := rows[key("a.go:10:5", "CONDITIONALS_NEGATION")]
	if !ok || r.status != "NOT COVERED" || r.reason != "killed by hand: `TestA`" {
		t.Errorf("a.go:10:5: %+v %v, want the first row's NOT COVERED, killed by hand: `TestA`", r, ok)
	}
	if _, ok := rows[key("a.go:10:5", "CONDITIONALS_BOUNDARY")]; ok {
		t.Errorf("a row for a mutator no row names")
	}
}

func TestNoResults(t *testing.T) {
	if err := write(&strings.Builder{}, t.TempDir()); err == nil {
		t.Errorf("no JSON: no error")
	}
}

// A package run in pieces: its pieces' mutants are added up under the
// package, and a package with pieces missing says which it has.
func TestPieces(t *testing.T) {
	dir := t.TempDir()
	piece := func(name, file, status string, elapsed int) {
		j := `{"go_module":"m","elapsed_time":` + strconv.Itoa(elapsed) + `,"files":[{"file_name":"` + file +
			`","mutations":[{"type":"CONDITIONALS_NEGATION","status":"KILLED","line":1,"column":1},` +
			`{"type":"CONDITIONALS_NEGATION","status":"` + status + `","line":2,"column":1}]}]}`
		if err := os.WriteFile(filepath.Join(dir, name), []byte(j), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	piece("sim.part1of3.json", "a.go", "LIVED", 60)
	piece("sim.part3of3.json", "c.go", "KILLED", 120)
	piece("cmd_x.part1of2.json", "x.go", "KILLED", 30)
	piece("cmd_x.part2of2.json", "y.go", "NOT COVERED", 30)
	var out strings.Builder
	if err := write(&out, dir); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"| sim (pieces 1, 3 of 3) | 3 | 1 | 0 | 0 | 0 | 75.0 % | 100.0 % | 3.0 |",
		"| cmd/x | 3 | 0 | 1 | 0 | 0 | 100.0 % | 75.0 % | 1.0 |",
		"| a.go:2:1 | CONDITIONALS_NEGATION | LIVED | untriaged |",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("no line %q in\n%s", want, got)
		}
	}
	// A whole run beside pieces of the same package is an error.
	piece("sim.json", "a.go", "KILLED", 1)
	if err := write(&strings.Builder{}, dir); err == nil {
		t.Errorf("sim.json beside sim's pieces: no error")
	}
}

// A result read from the log of a stopped run (fromlog) is counted, and
// its package says it is unfinished and how far the run got.
func TestUnfinishedPiece(t *testing.T) {
	dir := t.TempDir()
	write1 := func(name, j string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(j), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write1("sim.part1of2.json", `{"elapsed_time":60,"files":[{"file_name":"a.go","mutations":[{"type":"CONDITIONALS_NEGATION","status":"KILLED","line":1,"column":1}]}]}`)
	write1("sim.part2of2.json", `{"elapsed_time":60,"unfinished":{"reported":2,"total":5},"files":[{"file_name":"b.go","mutations":[`+
		`{"type":"CONDITIONALS_NEGATION","status":"KILLED","line":1,"column":1},{"type":"ARITHMETIC_BASE","status":"LIVED","line":2,"column":3}]}]}`)
	var out strings.Builder
	if err := write(&out, dir); err != nil {
		t.Fatal(err)
	}
	want := "| sim (piece 2 unfinished: 2 of 5 mutants) | 2 | 1 | 0 | 0 | 0 | 66.7 % | 100.0 % | 2.0 |\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("no line %q in\n%s", want, out.String())
	}
}

// TestRerun: a LIVED mutant that rerun ran again KILLED (or TIMED OUT) on
// a later commit counts in "killed on re-run" and as killed in the last
// efficacy, when runs.txt still names the commit the re-run mapped from;
// a re-run of an older run of the result (another commit), a LIVED re-run
// and an equivalent mutant do not count.
func TestRerun(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "triage"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := `{"elapsed_time":60,"files":[{"file_name":"a.go","mutations":[
  {"type":"CONDITIONALS_NEGATION","status":"KILLED","line":1,"column":2},
  {"type":"CONDITIONALS_NEGATION","status":"LIVED","line":2,"column":2},
  {"type":"CONDITIONALS_NEGATION","status":"LIVED","line":3,"column":2},
  {"type":"CONDITIONALS_NEGATION","status":"LIVED","line":4,"column":2},
  {"type":"CONDITIONALS_NEGATION","status":"LIVED","line":5,"column":2},
  {"type":"CONDITIONALS_NEGATION","status":"LIVED","line":6,"column":2}]}]}`
	md := "| a.go:2:2 | CONDITIONALS_NEGATION | LIVED | killed by `TestA` |\n" +
		"| a.go:3:2 | CONDITIONALS_NEGATION | LIVED | killed by `TestB` |\n" +
		"| a.go:4:2 | CONDITIONALS_NEGATION | LIVED | killed by `TestC` |\n" +
		"| a.go:5:2 | CONDITIONALS_NEGATION | LIVED | killed by `TestD` |\n" +
		"| a.go:6:2 | CONDITIONALS_NEGATION | LIVED | equivalent: never negative |\n"
	rerun := `{"head":"abc1234","date":"2026-12-04","mutants":[
  {"result":"x.part1of2","commit":"c1","where":"a.go:2:2","type":"CONDITIONALS_NEGATION","status":"KILLED","by":"TestA"},
  {"result":"x.part1of2","commit":"c1","where":"a.go:3:2","type":"CONDITIONALS_NEGATION","status":"TIMED OUT"},
  {"result":"x.part1of2","commit":"c1","where":"a.go:4:2","type":"CONDITIONALS_NEGATION","status":"LIVED"},
  {"result":"x.part1of2","commit":"c0","where":"a.go:5:2","type":"CONDITIONALS_NEGATION","status":"KILLED"}]}`
	for name, body := range map[string]string{
		"x.part1of2.json": res, "x.rerun.json": rerun, "triage/x.md": md,
		"runs.txt": "# result commit\nx.part1of2.json c1 # the run\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := write(&out, dir); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		// gremlins: 1 killed, 5 lived.
		"| x (pieces 1 of 2) | 1 | 5 | 0 | 0 | 0 | 16.7 % | 100.0 % | 1.0 |",
		// 1 equivalent; 2 killed on re-run: (1 + 2) / (1 + 2 + 5 - 1 - 2) = 60 %.
		"| x (pieces 1 of 2) | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 2 | 16.7 % | 16.7 % | 20.0 % | 60.0 % | 100.0 % | 100.0 % |",
		"| a.go:2:2 | CONDITIONALS_NEGATION | LIVED | triaged; re-run: KILLED |",
		"| a.go:3:2 | CONDITIONALS_NEGATION | LIVED | triaged; re-run: TIMED OUT |",
		"| a.go:4:2 | CONDITIONALS_NEGATION | LIVED | triaged; re-run: LIVED |",
		"| a.go:5:2 | CONDITIONALS_NEGATION | LIVED | triaged |",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("no line %q in\n%s", want, got)
		}
	}
}
