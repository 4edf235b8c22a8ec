package phase

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/internal/names"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// ReasonRestartingAllContainers is the reason the kubelet gives a container
// it stopped for a RestartAllContainers reset; getPhase treats a container
// terminated with it as one that restarts.
const ReasonRestartingAllContainers = "RestartingAllContainers"

// Options are the inputs of Compute besides the pod and its statuses.
type Options struct {
	// Features are the kubelet's gates. Compute reads
	// ContainerRestartRules and RestartAllContainersOnContainerExits.
	// The zero value is kubelet v1.37.2's defaults (features.V1_37).
	Features features.Set
	// PodIsTerminal is the kubelet's podIsTerminal: true when the pod
	// worker has decided the pod will not run again (SyncTerminatingPod
	// after the kill, SyncTerminatedPod). Then stopped containers give
	// Succeeded or Failed whatever the restart policy (static pods
	// excepted).
	PodIsTerminal bool
	// PodHasInitialized is the kubelet's podHasInitialized: whether any
	// regular container has an instance in the active sandbox (see
	// HasAnyActiveRegularContainerStarted). A sidecar that is not started
	// keeps such a pod out of Pending.
	PodHasInitialized bool
}

// Counts are getPhase's counters, as the kubelet computes them.
type Counts struct {
	// Regular init containers: with no status, running, waiting without a
	// previous termination, or without any state.
	PendingInit int
	// Regular init containers whose current (or, while waiting, last)
	// termination has a non-zero exit code.
	FailedInit int
	// Those of FailedInit that will not restart (read only with
	// ContainerRestartRules).
	FailedInitNotRestartable int
	// Sidecars that are running but not started, waiting without a previous
	// termination, or without any state.
	PendingSidecars int
	// Sidecars and regular containers that run.
	Running int
	// Sidecars and regular containers waiting without a previous
	// termination.
	Waiting int
	// Regular containers terminated, or waiting after a termination.
	Stopped int
	// Those of Stopped that will not restart (counted only with
	// ContainerRestartRules).
	StoppedNotRestartable int
	// Regular containers terminated with exit code 0 (a waiting container
	// never counts, whatever its last termination).
	Succeeded int
	// Sidecars and regular containers with no status, or without any state.
	Unknown int
}

// Result is the phase getPhase returns, the branch that decided it, and
// the counters the branch read.
type Result struct {
	Phase v1.PodPhase
	// Why names the branch of getPhase that returned Phase.
	Why    string
	Counts Counts
}

// String renders r on one line: the phase, the branch, and the counts
// that are not zero.
func (r Result) String() string {
	if c := r.Counts.String(); c != "" {
		return fmt.Sprintf("%s (%s; counted %s)", r.Phase, r.Why, c)
	}
	return fmt.Sprintf("%s (%s)", r.Phase, r.Why)
}

