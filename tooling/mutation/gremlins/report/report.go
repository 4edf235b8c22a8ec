// Package report is the result file gremlins v0.6.0 writes with -o (the
// fields the tooling reads), shared by the table, which reads it, and
// fromlog, which writes one from the log of a run stopped before its end.
package report

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
