// Command plot draws the pictures of docs/beside-kwok.md again from their
// data files (beside-kwok-crashloop.json, beside-kwok-scale.json), which
// TestSideBySide and TestScale write with the pictures when
// KUBELETLOGIC_PLOT_OUT names a folder:
//
//	cd node && go run ./bench/plot ../docs
//
// It runs nothing: to measure again, run the benchmarks (docs/beside-kwok.md
// gives each picture's command).
package main

import (
	"fmt"
	"os"

	"github.com/kubeletlogic/kubeletlogic/node/internal/plot"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/plot DIR (the folder holding beside-kwok-*.json)")
		os.Exit(2)
	}
	done, err := plot.Redraw(os.Args[1])
	for _, n := range done {
		fmt.Printf("%s/%s.svg\n", os.Args[1], n)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
	if len(done) == 0 {
		fmt.Fprintln(os.Stderr, "plot: no beside-kwok-*.json in", os.Args[1])
		os.Exit(1)
	}
}