// String lists the counts that are not zero, in words ("1 running, 1
// sidecar pending"); "" when all are zero. A sidecar counts as pending from
// the Started value getPhase reads, the one carried over from the previous
// status, so it may differ from the Started the kubelet then writes.
func (c Counts) String() string {
	var parts []string
	add := func(n int, what string) {
		if n != 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(c.PendingInit, "init pending")
	add(c.FailedInit, "init failed")
	add(c.FailedInitNotRestartable, "init failed for good")
	add(c.PendingSidecars, "sidecar pending (not started in the previous status)")
	add(c.Running, "running")
	add(c.Waiting, "waiting")
	add(c.Stopped, "stopped")
	add(c.StoppedNotRestartable, "stopped for good")
	add(c.Succeeded, "succeeded")
	add(c.Unknown, "unknown")
	return strings.Join(parts, ", ")
}

// Compute returns the phase the kubelet computes for pod from the API
// container statuses in status. It mirrors getPhase in
// pkg/kubelet/kubelet_pods.go of v1.37.2.
//
// Only status.ContainerStatuses and status.InitContainerStatuses are read,
// and a container's status is the first one with its name in the regular
// list, then in the init list: the kubelet passes them to getPhase in that
// order (generateAPIPodStatus). Pass the statuses as the kubelet generates
// them, before the probe manager sets Ready and Started: getPhase reads
// Started of sidecars, which at that point is the value carried over from
// the previous status.
//
// The checks, in the kubelet's order: a regular init container that failed
// and will not restart fails the pod (with ContainerRestartRules; without
// it, any failed init container under restartPolicy Never); a pending
// regular init container, a pending sidecar before the pod has initialized,
// or a waiting container gives Pending; a running container and none
// unknown gives Running; all regular containers stopped and none unknown
// gives Succeeded or Failed for a terminal (non-static) pod, and otherwise
// what the restart policy and rules make of it; anything else is Pending.
//
// A nil pod reads as an empty pod (Pending); a nil status as one with no
// container statuses.
func Compute(pod *v1.Pod, status *v1.PodStatus, opts Options) Result {
	if pod == nil {
		pod = &v1.Pod{}
	}
	// The kubelet appends the init statuses to the regular ones and
	// searches the result; lookup searches the two lists in that order
	// instead of copying them.
	var info statusLists
	if status != nil {
		info = statusLists{status.ContainerStatuses, status.InitContainerStatuses}
	}
	f := opts.Features
	// The gates getPhase reads, looked up once.
	rules := f.Enabled(features.ContainerRestartRules)
	restartAll := f.Enabled(features.RestartAllContainersOnContainerExits)
	spec := &pod.Spec
	var n Counts

	// restartable mirrors getPhase's test of whether a container that
	// exited with code and reason will run again.
	restartable := func(c *v1.Container, t *v1.ContainerStateTerminated) bool {
		r := restart.ContainerShouldRestart(c, spec, t.ExitCode, f)
		if restartAll {
			r = r || t.Reason == ReasonRestartingAllContainers
		}
		return r
	}

	// Init containers, in one walk: regular init containers and sidecars
	// feed different counters, so the kubelet's two loops over the list
	// (regular init containers first, then sidecars) count the same as
	// one.
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		cs := info.lookup(c.Name)
		if restart.IsSidecar(c) {
			if cs == nil {
				n.Unknown++
				continue
			}
			switch {
			case cs.State.Running != nil:
				if cs.Started == nil || !*cs.Started {
					n.PendingSidecars++
				}
				n.Running++
			case cs.State.Terminated != nil:
				// A stopped sidecar does not count.
			case cs.State.Waiting != nil:
				if cs.LastTerminationState.Terminated == nil {
					n.PendingSidecars++
					n.Waiting++
				}
			default:
				n.PendingSidecars++
				n.Unknown++
			}
			continue
		}
		if cs == nil {
			n.PendingInit++
			continue
		}
		switch {
		case cs.State.Running != nil:
			n.PendingInit++
		case cs.State.Terminated != nil:
			if cs.State.Terminated.ExitCode != 0 {
				n.FailedInit++
				if rules && !restartable(c, cs.State.Terminated) {
					n.FailedInitNotRestartable++
				}
			}
		case cs.State.Waiting != nil:
			if last := cs.LastTerminationState.Terminated; last != nil {
				if last.ExitCode != 0 {
					n.FailedInit++
					// The kubelet counts this one whatever
					// ContainerRestartRules; it reads the count only with
					// the gate on.
					if !restartable(c, last) {
						n.FailedInitNotRestartable++
					}
				}
			} else {
				n.PendingInit++
			}
		default:
			n.PendingInit++
		}
	}

	// Regular containers.
	for i := range spec.Containers {
		c := &spec.Containers[i]
		cs := info.lookup(c.Name)
		if cs == nil {
			n.Unknown++
			continue
		}
		switch {
		case cs.State.Running != nil:
			n.Running++
		case cs.State.Terminated != nil:
			n.Stopped++
			if rules && !restartable(c, cs.State.Terminated) {
				n.StoppedNotRestartable++
			}
			if cs.State.Terminated.ExitCode == 0 {
				n.Succeeded++
			}
		case cs.State.Waiting != nil:
			if last := cs.LastTerminationState.Terminated; last != nil {
				n.Stopped++
				if rules && !restartable(c, last) {
					n.StoppedNotRestartable++
				}
			} else {
				n.Waiting++
			}
		default:
			n.Unknown++
		}
	}

	res := func(p v1.PodPhase, why string) Result { return Result{Phase: p, Why: why, Counts: n} }

	if rules {
		if n.FailedInitNotRestartable > 0 {
			return res(v1.PodFailed, "an init container failed and will not restart")
		}
	} else if n.FailedInit > 0 && spec.RestartPolicy == v1.RestartPolicyNever {
		return res(v1.PodFailed, "an init container failed and restartPolicy is Never")
	}

	switch {
	case n.PendingInit > 0:
		return res(v1.PodPending, "an init container has not completed")
	case n.PendingSidecars > 0 && !opts.PodHasInitialized:
		return res(v1.PodPending, "a sidecar has not started and the pod has not initialized")
	case n.Waiting > 0:
		return res(v1.PodPending, "a container is waiting to start")
	case n.Running > 0 && n.Unknown == 0:
		return res(v1.PodRunning, "a container is running and none is unknown")
	case n.Running == 0 && n.Stopped > 0 && n.Unknown == 0:
		if opts.PodIsTerminal && !IsStaticPod(pod) {
			if n.Stopped == n.Succeeded {
				return res(v1.PodSucceeded, "the pod is terminal and every container succeeded")
			}
			return res(v1.PodFailed, "the pod is terminal and a container failed")
		}
		if rules {
			if n.Stopped != n.StoppedNotRestartable {
				return res(v1.PodRunning, "every container stopped and one will restart")
			}
			if n.Stopped == n.Succeeded {
				return res(v1.PodSucceeded, "every container succeeded and none will restart")
			}
			return res(v1.PodFailed, "every container stopped, one failed, and none will restart")
		}
		if spec.RestartPolicy == v1.RestartPolicyAlways {
			return res(v1.PodRunning, "every container stopped and restartPolicy is Always")
		}
		if n.Stopped == n.Succeeded {
			return res(v1.PodSucceeded, "every container succeeded")
		}
		if spec.RestartPolicy == v1.RestartPolicyNever {
			return res(v1.PodFailed, "every container stopped, one failed, and restartPolicy is Never")
		}
		return res(v1.PodRunning, "a container failed and restartPolicy is OnFailure")
	default:
		return res(v1.PodPending, "no container is running, or one is unknown")
	}
}

