package podstatus

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
)

// CheckTransition reports whether the kubelet's status manager stores next
// in place of old for a pod with spec, and why not. It mirrors
// checkContainerStateTransition in pkg/kubelet/status/status_manager.go,
// which updateStatusInternal runs before every store (SetPodStatus after
// each sync, SetContainerReadiness, SetContainerStartup, TerminatePod),
// old being the status manager's cached status (the pod's own status
// before the first store). When it refuses, the kubelet logs "Status
// update on pod aborted" and keeps old: neither its cache nor the API
// shows next, and the next sync generates its status from old again.
//
// The rule: a container whose status in old is terminated may not be
// anything else in next, unless it may run again: always for a pod with
// restartPolicy Always (or none: the API's default) and for a native
// sidecar; after a non-zero exit code with restartPolicy OnFailure; with
// gate ContainerRestartRules, when its own restartPolicy and rules restart
// it after that exit code (restart.ContainerShouldRestart); with gate
// RestartAllContainersOnContainerExits, for every container of a pod where
// some container has a RestartAllContainers rule
// (restart.AllContainersCouldRestart). So a regular init container that
// completed (exit 0) in a pod with restartPolicy OnFailure or Never stays
// terminated in the stored status while a new sandbox runs it again, until
// the new run completes too.
//
// An init container status of old that is not the spec's init container at
// the same index is an error too (the kubelet's "found mismatch between pod
// spec and status"). A nil spec or old gives nil; a nil next reads as a
// status without container statuses.
func CheckTransition(spec *v1.PodSpec, old, next *v1.PodStatus, f features.Set) error {
	if spec == nil || old == nil {
		return nil
	}
	if next == nil {
		next = &v1.PodStatus{}
	}
	if podMayLeaveTerminated(spec, f) {
		return nil
	}
	for i := range old.ContainerStatuses {
		o := &old.ContainerStatuses[i]
		if o.State.Terminated == nil || mayLeaveTerminated(spec, spec.Containers, o.Name, o.State.Terminated.ExitCode, f) {
			continue
		}
		if n := notTerminated(next.ContainerStatuses, o.Name); n != nil {
			return fmt.Errorf("container %s exited %d under restartPolicy %s: a status where it is %s is refused (checkContainerStateTransition)",
				o.Name, o.State.Terminated.ExitCode, spec.RestartPolicy, stateName(n.State))
		}
	}
	for i := range old.InitContainerStatuses {
		o := &old.InitContainerStatuses[i]
		if i >= len(spec.InitContainers) || spec.InitContainers[i].Name != o.Name {
			return fmt.Errorf("init container status %d (%s) is not the spec's init container %d: every status is refused (checkContainerStateTransition)", i, o.Name, i)
		}
		if restart.IsSidecar(&spec.InitContainers[i]) {
			continue
		}
		if o.State.Terminated == nil || mayLeaveTerminated(spec, spec.InitContainers, o.Name, o.State.Terminated.ExitCode, f) {
			continue
		}
		if n := notTerminated(next.InitContainerStatuses, o.Name); n != nil {
			return fmt.Errorf("init container %s exited %d under restartPolicy %s: a status where it is %s is refused (checkContainerStateTransition)",
				o.Name, o.State.Terminated.ExitCode, spec.RestartPolicy, stateName(n.State))
		}
	}
	return nil
}

// podMayLeaveTerminated: every container of a pod with spec may leave the
// terminated state (restartPolicy Always, or a RestartAllContainers rule
// with its gate).
func podMayLeaveTerminated(spec *v1.PodSpec, f features.Set) bool {
	if spec.RestartPolicy == v1.RestartPolicyAlways || spec.RestartPolicy == "" {
		return true
	}
	return f.Enabled(features.RestartAllContainersOnContainerExits) && restart.AllContainersCouldRestart(spec)
}

// mayLeaveTerminated: a container named name of list (spec's init or
// regular containers) that exited with code may leave the terminated state
// in the stored status, the pod's policy aside.
func mayLeaveTerminated(spec *v1.PodSpec, list []v1.Container, name string, code int32, f features.Set) bool {
	if code != 0 && spec.RestartPolicy == v1.RestartPolicyOnFailure {
		return true
	}
	if !f.Enabled(features.ContainerRestartRules) {
		return false
	}
	for i := range list {
		if list[i].Name == name && restart.ContainerShouldRestart(&list[i], spec, code, f) {
			return true
		}
	}
	return false
}

// notTerminated returns the first status named name in l that is not
// terminated, or nil.
func notTerminated(l []v1.ContainerStatus, name string) *v1.ContainerStatus {
	for i := range l {
		if l[i].Name == name && l[i].State.Terminated == nil {
			return &l[i]
		}
	}
	return nil
}

func stateName(s v1.ContainerState) string {
	switch {
	case s.Running != nil:
		return "running"
	case s.Waiting != nil && s.Waiting.Reason != "":
		return "waiting (" + s.Waiting.Reason + ")"
	case s.Waiting != nil:
		return "waiting"
	}
	return "in no state"
}
