#!/usr/bin/env bash
# Captures the fixtures in ../../testdata/captured from a real kubelet v1.37.2.
# Needs root, Linux, Go 1.26, the module proxy (or a warm module cache) and
# Debian's containerd, runc, busybox-static, containernetworking-plugins and
# docker-registry (the image-pull-slow and image-pull-flaky scenarios).
# Usage: sudo ./run.sh [-only crashloop,never-exit0]   (static-pod scenarios;
#        restart-running, restart-crashloop and backoff-reset run only when named)
#        sudo ./run.sh -api                          (API-server scenarios)
# The work folder is $CAPTURE_WORK (default /tmp/kl-capture).
set -euo pipefail
cd "$(dirname "$0")"
for b in containerd runc ctr docker-registry; do
	command -v "$b" >/dev/null || { echo "missing $b: apt-get install -y containerd runc busybox-static containernetworking-plugins docker-registry" >&2; exit 1; }
done
[ -x /bin/busybox ] || { echo "missing /bin/busybox (busybox-static)" >&2; exit 1; }
work=${CAPTURE_WORK:-/tmp/kl-capture}
mkdir -p "$work"
./build.sh "$work" kubelet
go build -o "$work/capture" .
extra=()
for a in "$@"; do
	if [ "$a" = "-api" ]; then
		command -v openssl >/dev/null || { echo "missing openssl" >&2; exit 1; }
		./build.sh "$work" etcd kube-apiserver
		extra=(-etcd "$work/etcd" -apiserver "$work/kube-apiserver")
	fi
done
exec "$work/capture" -work "$work" -kubelet "$work/kubelet" -out ../../testdata/captured "${extra[@]}" "$@"
