// Package runtimestate models what the kubelet knows about one pod from the
// container runtime: the equivalent of the kubelet's kubecontainer.PodStatus
// (pkg/kubelet/container/runtime.go), as built by
// kubeGenericRuntimeManager.GetPodStatus
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go).
//
// A [Pod] lists its sandboxes and container instances newest first, the order
// the kubelet sorts them in; the kubelet's "first match by name" lookups are
// therefore "newest instance by name", and so are Newest and NewestActive
// here. Normalize sorts a hand-written Pod into that order; Validate reports
// what no real runtime can report (duplicate IDs, unknown states, wrong
// order).
//
// The active sandbox is Sandboxes[0] when it is ready, and no sandbox
// otherwise; the active containers are those whose SandboxID names it. This
// is the kubelet's split between ContainerStatuses and
// ActiveContainerStatuses.
//
// A Pod is easy to write by hand and reads from JSON or YAML with camelCase
// keys:
//
//	uid: 6f1c...
//	sandboxes:
//	- {id: s1, ready: true, attempt: 0, ip: 10.244.1.6}
//	containers:
//	- {id: c2, name: app, sandboxID: s1, state: running, restartCount: 1}
//	- {id: c1, name: app, sandboxID: s1, state: exited, exitCode: 1}
//
// What a hand-written state leaves out, and how it reads:
//   - a container's Hash: created from its current spec (HashMissing is the
//     faithful reading of a report without one);
//   - a ready sandbox's IP: an IP is taken to exist (the sandbox is not
//     re-created), though IPs reports none; NoIP is the faithful reading of
//     a runtime that reports a network status without an IP, which the
//     kubelet kills on a pod-network pod;
//   - creation times: the list order is then the only order there is, and
//     must be newest first. Validate reports a list that contradicts it
//     (times, or restart counts of one container's instances), but the
//     decision functions do not call it: call Validate on a Pod written in
//     Go ([FromYAML] and [FromJSON] do), or give createdAt and Normalize it.
//     restart.HistoryFrom needs the times and returns an error without them.
//
// FromStatus reads a Pod off a pod's API status (`kubectl get pod -o
// yaml`), as far as a status tells it, and lists what it assumed; it is
// checked against the runtime state recorded with every status of the
// captured fixtures.
//
// Every method accepts a nil *Pod and treats it as a pod the runtime knows
// nothing about.
package runtimestate
