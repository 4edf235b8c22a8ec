#!/usr/bin/env bash
# Issue 28's crash-loop load benchmark (not part of .ci/run or the default
# node/test.sh run): one control plane (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler v1.37.2), standalone nodes of
# kubeletlogic-node in the test's process, CONTAINERS crash-looping
# containers (5 to a pod, each run exits 1 after 5 s) for MINUTES. It
# prints a markdown table: status writes per second seen by a watch, the
# lag of each restart behind the kubelet's schedule (p50, p99, max), CPU,
# the API server's requests (node/README.md "Scale").
#
#   node/bench/crashload.sh [CONTAINERS [MINUTES]]     # default 2000 and 10
#
# Environment: KUBELETLOGIC_CRASHLOAD_NODES (default 20),
# KUBELETLOGIC_CRASHLOAD_PER_POD (default 5), KUBELETLOGIC_CRASHLOAD_RUN_S
# (default 5), KUBELETLOGIC_CRASHLOAD_SPREAD_S (create the pods evenly over
# this many seconds; default: all at once), KUBELETLOGIC_CRASHLOAD_OUT (also
# write the table to this file). Progress is logged every minute.
# The components must be built: node/test.sh --build-only.
set -euo pipefail
cd "$(dirname "$0")/.."
export KUBELETLOGIC_CRASHLOAD=1
export KUBELETLOGIC_CRASHLOAD_CONTAINERS=${1:-${KUBELETLOGIC_CRASHLOAD_CONTAINERS:-2000}}
export KUBELETLOGIC_CRASHLOAD_MINUTES=${2:-${KUBELETLOGIC_CRASHLOAD_MINUTES:-10}}
echo "crashload.sh: $(nproc) cores, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); $KUBELETLOGIC_CRASHLOAD_CONTAINERS containers, $KUBELETLOGIC_CRASHLOAD_MINUTES min" >&2
exec bash test.sh -run '^TestCrashLoopLoad$' -count=1 -v -timeout $((KUBELETLOGIC_CRASHLOAD_MINUTES + 30))m .
