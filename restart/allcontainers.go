package restart

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/internal/names"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// ShouldAllContainersRestart reports whether a RestartAllContainers rule
// has fired for pod. It mirrors ShouldAllContainersRestart in
// pkg/kubelet/container/helpers.go: true when prev (the pod status the
// kubelet last generated) holds the condition AllContainersRestarting=True,
// which keeps the reset going once it started; otherwise when, for some
// init or regular container in spec order, the newest runtime instance
// exited with a code that matches a rule with action RestartAllContainers,
// or that instance exited with another code and the container's status in
// prev is terminated with a matching code. A container with no instance, or
// whose newest instance has not exited, is skipped without looking at prev
// (prev alone counts only when st is nil). It does not look at the feature
// gate, nor at the container's restartPolicy.
//
// A nil pod gives false; a nil prev contributes nothing.
func ShouldAllContainersRestart(pod *v1.Pod, st *runtimestate.Pod, prev *v1.PodStatus) bool {
	if pod == nil {
		return false
	}
	if prev != nil {
		for i := range prev.Conditions {
			if c := &prev.Conditions[i]; c.Type == v1.AllContainersRestarting && c.Status == v1.ConditionTrue {
				return true
			}
		}
	}
	firesOn := func(c *v1.Container, code int32) bool {
		rule, ok := MatchRule(c, code)
		return ok && rule.Action == v1.ContainerRestartRuleActionRestartAllContainers
	}
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			c := &list[i]
			if len(c.RestartPolicyRules) == 0 {
				// No rule can fire: neither the newest instance nor the
				// previous status can make the container count.
				continue
			}
			if st != nil {
				// The previous status is consulted only for a container
				// whose newest instance exited without firing a rule.
				n := st.Newest(c.Name)
				if n == nil || n.State != runtimestate.Exited {
					continue
				}
				if firesOn(c, int32(n.ExitCode)) {
					return true
				}
			}
			if s := lastStatus(prev, c.Name); s != nil && s.State.Terminated != nil && firesOn(c, s.State.Terminated.ExitCode) {
				return true
			}
		}
	}
	return false
}

// lastStatus is the status named name that the kubelet's map of prev's
// init then regular statuses by name holds: the last one with that name.
// nil when there is none or prev is nil.
func lastStatus(prev *v1.PodStatus, name string) *v1.ContainerStatus {
	if prev == nil {
		return nil
	}
	for _, list := range [2][]v1.ContainerStatus{prev.ContainerStatuses, prev.InitContainerStatuses} {
		for i := len(list) - 1; i >= 0; i-- {
			if names.Equal(list[i].Name, name) {
				return &list[i]
			}
		}
	}
	return nil
}

// AllContainersRestartCleanedUp reports whether the runtime holds no
// instance of any init or regular container of pod, which is when a reset
// is complete. It mirrors AllContainersRestartCleanedUp in
// pkg/kubelet/container/helpers.go. A nil pod or st gives true.
func AllContainersRestartCleanedUp(pod *v1.Pod, st *runtimestate.Pod) bool {
	if pod == nil {
		return true
	}
	if st == nil {
		return true
	}
	// One walk over the instances: the runtime holds an instance of a
	// container of pod exactly when some instance has the name of an init
	// or regular container, whichever list is walked first.
	for i := range st.Containers {
		name := st.Containers[i].Name
		if names.ContainerIndex(pod.Spec.InitContainers, name) >= 0 || names.ContainerIndex(pod.Spec.Containers, name) >= 0 {
			return false
		}
	}
	return true
}

// RestartingAllContainers reports whether the kubelet's next sync of pod
// resets all its containers: whether Kubelet.SyncPod
// (pkg/kubelet/kubelet.go) passes restartAllContainers=true to the
// runtime's SyncPod, where computePodActions then lists every container
// instance to remove (ContainersToReset).
//
// The kubelet decides it through the pod status it generates at the start
// of the sync (generateAPIPodStatus in pkg/kubelet/kubelet_pods.go): with
// gate RestartAllContainersOnContainerExits on and a pod that has any
// RestartAllContainers rule (AllContainersCouldRestart), it adds the
// condition AllContainersRestarting, which is True (GenerateAllContainersRestartingCondition
// in pkg/kubelet/status/generate.go) unless phase is Succeeded or Failed,
// no rule fired (ShouldAllContainersRestart), or no container instance is
// left (AllContainersRestartCleanedUp). A terminal phase also makes
// SyncPod return before it reaches the runtime.
//
// prev is the status the kubelet generated last (its status cache); pass
// nil when it has none, and the kubelet then uses pod.Status. phase is the
// phase the kubelet computes in the same sync (see package phase).
//
// After a reset removed at least one container, the kubelet syncs the pod
// again at once; by then nothing is left, the condition turns False, and
// computePodActions starts the pod again from its first init container in
// the same sandbox.
func RestartingAllContainers(pod *v1.Pod, st *runtimestate.Pod, prev *v1.PodStatus, phase v1.PodPhase, f features.Set) bool {
	if pod == nil || !f.Enabled(features.RestartAllContainersOnContainerExits) || !AllContainersCouldRestart(&pod.Spec) {
		return false
	}
	if phase == v1.PodSucceeded || phase == v1.PodFailed {
		return false
	}
	if prev == nil {
		prev = &pod.Status
	}
	return ShouldAllContainersRestart(pod, st, prev) && !AllContainersRestartCleanedUp(pod, st)
}
