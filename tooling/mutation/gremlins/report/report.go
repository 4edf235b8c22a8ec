// Package report is the result file gremlins v0.6.0 writes with -o (the
// fields the tooling reads), shared by the table, which reads it, and
// fromlog, which writes one from the log of a run stopped before its end.
package report

import "strings"

// Mutation is one mutant: its mutator, status and position.
type Mutation struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// File is the mutants of one source file.
type File struct {
	Name      string     `json:"file_name"`
	Mutations []Mutation `json:"mutations"`
}

// Unfinished is set by fromlog on a result read from the log of a run
// stopped before its end: the mutants the log reports, of the total.
type Unfinished struct {
	Reported int `json:"reported"`
	Total    int `json:"total"`
}

// Result is one run's result.
type Result struct {
	Module     string      `json:"go_module,omitempty"`
	Files      []File      `json:"files"`
	Elapsed    float64     `json:"elapsed_time"`
	Unfinished *Unfinished `json:"unfinished,omitempty"`
}

// Rerun is the file rerun writes, <package>.rerun.json: LIVED mutants of
// gremlins runs run again on a later commit.
type Rerun struct {
	// Head is the commit the mutants were run on (git describe --always
	// --dirty).
	Head    string        `json:"head"`
	Date    string        `json:"date"`
	Mutants []RerunMutant `json:"mutants"`
}

// RerunMutant is one LIVED mutant run again.
type RerunMutant struct {
	Result string `json:"result"` // the result file it lived in, without .json
	Commit string `json:"commit"` // the commit that run mutated (runs.txt)
	Where  string `json:"where"`  // file:line:col as gremlins printed it
	Type   string `json:"type"`
	Now    string `json:"now,omitempty"` // file:line:col on Head, when found
	// Status: KILLED, TIMED OUT, LIVED, NOT VIABLE, ERROR, or CHANGED
	// (its line is not in the file of Head: not run).
	Status string `json:"status"`
	By     string `json:"by,omitempty"` // the first failing test
	Tests  string `json:"tests"`        // the -run pattern
	// Ran is the commit it ran on when that is not the file's Head: a
	// result kept from an earlier rerun (rerun -keep, or -only of another
	// result file).
	Ran string `json:"ran,omitempty"`
}

// Runs reads runs.txt: "<result file> <commit>" per line (the commit the
// run mutated), # starts a comment. Keys are result names without .json.
func Runs(txt string) map[string]string {
	out := map[string]string{}
	for _, ln := range strings.Split(txt, "\n") {
		ln, _, _ = strings.Cut(ln, "#")
		if f := strings.Fields(ln); len(f) == 2 {
			out[strings.TrimSuffix(f[0], ".json")] = f[1]
		}
	}
	return out
}
