package main

import (
	"strings"
	"testing"

	"github.com/kubeletlogic/kubeletlogic/tooling/mutation/gremlins/report"
)

func TestConvert(t *testing.T) {
	log := `Starting...
Gathering coverage... done in 9.9s
      KILLED CONDITIONALS_BOUNDARY at a.go:20:25
       LIVED CONDITIONALS_NEGATION at a.go:21:3
 NOT COVERED ARITHMETIC_BASE at internal/engine/engine.go:7:1
   TIMED OUT INVERT_NEGATIVES at a.go:30:36
  NOT VIABLE ARITHMETIC_BASE at b.go:1:2
Shutting down gracefully...
`
	r, err := convert(strings.NewReader(log), 9, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Unfinished.Reported != 5 || r.Unfinished.Total != 9 || r.Elapsed != 120 {
		t.Errorf("unfinished %+v, elapsed %v; want 5 of 9, 120 s", *r.Unfinished, r.Elapsed)
	}
	if len(r.Files) != 3 || r.Files[0].Name != "a.go" || len(r.Files[0].Mutations) != 3 || r.Files[1].Name != "internal/engine/engine.go" {
		t.Fatalf("files %+v", r.Files)
	}
	if m := r.Files[0].Mutations[1]; m != (report.Mutation{Type: "CONDITIONALS_NEGATION", Status: "LIVED", Line: 21, Column: 3}) {
		t.Errorf("second mutant %+v", m)
	}
	if m := r.Files[1].Mutations[0]; m.Status != "NOT COVERED" || m.Type != "ARITHMETIC_BASE" {
		t.Errorf("not covered mutant %+v", m)
	}
	if _, err := convert(strings.NewReader(log), 4, 0); err == nil {
		t.Error("a total below the mutants reported: no error")
	}
	if _, err := convert(strings.NewReader("Starting...\n"), 4, 0); err == nil {
		t.Error("a log without mutants: no error")
	}
}
