// Package podactions answers what the kubelet decides to do with a pod's
// sandbox and containers: the decision kubelet v1.37.2 takes in
// computePodActions (pkg/kubelet/kuberuntime/kuberuntime_manager.go), as one
// pure function. It is one step of a sync, not the whole of it: for "what
// does the kubelet do next?" use sim.Next, which runs the whole sync.
//
// # Where Compute sits in SyncPod
//
// The pod worker runs SyncPod (pkg/kubelet/kubelet.go) only for a pod it is
// syncing: a pod with a deletionTimestamp, or whose API phase is Succeeded
// or Failed, goes to SyncTerminatingPod (which kills, never starts) and
// then SyncTerminatedPod instead. SyncPod first generates the pod's status
// (generateAPIPodStatus, podstatus.Compute) and stores it; when that
// status's phase is Succeeded or Failed it returns there, and
// computePodActions never runs. It also returns early, before
// computePodActions, while the network plugin is not ready (a pod without
// hostNetwork), when the pod's cgroup cannot be created, and while the
// pod's volumes are not mounted. Only then does it initialise the actuated
// resources (InitializeActuatedPod), add the pod's probe workers, and call
// the runtime's SyncPod, whose first step is computePodActions; the
// actions are then carried out there (kills, RestartAllContainers removals,
// the sandbox, then starts, each through the crash-loop back-off,
// [restart.BackOffConfig.Decide]).
//
// So [Compute] answers for a pod whose status is not terminal and that the
// worker is syncing; on any other pod its answer is one the kubelet never
// acts on (on a pod that has succeeded it may, for instance, start init
// containers). sim.Sync and sim.Next apply these rules.
//
// Compute takes the pod (the allocated pod, as the kubelet's pod worker
// passes it), what the runtime reports about it ([runtimestate.Pod]), and an
// [Options] value holding the rest of what the kubelet reads: its feature
// gates (the zero value is v1.37.2's defaults), probe results per container
// instance, whether
// the pod is marked to restart all its containers, and the resources the
// kubelet last actuated. It returns an [Actions] value holding every decision:
// kill the pod, create a sandbox (attempt and sandbox ID), which init,
// regular and ephemeral containers to start, which instances to kill and
// why (with the kubelet's reason and message text), which instances to
// remove for RestartAllContainers in the kubelet's order, which containers'
// cpu and memory to update in place, whether the pod cgroup must be
// resized, and which memory-backed emptyDir volumes to grow or shrink.
//
//	acts := podactions.Compute(pod, st, podactions.Options{Features: features.V1_37(),
//		Probes: map[string]vocab.ProbeResults{"c-123": {Liveness: vocab.ProbeFailure}},
//	})
//	fmt.Println(acts)
//	// start containers: app (#0)
//	// kill app (c-123): liveness probe failed, will be restarted [LivenessProbe]
//
// The checks run in the kubelet's order: the sandbox check
// ([runtimestate.SandboxChanged], also used by the PodReadyToStartContainers condition),
// the RestartAllContainers short cut, the sandbox re-creation path,
// ephemeral containers, init containers walked from the last to the first
// (computeInitContainerActions), regular containers, emptyDir volumes, and
// the pod-level resize checks.
//
// The node is taken to be Linux: on other platforms the kubelet never
// resizes in place.
//
// Nothing here reads a clock, a global feature gate, or the kubelet's
// checkpoints: everything is an argument. Compute never panics; a nil pod
// gives the zero Actions (nothing to do), and a nil runtime state is a
// runtime that reports nothing about the pod.
package podactions
