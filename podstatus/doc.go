// Package podstatus answers "what would the kubelet write to .status?": the
// whole v1.PodStatus the kubelet v1.37.2 generates for a pod in one sync.
//
// [Compute] mirrors Kubelet.generateAPIPodStatus and convertStatusToAPIStatus
// in pkg/kubelet/kubelet_pods.go, composing the packages that mirror each
// step, in the kubelet's order:
//
//  1. pod IPs from the runtime's active sandbox, ordered by the node's IP
//     family (sortPodIPs), and the QoS class (v1qos.GetPodQOS);
//  2. container statuses (package apistatus: convertToAPIContainerStatuses
//     for regular, init and ephemeral containers);
//  3. the phase, computed by getPhase over those statuses as they are
//     before any probe result is applied (package phase: Compute), then the
//     rules after it: terminal phases stick, reason and message kept while
//     the phase stays, the active deadline ([phase.Resolve]);
//  4. Ready and Started of each container status, as the probe manager's
//     UpdatePodStatus sets them (pkg/kubelet/prober/prober_manager.go), from
//     explicit readiness and startup results, probe workers and the probe
//     manager's start time ([Options.Probes], [Options.ProbeWorkers],
//     [Options.ProberStart]);
//  5. the conditions (package conditions: Generate), which read the Ready
//     and Started just set, ending with PodScheduled;
//  6. hostIP and hostIPs from the node's addresses ([Options.HostIPs]), and
//     for host-network pods the pod IPs taken from them;
//  7. observedGeneration, which the status manager's SetPodStatus sets on
//     the generated status before storing it.
//
// # What is not modelled
//
//   - The status manager's other work on a stored status: lastTransitionTime
//     of conditions (see [conditions.KeepTransitionTimes]), startTime (kept
//     from the previous status, else the time of the first write),
//     observedGeneration never decreasing, and volume health. Compute
//     leaves lastTransitionTime of generated conditions zero and startTime
//     as the kubelet's generateAPIPodStatus leaves it (unset).
//   - Pod-level status.resources (gate
//     InPlacePodLevelResourcesVerticalScaling): for a running pod the kubelet
//     reads it from the pod's cgroups, which no input here describes.
//     Compute leaves it nil. (The pod-level status.allocatedResources is
//     modelled: resourcehelper.PodRequests of the pod, taken as the
//     allocated pod, with that gate.)
//   - Device health (gate ResourceHealthStatus) and what apistatus leaves
//     out (see its package documentation).
//   - Kubelet-initiated terminations (eviction, preemption, node shutdown):
//     their status functions run after generateAPIPodStatus; apply
//     [phase.PodKill.Apply] to [Result.Status].
//   - The QoS class reads gate PodLevelResourcesFixKubeletQOSClass, which
//     [features.Set] does not hold: Compute follows its v1.37.2 default (on).
//
// # From a status back to the node
//
// [RuntimeFromStatus] goes the other way, as far as a status allows: from a
// pod with the status a kubelet wrote (`kubectl get pod -o yaml`) it builds
// the runtime state ([runtimestate.FromStatus]), the actuated resources,
// the probe results and the start failures that the other packages take,
// and lists what it had to assume ([StatusView.Assumed]).
//
// Compute takes the gates as a features.Set and the clock as a time.Time
// ([Options.Now], read only for activeDeadlineSeconds). It never panics: a
// nil pod gives a zero [Result], a nil runtime state is a runtime that
// reports nothing.
//
// # Whether the status manager stores it
//
// Compute gives the status a sync generates; the status manager stores it
// only if no container leaves a terminated state that its restart policy
// keeps it in ([CheckTransition], status_manager.go
// checkContainerStateTransition). It refuses, for one, a status where a
// regular init container that completed in a pod with restartPolicy
// OnFailure or Never waits or runs again in a new sandbox, and keeps the
// previous status. [Check] knows the one shape this rule decides: such an
// init container waiting with ready=true kept from its completed run.
package podstatus
