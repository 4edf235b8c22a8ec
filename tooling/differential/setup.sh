#!/usr/bin/env bash
# Prepares the differential module for `go test -overlay`:
#   1. regenerates vendor/ (the kubelet sources plus a copy of the library,
#      which is vendored through the `replace => ../`, so it is refreshed on
#      every run);
#   2. writes overlay.json, which adds every adapter file under _adapters/ to
#      the matching vendored package.
# Idempotent; needs only the go command and a module proxy (or a warm module
# cache). vendor/ and overlay.json are gitignored.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
cd "$here"

# KUBELET picks the kubelet the suite is compiled against: 1.37 (default,
# this module), 1.36 or 1.35. An older kubelet gets its own module, built
# in .v1.NN/ (gitignored) from three sources:
#   - v1.NN/go.mod and v1.NN/go.sum (k8s.io/kubernetes v1.NN.x and its
#     staging modules; the library is replaced by the checkout);
#   - every shared .go file of this module (same relative paths), except
#     files whose name ends in _v1_37.go or _v1_37_test.go: those hold what
#     only v1.37.2 has (its version constant, adapters for its signatures);
#   - every file under v1.NN/ (its version constant, its adapters).
# The module path stays github.com/kubeletlogic/kubeletlogic/tooling/differential,
# so the shared tests' imports of this module's packages resolve.
KUBELET="${KUBELET:-1.37}"
case "$KUBELET" in
1.37 | v1.37 | 1.37.2 | v1.37.2) KUBELET=1.37 ;;
1.36 | v1.36 | 1.36.3 | v1.36.3) KUBELET=1.36 ;;
1.35 | v1.35 | 1.35.4 | v1.35.4) KUBELET=1.35 ;;
*)
	echo "setup.sh: KUBELET=$KUBELET: want 1.37, 1.36 or 1.35" >&2
	exit 1
	;;
esac
if [[ "$KUBELET" != 1.37 ]]; then
	src="$here"
	here="$src/.v$KUBELET"
	echo "setup.sh: assembling the kubelet v$KUBELET module in $here"
	rm -rf "$here"
	mkdir -p "$here"
	(
		cd "$src"
		find . \( -path ./vendor -o -path './v1.*' -o -path './.v1.*' -o -path ./testdata \) -prune -o \
			-type f -name '*.go' ! -name '*_v1_37.go' ! -name '*_v1_37_test.go' -print0 |
			xargs -0 -I{} cp --parents {} "$here/"
		cd "v$KUBELET"
		find . -type f -print0 | xargs -0 -I{} cp --parents {} "$here/"
	)
	cd "$here"
fi

# `go mod vendor` refuses -mod=...; drop it from GOFLAGS if the caller set it.
if [[ -n "${GOFLAGS:-}" ]]; then
	GOFLAGS="$(printf ' %s ' "$GOFLAGS" | sed -E 's/ -mod=[^ ]*//g; s/^ +//; s/ +$//')"
	export GOFLAGS
fi

if ! go mod vendor; then
	echo "setup.sh: 'go mod vendor' failed. If the library's dependencies changed," >&2
	echo "          run 'go mod tidy' in $here (then check that the require of" >&2
	echo "          github.com/kubeletlogic/kubeletlogic is still there)." >&2
	exit 1
fi

# Adapter layout: _adapters/<vendored package path>/zz_kubeletlogic_*.go is
# overlaid as vendor/<vendored package path>/zz_kubeletlogic_*.go.
json_escape() { # JSON string body for a path
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	printf '%s' "$s"
}

entries=()
while IFS= read -r -d '' src; do
	rel="${src#./_adapters/}"
	name="$(basename "$rel")"
	pkgdir="$(dirname "$rel")"
	case "$name" in
	zz_kubeletlogic_*.go) ;;
	*)
		echo "setup.sh: adapter file $src must be named zz_kubeletlogic_*.go" >&2
		exit 1
		;;
	esac
	if [[ ! -d "vendor/$pkgdir" ]]; then
		echo "setup.sh: $src: vendor/$pkgdir does not exist (is the package imported by a test or by adapterdeps_test.go?)" >&2
		exit 1
	fi
	if [[ -e "vendor/$rel" ]]; then
		echo "setup.sh: vendor/$rel already exists; rename the adapter" >&2
		exit 1
	fi
	entries+=("    \"$(json_escape "$here/vendor/$rel")\": \"$(json_escape "$here/_adapters/$rel")\"")
done < <(find ./_adapters -type f -name '*.go' -print0 | sort -z)

if [[ ${#entries[@]} -eq 0 ]]; then
	echo "setup.sh: no adapter files found under _adapters/" >&2
	exit 1
fi

tmp="$(mktemp "$here/.overlay.json.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
{
	printf '{\n  "Replace": {\n'
	for i in "${!entries[@]}"; do
		sep=","
		[[ $i -eq $((${#entries[@]} - 1)) ]] && sep=""
		printf '%s%s\n' "${entries[$i]}" "$sep"
	done
	printf '  }\n}\n'
} >"$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$here/overlay.json"
echo "setup.sh: vendor/ refreshed; overlay.json maps ${#entries[@]} adapter file(s)"
