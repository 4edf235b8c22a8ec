#!/usr/bin/env bash
# Issue 28's scale benchmark (not part of .ci/run or the default
# node/test.sh run): one control plane (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler v1.37.2), kwok v0.8.0 with
# KWOK's default pod stages keeping pool "kwok", a kubeletlogic-node
# process (go build of cmd/kubeletlogic-node, standalone nodes) keeping
# pool "kl"; N nodes and a Deployment of M pods per pool, both pools at
# once. It prints a markdown table (node/README.md "Scale").
#
#   node/bench/scale.sh [NODES [PODS]]     # per pool; default 10 and 200
#
# Environment: KUBELETLOGIC_SCALE_QPS (kubeletlogic-node's --qps, burst
# twice it; default 5000: no client limit, as kwok has none),
# KUBELETLOGIC_SCALE_TIMEOUT_S (each wait, default 600),
# KUBELETLOGIC_SCALE_OUT (also write the table to this file),
# KUBELETLOGIC_SCALE_END (an RFC 3339 time: stop there, failing with the
# counts so far), KUBELETLOGIC_PLOT_OUT (a folder: also sample each pool's
# Running pods every 0.5 s and write them there with their picture,
# beside-kwok-scale.{json,svg}: docs/beside-kwok.md). Progress (pods present, bound, Running, gone per pool)
# is logged every 10 s.
# The components must be built: node/test.sh --build-only.
set -euo pipefail
cd "$(dirname "$0")/.."
export KUBELETLOGIC_SCALE=1
export KUBELETLOGIC_SCALE_NODES=${1:-${KUBELETLOGIC_SCALE_NODES:-10}}
export KUBELETLOGIC_SCALE_PODS=${2:-${KUBELETLOGIC_SCALE_PODS:-200}}
echo "scale.sh: $(nproc) cores, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); $KUBELETLOGIC_SCALE_NODES nodes, $KUBELETLOGIC_SCALE_PODS pods per pool" >&2
exec bash test.sh -run '^TestScale$' -count=1 -v -timeout 60m .
