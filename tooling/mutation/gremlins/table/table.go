// Command table reads the gremlins JSON results in a folder (one file per
// package, written by tooling/mutation/gremlins.sh) and the triage files in
// its triage/ subfolder, and prints results.md:
//
//  1. the counts as gremlins v0.6.0 reports them: package, killed, lived,
//     not covered, timed out, not viable, efficacy, coverage, minutes;
//  2. the same packages with the NOT COVERED mutants run by hand counted:
//     a NOT COVERED mutant whose row in triage/<package>.md (same
//     file:line:col and mutator) has a reason starting "killed by hand"
//     counts as killed, "lived by hand" as lived, "not viable by hand" as
//     no mutant; any other NOT COVERED one stays not covered;
//  3. every mutant that lived or was not covered, with what its triage row
//     says of it ("untriaged" when it has none).
//
// Efficacy is killed / (killed + lived); mutator coverage is
// (killed + lived) / (killed + lived + not covered), gremlins' definitions.
//
//	go run ./tooling/mutation/gremlins/table tooling/mutation/gremlins > results.md
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kubeletlogic/kubeletlogic/tooling/mutation/gremlins/report"
)

// The triage verdicts that change the counts. A row's reason column must
// start with one of these words (case as written) to count.
const (
	handKilled    = "killed by hand"
	handLived     = "lived by hand"
	handNotViable = "not viable by hand"
)

// A triage row: "| file.go:12:3 | MUTATOR | STATUS | reason |".
// A piece's result file: <base>.partNofM.
var partRE = regexp.MustCompile(`^(.+)\.part(\d+)of(\d+)$`)

var rowRE = regexp.MustCompile(`^\|\s*([^\s|]+\.go:\d+:\d+)\s*\|\s*([A-Z_]+)\s*\|\s*([A-Z][A-Z ]*[A-Z])\s*\|(.*)\|\s*$`)

// triageRow is what one triage row says of one mutant.
type triageRow struct {
	status string // as the row gives it: LIVED or NOT COVERED
	reason string
}

// key names a mutant as gremlins does: "file.go:line:col MUTATOR".
func key(where, mutator string) string { return where + " " + mutator }

// parseTriage reads a triage file's rows, keyed by key(). A row repeated
// for one mutant keeps the first.
func parseTriage(md string) map[string]triageRow {
	rows := map[string]triageRow{}
	for _, ln := range strings.Split(md, "\n") {
		m := rowRE.FindStringSubmatch(strings.TrimSpace(ln))
		if m == nil {
			continue
		}
		k := key(m[1], m[2])
		if _, ok := rows[k]; !ok {
			rows[k] = triageRow{status: m[3], reason: strings.TrimSpace(m[4])}
		}
	}
	return rows
}

// verdict is the short word the details table shows for a triage row.
func verdict(r triageRow, ok bool) string {
	switch {
	case !ok:
		return "untriaged"
	case strings.HasPrefix(r.reason, handKilled):
		return handKilled
	case strings.HasPrefix(r.reason, handLived):
		return handLived
	case strings.HasPrefix(r.reason, handNotViable):
		return handNotViable
	case strings.HasPrefix(strings.ToLower(r.reason), "equivalent"):
		return "equivalent"
	}
	return "triaged"
}

// counts of one package.
type counts struct {
	killed, lived, notCovered, timedOut, notViable int
	// NOT COVERED mutants whose triage row says they were run by hand.
	handKilled, handLived, handNotViable int
	untriaged                            int // lived or not covered, no triage row
	// lived mutants (by gremlins or by hand) whose triage row calls them
	// equivalent: no test can kill them, so the last efficacy leaves
	// them out.
	equivalent int
	// rerunKilled: LIVED mutants that rerun (<package>.rerun.json) ran
	// again on a later commit, KILLED or TIMED OUT there.
	rerunKilled int
	minutes     float64
}

func (c *counts) add(o counts) {
	c.killed += o.killed
	c.lived += o.lived
	c.notCovered += o.notCovered
	c.timedOut += o.timedOut
	c.notViable += o.notViable
	c.handKilled += o.handKilled
	c.handLived += o.handLived
	c.handNotViable += o.handNotViable
	c.untriaged += o.untriaged
	c.equivalent += o.equivalent
	c.rerunKilled += o.rerunKilled
}

// gremlins' own figures.
func (c counts) efficacy() string { return pct(c.killed, c.killed+c.lived) }
func (c counts) coverage() string {
	return pct(c.killed+c.lived, c.killed+c.lived+c.notCovered)
}

// The figures with the hand-run NOT COVERED mutants counted as run.
func (c counts) handEfficacy() string {
	k, l := c.killed+c.handKilled, c.lived+c.handLived
	return pct(k, k+l)
}

// handEfficacyNonEquivalent is handEfficacy with the equivalent mutants
// left out of the lived ones (mutation score over killable mutants).
func (c counts) handEfficacyNonEquivalent() string {
	k, l := c.killed+c.handKilled, c.lived+c.handLived-c.equivalent
	return pct(k, k+l)
}

