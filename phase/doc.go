// Package phase computes the pod phase the kubelet writes to .status.phase,
// with the reason and message that go with it.
//
// It mirrors kubelet v1.37.2:
//
//   - [Compute]: getPhase in pkg/kubelet/kubelet_pods.go, over the API
//     container statuses the kubelet has just generated (regular init
//     containers, native sidecars, regular containers; pod and
//     container-level restart policy and rules; the RestartingAllContainers
//     reason; podIsTerminal; podHasInitialized).
//   - [HasAnyActiveRegularContainerStarted]: the helper of that name in
//     pkg/kubelet/container/helpers.go, which the kubelet passes to getPhase
//     as podHasInitialized.
//   - [Resolve]: the steps of Kubelet.generateAPIPodStatus
//     (pkg/kubelet/kubelet_pods.go) that follow getPhase and depend only on
//     inputs: a pod never leaves Succeeded or Failed (the three-way merge
//     with the status manager's cached status and the API status, and the
//     final guard), reason and message kept while the phase stays, and the
//     active-deadline pod sync handler (DeadlineExceeded).
//   - [PodKill.Apply]: the status functions of kubelet-initiated terminations
//     (eviction, preemption of a pod for a critical pod, graceful node
//     shutdown), which the kubelet applies to the generated status before
//     storing it; Resolve then keeps their phase, reason and message.
//
// The kubelet computes the phase in this order:
//
//	statuses := /* the generated API container statuses */
//	init := phase.HasAnyActiveRegularContainerStarted(pod, st)
//	r := phase.Compute(pod, statuses, phase.Options{Features: gates, PodIsTerminal: terminal, PodHasInitialized: init})
//	final := phase.Resolve(pod, r.Phase, phase.ResolveOptions{Cached: cached, Now: now})
//
// Every function takes the gates it reads as a [features.Set] (the zero Set
// is kubelet v1.37.2 with its default gates, as [features.V1_37]) and the
// clock as a time.Time. None panics: a nil pod reads as a pod with an empty
// spec and an empty status.
package phase
