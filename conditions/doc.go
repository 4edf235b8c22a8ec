// Package conditions computes the pod conditions the kubelet writes to
// .status.conditions.
//
// It mirrors kubelet v1.37.2:
//
//   - [PodReadyToStartContainers], [Initialized], [ContainersReady], [Ready] and
//     [AllContainersRestarting]: the Generate…Condition functions of
//     pkg/kubelet/status/generate.go, with the same reasons, messages and
//     observedGeneration, including their variants for the terminal phases
//     (PodCompleted, PodFailed).
//   - Generate: the list Kubelet.generateAPIPodStatus
//     (pkg/kubelet/kubelet_pods.go) builds from them, in its order: the API
//     conditions the kubelet does not own, the resize conditions, the
//     cached DisruptionTarget, then PodReadyToStartContainers, Initialized,
//     Ready, ContainersReady, PodScheduled and AllContainersRestarting.
//   - [KeepTransitionTimes]: the status manager's rule for lastTransitionTime
//     (updateLastTransitionTime in pkg/kubelet/status/status_manager.go):
//     kept when a condition's status does not change, now otherwise;
//     [SetTransitionTimes] applies it in place to a list the caller owns.
//
// The inputs are the pod, the API status the kubelet has just generated
// (phase and container statuses, after the probe manager set Ready and
// Started; see package phase for the phase), the previous status the
// kubelet builds on (the status manager's cached status, else the pod's API
// status) and the runtime state ([runtimestate.Pod]) for the sandbox and
// RestartAllContainers conditions:
//
//	conds := conditions.Generate(pod, generated, conditions.Options{
//		Features: gates, Cached: cached, Runtime: st,
//	})
//	conds = conditions.KeepTransitionTimes(conds, previous, now)
//
// Every function takes the gates it reads as a [features.Set] and the clock
// as a time.Time. None panics: a nil pod reads as a pod with an empty spec
// and status, a nil previous status as one with no conditions (the
// generated observedGeneration is then 0, as the kubelet's
// CalculatePodConditionObservedGeneration gives for a nil status).
package conditions
