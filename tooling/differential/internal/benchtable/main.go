// Command benchtable reads the output of `go test -bench BenchmarkVs
// -benchmem` (tooling/differential/bench_v1_37_test.go) on standard input and prints the
// side-by-side table: per kubelet function, ns/op, B/op and allocs/op of
// kubeletlogic and of the kubelet, and the ratios (kubelet / kubeletlogic,
// so 10x means ten times faster or fewer). With -count above 1 each cell
// is the median of the runs. Lines that are not benchmark results are
// copied to standard error, so the go test output stays visible.
//
//	go test -run '^$' -bench '^BenchmarkVs$' -benchmem -count 3 | benchtable
//
// tooling/differential/bench.sh runs the benchmarks and this command together.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	rows, err := parse(os.Stdin, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if len(rows) == 0 {
		fmt.Fprintln(os.Stderr, "benchtable: no BenchmarkVs results on standard input")
		os.Exit(1)
	}
	fmt.Print(render(rows))
}

// result is one side of one row: every run's figures.
type result struct {
	ns, bytes, allocs []float64
}

// row is one kubelet function with both sides, and the time of copying
// its answer when BenchmarkAnswerCopy measured it.
type row struct {
	name          string
	ours, kubelet result
	copy          result
}

// line matches "BenchmarkVs/<row>/<side>-<procs> <iters> <ns> ns/op <b> B/op <a> allocs/op".
var line = regexp.MustCompile(`^BenchmarkVs/(.+)/(kubeletlogic|kubelet)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op\s+([0-9.]+) B/op\s+([0-9.]+) allocs/op`)

// copyLine matches "BenchmarkAnswerCopy/<row>/copy-<procs> <iters> <ns> ns/op <b> B/op <a> allocs/op".
var copyLine = regexp.MustCompile(`^BenchmarkAnswerCopy/(.+)/copy(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op\s+([0-9.]+) B/op\s+([0-9.]+) allocs/op`)

// parse reads go test output; other lines go to echo. An answer copy is
// kept with the row of the same name (it may come before the row).
func parse(r io.Reader, echo io.Writer) ([]*row, error) {
	var rows []*row
	byName := map[string]*row{}
	sc := bufio.NewScanner(r)
	get := func(name string) *row {
		rw := byName[name]
		if rw == nil {
			rw = &row{name: name}
			byName[name] = rw
			rows = append(rows, rw)
		}
		return rw
	}
	for sc.Scan() {
		var side *result
		var figures []string
		if m := line.FindStringSubmatch(sc.Text()); m != nil {
			side = &get(m[1]).ours
			if m[2] == "kubelet" {
				side = &get(m[1]).kubelet
			}
			figures = m[3:6]
		} else if m := copyLine.FindStringSubmatch(sc.Text()); m != nil {
			side, figures = &get(m[1]).copy, m[2:5]
		} else {
			fmt.Fprintln(echo, sc.Text())
			continue
		}
		for i, dst := range []*[]float64{&side.ns, &side.bytes, &side.allocs} {
			v, err := strconv.ParseFloat(figures[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", sc.Text(), err)
			}
			*dst = append(*dst, v)
		}
	}
	return rows, sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return -1
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratio is kubelet / ours as "12.3x"; "-" when a side is missing, "=" when
// both are zero, "0 vs N" when ours is zero and the kubelet's is not.
func ratio(ours, kubelet float64) string {
	switch {
	case ours < 0 || kubelet < 0:
		return "-"
	case ours == 0 && kubelet == 0:
		return "="
	case ours == 0:
		return "inf"
	}
	r := kubelet / ours
	if r >= 100 {
		return fmt.Sprintf("%.0fx", r)
	}
	return fmt.Sprintf("%.1fx", r)
}

func num(v float64) string {
	switch {
	case v < 0:
		return "-"
	case v >= 100 || v == float64(int64(v)):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// render prints the table of the rows that have both sides and, when some
// row has an answer copy, a second table: the copy's time, each side's, and
// the kubelet's and ours over the copy's.
func render(rows []*row) string {
	table := [][]string{{"kubelet function", "ns/op ours", "ns/op kubelet", "time", "B/op ours", "B/op kubelet", "bytes", "allocs ours", "allocs kubelet", "allocs"}}
	copies := [][]string{{"kubelet function", "ns/op answer copy", "allocs answer copy", "ns/op ours", "ns/op kubelet", "kubelet / copy", "ours / copy"}}
	for _, r := range rows {
		on, kn := median(r.ours.ns), median(r.kubelet.ns)
		if len(r.ours.ns)+len(r.kubelet.ns) > 0 {
			ob, kb := median(r.ours.bytes), median(r.kubelet.bytes)
			oa, ka := median(r.ours.allocs), median(r.kubelet.allocs)
			table = append(table, []string{r.name, num(on), num(kn), ratio(on, kn), num(ob), num(kb), ratio(ob, kb), num(oa), num(ka), ratio(oa, ka)})
		}
		if len(r.copy.ns) > 0 {
			cn := median(r.copy.ns)
			copies = append(copies, []string{r.name, num(cn), num(median(r.copy.allocs)), num(on), num(kn), ratio(cn, kn), ratio(cn, on)})
		}
	}
	out := format(table)
	if len(copies) > 1 {
		out += "\nCopying each answer (BenchmarkAnswerCopy: the API types' DeepCopy of the status ours returns, same inputs):\n\n" + format(copies)
	}
	return out
}

// format lays table out in Markdown, the first row the header, the first
// column left-aligned and the others right-aligned.
func format(table [][]string) string {
	head := table[0]
	width := make([]int, len(head))
	for _, r := range table {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	for k, r := range table {
		b.WriteString("|")
		for i, c := range r {
			if i == 0 {
				fmt.Fprintf(&b, " %-*s |", width[i], c)
			} else {
				fmt.Fprintf(&b, " %*s |", width[i], c)
			}
		}
		b.WriteString("\n")
		if k == 0 {
			b.WriteString("|")
			for i := range r {
				if i == 0 {
					b.WriteString(" " + strings.Repeat("-", width[i]) + " |")
				} else {
					b.WriteString(" " + strings.Repeat("-", width[i]-1) + ": |")
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
