#!/usr/bin/env bash
# Builds Kubernetes v1.37.2 commands and the embedded etcd (./etcd, etcd
# server v3.7.0) from this module (tooling/capture/go.mod requires
# k8s.io/kubernetes v1.37.2 with the staging replaces) into a folder.
# Shared by tooling/capture/run.sh and node/test.sh. A binary already in the
# folder is kept (delete it to rebuild). Nothing is written anywhere else
# than the folder and Go's own caches.
# Usage: build.sh OUTDIR NAME...
#   NAME: etcd (./etcd: the embedded etcd with this harness's three flags),
#   etcd-upstream (etcd's own command, go.etcd.io/etcd/server/v3's main
#   package at the same v3.7.0, with etcd's own flags: what envtest starts,
#   node/examples/envtest), or a command under k8s.io/kubernetes/cmd
#   (kubelet, kube-apiserver, kube-controller-manager, kube-scheduler, ...).
# The build runs under `nice -n ${BUILD_NICE:-5}`.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUTDIR NAME..." >&2; exit 2; }
out=$1
shift
cd "$(dirname "$0")"
mkdir -p "$out"
# The version the Kubernetes commands report (--version, the API server's
# /version), stamped as the release build does (hack/lib/version.sh): go
# build alone leaves "v0.0.0-master".
kver=$(go list -mod=readonly -m -f '{{.Version}}' k8s.io/kubernetes)
kminor=${kver#v1.}
kminor=${kminor%%.*}
# -s -w (no symbol table, no DWARF) as the release build links them
# (hack/lib/golang.sh, without DBG=1): relinking etcd took 2.7 s of CPU
# instead of 4.2 s and gives 24 MB instead of 34 MB (2026-12-02). The
# release build's -trimpath, CGO_ENABLED=0 and build tags are left out on
# purpose: they change every package's build ID, so the packages node/'s
# tests and the library compile anyway (k8s.io/api, apimachinery,
# client-go: 369 of the control plane's 2,307 packages, 31 of its 85 MB
# of Go source) would be compiled a second time.
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$kver -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$kminor -X k8s.io/component-base/version.gitTreeState=clean"
# The missing binaries are built by one `go build`: the packages they
# share are compiled once and the links run side by side.
pkgs=()
names=()
outs=() # the file go build writes for each name
for name in "$@"; do
	if [ -x "$out/$name" ]; then
		echo "build.sh: $name cached in $out"
		continue
	fi
	built=$name
	case $name in
	etcd) pkg=./etcd ;;
	etcd-upstream) pkg=go.etcd.io/etcd/server/v3 built=server ;;
	*[!a-z-]* | "") echo "build.sh: bad name $name" >&2; exit 2 ;;
	*) pkg=k8s.io/kubernetes/cmd/$name ;;
	esac
	pkgs+=("$pkg")
	names+=("$name")
	outs+=("$built")
done
[ ${#names[@]} -gt 0 ] || exit 0
echo "build.sh: building ${names[*]} into $out (${pkgs[*]}; minutes when Go's build cache is cold)"
t0=$(date +%s)
# Build into a temporary folder of this process so an interrupted build
# leaves no binary the next run would take as cached, and two scripts
# building at once do not write one file.
tmp=$out/.build.$$.tmp
rm -rf "$tmp"
mkdir "$tmp"
trap 'rm -rf "$tmp"' EXIT
nice -n "${BUILD_NICE:-5}" go build -mod=readonly -ldflags "$ldflags" -o "$tmp/" "${pkgs[@]}"
for i in "${!names[@]}"; do
	mv "$tmp/${outs[$i]}" "$out/${names[$i]}"
done
echo "build.sh: built ${names[*]} in $(($(date +%s) - t0)) s"
