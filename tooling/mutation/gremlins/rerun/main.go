// Command rerun runs again, on the code of today, the mutants a gremlins
// run left LIVED whose triage row names the test that now kills them, and
// writes what each did to <package>.rerun.json beside the results. The
// table (tooling/mutation/gremlins/table) counts a LIVED mutant that
// re-ran KILLED as killed in its last columns, and says so.
//
// Why: a gremlins run of sim takes about six hours on this project's two
// cores; the triage of its survivors writes tests that kill them, and
// until gremlins runs again those mutants count as lived. rerun measures
// them again, one by one, as gremlins would: the same operator swapped at
// the same place, the tests of the file's package run against it (through
// plant.go, go test -overlay: the tree is not touched).
//
// A mutant's position is the one gremlins printed on the commit it ran on
// (runs.txt beside the results names that commit for each result file).
// The line is looked up in today's file: the lines of the two versions
// are matched (longest common subsequence), and a mutant whose line is
// unchanged is planted at the line it has moved to, same column. A mutant
// whose line changed (or whose file is gone) is not run: CHANGED, it
// stays lived. Only mutants whose row names tests (`TestX` in backquotes)
// are run, with -run of those tests; one that lives is LIVED (the row's
// claim did not hold). Equivalent and untriaged mutants are not run.
//
// With -keep, a mutant an earlier rerun killed with the same tests is not
// run again: its result is kept, with the commit it ran on (`ran`), so rows
// triaged since are run alone.
//
//	go run ./tooling/mutation/gremlins/rerun -pkg sim tooling/mutation/gremlins
//	go run ./tooling/mutation/gremlins/rerun -pkg cmd/kubeletlogic -keep tooling/mutation/gremlins
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubeletlogic/kubeletlogic/tooling/mutation/gremlins/report"
)

var (
	rowRE  = regexp.MustCompile(`^\|\s*([^\s|]+\.go:\d+:\d+)\s*\|\s*([A-Z_]+)\s*\|\s*LIVED\s*\|(.*)\|\s*$`)
	testRE = regexp.MustCompile("`(Test[A-Za-z0-9_]+)")
	outRE  = regexp.MustCompile(`^\s*(KILLED|LIVED|NOT VIABLE|TIMED OUT|ERROR) [A-Z_]+ at \S+(?: by (\S+))?`)
)

// namedTests reads a triage file's LIVED rows that name tests and are not
// equivalent: key "file:line:col MUTATOR" to the tests named, first row
// of a mutant kept.
func namedTests(md string) map[string][]string {
	out := map[string][]string{}
	for _, ln := range strings.Split(md, "\n") {
		m := rowRE.FindStringSubmatch(strings.TrimSpace(ln))
		if m == nil {
			continue
		}
		k := m[1] + " " + m[2]
		if _, seen := out[k]; seen {
			continue
		}
		reason := strings.TrimSpace(m[3])
		if strings.HasPrefix(strings.ToLower(reason), "equivalent") {
			out[k] = nil
			continue
		}
		var tests []string
		for _, t := range testRE.FindAllStringSubmatch(reason, -1) {
			tests = append(tests, t[1])
		}
		out[k] = tests
	}
	return out
}

// mapLine returns the line of today's text that is old's line n (from 1),
// unchanged; 0 when that line was changed or removed. The lines of the two
// are matched by a longest common subsequence.
func mapLine(old, now []string, n int) int {
	if n < 1 || n > len(old) {
		return 0
	}
	// lcs[i][j]: the longest common subsequence of old[i:] and now[j:].
	w := len(now) + 1
	lcs := make([]int32, (len(old)+1)*w)
	for i := len(old) - 1; i >= 0; i-- {
		for j := len(now) - 1; j >= 0; j-- {
			switch {
			case old[i] == now[j]:
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
				lcs[i*w+j] = lcs[(i+1)*w+j]
			default:
				lcs[i*w+j] = lcs[i*w+j+1]
			}
		}
	}
	i, j := 0, 0
	for i < len(old) && j < len(now) {
		switch {
		case old[i] == now[j] && lcs[i*w+j] == lcs[(i+1)*w+j+1]+1:
			if i == n-1 {
				return j + 1
			}
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			if i == n-1 {
				return 0
			}
			i++
		default:
			j++
		}
	}
	return 0
}

// reuse is, with -keep, an earlier rerun's result for mu: one that killed
// (or timed out) the same mutant with the same tests. A LIVED, CHANGED or
// ERROR result, or one run with other tests, is run again.
func reuse(earlier map[string]report.RerunMutant, mu report.RerunMutant, keep bool) (report.RerunMutant, bool) {
	e, ok := earlier[mu.Result+" "+mu.Where+" "+mu.Type]
	if !keep || !ok || e.Tests != mu.Tests || (e.Status != "KILLED" && e.Status != "TIMED OUT") {
		return report.RerunMutant{}, false
	}
	return e, true
}

func lines(b []byte) []string { return strings.Split(string(b), "\n") }

