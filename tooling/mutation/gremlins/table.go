//go:build ignore

// table reads the gremlins JSON results in a folder (one file per package,
// written by tooling/mutation/gremlins.sh) and prints the Markdown table: package,
// killed, lived, not covered, timed out, not viable, efficacy, coverage;
// then every mutant that lived or was not covered, by package and file.
//
// Efficacy is killed / (killed + lived); mutator coverage is
// (killed + lived) / (killed + lived + not covered), gremlins' definitions.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type result struct {
	Module string `json:"go_module"`
	Files  []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
	Elapsed float64 `json:"elapsed_time"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run table.go <folder>")
		os.Exit(2)
	}
	names, err := filepath.Glob(filepath.Join(os.Args[1], "*.json"))
	if err != nil || len(names) == 0 {
		fmt.Fprintln(os.Stderr, "no results in", os.Args[1])
		os.Exit(1)
	}
	sort.Strings(names)
	fmt.Println("# gremlins results")
	fmt.Println()
	fmt.Println("Written by `bash tooling/mutation/gremlins.sh -table` from the JSON files beside it.")
	fmt.Println("Efficacy = killed / (killed + lived); coverage = (killed + lived) / (killed + lived + not covered).")
	fmt.Println()
	fmt.Println("| package | killed | lived | not covered | timed out | not viable | efficacy | coverage | minutes |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	var details []string
	var tk, tl, tn, tt, tv int
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var r result
		if err := json.Unmarshal(b, &r); err != nil {
			fmt.Fprintln(os.Stderr, n+":", err)
			os.Exit(1)
		}
		pkg := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(n), ".json"), "_", "/")
		var k, l, nc, to, nv int
		var open []string
		for _, f := range r.Files {
			for _, m := range f.Mutations {
				switch m.Status {
				case "KILLED":
					k++
				case "LIVED":
					l++
				case "NOT COVERED":
					nc++
				case "TIMED OUT":
					to++
				case "NOT VIABLE":
					nv++
				}
				if m.Status == "LIVED" || m.Status == "NOT COVERED" {
					open = append(open, fmt.Sprintf("| %s:%d:%d | %s | %s |", f.Name, m.Line, m.Column, m.Type, m.Status))
				}
			}
		}
		tk, tl, tn, tt, tv = tk+k, tl+l, tn+nc, tt+to, tv+nv
		fmt.Printf("| %s | %d | %d | %d | %d | %d | %s | %s | %.1f |\n", pkg, k, l, nc, to, nv,
			pct(k, k+l), pct(k+l, k+l+nc), r.Elapsed/60)
		if len(open) > 0 {
			sort.Strings(open)
			details = append(details, "", "### "+pkg, "", "| where | mutator | status |", "|---|---|---|")
			details = append(details, open...)
		}
	}
	fmt.Printf("| **all** | %d | %d | %d | %d | %d | %s | %s | |\n", tk, tl, tn, tt, tv, pct(tk, tk+tl), pct(tk+tl, tk+tl+tn))
	if len(details) > 0 {
		fmt.Println()
		fmt.Println("## Lived and not covered, as gremlins reported them")
		fmt.Println()
		fmt.Println("Each is triaged in `triage/<package>.md` beside this file (package path with / as _): the test that kills it, or why it is equivalent.")
		for _, d := range details {
			fmt.Println(d)
		}
	}
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(a)/float64(b))
}
