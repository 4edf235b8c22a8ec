#!/usr/bin/env bash
# Runs the differential tests against the real kubelet's code: v1.37.2, or
# KUBELET=1.36 (v1.36.3) or KUBELET=1.35 (v1.35.4).
#
#   ./run.sh                                  # all packages, kubelet v1.37.2
#   KUBELET=1.35 ./run.sh                     # the same tests against v1.35.4
#   ./run.sh -run TestSmoke -v                # extra args go to `go test`
#   DIFF_SCALE=0.1 ./run.sh                   # the one knob for the number of
#                                             # cases: a factor on every test's
#                                             # count (0.1 quick, 10 long);
#                                             # -rapid.checks is refused
#   PKGS=./kubeletgates ./run.sh              # other package patterns
#
# At the end it prints the table of cases compared: per function, the cases
# whose answer was compared with the kubelet's and passed, and per settable
# gate how many of them had it on/off.
#
# CGO is off by default (no C toolchain needed, same build everywhere); set
# CGO_ENABLED=1 yourself for -race.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
cd "$here"

# Several people (or agents) may share this work tree: one run at a time,
# since setup.sh rewrites vendor/.
exec 9>"$here/.run.lock"
flock 9

./setup.sh

# KUBELET=1.36 or 1.35: the module for that kubelet, assembled by setup.sh
# in .v1.NN/ (see setup.sh, which refuses any other value).
case "${KUBELET:-1.37}" in
1.36 | v1.36 | 1.36.3 | v1.36.3) here="$here/.v1.36" ;;
1.35 | v1.35 | 1.35.4 | v1.35.4) here="$here/.v1.35" ;;
esac
cd "$here"

export CGO_ENABLED="${CGO_ENABLED:-0}"
# -mod=vendor is given explicitly below; drop a conflicting one from GOFLAGS.
if [[ -n "${GOFLAGS:-}" ]]; then
	GOFLAGS="$(printf ' %s ' "$GOFLAGS" | sed -E 's/ -mod=[^ ]*//g; s/^ +//; s/ +$//')"
	export GOFLAGS
fi

# The differential tests append their table of cases compared here.
DIFF_REPORT="$(mktemp)"
export DIFF_REPORT
trap 'rm -f "$DIFF_REPORT"' EXIT

# shellcheck disable=SC2086 # PKGS is a list of patterns
status=0
# The whole suite runs longer than go test's default 10-minute timeout on a
# busy 2-core machine; a -timeout among your arguments wins over this one.
# -trimpath keys the build cache on import paths, not directories, so every
# checkout (and tooling/mutation/run.sh's copy) shares one compiled kubelet.
go test -timeout=90m -trimpath -mod=vendor -overlay="$here/overlay.json" -tags=kubeletlogic_overlay "$@" ${PKGS:-./...} || status=$?
cat "$DIFF_REPORT"
exit "$status"
