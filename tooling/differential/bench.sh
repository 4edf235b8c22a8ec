#!/usr/bin/env bash
# Times every decision function against the kubelet v1.37.2 function it
# mirrors (BenchmarkVs in bench_v1_37_test.go: the same inputs, drawn once, on
# both sides) and prints one table: ns/op, B/op and allocs/op of each side
# and the ratios (kubelet / kubeletlogic). For the two rows that return a
# whole status it also times copying our answer (BenchmarkAnswerCopy), the
# least any function that returns a fresh status spends, in a second table.
# Each cell is the median of COUNT runs; go test's own output goes to
# standard error.
#
#   ./bench.sh                          # every row, COUNT=5, BENCHTIME=1s
#   ./bench.sh 'getPhase|canBeDeleted'  # only rows matching the pattern
#   COUNT=1 BENCHTIME=2000x ./bench.sh  # a quick look
#
# Timings depend on the machine and on what else runs on it: the script
# prints the CPU, the core count and the load average before and after.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
cd "$here"
rows="${1:-.}"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'), $(go env GOOS)/$(go env GOARCH), $(go version | cut -d' ' -f3)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
PKGS=. ./run.sh -run '^$' -bench "^Benchmark(Vs|AnswerCopy)\$/(${rows})/" -benchmem \
	-count "${COUNT:-5}" -benchtime "${BENCHTIME:-1s}" -timeout 60m >"$out"
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo
go run -mod=vendor ./internal/benchtable <"$out"
