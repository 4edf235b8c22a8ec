//go:build ignore

// mutate plants the single-line bugs listed in tooling/mutation/bugs.txt into a
// temporary copy of the repository, one at a time, and runs the library
// tests (which include ./tooling/replay) and the differential suite against each.
// It prints a Markdown table: which tests caught each bug, and after how
// many random cases. Run it through tooling/mutation/run.sh; see tooling/mutation/README.md.
//
// The repository itself is never modified: every bug is planted in a copy
// (by default under $TMPDIR/kubeletlogic-mutation), and the copy's file is
// restored before the next bug.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

type bug struct {
	ID, File, Desc, Old, New string
	line                     int // of the "id:" line in the list
}

type result struct {
	bug          bug
	compileError string   // non-empty: the planted bug does not build (a list error)
	unit         []string // "pkg: Test" failing in non-replay library packages
	unitRapid    string   // rapid's count for the first unit failure, if any
	replay       []string // failing replay tests
	libOther     string   // library stage failed with no test named (build, panic, timeout)
	diffTest     string   // first failing differential (sub)test
	diffRapid    string   // "N" from rapid's "failed after N tests"
	diffOther    string   // differential stage failed with no test named
	diffSkipped  bool
	libSkipped   bool
	elapsed      time.Duration
}

func (r *result) libFailed() bool  { return len(r.unit) > 0 || len(r.replay) > 0 || r.libOther != "" }
func (r *result) diffFailed() bool { return r.diffTest != "" || r.diffOther != "" }
func (r *result) verdict() string {
	switch {
	case r.compileError != "":
		return "LIST ERROR"
	case r.libFailed() || r.diffFailed():
		return "CAUGHT"
	}
	return "SURVIVED"
}

var (
	flagBugs     = flag.String("bugs", "tooling/mutation/bugs.txt", "bug list")
	flagOnly     = flag.String("only", "", "comma-separated bug ids (or id prefixes ending in *) to run; default all")
	flagQuick    = flag.Bool("quick", false, "quick run: differential case counts scaled by -scale (DIFF_SCALE)")
	flagScale    = flag.String("scale", "0.1", "DIFF_SCALE used with -quick")
	flagWork     = flag.String("work", "", "work directory for the copy (default $TMPDIR/kubeletlogic-mutation); its contents are replaced")
	flagOut      = flag.String("out", "", "Markdown table output (default tooling/mutation/out/results-<time>.md)")
	flagBaseline = flag.Bool("baseline", true, "first run both stages on the unmodified copy and stop if either fails")
	flagNoDiff   = flag.Bool("nodiff", false, "skip the differential suite")
	flagNoLib    = flag.Bool("nolib", false, "skip the library tests")
	flagDiffLast = flag.Bool("difflast", false, "run the differential suite only for bugs the library tests did not catch (much faster; the table says which were not run)")
	flagCheck    = flag.Bool("check", false, "only check the list (every original occurs exactly once) and exit")
	flagList     = flag.Bool("list", false, "print the bug list and exit")
	flagTimeout  = flag.Duration("stagetimeout", 2*time.Hour, "safety limit for one stage of one bug (go test's own -timeout catches hung tests; the first differential run in a new -work directory compiles the kubelet, which can take most of an hour on a busy machine)")
	flagShrink   = flag.String("shrinktime", "5s", "RAPID_SHRINKTIME for both stages (shrinking only shortens the report; it does not change the count)")
)

var start = time.Now()

// stage is the process group of the stage running now; an interrupt ends
// it too (it is not in the terminal's foreground group).
var stage struct {
	sync.Mutex
	pid int
}

func handleSignals() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-ch
		stage.Lock()
		if stage.pid != 0 {
			syscall.Kill(-stage.pid, syscall.SIGKILL)
		}
		stage.Unlock()
		fmt.Fprintf(os.Stderr, "mutation: %v: stopped (the repository was never modified; the work copy is left as it is)\n", s)
		os.Exit(130)
	}()
}

