package termination

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// MirrorPodAnnotation marks a mirror pod (kubetypes.ConfigMirrorAnnotationKey).
const MirrorPodAnnotation = "kubernetes.io/config.mirror"

// apiVerdict is the outcome of canBeDeleted's checks of the API object.
type apiVerdict int

const (
	apiOK apiVerdict = iota
	apiNoPod
	apiNotDeleted
	apiMirror
	apiNotTerminal
)

// apiCheck runs canBeDeleted's checks of the API object (steps 1 and 2)
// without building any text.
func apiCheck(pod *v1.Pod) apiVerdict {
	switch {
	case pod == nil:
		return apiNoPod
	case pod.DeletionTimestamp == nil:
		return apiNotDeleted
	}
	if _, mirror := pod.Annotations[MirrorPodAnnotation]; mirror {
		return apiMirror
	}
	if pod.Status.Phase != v1.PodSucceeded && pod.Status.Phase != v1.PodFailed {
		return apiNotTerminal
	}
	return apiOK
}

// apiBlocker returns why canBeDeleted's checks of the API object (steps 1
// and 2) say no, or "" when they pass.
func apiBlocker(pod *v1.Pod) string {
	switch apiCheck(pod) {
	case apiNoPod:
		return "no pod"
	case apiNotDeleted:
		return "the pod has no deletionTimestamp (nobody asked to delete it)"
	case apiMirror:
		return "a mirror pod: the kubelet never deletes it this way"
	case apiNotTerminal:
		if why, ok := notTerminal[pod.Status.Phase]; ok {
			return why
		}
		return notTerminalWhy(pod.Status.Phase)
	}
	return ""
}

func notTerminalWhy(p v1.PodPhase) string {
	return fmt.Sprintf("the API status phase is %q, not Succeeded or Failed: the kubelet has not written a terminal status yet", p)
}

// notTerminal holds apiBlocker's texts for the non-terminal phases of the
// API, built once so that CanBeDeleted allocates nothing for them.
var notTerminal = func() map[v1.PodPhase]string {
	m := map[v1.PodPhase]string{}
	for _, p := range []v1.PodPhase{"", v1.PodPending, v1.PodRunning, v1.PodUnknown} {
		m[p] = notTerminalWhy(p)
	}
	return m
}()

// notFinished holds CanBeDeleted's texts for a pod worker that has not
// finished, by its work type, built once so that CanBeDeleted allocates
// nothing for them.
var notFinished = func() map[WorkType]string {
	m := map[WorkType]string{}
	for _, w := range []WorkType{SyncPod, TerminatingPod, TerminatedPod} {
		m[w] = notFinishedWhy(w)
	}
	return m
}()

func notFinishedWhy(w WorkType) string {
	return fmt.Sprintf("the pod worker is in %s, not finished (SyncTerminatedPod has not succeeded)", w)
}

// Deletion is CanBeDeleted's answer: whether the kubelet deletes the API
// object now, and why (or why not) in words.
type Deletion struct {
	Delete bool
	Why    string
}

func (d Deletion) String() string {
	if d.Delete {
		return "the kubelet deletes the pod now: " + d.Why
	}
	return "the kubelet does not delete the pod yet: " + d.Why
}

// CanBeDeleted answers "may the kubelet delete this pod's API object now?"
// It mirrors the status manager's canBeDeleted
// (pkg/kubelet/status/status_manager.go), which decides whether the kubelet
// now deletes pod from the API server (grace 0, with the pod's UID as
// precondition), from what a user holds: pod is the API object as the
// kubelet last saw it, st what the runtime reports (nil: nothing), w the pod
// worker's state (nil: unknown to the worker). The kubelet's podIsFinished
// flag, set only by TerminatePod at the end of SyncTerminatedPod
// (containers stopped, volumes unmounted, cgroup removed), is
// w.Finished:
//
//  1. no deletionTimestamp, or a mirror pod: no;
//  2. the phase in pod.Status (the API's, not the kubelet's local status) is
//     not Succeeded or Failed: no (deletion waits for a terminal phase);
//  3. otherwise yes when the worker has finished.
//
// Finalizers play no part: the kubelet sends its delete and the API server
// keeps the object until they are removed. A nil pod gives no. One check of
// the inputs is added: the kubelet reaches SyncTerminatedPod only after
// every container was stopped, so a runtime state with a running or
// created container contradicts a finished worker, and CanBeDeleted says
// no, naming the container (the kubelet, holding only its flag, cannot
// see that; pass a nil st to take the flag at its word).
//
// The kubelet's steps to get there, for a pod deleted with grace: UpdatePod
// with a kill update (the worker starts terminating), Plan the kill,
// Complete with the SyncTerminatingPod result (terminated), Complete with
// the SyncTerminatedPod result (finished); the API status must by then
// carry a terminal phase, which the kubelet writes in SyncTerminatingPod.
func CanBeDeleted(pod *v1.Pod, st *runtimestate.Pod, w *WorkerState) Deletion {
	if why := apiBlocker(pod); why != "" {
		return Deletion{Why: why}
	}
	// A worker that has not finished says why in its own words (it is
	// still terminating, say), whatever the runtime runs.
	if w != nil && !w.Finished {
		return Deletion{Why: notFinished[w.WorkType()]}
	}
	// The input check: a container still running or created contradicts
	// a finished worker; for an unknown one (nil) it is the plainer reason.
	if st != nil {
		for _, c := range st.Containers {
			if c.State == runtimestate.Running || c.State == runtimestate.Created {
				return Deletion{Why: fmt.Sprintf("container %s (%s) is still %s: the pod worker cannot have finished", c.Name, c.ID, c.State)}
			}
		}
	}
	if w == nil {
		return Deletion{Why: "the pod worker does not know the pod, so it never finished it"}
	}
	return Deletion{Delete: true, Why: "deletionTimestamp set, terminal phase, pod worker finished"}
}
