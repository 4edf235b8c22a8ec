//go:build kubeletlogic_overlay

package differential

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/differential/kubeletgates"
	"github.com/kubeletlogic/kubeletlogic/features"
)

// scale multiplies every case count; DIFF_SCALE=0.1 gives a quick run.
func scale() float64 {
	if s, err := strconv.ParseFloat(os.Getenv("DIFF_SCALE"), 64); err == nil && s > 0 {
		return s
	}
	return 1
}

// checkN runs prop as a rapid property on n random cases (scaled by
// DIFF_SCALE) and, when every case passed, records n cases compared for
// each of the named functions under gate set f.
func checkN(t *testing.T, n int, f features.Set, fns []string, prop func(*rapid.T)) {
	t.Helper()
	defer func() {
		if !t.Failed() {
			for _, fn := range fns {
				countN(fn, f, n)
			}
		}
	}()
	n = max(1, int(float64(n)*scale()))
	fl := flag.Lookup("rapid.checks")
	old := fl.Value.String()
	if err := fl.Value.Set(strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	defer fl.Value.Set(old)
	rapid.Check(t, prop)
}

// compared counts, per function and gate setting, the cases on which our
// function and the kubelet's agreed. TestMain prints the table.
var compared = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

func countN(fn string, gates features.Set, n int) {
	compared.Lock()
	compared.n[fn+"\t"+gates.String()] += n
	compared.Unlock()
}

// printCompared writes the table to $DIFF_REPORT (run.sh prints it), or to
// stdout when that is unset.
func printCompared() {
	compared.Lock()
	defer compared.Unlock()
	if len(compared.n) == 0 {
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
	keys := make([]string, 0, len(compared.n))
	totals := map[string]int{}
	for k, v := range compared.n {
		keys = append(keys, k)
		var fn string
		fmt.Sscanf(k, "%s", &fn)
		totals[fn] += v
	}
	sort.Strings(keys)
	fmt.Fprintln(out, "differential: cases compared with kubelet v1.37.2 (function, gates, cases)")
	for _, k := range keys {
		fmt.Fprintf(out, "  %s\t%d\n", k, compared.n[k])
	}
	fns := make([]string, 0, len(totals))
	for fn := range totals {
		fns = append(fns, fn)
	}
	sort.Strings(fns)
	for _, fn := range fns {
		fmt.Fprintf(out, "  total %s\t%d\n", fn, totals[fn])
	}
}

// gateSettings are the gate sets a differential test runs under: the
// v1.37.2 defaults, then each listed gate flipped (with the gates that
// depend on a gate switched off along with it, as the kubelet requires).
func gateSettings(t *testing.T, flip ...features.Gate) []features.Set {
	t.Helper()
	out := []features.Set{features.V1_37()}
	for _, g := range flip {
		f, err := features.V1_37().With(g, !features.V1_37().Enabled(g))
		if err != nil {
			t.Fatal(err)
		}
		if g == features.ContainerRestartRules && !f.Enabled(features.ContainerRestartRules) {
			f, _ = f.With(features.RestartAllContainersOnContainerExits, false)
		}
		out = append(out, f)
	}
	return out
}

// underGates runs body once per gate set, in a subtest whose kubelet
// feature gates are set to match.
func underGates(t *testing.T, sets []features.Set, body func(t *testing.T, f features.Set)) {
	t.Helper()
	for _, f := range sets {
		t.Run(f.String(), func(t *testing.T) {
			m := map[string]bool{}
			for _, g := range features.Gates() {
				if !features.Locked(g) {
					m[string(g)] = f.Enabled(g)
				}
			}
			kubeletgates.Set(t, m)
			for _, g := range features.Gates() {
				if kubeletgates.Enabled(string(g)) != f.Enabled(g) {
					t.Fatalf("kubelet gate %s is %v, want %v", g, kubeletgates.Enabled(string(g)), f.Enabled(g))
				}
			}
			body(t, f)
		})
	}
}