func logf(format string, args ...any) {
	el := time.Since(start).Round(time.Second)
	fmt.Fprintf(os.Stderr, "[mutation %s] %s\n", el, fmt.Sprintf(format, args...))
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mutation: "+format+"\n", args...)
	os.Exit(2)
}

func main() {
	flag.Parse()
	handleSignals()
	root, err := os.Getwd()
	if err != nil {
		fatalf("%v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "tooling", "differential", "run.sh")); err != nil {
		fatalf("run from the repository root (tooling/differential/run.sh not found)")
	}
	bugs, err := parseBugs(*flagBugs)
	if err != nil {
		fatalf("%v", err)
	}
	if *flagList {
		for _, b := range bugs {
			fmt.Printf("%-28s %-32s %s\n", b.ID, b.File, b.Desc)
		}
		return
	}
	// The list is checked against the repository (read only) before any
	// copy is made, so that a stale entry fails at once.
	if errs := checkBugs(root, bugs); len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintln(os.Stderr, "mutation: list error:", e)
		}
		os.Exit(2)
	}
	if *flagCheck {
		fmt.Printf("%d bugs, every original line occurs exactly once\n", len(bugs))
		return
	}
	bugs, err = selectBugs(bugs, *flagOnly)
	if err != nil {
		fatalf("%v", err)
	}

	work := *flagWork
	if work == "" {
		// A fixed path, so that the Go build cache (keyed on the package
		// directories) is reused from one run to the next.
		work = filepath.Join(os.TempDir(), "kubeletlogic-mutation")
	}
	stamp := time.Now().Format("2006-01-02-1504")
	out := *flagOut
	if out == "" {
		out = filepath.Join(root, "tooling", "mutation", "out", "results-"+stamp+".md")
	}
	logDir := strings.TrimSuffix(out, ".md") + ".logs"
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		fatalf("%v", err)
	}
	logf("copying the work tree to %s", work)
	rev, err := copyTree(root, work)
	if err != nil {
		fatalf("copy: %v", err)
	}
	logf("%d bugs; logs in %s", len(bugs), logDir)

	env := append(os.Environ(), "RAPID_NOFAILFILE=1", "RAPID_SHRINKTIME="+*flagShrink)
	env = dropEnv(env, "DIFF_SCALE")
	if *flagQuick {
		env = append(env, "DIFF_SCALE="+*flagScale)
	}

	if *flagBaseline {
		logf("baseline: both stages on the unmodified copy")
		var r result
		runStages(work, env, &r, filepath.Join(logDir, "baseline"))
		if r.libFailed() || r.diffFailed() {
			fatalf("baseline fails (unit %v replay %v %s; differential %s %s): fix it before planting bugs; logs in %s",
				r.unit, r.replay, r.libOther, r.diffTest, r.diffOther, logDir)
		}
		logf("baseline passes")
	}

	var results []*result
	listErrors := 0
	for i, b := range bugs {
		t0 := time.Now()
		logf("(%d/%d) %s: %s — %s", i+1, len(bugs), b.ID, b.File, b.Desc)
		r := &result{bug: b}
		restore, err := plant(work, b)
		if err != nil {
			fatalf("%v", err)
		}
		if msg := compiles(work, b); msg != "" {
			r.compileError = msg
			listErrors++
			logf("  LIST ERROR: %s does not build with the bug planted:\n%s", b.ID, indent(msg))
		} else {
			runStages(work, env, r, filepath.Join(logDir, b.ID))
		}
		if err := restore(); err != nil {
			fatalf("restoring %s: %v", b.File, err)
		}
		cleanRapid(work)
		r.elapsed = time.Since(t0)
		logf("  %s in %s%s", r.verdict(), r.elapsed.Round(time.Second), summary(r))
		results = append(results, r)
		// Rewrite the table after every bug, so an interrupted run keeps
		// what it measured.
		if err := writeTable(out, results, len(bugs), rev); err != nil {
			fatalf("%v", err)
		}
	}
	table := renderTable(results, len(bugs), rev)
	fmt.Print(table)
	fmt.Printf("\ntable written to %s\n", out)
	if listErrors > 0 {
		os.Exit(1)
	}
}