// rerunEfficacy is handEfficacyNonEquivalent with the LIVED mutants that
// re-ran KILLED counted as killed.
func (c counts) rerunEfficacy() string {
	k, l := c.killed+c.handKilled+c.rerunKilled, c.lived+c.handLived-c.equivalent-c.rerunKilled
	return pct(k, k+l)
}

func (c counts) handCoverage() string {
	run := c.killed + c.lived + c.handKilled + c.handLived
	return pct(run, c.killed+c.lived+c.notCovered-c.handNotViable)
}

// tally counts one package's result against its triage rows and returns
// the details rows (lived and not covered) as Markdown.
func tally(r report.Result, rows map[string]triageRow, rerun map[string]string) (counts, []string) {
	c := counts{minutes: r.Elapsed / 60}
	var open []string
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			where := fmt.Sprintf("%s:%d:%d", f.Name, m.Line, m.Column)
			row, ok := rows[key(where, m.Type)]
			switch m.Status {
			case "KILLED":
				c.killed++
			case "LIVED":
				c.lived++
				if ok && verdict(row, ok) == "equivalent" {
					c.equivalent++
				} else if st := rerun[key(where, m.Type)]; st == "KILLED" || st == "TIMED OUT" {
					c.rerunKilled++
				}
			case "NOT COVERED":
				c.notCovered++
				switch verdict(row, ok) {
				case handKilled:
					c.handKilled++
				case handLived:
					c.handLived++
					if strings.Contains(strings.ToLower(row.reason), "equivalent") {
						c.equivalent++
					}
				case handNotViable:
					c.handNotViable++
				}
			case "TIMED OUT":
				c.timedOut++
			case "NOT VIABLE":
				c.notViable++
			}
			if m.Status == "LIVED" || m.Status == "NOT COVERED" {
				if !ok {
					c.untriaged++
				}
				v := verdict(row, ok)
				if st, re := rerun[key(where, m.Type)]; re && m.Status == "LIVED" {
					v += "; re-run: " + st
				}
				open = append(open, fmt.Sprintf("| %s | %s | %s | %s |", where, m.Type, m.Status, v))
			}
		}
	}
	sort.Strings(open)
	return c, open
}

