// Package runtimestate models what the kubelet knows about one pod from the
// container runtime: the equivalent of the kubelet's kubecontainer.PodStatus
// (pkg/kubelet/container/runtime.go), as built by
// kubeGenericRuntimeManager.GetPodStatus
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go).
//
// A Pod lists its sandboxes and container instances newest first, the order
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
// Every method accepts a nil *Pod and treats it as a pod the runtime knows
// nothing about.
package runtimestate