func summary(r *result) string {
	var parts []string
	if len(r.unit) > 0 {
		parts = append(parts, "unit: "+strings.Join(r.unit, ", "))
	}
	if len(r.replay) > 0 {
		parts = append(parts, "replay: "+strings.Join(r.replay, ", "))
	}
	if r.libOther != "" {
		parts = append(parts, "library: "+r.libOther)
	}
	if r.diffTest != "" {
		s := "differential: " + r.diffTest
		if r.diffRapid != "" {
			s += " (rapid: failed after " + r.diffRapid + ")"
		}
		parts = append(parts, s)
	}
	if r.diffOther != "" {
		parts = append(parts, "differential: "+r.diffOther)
	}
	if len(parts) == 0 {
		return ""
	}
	return " — " + strings.Join(parts, "; ")
}

// ---- the bug list

var idRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// parseBugs reads blocks of "key: value" lines separated by blank lines.
// The value is everything after "key: " up to the end of the line, kept
// byte for byte (so old/new may start or end with spaces or tabs).
func parseBugs(path string) ([]bug, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var bugs []bug
	var cur *bug
	seen := map[string]int{}
	var errs []error
	finish := func() {
		if cur == nil {
			return
		}
		b := *cur
		cur = nil
		switch {
		case b.ID == "":
			errs = append(errs, fmt.Errorf("%s:%d: entry without id", path, b.line))
		case b.File == "" || b.Old == "" || b.Desc == "":
			errs = append(errs, fmt.Errorf("%s:%d: %s: id, file, desc, old and new are required (new may be empty only if written as \"new:\")", path, b.line, b.ID))
		case b.Old == b.New:
			errs = append(errs, fmt.Errorf("%s:%d: %s: old and new are equal", path, b.line, b.ID))
		case seen[b.ID] != 0:
			errs = append(errs, fmt.Errorf("%s:%d: duplicate id %s (first at line %d)", path, b.line, b.ID, seen[b.ID]))
		default:
			seen[b.ID] = b.line
			bugs = append(bugs, b)
		}
	}
	hasNew := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			if cur != nil && !hasNew {
				errs = append(errs, fmt.Errorf("%s:%d: %s: no new: line", path, cur.line, cur.ID))
			}
			finish()
			hasNew = false
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			errs = append(errs, fmt.Errorf("%s:%d: expected key: value", path, n))
			continue
		}
		val = strings.TrimPrefix(val, " ")
		if cur == nil {
			cur = &bug{line: n}
		}
		switch key {
		case "id":
			if !idRE.MatchString(val) {
				errs = append(errs, fmt.Errorf("%s:%d: id %q: use lower case letters, digits, '-' and '.'", path, n, val))
			}
			cur.ID = val
		case "file":
			cur.File = val
		case "desc":
			cur.Desc = val
		case "old":
			cur.Old = val
		case "new":
			cur.New = val
			hasNew = true
		default:
			errs = append(errs, fmt.Errorf("%s:%d: unknown key %q", path, n, key))
		}
	}
	if cur != nil && !hasNew {
		errs = append(errs, fmt.Errorf("%s:%d: %s: no new: line", path, cur.line, cur.ID))
	}
	finish()
	if err := sc.Err(); err != nil {
		errs = append(errs, err)
	}
	if len(bugs) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s: no bugs", path))
	}
	return bugs, errors.Join(errs...)
}

func checkBugs(root string, bugs []bug) []error {
	var errs []error
	for _, b := range bugs {
		if strings.Contains(b.Old, "\n") || strings.Contains(b.New, "\n") {
			errs = append(errs, fmt.Errorf("%s: old/new must be single lines", b.ID))
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, b.File))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", b.ID, err))
			continue
		}
		if n := strings.Count(string(data), b.Old); n != 1 {
			errs = append(errs, fmt.Errorf("%s: %s: original text occurs %d times (must be exactly once): %q", b.ID, b.File, n, b.Old))
		}
	}
	return errs
}

