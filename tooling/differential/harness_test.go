//go:build kubeletlogic_overlay

package differential

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletgates"
)

// scale multiplies every case count: DIFF_SCALE=0.1 gives a quick run,
// DIFF_SCALE=10 a long one. It is the suite's one knob for the number of
// cases (rapid's own -rapid.checks is refused, see check).
func scale() float64 {
	if s, err := strconv.ParseFloat(os.Getenv("DIFF_SCALE"), 64); err == nil && s > 0 {
		return s
	}
	return 1
}

// cases is how many cases a test whose CI count is n runs: DIFF_CASES
// when set (the same absolute count for every test, for soak runs:
// .ci/soak), else n times DIFF_SCALE.
func cases(n int) int {
	if c, err := strconv.Atoi(os.Getenv("DIFF_CASES")); err == nil && c > 0 {
		return c
	}
	return max(1, int(float64(n)*scale()))
}

// check runs prop as a rapid property on n random cases (see cases). Each case first draws a gate set (drawGates), sets the
// kubelet's process-global gates to it for that case, checks that the
// kubelet reads every gate of the Set as the Set has it, and hands the Set
// to prop. prop reports each comparison with the kubelet it made with
// compared; a case counts only when it passed. fns are the functions the
// test compares: each must have been compared on at least 1% of the cases,
// so that a generator that stops drawing the inputs a comparison needs
// fails the test instead of passing it silently.
func check(t *testing.T, n int, fns []string, prop func(rt *rapid.T, f features.Set)) {
	t.Helper()
	checkWith(t, n, fns, drawGates, prop)
}

// checkDefaults is check with every case under kubeletVersion's defaults, for
// comparisons whose other side is not the kubelet and reads gates the
// library does not take (the API server's validation).
func checkDefaults(t *testing.T, n int, fns []string, prop func(rt *rapid.T, f features.Set)) {
	t.Helper()
	checkWith(t, n, fns, func(*rapid.T) features.Set { return defaultGates() }, prop)
}