func main() {
	pkg := flag.String("pkg", "", "the package, as gremlins.sh names it (sim, cmd/kubeletlogic)")
	only := flag.String("only", "", "run only the mutants of this result file (sim.part3of4)")
	keep := flag.Bool("keep", false, "keep an earlier rerun's KILLED or TIMED OUT result for a mutant whose row names the same tests; run only the others")
	flag.Parse()
	if *pkg == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tooling/mutation/gremlins/rerun -pkg sim [-only sim.part3of4] tooling/mutation/gremlins")
		os.Exit(2)
	}
	dir := flag.Arg(0)
	base := strings.ReplaceAll(*pkg, "/", "_")
	check := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "rerun:", err)
			os.Exit(1)
		}
	}
	rt, err := os.ReadFile(filepath.Join(dir, "runs.txt"))
	check(err)
	commits := report.Runs(string(rt))
	md, err := os.ReadFile(filepath.Join(dir, "triage", base+".md"))
	check(err)
	named := namedTests(string(md))
	files, err := filepath.Glob(filepath.Join(dir, base+"*.json"))
	check(err)
	sort.Strings(files)

	plant := filepath.Join(os.TempDir(), "kubeletlogic-plant")
	out, err := exec.Command("go", "build", "-o", plant, filepath.Join(dir, "plant.go")).CombinedOutput()
	if err != nil {
		check(fmt.Errorf("building plant.go: %v\n%s", err, out))
	}
	head, err := exec.Command("git", "describe", "--always", "--dirty", "--abbrev=7").Output()
	check(err)
	res := report.Rerun{Head: strings.TrimSpace(string(head)), Date: time.Now().UTC().Format("2006-01-02")}
	outFile := filepath.Join(dir, base+".rerun.json")
	// An earlier rerun's results: the other result files' mutants are kept
	// with -only; with -keep, a mutant already killed with the same tests
	// is not run again. Each kept one says the commit it ran on.
	earlier := map[string]report.RerunMutant{}
	if b, err := os.ReadFile(outFile); err == nil && (*only != "" || *keep) {
		var prev report.Rerun
		check(json.Unmarshal(b, &prev))
		for _, m := range prev.Mutants {
			if m.Ran == "" {
				m.Ran = prev.Head
			}
			if m.Ran == res.Head {
				m.Ran = ""
			}
			if *only != "" && m.Result != *only {
				res.Mutants = append(res.Mutants, m)
				continue
			}
			earlier[m.Result+" "+m.Where+" "+m.Type] = m
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if strings.HasSuffix(name, ".rerun") || (*only != "" && name != *only) {
			continue
		}
		if name != base && !strings.HasPrefix(name, base+".part") {
			continue
		}
		commit, ok := commits[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "rerun: %s: no commit in runs.txt: skipped\n", name)
			continue
		}
		b, err := os.ReadFile(f)
		check(err)
		var r report.Result
		check(json.Unmarshal(b, &r))
		for _, rf := range r.Files {
			src := filepath.Join(*pkg, rf.Name)
			oldB, oldErr := exec.Command("git", "show", commit+":"+src).Output()
			nowB, nowErr := os.ReadFile(src)
			for _, m := range rf.Mutations {
				if m.Status != "LIVED" {
					continue
				}
				where := fmt.Sprintf("%s:%d:%d", rf.Name, m.Line, m.Column)
				tests := named[where+" "+m.Type]
				if len(tests) == 0 {
					continue // equivalent, untriaged, or no test named
				}
				mu := report.RerunMutant{Result: name, Commit: commit, Where: where, Type: m.Type,
					Tests: "^(" + strings.Join(tests, "|") + ")$"}
				if e, ok := reuse(earlier, mu, *keep); ok {
					res.Mutants = append(res.Mutants, e)
					continue
				}
				n := 0
				if oldErr == nil && nowErr == nil {
					n = mapLine(lines(oldB), lines(nowB), m.Line)
				}
				if n == 0 {
					mu.Status = "CHANGED"
					res.Mutants = append(res.Mutants, mu)
					fmt.Fprintf(os.Stderr, "%s %s %s: line changed since %s\n", name, where, m.Type, commit)
					continue
				}
				mu.Now = fmt.Sprintf("%s:%d:%d", rf.Name, n, m.Column)
				// plant.go runs the tests of the folder it is given:
				// the file's own package.
				pdir := filepath.Dir(src)
				line := fmt.Sprintf("%s at %s:%d:%d\n", m.Type, filepath.Base(rf.Name), n, m.Column)
				cmd := exec.Command(plant, "-run", mu.Tests, "./"+pdir)
				cmd.Stdin = strings.NewReader(line)
				var o bytes.Buffer
				cmd.Stdout, cmd.Stderr = &o, &o
				check(cmd.Run())
				mu.Status = "ERROR"
				sc := bufio.NewScanner(&o)
				for sc.Scan() {
					if x := outRE.FindStringSubmatch(sc.Text()); x != nil {
						mu.Status, mu.By = x[1], x[2]
					}
				}
				fmt.Fprintf(os.Stderr, "%s %s %s (now %s): %s %s\n", name, where, m.Type, mu.Now, mu.Status, mu.By)
				res.Mutants = append(res.Mutants, mu)
				// Written after each mutant: a stopped run keeps what it did.
				js, _ := json.MarshalIndent(res, "", " ")
				check(os.WriteFile(outFile, append(js, '\n'), 0o644))
			}
		}
	}
	js, _ := json.MarshalIndent(res, "", " ")
	check(os.WriteFile(outFile, append(js, '\n'), 0o644))
	counts := map[string]int{}
	for _, m := range res.Mutants {
		counts[m.Status]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+" "+strconv.Itoa(counts[k]))
	}
	fmt.Fprintf(os.Stderr, "rerun: %s: %s\n", outFile, strings.Join(parts, ", "))
}
