// Package termination holds the kubelet's decisions about stopping a pod:
// the grace period each container gets, the order in which native sidecars
// are stopped, the timeline of a pod kill, when the kubelet deletes the API
// object, and how the pod worker moves a pod from syncing to terminating to
// terminated.
//
// [Plan] is the entry point: given a pod, what the runtime reports about it
// and, per container, how long its preStop hook runs and how long its process
// takes to exit after the stop signal, it returns the timeline kubelet
// v1.37.2 produces when it kills the pod (killPodWithSyncResult in
// pkg/kubelet/kuberuntime). Time is virtual: offsets from the moment the kill
// starts. The pieces Plan is built from are exported too:
//
//   - [ContainerGracePeriod]: setTerminationGracePeriod, the grace of one
//     container from the pod's deletion grace, its terminationGracePeriodSeconds
//     and the probe-level value when a probe failure kills it;
//   - [StopTimeout]: the arithmetic of killContainer (override, preStop and
//     ordering deductions, the 2 s minimum);
//   - [NewOrdering]: newTerminationOrdering, who waits for whom;
//   - [EffectiveGracePeriod]: the pod worker's calculateEffectiveGracePeriod;
//   - [EvictionGracePeriod]: the override the eviction manager asks for;
//   - [CanBeDeleted]: the status manager's canBeDeleted;
//   - [UpdatePod] and the Complete* functions: the pod worker's state machine.
//
// No gate of v1.37.2 changes any of these decisions (the probe-level grace
// gate graduated and was removed); the functions still take a [features.Set],
// like every decision in kubeletlogic, so that a later version that adds one
// does not change their signatures.
//
// # Where the kubelet measures time
//
// The kubelet measures how long a preStop hook ran and how long a sidecar
// waited for its turn with the wall clock and deducts whole seconds
// (truncated) from the grace period. Plan does the same arithmetic on virtual
// durations. One consequence, checked by this package's property tests: a
// container can be stopped up to (but not including) 3 s after its grace
// period, not 2 s, when a preStop hook ends just short of a whole second and
// the sidecar ordering then uses up the rest (grace 5 s, preStop 4.9 s: the
// hook counts as 4 s, the wait as 1 s, and StopContainer still gets the 2 s
// minimum at 5.9 s).
package termination
