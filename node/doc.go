// Package node runs fake kubelet nodes against a real kube-apiserver: the Go
// side of the kubeletlogic-node tool (issue 27).
//
// What exists now is standalone mode's node part, for users with no KWOK
// (envtest, a bare API server): [Standalone] registers the nodes you give
// it and keeps them alive as a kubelet v1.37.2 does,
//
//   - registration as the kubelet's registerWithAPIServer and initialNode
//     (pkg/kubelet/kubelet_node_status.go) build it: the kubelet's default
//     labels plus yours, your taints, the controller-managed attach-detach
//     annotation, and the status the kubelet's setters write (addresses,
//     capacity and allocatable, nodeInfo with the kubelet version of
//     [Options.Features], daemon endpoints, the conditions MemoryPressure,
//     DiskPressure, PIDPressure and Ready);
//   - the node Lease in kube-node-lease, renewed every
//     leaseDuration × 0.25 (10 s of 40 s) with the jitter the kubelet uses
//     (component-helpers apimachinery/lease/controller.go: controller.Run,
//     sync, retryUpdateLease, backoffEnsureLease, newLease; the owner
//     reference of pkg/kubelet/util/nodelease.go: SetNodeOwnerFunc);
//   - the node status heartbeat: the status is computed every
//     nodeStatusUpdateFrequency (10 s) and patched when it changed or when
//     nodeStatusReportFrequency (5 min) plus the kubelet's random delay
//     has passed since the last report (kubelet_node_status.go:
//     syncNodeStatus, tryUpdateNodeStatus, isUpdateStatusPeriodExpired,
//     calculateDelay; component-helpers node/util/status.go:
//     PatchNodeStatus).
//
// Periodic work reads time from [Options.Clock] (the wall clock unless a
// test passes a fake one). The kubelet's short retry back-offs
// (registration from 100 ms doubling to 7 s, lease re-creation from 200 ms
// to 7 s) sleep on the wall clock, as they do in the kubelet.
//
// Pods bound to the nodes are driven by the library's incremental engine
// (sim.Node), one per node on the wall clock (pods.go): the node watches
// its pods as the kubelet does (spec.nodeName=<node>), gives the engine
// each add, update and delete at the time it arrives, advances it to now
// whenever it has something to do, and writes what the engine's kubelet
// writes (podwrite.go): the status manager's status patches (with the
// node's hostIP, a pod IP from the node's range, the merge of the
// conditions the kubelet does not own, the UID precondition), Events with
// the kubelet's reasons and messages (Pulled, Created, Started, Killing,
// BackOff, Unhealthy, FailedPreStopHook, FailedPostStartHook) and the
// final delete with grace 0 and a UID precondition. What a pod's
// containers do comes from [ScriptAnnotation], else from the node's
// defaults ([PodOptions]).
//
// Statuses and final deletes go through each node's status manager
// (statusqueue.go, after pkg/kubelet/status/status_manager.go): the
// engine's newest status per pod is kept with a version, and one writer
// sends the pods whose newest status is not written yet (a pod's older
// unwritten statuses are never sent), each a GET, the merge, a PATCH
// (syncPod, mergePodStatus), every request waiting for a token of the
// rate limiter [Options.QPS] and [Options.Burst] (the kubelet's
// kubeAPIQPS 50 and kubeAPIBurst 100 by default). Every 10 s it sweeps
// all pods (syncBatch with all=true): a write that failed (the API server
// down) is made again, and a status another client changed in the fields
// the kubelet owns is written back (needsReconcile); other clients'
// conditions are kept.
//
// A pod whose status already shows containers when its node's driver
// starts was run by a previous process of the node (kubeletlogic-node
// restarted): the engine adopts it (sim.Node.AdoptPod) with the runtime
// its status shows, as a restarted kubelet finds its containers in the
// runtime: running containers keep running, restart counts continue, the
// crash-loop back-off record is forgotten, a terminal pod stays terminal.
// Its pod IP is kept when it is in the node's range. The watch is
// client-go's informer: after the API server restarts it lists again and
// goes on.
//
// KWOK mode ([Kwok], kwokmode.go) drives the same pod drivers for nodes
// someone else keeps: KWOK with its node stages only registers the nodes
// and renews their leases; every node that matches a [KwokSelector]
// (default: the annotation kwok.x-k8s.io/node=fake, as kwok selects the
// nodes it manages) gets its pod driver when it appears with an
// InternalIP, and loses it when it goes. Pods on other nodes are never
// read or written.
//
// The command kubeletlogic-node (cmd/kubeletlogic-node) runs either mode
// against any API server. See README.md for what is not done yet.
package node
