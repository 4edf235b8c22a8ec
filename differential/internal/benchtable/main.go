// Command benchtable reads the output of `go test -bench BenchmarkVs
// -benchmem` (differential/bench_v1_37_test.go) on standard input and prints the
// side-by-side table: per kubelet function, ns/op, B/op and allocs/op of
// kubeletlogic and of the kubelet, and the ratios (kubelet / kubeletlogic,
// so 10x means ten times faster or fewer). With -count above 1 each cell
// is the median of the runs. Lines that are not benchmark results are
// copied to standard error, so the go test output stays visible.
//
//	go test -run '^$' -bench '^BenchmarkVs$' -benchmem -count 3 | benchtable
//
// differential/bench.sh runs the benchmarks and this command together.
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

// row is one kubelet function with both sides.
type row struct {
	name          string
	ours, kubelet result
}

// line matches "BenchmarkVs/<row>/<side>-<procs> <iters> <ns> ns/op <b> B/op <a> allocs/op".
var line = regexp.MustCompile(`^BenchmarkVs/(.+)/(kubeletlogic|kubelet)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op\s+([0-9.]+) B/op\s+([0-9.]+) allocs/op`)

// parse reads go test output; other lines go to echo.
func parse(r io.Reader, echo io.Writer) ([]*row, error) {
	var rows []*row
	byName := map[string]*row{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			fmt.Fprintln(echo, sc.Text())
			continue
		}
		rw := byName[m[1]]
		if rw == nil {
			rw = &row{name: m[1]}
			byName[m[1]] = rw
			rows = append(rows, rw)
		}
		side := &rw.ours
		if m[2] == "kubelet" {
			side = &rw.kubelet
		}
		for i, dst := range []*[]float64{&side.ns, &side.bytes, &side.allocs} {
			v, err := strconv.ParseFloat(m[3+i], 64)
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

func render(rows []*row) string {
	head := []string{"kubelet function", "ns/op ours", "ns/op kubelet", "time", "B/op ours", "B/op kubelet", "bytes", "allocs ours", "allocs kubelet", "allocs"}
	table := [][]string{head}
	for _, r := range rows {
		on, kn := median(r.ours.ns), median(r.kubelet.ns)
		ob, kb := median(r.ours.bytes), median(r.kubelet.bytes)
		oa, ka := median(r.ours.allocs), median(r.kubelet.allocs)
		table = append(table, []string{r.name, num(on), num(kn), ratio(on, kn), num(ob), num(kb), ratio(ob, kb), num(oa), num(ka), ratio(oa, ka)})
	}
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
