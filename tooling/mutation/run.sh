#!/usr/bin/env bash
# Plants each single-line bug of tooling/mutation/bugs.txt in a temporary copy of
# the repository and runs the library tests (replay included) and the
# differential suite against it; prints the table. Not part of .ci/run.
#
#   bash tooling/mutation/run.sh                      # every bug, CI case counts
#   bash tooling/mutation/run.sh -only restart-max-ignored,podactions-*
#   bash tooling/mutation/run.sh -quick               # DIFF_SCALE=0.1
#   bash tooling/mutation/run.sh -check               # only check the list
#   bash tooling/mutation/run.sh -h                   # every option
#
# See tooling/mutation/README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
exec go run tooling/mutation/mutate.go "$@"
