// Package podactions answers what the kubelet does next for one pod: the
// decision kubelet v1.37.2 takes in computePodActions
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go) on every sync, as one
// pure function.
//
// Compute takes the pod (the allocated pod, as the kubelet's pod worker
// passes it), what the runtime reports about it (runtimestate.Pod), and an
// Options value holding the rest of what the kubelet reads: its feature
// gates (the zero value is v1.37.2's defaults), probe results per container
// instance, whether
// the pod is marked to restart all its containers, and the resources the
// kubelet last actuated. It returns an Actions value holding every decision:
// kill the pod, create a sandbox (attempt and sandbox ID), which init,
// regular and ephemeral containers to start, which instances to kill and
// why (with the kubelet's reason and message text), which instances to
// remove for RestartAllContainers in the kubelet's order, which containers'
// cpu and memory to update in place, whether the pod cgroup must be
// resized, and which memory-backed emptyDir volumes to grow or shrink.
//
//	acts := podactions.Compute(pod, st, podactions.Options{Features: features.V1_37(),
//		Probes: map[string]podactions.Probes{"c-123": {Liveness: podactions.Failure}},
//	})
//	fmt.Println(acts)
//	// start containers: app (#0)
//	// kill app (c-123): liveness probe failed, will be restarted [LivenessProbe]
//
// The checks run in the kubelet's order: the sandbox check
// (SandboxChanged, also used by the PodReadyToStartContainers condition),
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