// HasAnyActiveRegularContainerStarted reports whether the active sandbox of
// st holds an instance, in any state, of a regular container of pod. It
// mirrors HasAnyActiveRegularContainerStarted in
// pkg/kubelet/container/helpers.go, the podHasInitialized the kubelet passes
// to getPhase. A nil pod or st gives false. It reads the runtime state;
// conditions.HasAnyRegularContainerStarted is the kubelet's other helper,
// over API container statuses (running or terminated).
func HasAnyActiveRegularContainerStarted(pod *v1.Pod, st *runtimestate.Pod) bool {
	if pod == nil || st == nil {
		return false
	}
	sb := st.ActiveSandbox()
	if sb == nil {
		return false
	}
	for i := range st.Containers {
		if c := &st.Containers[i]; c.SandboxID == sb.ID && isRegular(&pod.Spec, c.Name) {
			return true
		}
	}
	return false
}

func isRegular(spec *v1.PodSpec, name string) bool {
	for i := range spec.Containers {
		if names.Equal(spec.Containers[i].Name, name) {
			return true
		}
	}
	return false
}

// AnnotationConfigSource is the annotation that names where the kubelet got
// a pod from; "api" is the API server.
const AnnotationConfigSource = "kubernetes.io/config.source"

// IsStaticPod reports whether the kubelet got pod from a file or URL rather
// than the API server: it mirrors IsStaticPod in
// pkg/kubelet/types/pod_update.go (the config.source annotation is present
// and is not "api"). A nil pod gives false.
func IsStaticPod(pod *v1.Pod) bool {
	if pod == nil {
		return false
	}
	src, ok := pod.Annotations[AnnotationConfigSource]
	return ok && src != "api"
}

// statusLists are the regular then the init container statuses, searched
// in that order.
type statusLists [2][]v1.ContainerStatus

func (l statusLists) lookup(name string) *v1.ContainerStatus {
	return names.Lookup(l[0], l[1], name)
}
