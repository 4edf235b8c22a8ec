// Package kubectlstatus computes the STATUS column that `kubectl get pods`
// shows for a pod ([Compute]), and the READY and RESTARTS columns beside it
// ([Ready], [Restarts]; [Columns] gives the whole row).
//
// Since kubectl asks the API server for a table, the string comes from the
// server-side pod printer: printPod in
// pkg/printers/internalversion/printers.go of Kubernetes v1.37.2. It is
// not a pod phase: CrashLoopBackOff, Init:0/2, Init:CrashLoopBackOff,
// PodInitializing, ContainerCreating, Terminating, Completed, Error,
// NotReady, SchedulingGated and Evicted are all STATUS strings computed
// from .status (and the deletionTimestamp and init containers of the
// object).
package kubectlstatus

import (
	"strconv"

	v1 "k8s.io/api/core/v1"
)

// NodeLost is the pod reason the node lifecycle controller sets on pods of
// an unreachable node (pkg/util/node NodeUnreachablePodReason); with a
// deletionTimestamp such a pod shows Unknown.
const NodeLost = "NodeLost"

// Compute returns the STATUS cell of pod. It mirrors printPod in
// pkg/printers/internalversion/printers.go (v1.37.2), which the API
// server runs on the internal pod type; Compute reads the same fields of
// the v1 type. In the printer's order:
//
//  1. the phase, replaced by status.reason when set, replaced by
//     SchedulingGated when a PodScheduled condition has that reason;
//  2. every init container status, in list order: one that terminated
//     with exit code 0, and a native sidecar that has started, are
//     skipped; otherwise the status sets "Init:<reason>" from a
//     terminated state (or Init:Signal:N, Init:ExitCode:N when it has no
//     reason), "Init:<reason>" from a waiting reason other than
//     PodInitializing, or "Init:<i>/<number of init containers>", i being
//     the index in the status list. The first such status decides;
//  3. unless some init container status set the cell in step 2 and the
//     Initialized condition is not True, the container statuses from the
//     last to the first: a waiting reason, or a terminated reason
//     (Signal:N, ExitCode:N), sets the cell; a ready running container
//     counts as running. When the cell ends up Completed, it reads Running
//     if a container runs and the pod's Ready condition is True, else the
//     reason of a container that terminated with a non-zero code, else
//     NotReady if a container runs;
//  4. a pod with a deletionTimestamp shows Unknown when its reason is
//     NodeLost, and Terminating when its phase is not Succeeded or
//     Failed.
//
// A nil pod gives "".
func Compute(pod *v1.Pod) string {
	if pod == nil {
		return ""
	}
	phase := pod.Status.Phase
	reason := string(phase)
	if pod.Status.Reason != "" {
		reason = pod.Status.Reason
	}
	for i := range pod.Status.Conditions {
		if c := &pod.Status.Conditions[i]; c.Type == v1.PodScheduled && c.Reason == v1.PodReasonSchedulingGated {
			reason = v1.PodReasonSchedulingGated
		}
	}

	initializing := false
	for i := range pod.Status.InitContainerStatuses {
		s := &pod.Status.InitContainerStatuses[i]
		switch {
		case s.State.Terminated != nil && s.State.Terminated.ExitCode == 0:
			continue
		case lastIsSidecar(pod.Spec.InitContainers, s.Name) && s.Started != nil && *s.Started:
			continue
		case s.State.Terminated != nil:
			t := s.State.Terminated
			switch {
			case t.Reason != "":
				reason = "Init:" + t.Reason
			case t.Signal != 0:
				reason = "Init:Signal:" + strconv.Itoa(int(t.Signal))
			default:
				reason = "Init:ExitCode:" + strconv.Itoa(int(t.ExitCode))
			}
		case s.State.Waiting != nil && s.State.Waiting.Reason != "" && s.State.Waiting.Reason != "PodInitializing":
			reason = "Init:" + s.State.Waiting.Reason
		default:
			reason = "Init:" + strconv.Itoa(i) + "/" + strconv.Itoa(len(pod.Spec.InitContainers))
		}
		initializing = true
		break
	}

	if !initializing || conditionTrue(pod.Status.Conditions, v1.PodInitialized, true) {
		hasRunning := false
		errorReason := ""
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			s := &pod.Status.ContainerStatuses[i]
			switch {
			case s.State.Waiting != nil && s.State.Waiting.Reason != "":
				reason = s.State.Waiting.Reason
			case s.State.Terminated != nil:
				t := s.State.Terminated
				switch {
				case t.Reason != "":
					reason = t.Reason
				case t.Signal != 0:
					reason = "Signal:" + strconv.Itoa(int(t.Signal))
				default:
					reason = "ExitCode:" + strconv.Itoa(int(t.ExitCode))
				}
				if t.ExitCode != 0 {
					errorReason = reason
				}
			case s.Ready && s.State.Running != nil:
				hasRunning = true
			}
		}
		if reason == "Completed" {
			switch {
			case hasRunning && conditionTrue(pod.Status.Conditions, v1.PodReady, false):
				reason = "Running"
			case errorReason != "":
				reason = errorReason
			case hasRunning:
				reason = "NotReady"
			}
		}
	}

	if pod.DeletionTimestamp != nil && pod.Status.Reason == NodeLost {
		reason = "Unknown"
	} else if pod.DeletionTimestamp != nil && phase != v1.PodSucceeded && phase != v1.PodFailed {
		reason = "Terminating"
	}
	return reason
}

// conditionTrue reports whether conds hold a condition of type typ with
// status True. With firstOnly, only the first condition of that type
// counts (the printer's isPodInitializedConditionTrue); otherwise any
// (hasPodReadyCondition).
func conditionTrue(conds []v1.PodCondition, typ v1.PodConditionType, firstOnly bool) bool {
	for i := range conds {
		c := &conds[i]
		if c.Type != typ {
			continue
		}
		if c.Status == v1.ConditionTrue {
			return true
		}
		if firstOnly {
			return false
		}
	}
	return false
}

// lastIsSidecar reports whether the last of inits named name is a native
// sidecar (restartPolicy Always): the printer's map of the init containers
// by name keeps the last. Scanning the few init containers is cheaper than
// building that map on every call.
func lastIsSidecar(inits []v1.Container, name string) bool {
	for i := len(inits) - 1; i >= 0; i-- {
		if inits[i].Name == name {
			return inits[i].RestartPolicy != nil && *inits[i].RestartPolicy == v1.ContainerRestartPolicyAlways
		}
	}
	return false
}

// anySidecar reports whether some of inits named name is a native sidecar
// (the printer's set of sidecar names, for READY and RESTARTS).
func anySidecar(inits []v1.Container, name string) bool {
	for i := range inits {
		if inits[i].Name == name && inits[i].RestartPolicy != nil && *inits[i].RestartPolicy == v1.ContainerRestartPolicyAlways {
			return true
		}
	}
	return false
}