func selectBugs(bugs []bug, only string) ([]bug, error) {
	if only == "" {
		return bugs, nil
	}
	var out []bug
	for _, want := range strings.Split(only, ",") {
		want = strings.TrimSpace(want)
		if want == "" {
			continue
		}
		found := false
		for _, b := range bugs {
			if b.ID == want || (strings.HasSuffix(want, "*") && strings.HasPrefix(b.ID, strings.TrimSuffix(want, "*"))) {
				out = append(out, b)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("-only: no bug %q", want)
		}
	}
	return out, nil
}

// ---- the copy

// copyTree replaces work's contents with the repository's work tree:
// tracked files plus untracked, not ignored ones (so uncommitted changes
// are measured too). It returns a description of the revision.
func copyTree(root, work string) (string, error) {
	outb, err := exec.Command("git", "-C", root, "ls-files", "-z", "-c", "-o", "--exclude-standard").Output()
	if err != nil {
		return "", fmt.Errorf("git ls-files: %v", err)
	}
	if err := os.RemoveAll(work); err != nil {
		return "", err
	}
	for _, rel := range strings.Split(string(outb), "\x00") {
		if rel == "" || strings.HasPrefix(rel, "tooling/mutation/out/") {
			continue
		}
		src := filepath.Join(root, rel)
		fi, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			return "", err
		}
		dst := filepath.Join(work, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err != nil {
				return "", err
			}
			if err := os.Symlink(target, dst); err != nil {
				return "", err
			}
			continue
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if err := copyFile(src, dst, fi.Mode().Perm()); err != nil {
			return "", err
		}
	}
	rev, _ := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	desc := strings.TrimSpace(string(rev))
	if st, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=normal").Output(); len(bytes.TrimSpace(st)) > 0 {
		desc += " plus uncommitted changes"
	}
	branch, _ := exec.Command("git", "-C", root, "rev-parse", "--abbrev-ref", "HEAD").Output()
	if b := strings.TrimSpace(string(branch)); b != "" {
		desc = b + " @ " + desc
	}
	return desc, nil
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func cleanRapid(work string) {
	filepath.WalkDir(work, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == "vendor" {
			return filepath.SkipDir
		}
		if d.IsDir() && d.Name() == "rapid" && filepath.Base(filepath.Dir(p)) == "testdata" {
			os.RemoveAll(p)
			return filepath.SkipDir
		}
		return nil
	})
}

// ---- planting

func plant(work string, b bug) (restore func() error, err error) {
	path := filepath.Join(work, b.File)
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.ID, err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.ID, err)
	}
	if n := strings.Count(string(orig), b.Old); n != 1 {
		return nil, fmt.Errorf("%s: %s: original text occurs %d times in the copy (must be exactly once): %q", b.ID, b.File, n, b.Old)
	}
	mutated := strings.Replace(string(orig), b.Old, b.New, 1)
	if err := os.WriteFile(path, []byte(mutated), fi.Mode().Perm()); err != nil {
		return nil, err
	}
	return func() error {
		if err := os.WriteFile(path, orig, fi.Mode().Perm()); err != nil {
			return err
		}
		back, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Equal(back, orig) {
			return fmt.Errorf("file differs after restore")
		}
		return nil
	}, nil
}

