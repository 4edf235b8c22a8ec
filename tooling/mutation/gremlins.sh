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
#   bash tooling/mutation/gremlins.sh sim:3/8          # one piece of a package
#
# A piece "pkg:N/M" mutates the N-th of M groups of the package's files
# (the non-test .go files under it, dealt out largest first to the group
# with the fewest lines so far) and excludes the others with gremlins'
# --exclude-files; the tests run are the whole package's. Its result is
# <package>.partNofM.json; the table adds a package's pieces up and says
# which of them it has. Pieces let a package that takes hours (sim, the
# command) be run across sessions, one finished piece at a time.
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
# gremlins v0.6.0 tests a mutant with the tests of the package it finds by
# walking up from the file's folder to one whose path ends with the file's
# package name: for package main in cmd/kubeletlogic it finds none, falls
# back to the module's root package, whose tests never run the command, and
# calls every mutant LIVED (internal/engine/engine.go, pkgName). The copy
# built here takes the file's own folder, which in Go is always its
# package; for every other package of this module the two agree. The stamp
# file records the version and the patch.
GREMLINS_BUILD="$GREMLINS_VERSION+pkgdir"
if [[ ! -x "$bin" || "$(cat "$bin.version" 2>/dev/null)" != "$GREMLINS_BUILD" ]]; then
	echo "== building gremlins $GREMLINS_VERSION from the module proxy, with the package-folder patch"
	src=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "github.com/go-gremlins/gremlins@$GREMLINS_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[[ -d "$src" ]] || { echo "gremlins $GREMLINS_VERSION: no source from the module proxy" >&2; exit 1; }
	tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
	cp -r "$src/." "$tmp"; chmod -R u+w "$tmp"
	eng="$tmp/internal/engine/engine.go"
	perl -0pi -e 's/if strings\.HasSuffix\(p, fPkg\) \{/if p == "." { pkg = mu.module.Name; break } \/\/ patched: a file\x27s folder is its package\n\t\tif true {/' "$eng"
	grep -q 'patched: a file' "$eng" || { echo "gremlins $GREMLINS_VERSION: pkgName not found to patch" >&2; exit 1; }
	(cd "$tmp" && go build -o "$bin.new" ./cmd/gremlins)
	mv "$bin.new" "$bin"   # a rename: a gremlins already running keeps its binary
	echo "$GREMLINS_BUILD" > "$bin.version"
	rm -rf "$tmp"; trap - EXIT
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
# piece_excludes DIR N M prints one --exclude-files flag per file of DIR
# that is not in group N of M (see above).
piece_excludes() {
	local fixed
	fixed=$(grep -E "^$1 [0-9]+/$3: " "$out/pieces.txt" || true)
	if [[ -n "$fixed" ]]; then
		# The fixed pieces of pieces.txt: every file must be in one.
		local f listed missing=
		listed=$(echo "$fixed" | sed 's/^[^:]*: //' | tr ' ' '\n')
		for f in $(cd "$1" && find . -name '*.go' ! -name '*_test.go' | sed 's|^\./||'); do
			grep -qx "$f" <<<"$listed" || missing+=" $f"
		done
		if [[ -n "$missing" ]]; then
			echo "pieces.txt: $1's$missing in no piece of $3" >&2
			return 1
		fi
		echo "$fixed" | awk -v n="$2" '{ split($2, nm, "/"); if (nm[1] == n) next;
			for (i = 3; i <= NF; i++) { f = $i; gsub(/\./, "\\.", f); printf "--exclude-files\n^%s$\n", f } }'
		return 0
	fi
	(cd "$1" && find . -name '*.go' ! -name '*_test.go' | sed 's|^\./||' | xargs wc -l | grep -v ' total$' | sort -k1,1nr -k2) |
		awk -v n="$2" -v m="$3" '{ g = 1; for (i = 2; i <= m; i++) if (tot[i] < tot[g]) g = i; tot[g] += $1;
			if (g != n) { f = $2; gsub(/\./, "\\.", f); printf "--exclude-files\n^%s$\n", f } }'
}

for p in "${pkgs[@]}"; do
	extra=(); piece=
	if [[ "$p" == *:* ]]; then
		piece=${p#*:}; p=${p%%:*}
		n=${piece%/*}; m=${piece#*/}
		if ! [[ "$n" =~ ^[0-9]+$ && "$m" =~ ^[0-9]+$ && $n -ge 1 && $n -le $m ]]; then
			echo "bad piece $piece: want N/M with 1 <= N <= M" >&2; exit 2
		fi
		mapfile -t extra < <(piece_excludes "$p" "$n" "$m")
		[[ ${#extra[@]} -gt 0 ]] || { echo "no piece $n/$m of $p" >&2; exit 2; }
		name=${p//\//_}.part${n}of${m}
	else
		name=${p//\//_}
	fi
	echo "== $(date -u +%H:%M:%S) gremlins unleash ./$p${piece:+ (piece $piece: $(( ${#extra[@]} / 2 )) files left out)}"
	s=$(date +%s)
	"$bin" unleash --workers "${WORKERS:-1}" --timeout-coefficient "${TIMEOUT_COEFF:-30}" "${extra[@]}" \
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
