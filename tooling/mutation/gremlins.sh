#!/usr/bin/env bash
# Mutation testing with gremlins (github.com/go-gremlins/gremlins v0.6.0),
# one package at a time. Not part of .ci/run: every package, sim and the
# command together take hours on 2 cores. Each package's JSON result goes
# to tooling/mutation/gremlins/<package>.json (package path with / as _); the table
# tooling/mutation/gremlins/results.md is rebuilt from every JSON present.
#
#   bash tooling/mutation/gremlins.sh                    # every package, in order
#   bash tooling/mutation/gremlins.sh restart phase      # some packages
#   bash tooling/mutation/gremlins.sh -table             # only rebuild the table
#   WORKERS=2 TIMEOUT_COEFF=30 bash tooling/mutation/gremlins.sh sim
#
# gremlins is installed into $(go env GOPATH)/bin from the module proxy on
# first use. See tooling/mutation/README.md ("gremlins").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
GREMLINS_VERSION=v0.6.0
out=tooling/mutation/gremlins
mkdir -p "$out"

table() { go run ./tooling/mutation/gremlins/table "$out" > "$out/results.md"; echo "table: $out/results.md"; }

if [[ "${1:-}" == "-table" ]]; then table; exit 0; fi

bin="$(go env GOPATH)/bin/gremlins"
# go install writes "dev" as the version; the stamp file records which one.
if [[ ! -x "$bin" || "$(cat "$bin.version" 2>/dev/null)" != "$GREMLINS_VERSION" ]]; then
	echo "== installing gremlins $GREMLINS_VERSION from the module proxy"
	GOFLAGS=-mod=mod go install "github.com/go-gremlins/gremlins/cmd/gremlins@$GREMLINS_VERSION"
	echo "$GREMLINS_VERSION" > "$bin.version"
fi

# The library packages, then sim, then the command (the slowest two last).
all=(internal/names internal/nearest internal/keycheck internal/yamljson
	tooling/captured features containerhash manifest probe restart runtimestate
	kubectlstatus apidefaults phase conditions validation termination
	apistatus podactions podstatus podgen sim cmd/kubeletlogic)
pkgs=("$@")
[[ ${#pkgs[@]} -eq 0 ]] && pkgs=("${all[@]}")

# -count=1 so that the coverage run (whose duration sets every mutant's
# timeout) is measured, not read from the test cache.
export GOFLAGS="${GOFLAGS:-} -count=1"
for p in "${pkgs[@]}"; do
	name=${p//\//_}
	echo "== $(date -u +%H:%M:%S) gremlins unleash ./$p"
	s=$(date +%s)
	"$bin" unleash --workers "${WORKERS:-1}" --timeout-coefficient "${TIMEOUT_COEFF:-30}" \
		-o "$out/$name.json.tmp" "./$p" > "$out/$name.log" 2>&1 || true
	if [[ -s "$out/$name.json.tmp" ]]; then
		mv "$out/$name.json.tmp" "$out/$name.json"
		echo "   $(( $(date +%s) - s )) s; $(grep -E '^(Killed|Mutator|Test efficacy)' "$out/$name.log" | tr '\n' ' ')"
	else
		echo "   no result; see $out/$name.log"; tail -5 "$out/$name.log"
	fi
	table >/dev/null
done
table
