// Package apistatus computes the container status lists the kubelet writes
// into a pod's .status: status.initContainerStatuses,
// status.containerStatuses and status.ephemeralContainerStatuses.
//
// [Compute] mirrors convertToAPIContainerStatuses in
// pkg/kubelet/kubelet_pods.go of kubelet v1.37.2, called three times as
// convertStatusToAPIStatus calls it (regular, init, then ephemeral
// containers), together with the one input convertStatusToAPIStatus derives
// for it: whether a RestartAllContainers reset is in progress
// (kubecontainer.ShouldAllContainersRestart, see package restart).
//
// # Inputs
//
// The kubelet reads, and Compute takes as arguments:
//
//   - the pod (spec, deletionTimestamp, UID);
//   - the runtime state ([runtimestate.Pod], the kubelet's
//     kubecontainer.PodStatus);
//   - the previous pod status: the status manager's cached status, or the
//     API's pod.Status when the cache has none ([Options.Cached]);
//   - the reason cache, which holds the error of the last failed start of
//     each container, such as CrashLoopBackOff with its back-off message
//     ([Options.StartFailures]);
//   - whether the pod's runtime handler supports recursive read-only
//     mounts ([Options.RecursiveReadOnlySupported]);
//   - the feature gates ([Options.Features]).
//
// # What is not modelled
//
//   - Ready and Started as the probe manager sets them afterwards
//     (prober_manager.go UpdatePodStatus, run by generateAPIPodStatus after
//     the phase is computed). Compute returns the statuses as
//     convertToAPIContainerStatuses leaves them, which is also what the
//     kubelet's getPhase reads: Ready false on fresh statuses, Started
//     carried over from the previous status for a running container (gate
//     ChangeContainerStatusOnKubeletRestart off), and both carried over
//     when a previous terminated status is reused whole.
//   - Device health (gate ResourceHealthStatus), merged into
//     AllocatedResourcesStatus after this step.
//   - VolumeMounts[].VolumeStatus of image volumes (gate
//     ImageVolumeWithDigest, off by default): it needs the runtime's image
//     store.
//   - User (gate SupplementalGroupsPolicy) and StopSignal (gate
//     ContainerStopSignals): [runtimestate.Container] has neither, so they
//     are always nil, as the kubelet reports them for a runtime that
//     reports neither.
//   - The Windows variant of the resource minimums: Resources follow the
//     Linux kubelet (cpu limits at or below 10m and cpu requests at or
//     below 2m keep the allocated value).
//   - Resources are computed from the pod's spec, which stands for the
//     allocated pod: pass the pod as the kubelet's allocation manager
//     records it when a resize is pending.
package apistatus