// compiles reports why the library does not build or vet with the bug
// planted, or "" if it does.
func compiles(work string, b bug) string {
	pkg := "./" + filepath.ToSlash(filepath.Dir(b.File))
	for _, args := range [][]string{{"build", "./..."}, {"vet", pkg}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Sprintf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return ""
}

// ---- running the stages

func runStages(work string, env []string, r *result, logPrefix string) {
	if *flagNoLib {
		r.libSkipped = true
	} else {
		t0 := time.Now()
		logf("  library tests: go test -count=1 ./...")
		out, err := run(work, env, logPrefix+".lib.log", "go", "test", "-count=1", "./...")
		parseLib(out, err, r)
		logf("  library tests done in %s: %s", time.Since(t0).Round(time.Second), libWord(r))
	}
	if *flagNoDiff || (*flagDiffLast && r.libFailed()) {
		r.diffSkipped = true
	} else {
		t0 := time.Now()
		logf("  differential: bash tooling/differential/run.sh -count=1 -failfast")
		out, err := run(work, env, logPrefix+".diff.log", "bash", "tooling/differential/run.sh", "-count=1", "-failfast")
		parseDiff(out, err, r)
		word := "pass"
		if r.diffFailed() {
			word = "FAIL " + r.diffTest + r.diffOther
			if r.diffRapid != "" {
				word += " (rapid: failed after " + r.diffRapid + ")"
			}
		}
		logf("  differential done in %s: %s", time.Since(t0).Round(time.Second), word)
	}
}

func libWord(r *result) string {
	if !r.libFailed() {
		return "pass"
	}
	return "FAIL " + strings.TrimPrefix(summary(r), " — ")
}

// run runs one stage in its own process group, so that a timeout ends the
// whole stage (go test and its test binaries), not only the command.
func run(dir string, env []string, logPath string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), *flagTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Minute
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	if err := cmd.Start(); err != nil {
		return "", err
	}
	stage.Lock()
	stage.pid = cmd.Process.Pid
	stage.Unlock()
	err := cmd.Wait()
	stage.Lock()
	stage.pid = 0
	stage.Unlock()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %s", *flagTimeout)
		buf.WriteString("\nmutation: stage " + err.Error() + "\n")
	}
	os.WriteFile(logPath, buf.Bytes(), 0o644)
	return buf.String(), err
}

var (
	failRE    = regexp.MustCompile(`^(\s*)--- FAIL: (\S+)`)
	pkgFailRE = regexp.MustCompile(`^FAIL\s+(\S+)(\s+\[(.*)\])?`)
	pkgOkRE   = regexp.MustCompile(`^ok\s+(\S+)`)
	rapidRE   = regexp.MustCompile(`\[rapid\] (?:failed|panic) after (\d+) tests`)
)

// testBlock is one package's output in `go test ./...`.
type testBlock struct {
	pkg    string
	failed bool
	note   string   // [build failed] etc.
	fails  []string // failing test names in order of appearance
	rapid  string   // first rapid count
	panic  bool
}

func blocks(out string) []testBlock {
	var bs []testBlock
	cur := testBlock{}
	for _, line := range strings.Split(out, "\n") {
		if m := failRE.FindStringSubmatch(line); m != nil {
			cur.fails = append(cur.fails, m[2])
			continue
		}
		if m := rapidRE.FindStringSubmatch(line); m != nil && cur.rapid == "" {
			cur.rapid = m[1]
		}
		if strings.HasPrefix(line, "panic: ") {
			cur.panic = true
		}
		if m := pkgFailRE.FindStringSubmatch(line); m != nil {
			cur.pkg, cur.failed, cur.note = m[1], true, m[3]
			bs = append(bs, cur)
			cur = testBlock{}
			continue
		}
		if m := pkgOkRE.FindStringSubmatch(line); m != nil {
			cur.pkg = m[1]
			bs = append(bs, cur)
			cur = testBlock{}
		}
	}
	return bs
}

// deepest returns the first failure's most specific test name: go test
// prints a parent's "--- FAIL" before its subtests'.
func deepest(fails []string) string {
	if len(fails) == 0 {
		return ""
	}
	best := fails[0]
	for _, f := range fails[1:] {
		if strings.HasPrefix(f, best+"/") {
			best = f
		} else {
			break
		}
	}
	return best
}

func shortPkg(p string) string {
	return strings.TrimPrefix(strings.TrimPrefix(p, "github.com/kubeletlogic/kubeletlogic/tooling/differential"), "github.com/kubeletlogic/kubeletlogic/")
}

