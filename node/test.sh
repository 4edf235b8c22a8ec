#!/usr/bin/env bash
# Builds (or finds cached) the real components node/'s tests run against,
# then runs `go test ./...` in node/ with them. Arguments go to go test
# (for example: node/test.sh -run TestStandalone -v).
#
# Components, built from the module proxy and cached by version under
# ${KUBELETLOGIC_CACHE:-$HOME/.cache/kubeletlogic}:
#   controlplane/v1.37.2/{etcd,kube-apiserver,kube-controller-manager,kube-scheduler,etcd-upstream}
#     by tooling/capture/build.sh (tooling/capture/go.mod: k8s.io/kubernetes v1.37.2 with
#     the staging replaces; etcd is tooling/capture/etcd, the embedded etcd v3.7.0;
#     etcd-upstream is etcd v3.7.0's own command, with etcd's own flags)
#     (one go build for all that are missing, linked with -s -w)
#   envtest/v1.37.2/{etcd,kube-apiserver}
#     symbolic links to controlplane/v1.37.2/{etcd-upstream,kube-apiserver}: an
#     assets folder for controller-runtime's envtest (KUBEBUILDER_ASSETS), laid
#     out as setup-envtest lays out its downloads (no kubectl)
#   kwok/v0.8.0/kwok
#     by GOFLAGS=-mod=mod go install sigs.k8s.io/kwok/cmd/kwok@v0.8.0
#   kwok/v0.8.0/stages/{node-initialize,node-heartbeat-with-lease}.yaml
#     KWOK's own node stages, copied from its module (TestKwokNodes)
#   kwok/v0.8.0/stages/pod-fast/{pod-ready,pod-complete,pod-delete}.yaml
#     KWOK's default pod stages, copied from its module (TestSideBySide)
# A binary already in the cache is used as it is (delete it to rebuild).
# Builds run under nice -n 5.
#
# Cold build times measured here on 2026-12-02 (2 cores shared with six
# other sessions and a mutation run, load average 30 to 55; Go's module
# cache partly warm, Go's build cache holding none of these packages).
# Wall clock at that load says little; CPU time (user + sys) is what a
# quiet machine would take, divided by its cores:
#   etcd            902 s wall, 111 s CPU (with its module downloads)
#   kube-apiserver  1,528 s wall (resumed at 12:09 at nice 19, load ~10;
#                   the build cache held the packages compiled before)
#   kube-scheduler  552 s wall after it, kube-controller-manager 482 s
#   kwok            239 s wall (module downloads included)
#   Relinking the three with the version stamp (packages cached): 59 s.
#   etcd-upstream after etcd (its packages mostly cached): 36 s wall, 13 s CPU.
# Warm run (everything cached), TestStandalone and TestBinaryVersions:
# about 75 s.
# Warm run of TestSideBySide alone (2026-12-03, quiet 2 cores): 32 to 36 s.
# Warm run of TestShards alone (2026-12-03, loaded 2 cores): 9 s. TestScale
# (the scale benchmark) is skipped unless KUBELETLOGIC_SCALE=1: bench/scale.sh.
# TestLoadFaults (faults under load) is skipped unless KUBELETLOGIC_LOADFAULT=1:
# bench/loadfault.sh.
# With --build-only as the first argument it builds what is missing and
# stops (.ci/run starts it so in the background, then runs the tests).
set -euo pipefail
cd "$(dirname "$0")"
build_only=false
if [ "${1:-}" = --build-only ]; then
	build_only=true
	shift
fi
cache=${KUBELETLOGIC_CACHE:-$HOME/.cache/kubeletlogic}
cp_dir=$cache/controlplane/v1.37.2
kwok_dir=$cache/kwok/v0.8.0
build=../tooling/capture/build.sh
[ -x "$build" ] || { echo "test.sh: tooling/capture/build.sh not found" >&2; exit 1; }
"$build" "$cp_dir" etcd kube-apiserver kube-controller-manager kube-scheduler etcd-upstream
# envtest's assets folder (node/examples/envtest, README "Use it with envtest").
envtest_dir=$cache/envtest/v1.37.2
mkdir -p "$envtest_dir"
ln -sfn ../../controlplane/v1.37.2/etcd-upstream "$envtest_dir/etcd"
ln -sfn ../../controlplane/v1.37.2/kube-apiserver "$envtest_dir/kube-apiserver"
echo "test.sh: envtest assets in $envtest_dir (KUBEBUILDER_ASSETS)"
if [ -x "$kwok_dir/kwok" ]; then
	echo "test.sh: kwok cached in $kwok_dir"
else
	echo "test.sh: building kwok v0.8.0 into $kwok_dir (about 2 minutes on a quiet machine)"
	t0=$(date +%s)
	mkdir -p "$kwok_dir"
	tmp=$(mktemp -d "$kwok_dir/.gobin.XXXXXX")
	GOBIN=$tmp GOFLAGS=-mod=mod nice -n 5 go install sigs.k8s.io/kwok/cmd/kwok@v0.8.0
	mv "$tmp/kwok" "$kwok_dir/kwok"
	rmdir "$tmp"
	echo "test.sh: built kwok in $(($(date +%s) - t0)) s"
fi
# KWOK's own node stages (node-initialize, node-heartbeat-with-lease), the
# only stages TestKwokNodes gives kwok, and its default ("fast") pod stages
# (pod-ready, pod-complete, pod-delete, into stages/pod-fast; TestSideBySide's
# KWOK pool), copied unchanged from its module.
stages=$kwok_dir/stages
if [ -f "$stages/node-initialize.yaml" ] && [ -f "$stages/node-heartbeat-with-lease.yaml" ] &&
	[ -f "$stages/pod-fast/pod-ready.yaml" ] && [ -f "$stages/pod-fast/pod-complete.yaml" ] && [ -f "$stages/pod-fast/pod-delete.yaml" ]; then
	echo "test.sh: kwok's node and pod stages cached in $stages"
else
	kwok_src=$(cd / && go mod download -json sigs.k8s.io/kwok@v0.8.0 | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	[ -d "$kwok_src" ] || { echo "test.sh: sigs.k8s.io/kwok@v0.8.0 not downloaded" >&2; exit 1; }
	mkdir -p "$stages/pod-fast"
	cp "$kwok_src/kustomize/stage/node/fast/node-initialize.yaml" \
		"$kwok_src/kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml" "$stages/"
	cp "$kwok_src/kustomize/stage/pod/fast/pod-ready.yaml" "$kwok_src/kustomize/stage/pod/fast/pod-complete.yaml" \
		"$kwok_src/kustomize/stage/pod/fast/pod-delete.yaml" "$stages/pod-fast/"
	chmod 644 "$stages/"*.yaml "$stages/pod-fast/"*.yaml
	echo "test.sh: copied kwok's node and pod stages into $stages"
fi
if $build_only; then
	echo "test.sh: components ready (--build-only)"
	exit 0
fi
export KUBELETLOGIC_ETCD=$cp_dir/etcd
export KUBELETLOGIC_KUBE_APISERVER=$cp_dir/kube-apiserver
export KUBELETLOGIC_KUBE_CONTROLLER_MANAGER=$cp_dir/kube-controller-manager
export KUBELETLOGIC_KUBE_SCHEDULER=$cp_dir/kube-scheduler
export KUBELETLOGIC_KWOK=$kwok_dir/kwok
export KUBEBUILDER_ASSETS=$envtest_dir
echo "test.sh: go test in node/"
nice -n 5 go test -count=1 "$@" ./...