func checkWith(t *testing.T, n int, fns []string, draw func(*rapid.T) features.Set, prop func(rt *rapid.T, f features.Set)) {
	t.Helper()
	fl := flag.Lookup("rapid.checks")
	flag.Visit(func(g *flag.Flag) {
		if g.Name == "rapid.checks" {
			t.Fatalf("-rapid.checks is not used by the differential suite: set DIFF_SCALE (a factor on every test's case count) or DIFF_CASES (cases per test) instead")
		}
	})
	n = cases(n)
	old := fl.Value.String()
	if err := fl.Value.Set(strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	defer fl.Value.Set(old)
	settableGates(t) // fails the test early if the library and the kubelet disagree on locks
	sw := kubeletgates.NewSwitcher(t, gateNames(t))
	passed := 0
	seen := map[string]int{}
	type counted struct {
		fn string
		f  features.Set
	}
	var counts []counted
	rapid.Check(t, func(rt *rapid.T) {
		f := draw(rt)
		switchKubeletGates(rt, sw, f)
		c := &pendingCase{gates: f, fns: map[string]bool{}}
		pending.Lock()
		pending.m[rt] = c
		pending.Unlock()
		defer func() {
			pending.Lock()
			delete(pending.m, rt)
			pending.Unlock()
		}()
		prop(rt, f)
		if !rt.Failed() {
			passed++
			for fn := range c.fns {
				counts = append(counts, counted{fn, f})
				seen[fn]++
			}
		}
	})
	// A failed test reports nothing: rapid's shrinking reruns many cases
	// after the first failure, which would skew the table.
	if t.Failed() {
		return
	}
	for _, c := range counts {
		countN(c.fn, c.f, 1)
	}
	for _, fn := range fns {
		if seen[fn]*100 < passed {
			t.Errorf("%s was compared with the kubelet on %d of %d cases (less than 1%%): the generators no longer draw what this comparison needs", fn, seen[fn], passed)
		}
	}
	for fn := range seen {
		if !slices.Contains(fns, fn) {
			t.Errorf("compared(%q) is not in the test's list of functions", fn)
		}
	}
}

// pendingCase collects the functions a running case has compared; they are
// counted when the case passes.
type pendingCase struct {
	gates features.Set
	fns   map[string]bool
}

var pending = struct {
	sync.Mutex
	m map[*rapid.T]*pendingCase
}{m: map[*rapid.T]*pendingCase{}}

// compared records that this case compared the answer of each named
// function with the kubelet's (call it right after the comparison). The case
// counts once per function, however many comparisons of it the case made,
// and only if the whole case passes.
func compared(rt *rapid.T, fns ...string) {
	pending.Lock()
	defer pending.Unlock()
	c := pending.m[rt]
	if c == nil {
		panic("compared called outside check")
	}
	for _, fn := range fns {
		c.fns[fn] = true
	}
}

// fataler is what settableGates needs of a *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Settable gates, as the kubelet registry says (computed once).
var settable struct {
	once  sync.Once
	gates []features.Gate
	err   error
}

// settableGates returns the gates of kubeletVersion that the compiled
// kubelet accepts changing (not locked in its registry at its own
// emulation version). It fails t when the library's Version.Locked or
// Version.Default for kubeletVersion disagrees with the kubelet's registry
// on any gate, or names a gate the kubelet does not register.
func settableGates(t fataler) []features.Gate {
	t.Helper()
	settable.once.Do(func() {
		var errs []string
		for _, g := range kubeletVersion.Gates() {
			locked, def, err := kubeletgates.LockedTo(string(g))
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			if locked != kubeletVersion.Locked(g) {
				errs = append(errs, fmt.Sprintf("%s: kubelet locked=%v, %s Locked=%v", g, locked, kubeletVersion, kubeletVersion.Locked(g)))
			}
			if kubeletgates.Enabled(string(g)) != defaultGates().Enabled(g) {
				errs = append(errs, fmt.Sprintf("%s: kubelet default %v, %s default %v", g, kubeletgates.Enabled(string(g)), kubeletVersion, defaultGates().Enabled(g)))
			}
			if locked && def != defaultGates().Enabled(g) {
				errs = append(errs, fmt.Sprintf("%s: locked to %v, %s default %v", g, def, kubeletVersion, defaultGates().Enabled(g)))
			}
			if !locked {
				settable.gates = append(settable.gates, g)
			}
		}
		if len(errs) > 0 {
			settable.err = fmt.Errorf("%s", strings.Join(errs, "; "))
		}
	})
	if settable.err != nil {
		t.Fatalf("features and the kubelet's gate registry disagree: %v", settable.err)
	}
	return settable.gates
}

// drawGates draws a gate set the compiled kubelet accepts: one case in five
// its defaults, otherwise every settable gate on or off at random. Then,
// with the dependencies the kubelet's registry declares, every gate that
// depends on a gate that is off is switched off (what the kubelet's own test
// helper does, and the only way such a set passes the kubelet's validation).
func drawGates(rt *rapid.T) features.Set {
	gates := settableGates(rt)
	f := defaultGates()
	if rapid.IntRange(0, 4).Draw(rt, "gates: random, not the defaults") != 0 {
		for _, g := range gates {
			f, _ = f.With(g, rapid.Bool().Draw(rt, "gate "+string(g)))
		}
	}
	return fixGateDependencies(f)
}

// fixGateDependencies switches off, until none is left, every gate of f
// that is on while a gate it depends on (per the kubelet's registry) is off.
// A dependency the Set does not hold reads as the kubelet's current value.
func fixGateDependencies(f features.Set) features.Set {
	holds, deps := gateDeps()
	for changed := true; changed; {
		changed = false
		for _, g := range kubeletVersion.Gates() {
			if !f.Enabled(g) {
				continue
			}
			for _, d := range deps[g] {
				on := kubeletgates.Enabled(d)
				if holds[d] {
					on = f.Enabled(features.Gate(d))
				}
				if !on {
					f, _ = f.With(g, false)
					changed = true
					break
				}
			}
		}
	}
	return f
}

var gateDepsOnce struct {
	sync.Once
	holds map[string]bool
	deps  map[features.Gate][]string
}

// gateDeps returns, computed once, the names of the gates a Set holds and
// each one's dependencies as the kubelet's registry declares them.
func gateDeps() (holds map[string]bool, deps map[features.Gate][]string) {
	d := &gateDepsOnce
	d.Do(func() {
		d.holds, d.deps = map[string]bool{}, map[features.Gate][]string{}
		for _, g := range kubeletVersion.Gates() {
			d.holds[string(g)] = true
			d.deps[g] = kubeletgates.Dependencies(string(g))
		}
	})
	return d.holds, d.deps
}

// gateMap is f's settable gates as kubeletgates.Set takes them.
func gateMap(tb fataler, f features.Set) map[string]bool {
	m := map[string]bool{}
	for _, g := range settableGates(tb) {
		m[string(g)] = f.Enabled(g)
	}
	return m
}

// gateNames are the names of the settable gates.
func gateNames(tb fataler) []string {
	var out []string
	for _, g := range settableGates(tb) {
		out = append(out, string(g))
	}
	return out
}

// switchKubeletGates is setKubeletGates through a Switcher: the same
// values, and the same check that the kubelet reads every gate of
// features.Gates as f has it, at a fraction of the cost (BenchmarkCaseGates);
// the test's end restores the gates.
func switchKubeletGates(rt *rapid.T, sw *kubeletgates.Switcher, f features.Set) {
	if err := sw.Switch(gateMap(rt, f)); err != nil {
		rt.Fatalf("the kubelet refuses gate set %s: %v", f, err)
	}
	for _, g := range kubeletVersion.Gates() {
		if kubeletgates.Enabled(string(g)) != f.Enabled(g) {
			rt.Fatalf("kubelet gate %s is %v, features.Set has %v (set %s)", g, kubeletgates.Enabled(string(g)), f.Enabled(g), f)
		}
	}
}

// setKubeletGates sets the kubelet's gates to f for this case (restored when
// the case ends) and fails the case unless the kubelet then reads every gate
// of features.Gates exactly as f has it.
func setKubeletGates(rt *rapid.T, f features.Set) {
	kubeletgates.Set(rt, gateMap(rt, f))
	for _, g := range kubeletVersion.Gates() {
		if kubeletgates.Enabled(string(g)) != f.Enabled(g) {
			rt.Fatalf("kubelet gate %s is %v, features.Set has %v (set %s)", g, kubeletgates.Enabled(string(g)), f.Enabled(g), f)
		}
	}
}

// tally is what the report holds per function: the cases compared and, per
// gate, how many of them ran with it on.
type tally struct {
	total int
	on    map[features.Gate]int
}

var tallies = struct {
	sync.Mutex
	m map[string]*tally
}{m: map[string]*tally{}}

// countN records n compared cases of function fn under gate set f. check
// calls it for the functions each passing case reported with compared;
// tests that do not run through check (hand-written real-time cases) call
// it themselves after a comparison passed.
func countN(fn string, f features.Set, n int) {
	tallies.Lock()
	defer tallies.Unlock()
	tl := tallies.m[fn]
	if tl == nil {
		tl = &tally{on: map[features.Gate]int{}}
		tallies.m[fn] = tl
	}
	tl.total += n
	for _, g := range kubeletVersion.Gates() {
		if f.Enabled(g) {
			tl.on[g] += n
		}
	}
}

// gateAbbrev names a gate in the report's columns by its capitals
// (ContainerRestartRules: CRR).
func gateAbbrev(g features.Gate) string {
	var b strings.Builder
	for _, r := range string(g) {
		if r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// printCompared writes the table to $DIFF_REPORT (run.sh prints it), or to
// stdout when that is unset: per function, the cases whose answer was
// compared with the kubelet's and passed, and per settable gate how many of
// those cases had it on/off.
func printCompared() {
	tallies.Lock()
	defer tallies.Unlock()
	if len(tallies.m) == 0 {
		return
	}
	out := os.Stdout
	if p := os.Getenv("DIFF_REPORT"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			defer f.Close()
			out = f
		}
	}
	var gates []features.Gate
	for _, g := range kubeletVersion.Gates() {
		if !kubeletVersion.Locked(g) {
			gates = append(gates, g)
		}
	}
	fns := make([]string, 0, len(tallies.m))
	width := len("function")
	for fn := range tallies.m {
		fns = append(fns, fn)
		width = max(width, len(fn))
	}
	sort.Strings(fns)
	knob := fmt.Sprintf("DIFF_SCALE=%g", scale())
	if c := os.Getenv("DIFF_CASES"); c != "" {
		knob = "DIFF_CASES=" + c
	}
	fmt.Fprintf(out, "differential: cases compared with kubelet %s and passed (%s); per gate, cases with it on/off\n", kubeletVersion, knob)
	for _, g := range gates {
		fmt.Fprintf(out, "  %-6s %s\n", gateAbbrev(g), g)
	}
	fmt.Fprintf(out, "  %-*s %8s", width, "function", "cases")
	for _, g := range gates {
		fmt.Fprintf(out, " %13s", gateAbbrev(g))
	}
	fmt.Fprintln(out)
	for _, fn := range fns {
		tl := tallies.m[fn]
		fmt.Fprintf(out, "  %-*s %8d", width, fn, tl.total)
		for _, g := range gates {
			fmt.Fprintf(out, " %13s", fmt.Sprintf("%d/%d", tl.on[g], tl.total-tl.on[g]))
		}
		fmt.Fprintln(out)
	}
}

// gateSettings are fixed gate sets: the v1.37.2 defaults, then each listed
// gate flipped (with the gates that depend on it switched off along with
// it, as the kubelet requires). The random tests draw gates per case
// instead (check); this stays for hand-written cases.
func gateSettings(t *testing.T, flip ...features.Gate) []features.Set {
	t.Helper()
	out := []features.Set{defaultGates()}
	for _, g := range flip {
		f, err := defaultGates().With(g, !defaultGates().Enabled(g))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fixGateDependencies(f))
	}
	return out
}

// underGates runs body once per gate set, in a subtest whose kubelet
// feature gates are set to match (for hand-written cases; random tests use
// check).
func underGates(t *testing.T, sets []features.Set, body func(t *testing.T, f features.Set)) {
	t.Helper()
	for _, f := range sets {
		t.Run(f.String(), func(t *testing.T) {
			kubeletgates.Set(t, gateMap(t, f))
			for _, g := range kubeletVersion.Gates() {
				if kubeletgates.Enabled(string(g)) != f.Enabled(g) {
					t.Fatalf("kubelet gate %s is %v, want %v", g, kubeletgates.Enabled(string(g)), f.Enabled(g))
				}
			}
			body(t, f)
		})
	}
}

// BenchmarkCaseGates measures what check adds to every case: drawing a gate
// set and setting the kubelet's gates to it (restored when the case ends).
// One op is one rapid case.
func BenchmarkCaseGates(b *testing.B) {
	for _, bc := range []struct {
		name                  string
		set, switcher, config bool
	}{{"draw only", false, false, false}, {"draw and kubeletgates.Set", true, false, false}, {"draw and Switcher", false, true, false}, {"draw, Switcher and node config", false, true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			fl := flag.Lookup("rapid.checks")
			old := fl.Value.String()
			defer fl.Value.Set(old)
			fl.Value.Set(strconv.Itoa(b.N))
			sw := kubeletgates.NewSwitcher(b, gateNames(b))
			b.ResetTimer()
			rapid.Check(b, func(rt *rapid.T) {
				f := drawGates(rt)
				if bc.set {
					setKubeletGates(rt, f)
				}
				if bc.switcher {
					switchKubeletGates(rt, sw, f)
				}
				if bc.config {
					if _, err := kubeletNodeConfig(f, drawBackOffSettings(rt, f).MaxContainerRestartPeriod); err != nil {
						rt.Fatal(err)
					}
				}
			})
		})
	}
}

// defaultGates is the gate set of kubeletVersion with its defaults: what
// the compiled kubelet reads before a test sets any gate.
func defaultGates() features.Set {
	f, err := features.ForVersion(kubeletVersion)
	if err != nil {
		panic(err)
	}
	return f
}

// listed draws the order the runtime lists rs's sandboxes in, and returns
// rs as the kubelet is handed it (the fake runtime lists the sandboxes in
// that order) and as the library takes it: the same list put in the order
// kubeletVersion builds (runtimestate.NormalizeFor). Kubelet v1.35 keeps the
// list order for sandboxes of equal attempt (D14 in docs/versions.md);
// later kubelets sort on a total order, so for them the draw changes
// nothing.
func listed(rt *rapid.T, rs *runtimestate.Pod) (kubeletSide, ours *runtimestate.Pod) {
	if rs == nil || len(rs.Sandboxes) < 2 {
		return rs, rs
	}
	k := *rs
	k.Sandboxes = rapid.Permutation(rs.Sandboxes).Draw(rt, "sandboxes as the runtime lists them")
	o := k
	o.Sandboxes = slices.Clone(k.Sandboxes)
	o.NormalizeFor(kubeletVersion)
	return &k, &o
}