func parseLib(out string, err error, r *result) {
	anyFail := false
	for _, b := range blocks(out) {
		if !b.failed {
			continue
		}
		anyFail = true
		pkg := shortPkg(b.pkg)
		name := deepest(b.fails)
		switch {
		case name == "" && b.note != "":
			name = "[" + b.note + "]"
		case name == "" && b.panic:
			name = "(panic)"
		case name == "":
			name = "(package failed)"
		}
		entry := pkg + ": " + name
		if b.rapid != "" {
			entry += " (rapid " + b.rapid + ")"
		}
		if pkg == "tooling/replay" {
			r.replay = append(r.replay, entry)
		} else {
			r.unit = append(r.unit, entry)
		}
	}
	if err != nil && !anyFail {
		r.libOther = "go test failed: " + lastLines(out, 5)
	}
}

func parseDiff(out string, err error, r *result) {
	for _, b := range blocks(out) {
		if !b.failed {
			continue
		}
		name := deepest(b.fails)
		switch {
		case name == "" && b.note != "":
			r.diffOther = shortPkg(b.pkg) + " [" + b.note + "]"
		case name == "":
			r.diffOther = shortPkg(b.pkg) + " failed (no test named; panic or timeout?)"
		default:
			if p := shortPkg(b.pkg); p != "" {
				name = strings.TrimPrefix(p, "/") + ": " + name
			}
			r.diffTest = name
			r.diffRapid = b.rapid
		}
		return
	}
	if err != nil {
		r.diffOther = "run.sh failed: " + lastLines(out, 5)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ")
}

func dropEnv(env []string, key string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, key+"=") {
			out = append(out, e)
		}
	}
	return out
}

// ---- the table

func md(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func renderTable(results []*result, total int, rev string) string {
	var b strings.Builder
	mode := "full (DIFF_SCALE unset: the CI case counts)"
	if *flagQuick {
		mode = "quick (DIFF_SCALE=" + *flagScale + ")"
	}
	fmt.Fprintf(&b, "# Mutation run %s\n\n", start.Format("2006-01-02 15:04"))
	fmt.Fprintf(&b, "Code: %s. Differential: %s. Bugs run: %d of %d selected.\n\n", rev, mode, len(results), total)
	b.WriteString("Cases until caught: the differential test's rapid count, \"failed after N\" as rapid prints it (N cases passed, case N+1 failed); \"-\" for a test that is not a rapid property.\n\n")
	b.WriteString("| bug | package | description | unit | replay | differential test | cases until caught | verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	counts := map[string]int{}
	for _, r := range results {
		v := r.verdict()
		counts[v]++
		unit, replay, diff, cases := "pass", "pass", "pass", ""
		if r.libSkipped {
			unit, replay = "skipped", "skipped"
		}
		if len(r.unit) > 0 {
			unit = strings.Join(r.unit, "; ")
		}
		if r.libOther != "" {
			unit = r.libOther
		}
		if len(r.replay) > 0 {
			replay = strings.Join(r.replay, "; ")
		}
		switch {
		case r.diffSkipped && *flagDiffLast && r.libFailed():
			diff = "not run (caught already)"
		case r.diffSkipped:
			diff = "skipped"
		case r.diffTest != "":
			diff = r.diffTest
			cases = "-"
			if r.diffRapid != "" {
				cases = r.diffRapid
			}
		case r.diffOther != "":
			diff = r.diffOther
		}
		if r.compileError != "" {
			unit, replay, diff = "does not compile", "", ""
		}
		pkg := filepath.ToSlash(filepath.Dir(r.bug.File))
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			md(r.bug.ID), md(pkg), md(r.bug.Desc), md(unit), md(replay), md(diff), md(cases), v)
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteString("\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %d. ", k, counts[k])
	}
	var survived []string
	for _, r := range results {
		if r.verdict() == "SURVIVED" {
			survived = append(survived, r.bug.ID)
		}
	}
	if len(survived) > 0 {
		fmt.Fprintf(&b, "\n\nSurvivors: %s.", strings.Join(survived, ", "))
	}
	fmt.Fprintf(&b, "\n\nTotal time %s.\n", time.Since(start).Round(time.Second))
	return b.String()
}

func writeTable(path string, results []*result, total int, rev string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(renderTable(results, total, rev)), 0o644)
}
