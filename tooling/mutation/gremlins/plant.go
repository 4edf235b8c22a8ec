//go:build ignore

// plant runs gremlins mutants by hand: for each mutant named on standard
// input ("MUTATOR at file.go:line:col", as gremlins' log prints them, any
// status word before it ignored) it swaps the operator gremlins v0.6.0
// would swap at that position, runs the package's tests against the
// mutated file (go test -overlay: the source tree is not touched) and
// prints KILLED with the first failing test, LIVED, or NOT VIABLE when the
// mutant does not compile.
//
// It exists because gremlins v0.6.0 reports as NOT COVERED every mutant
// Go's coverage profile has no block for: the conditions of a tagless
// switch's cases and constant expressions (go-gremlins/gremlins#298, open
// fix #299). Those mutants are run here instead.
//
//	grep 'NOT COVERED' phase.log | go run tooling/mutation/gremlins/plant.go ./phase
//	echo 'CONDITIONALS_BOUNDARY at phase.go:271:21' | go run tooling/mutation/gremlins/plant.go -run TestX ./phase
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// swaps is gremlins v0.6.0's table of token mutations (internal/engine/
// mappings.go), for the mutators it enables by default.
var swaps = map[string]map[string]string{
	"ARITHMETIC_BASE":       {"+": "-", "*": "/", "/": "*", "%": "*", "-": "+"},
	"CONDITIONALS_BOUNDARY": {">=": ">", ">": ">=", "<=": "<", "<": "<="},
	"CONDITIONALS_NEGATION": {"==": "!=", ">=": "<", ">": "<=", "<=": ">", "<": ">=", "!=": "=="},
	"INCREMENT_DECREMENT":   {"--": "++", "++": "--"},
	"INVERT_NEGATIVES":      {"-": "+"},
}

var line = regexp.MustCompile(`([A-Z_]+) at ([^ :]+\.go):(\d+):(\d+)`)

func main() {
	run := flag.String("run", "", "go test -run pattern (default: every test)")
	timeout := flag.String("timeout", "5m", "go test -timeout")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run tooling/mutation/gremlins/plant.go [-run re] ./pkg < mutants")
		os.Exit(2)
	}
	pkg := flag.Arg(0)
	tmp, err := os.MkdirTemp("", "plant")
	check(err)
	defer os.RemoveAll(tmp)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		mut, file := m[1], filepath.Join(pkg, m[2])
		ln, _ := strconv.Atoi(m[3])
		col, _ := strconv.Atoi(m[4])
		where := fmt.Sprintf("%s at %s:%d:%d", mut, m[2], ln, col)
		src, err := os.ReadFile(file)
		check(err)
		off := offset(src, ln, col)
		from, to := "", ""
		for f, t := range swaps[mut] {
			if off >= 0 && strings.HasPrefix(string(src[off:]), f) && len(f) > len(from) {
				from, to = f, t
			}
		}
		if from == "" {
			fmt.Printf("  ERROR %s: no operator of that mutator there\n", where)
			continue
		}
		mutated := string(src[:off]) + to + string(src[off+len(from):])
		abs, _ := filepath.Abs(file)
		mf := filepath.Join(tmp, "mutant.go")
		check(os.WriteFile(mf, []byte(mutated), 0o644))
		ov, _ := json.Marshal(map[string]any{"Replace": map[string]string{abs: mf}})
		of := filepath.Join(tmp, "overlay.json")
		check(os.WriteFile(of, ov, 0o644))
		// A mutant that loops forever is killed by the timeout, as
		// gremlins' own timeout does (TIMED OUT counts as killed).
		args := []string{"test", "-count=1", "-failfast", "-timeout", *timeout, "-overlay", of}
		if *run != "" {
			args = append(args, "-run", *run)
		}
		out, err := exec.Command("go", append(args, pkg)...).CombinedOutput()
		switch {
		case err == nil:
			fmt.Printf("  LIVED %s\n", where)
		case strings.Contains(string(out), "[build failed]") || strings.Contains(string(out), "[setup failed]"):
			fmt.Printf("  NOT VIABLE %s\n", where)
		case strings.Contains(string(out), "panic: test timed out"):
			fmt.Printf("  TIMED OUT %s\n", where)
		default:
			fmt.Printf("  KILLED %s by %s\n", where, failing(string(out)))
		}
	}
}

// offset returns the byte offset of line ln, column col (both from 1,
// col in bytes, as go/token counts them), or -1.
func offset(src []byte, ln, col int) int {
	l := 1
	for i := range src {
		if l == ln {
			if i+col-1 < len(src) {
				return i + col - 1
			}
			return -1
		}
		if src[i] == '\n' {
			l++
		}
	}
	return -1
}

// failing names the first failed test in go test's output.
func failing(out string) string {
	if m := regexp.MustCompile(`--- FAIL: (\S+)`).FindStringSubmatch(out); m != nil {
		return m[1]
	}
	if strings.Contains(out, "panic:") {
		return "a panic"
	}
	return "a failure (" + strings.SplitN(strings.TrimSpace(out), "\n", 2)[0] + ")"
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
