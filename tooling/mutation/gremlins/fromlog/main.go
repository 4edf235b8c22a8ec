// Command fromlog turns the log of a gremlins v0.6.0 run that was stopped
// before its end into a result file the table reads, marked unfinished.
// gremlins writes its JSON only when a run completes; its log has one line
// per mutant as each one is decided ("      KILLED CONDITIONALS_NEGATION at
// node.go:12:3"), so the mutants it reached are all there. The total, the
// number of mutants the run would have reached, comes from a dry run of the
// same code (gremlins unleash --dry-run: its RUNNABLE and NOT COVERED lines)
// and is given with -total; the table then says "unfinished: N of TOTAL".
//
//	go run ./tooling/mutation/gremlins/fromlog -total 437 -minutes 140 \
//	    sim.part3of4.log > sim.part3of4.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"

	"github.com/kubeletlogic/kubeletlogic/tooling/mutation/gremlins/report"
)

var lineRE = regexp.MustCompile(`^\s*(KILLED|LIVED|NOT COVERED|TIMED OUT|NOT VIABLE) ([A-Z_]+) at (\S+\.go):(\d+):(\d+)\s*$`)

// convert reads a log and returns the result it stands for.
func convert(r io.Reader, total int, minutes float64) (report.Result, error) {
	out := report.Result{Elapsed: minutes * 60, Unfinished: &report.Unfinished{Total: total}}
	index := map[string]int{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[4])
		col, _ := strconv.Atoi(m[5])
		i, ok := index[m[3]]
		if !ok {
			i = len(out.Files)
			index[m[3]] = i
			out.Files = append(out.Files, report.File{Name: m[3]})
		}
		out.Files[i].Mutations = append(out.Files[i].Mutations, report.Mutation{Type: m[2], Status: m[1], Line: line, Column: col})
		out.Unfinished.Reported++
	}
	if err := sc.Err(); err != nil {
		return report.Result{}, err
	}
	if out.Unfinished.Reported == 0 {
		return report.Result{}, fmt.Errorf("no mutant lines in the log")
	}
	if total < out.Unfinished.Reported {
		return report.Result{}, fmt.Errorf("-total %d is less than the %d mutants the log reports", total, out.Unfinished.Reported)
	}
	return out, nil
}

func main() {
	total := flag.Int("total", 0, "mutants the whole run has (from a dry run of the same code)")
	minutes := flag.Float64("minutes", 0, "how long the run ran, in minutes")
	flag.Parse()
	if flag.NArg() != 1 || *total <= 0 {
		fmt.Fprintln(os.Stderr, "usage: fromlog -total N [-minutes M] gremlins.log > result.json")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	res, err := convert(f, *total, *minutes)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
