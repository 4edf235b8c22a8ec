#!/bin/bash
# Plants one-line bugs in the decision packages one at a time (each reverted
# at once) and runs the replay tests against each, and the replay tests of
# commit 6d2cca4 (before issue 9) for comparison. By hand, not in CI.
cd "$(dirname "$0")/../.."
rm -rf replay_old && mkdir replay_old && for f in $(git ls-tree --name-only 6d2cca4 replay/); do git show 6d2cca4:$f > replay_old/$(basename $f); done
plant() { # label file perl-expr
  local label=$1 file=$2 expr=$3
  cp $file "${TMPDIR:-/tmp}/replay-plant.orig"
  perl -0pi -e "$expr" $file
  if cmp -s $file "${TMPDIR:-/tmp}/replay-plant.orig"; then echo "## $label: PLANT DID NOT APPLY"; return; fi
  new=$(go test -count=1 ./tooling/replay/ 2>&1); nrc=$?
  old=$(go test -count=1 ./replay_old/ 2>&1); orc=$?
  cp "${TMPDIR:-/tmp}/replay-plant.orig" $file
  echo "## $label"
  echo "   new: $([ $nrc = 0 ] && echo PASS || echo FAIL) $(echo "$new" | grep -E -- '--- FAIL: Test\w+/' | sed 's/ (.*//;s/--- FAIL: //' | tr '\n' ' ')"
  echo "$new" | grep -E '^\s+\w+_test.go:[0-9]+: ' | grep -v 'replayed over\|settled statuses\|restart [0-9]*:\|restarts checked' | head -2 | cut -c1-230 | sed 's/^/      /'
  echo "   old: $([ $orc = 0 ] && echo PASS || echo FAIL) $(echo "$old" | grep -E -- '--- FAIL: Test\w+/' | sed 's/ (.*//;s/--- FAIL: //' | tr '\n' ' ')"
}
plant "P1 kill message changed" podactions/compute.go 's/k.Message \+= ", will be restarted"/k.Message += ", will restart"/'
plant "P2 extra start: running container also started" podactions/compute.go 's/\t\t\tkeep\+\+\n\t\t\tcontinue/\t\t\tkeep++; a.ContainersToStart = appendRef(a.ContainersToStart, len(pod.Spec.Containers), Ref{idx, ctr.Name})\n\t\t\tcontinue/'
plant "P3 liveness/startup kill dropped" podactions/compute.go 's/\t\tc.kill\(k\)\n\t\}/\t\tif k.Reason == ReasonNone { c.kill(k) }\n\t}/'
plant "P4 probe kill not restarted" podactions/compute.go 's/\t\tif restarts \{/\t\tif restarts \&\& k.Reason == ReasonNone {/'
plant "P5 sandbox attempt +2" podactions/sandbox.go 's/next := latest.Attempt \+ 1/next := latest.Attempt + 2/'
plant "P6 reset: sources removed first" podactions/compute.go 's/next := \[4\]int\{0, count\[0\], count\[0\] \+ count\[1\], count\[0\] \+ count\[1\] \+ count\[2\]\}/next := [4]int{count[2] + count[3], count[2] + count[3] + count[0], 0, count[2]}/'
plant "P7 podstatus: startup Unknown counts as started" podstatus/probes.go 's/return r == Success\n/return r != Failure\n/'
plant "P9 termination: container grace +1" termination/grace.go 's/\treturn \*podGrace\n\}/\treturn *podGrace + 1\n}/'
plant "P10 KillPod not decided when nothing runs" podactions/compute.go 's/\t\ta.KillPod = true\n\t\ta.InitContainersToStart = nil/\t\ta.InitContainersToStart = nil/'
plant "P11 init: sidecar started with regular containers skipped (no start after sandbox)" podactions/compute.go 's/a.InitContainersToStart = \[\]Ref\{\{0, pod.Spec.InitContainers\[0\].Name\}\}/a.InitContainersToStart = nil/'
rm -rf replay_old
git status --short