// write prints results.md for the results and triage files in dir.
func write(w io.Writer, dir string) error {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(names) == 0 {
		return fmt.Errorf("no results in %s", dir)
	}
	sort.Strings(names)
	type pkgCounts struct {
		pkg string
		c   counts
	}
	// A package run in pieces has one file per piece, <base>.partNofM.json:
	// their files are added up under the package's base name.
	type merged struct {
		r     report.Result
		parts []int    // the pieces present, N of each
		of    int      // M, the pieces the package was cut into
		short []string // "piece 3 unfinished: 380 of 437 mutants", one per unfinished result
	}
	byBase := map[string]*merged{}
	var bases []string
	for _, n := range names {
		if strings.HasSuffix(n, ".rerun.json") {
			continue // survivors run again (rerun), read with their package
		}
		b, err := os.ReadFile(n)
		if err != nil {
			return err
		}
		var r report.Result
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %v", n, err)
		}
		base := strings.TrimSuffix(filepath.Base(n), ".json")
		part, of := 0, 0
		if m := partRE.FindStringSubmatch(base); m != nil {
			base = m[1]
			part, _ = strconv.Atoi(m[2])
			of, _ = strconv.Atoi(m[3])
		}
		g := byBase[base]
		if g == nil {
			g = &merged{}
			byBase[base] = g
			bases = append(bases, base)
		}
		if (g.of != 0 || len(g.r.Files) > 0 || g.r.Elapsed > 0) && g.of != of {
			return fmt.Errorf("%s: %s mixes a whole run and pieces, or pieces of different cuts", n, base)
		}
		g.of = of
		if part > 0 {
			g.parts = append(g.parts, part)
		}
		if u := r.Unfinished; u != nil {
			what := "unfinished"
			if part > 0 {
				what = fmt.Sprintf("piece %d unfinished", part)
			}
			g.short = append(g.short, fmt.Sprintf("%s: %d of %d mutants", what, u.Reported, u.Total))
		}
		g.r.Files = append(g.r.Files, r.Files...)
		g.r.Elapsed += r.Elapsed
	}
	sort.Strings(bases)
	var all []pkgCounts
	var details []string
	for _, base := range bases {
		g := byBase[base]
		r := g.r
		rows := map[string]triageRow{}
		if md, err := os.ReadFile(filepath.Join(dir, "triage", base+".md")); err == nil {
			rows = parseTriage(string(md))
		} else if !os.IsNotExist(err) {
			return err
		}
		pkg := strings.ReplaceAll(base, "_", "/")
		if g.of > 0 && len(g.parts) < g.of {
			sort.Ints(g.parts)
			ps := make([]string, len(g.parts))
			for i, x := range g.parts {
				ps[i] = strconv.Itoa(x)
			}
			pkg += fmt.Sprintf(" (pieces %s of %d)", strings.Join(ps, ", "), g.of)
		}
		if len(g.short) > 0 {
			pkg += " (" + strings.Join(g.short, "; ") + ")"
		}
		rerun, err := readRerun(dir, base)
		if err != nil {
			return err
		}
		c, open := tally(r, rows, rerun)
		all = append(all, pkgCounts{pkg, c})
		if len(open) > 0 {
			details = append(details, "", "### "+pkg, "", "| where | mutator | status | triage |", "|---|---|---|---|")
			details = append(details, open...)
		}
	}
	var tot counts
	for _, p := range all {
		tot.add(p.c)
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# gremlins results\n\n")
	p("Written by `bash tooling/mutation/gremlins.sh -table` from the JSON files beside it and the triage files in `triage/`.\n")
	p("Efficacy = killed / (killed + lived); coverage = (killed + lived) / (killed + lived + not covered).\n\n")
	p("## As gremlins v0.6.0 reports them\n\n")
	p("| package | killed | lived | not covered | timed out | not viable | efficacy | coverage | minutes |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, x := range all {
		c := x.c
		p("| %s | %d | %d | %d | %d | %d | %s | %s | %.1f |\n", x.pkg, c.killed, c.lived, c.notCovered, c.timedOut, c.notViable, c.efficacy(), c.coverage(), c.minutes)
	}
	p("| **all** | %d | %d | %d | %d | %d | %s | %s | |\n\n", tot.killed, tot.lived, tot.notCovered, tot.timedOut, tot.notViable, tot.efficacy(), tot.coverage())
	p("## With the NOT COVERED mutants run by hand\n\n")
	p("gremlins v0.6.0 runs no mutant in a tagless `case` condition or a constant (Go's cover profile has no block there) and calls it NOT COVERED. ")
	p("`plant.go` runs such a mutant by hand. Counted here, from the rows of `triage/<package>.md` with the same position and mutator whose reason starts ")
	p("\"%s\" (as killed), \"%s\" (as lived) or \"%s\" (no mutant: it does not compile). ", handKilled, handLived, handNotViable)
	p("Any other NOT COVERED mutant stays not covered. \"untriaged\" counts the lived and not covered mutants with no triage row at that position. ")
	p("\"equivalent\" counts the lived ones (by gremlins or by hand) whose row explains why no test can kill them (a LIVED row whose reason starts \"equivalent\", a \"%s\" row that says \"equivalent\"); ", handLived)
	p("the last efficacy leaves them out: killed / (killed + lived - equivalent), the hand-run ones counted. ")
	p("A LIVED mutant whose row names a test written after the run counts as lived until it is run again: by gremlins, or by `rerun`, ")
	p("which plants it on a later commit (where its line is unchanged) and runs the tests its row names (`<package>.rerun.json`, the commit it ran on in its `head`, or in a mutant's own `ran` when kept from an earlier re-run): ")
	p("\"killed on re-run\" counts those KILLED or TIMED OUT there, and the last efficacy counts them as killed.\n\n")
	p("| package | not covered | killed by hand | lived by hand | not viable by hand | still not covered | untriaged | equivalent | killed on re-run | efficacy (gremlins) | efficacy (with hand-run) | efficacy (equivalent excluded) | efficacy (equivalent excluded, survivors re-run) | coverage (gremlins) | coverage (with hand-run) |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, c counts) {
		rest := c.notCovered - c.handKilled - c.handLived - c.handNotViable
		p("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s |\n", name, c.notCovered, c.handKilled, c.handLived, c.handNotViable, rest, c.untriaged, c.equivalent, c.rerunKilled,
			c.efficacy(), c.handEfficacy(), c.handEfficacyNonEquivalent(), c.rerunEfficacy(), c.coverage(), c.handCoverage())
	}
	for _, x := range all {
		row(x.pkg, x.c)
	}
	row("**all**", tot)
	if len(details) > 0 {
		p("\n## Lived and not covered, as gremlins reported them\n\n")
		p("Each is triaged in `triage/<package>.md` beside this file (package path with / as _): the test that kills it, or why it is equivalent. ")
		p("The triage column is what that row says (see above); \"triaged\" is a row naming a test.\n")
		for _, d := range details {
			p("%s\n", d)
		}
	}
	return nil
}

// readRerun reads <base>.rerun.json, if any: the status each LIVED mutant
// had when run again, keyed by key(), for the mutants whose result file
// runs.txt still says was run on the commit the re-run mapped from (a
// result replaced by a newer run is not matched with the old re-run).
func readRerun(dir, base string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, base+".rerun.json"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rr report.Rerun
	if err := json.Unmarshal(b, &rr); err != nil {
		return nil, fmt.Errorf("%s.rerun.json: %v", base, err)
	}
	rt, err := os.ReadFile(filepath.Join(dir, "runs.txt"))
	if err != nil {
		return nil, fmt.Errorf("%s.rerun.json needs runs.txt: %v", base, err)
	}
	runs := report.Runs(string(rt))
	out := map[string]string{}
	for _, m := range rr.Mutants {
		if runs[m.Result] == m.Commit {
			out[key(m.Where, m.Type)] = m.Status
		}
	}
	return out, nil
}

func pct(a, b int) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(a)/float64(b))
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tooling/mutation/gremlins/table <folder>")
		os.Exit(2)
	}
	if err := write(os.Stdout, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
