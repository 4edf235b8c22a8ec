#!/usr/bin/env bash
# Issue 28's faults under load (not part of .ci/run or the default
# node/test.sh run): TestLoadFaults (loadfault_test.go). One control
# plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler
# v1.37.2), kwok v0.8.0 keeping the nodes (node stages only), two
# kubeletlogic-node processes in KWOK mode, one per shard
# (--node-label-selector kubeletlogic.io/shard=a, =b); PODS pods, half
# per shard, crash-looping, running and Job pods. During the run the API
# server is restarted, shard b's process is killed (SIGKILL) and started
# again, and DELETES pods are deleted at once; at the end every pod left
# must pass podstatus.Check, every restart count the watch saw must be
# consistent, and every deleted pod's last status show no running
# container. It prints a markdown table (node/README.md "Scale", "Faults
# under load").
#
#   node/bench/loadfault.sh [PODS [DELETES]]   # default 300 and PODS/5
#
# Environment: KUBELETLOGIC_LOADFAULT_TIMEOUT_S (each wait, default 600),
# KUBELETLOGIC_LOADFAULT_OUT (also write the table to this file).
# The components must be built: node/test.sh --build-only.
set -euo pipefail
cd "$(dirname "$0")/.."
export KUBELETLOGIC_LOADFAULT=1
export KUBELETLOGIC_LOADFAULT_PODS=${1:-${KUBELETLOGIC_LOADFAULT_PODS:-300}}
if [ -n "${2:-}" ]; then
	export KUBELETLOGIC_LOADFAULT_DELETES=$2
fi
echo "loadfault.sh: $(nproc) cores, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); $KUBELETLOGIC_LOADFAULT_PODS pods, ${KUBELETLOGIC_LOADFAULT_DELETES:-PODS/5} deleted at once" >&2
exec bash test.sh -run '^TestLoadFaults$' -count=1 -v -timeout 60m .
