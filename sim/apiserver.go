package sim

import (
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/sim/internal/engine"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// ---- the API server's side of a pod's deletion ----
//
// What the API server does with a DELETE of a pod and with the last
// finalizer's removal, before the kubelet hears of it (paths under
// k8s.io/kubernetes/): pkg/registry/core/pod/strategy.go
// CheckGracefulDelete, staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go
// BeforeDelete, and the generic store's Delete and Update
// (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go:
// updateForGracefulDeletionAndFinalizers, ShouldDeleteDuringUpdate).

// APIDeleteGrace is the grace period in seconds the API server gives the
// first DELETE of a pod (strategy.go CheckGracefulDelete): the requested
// one (requested < 0: none given, the pod's terminationGracePeriodSeconds,
// 30 s when unset), but 0 for a pod never scheduled (no spec.nodeName) and
// for a pod whose API status is already Succeeded or Failed, which are
// deleted at once; a negative grace becomes 1. A simulated pod is always
// scheduled to the simulated node (the kubelet only receives bound pods),
// whatever its spec.nodeName says.
func APIDeleteGrace(pod *v1.Pod, apiPhase v1.PodPhase, requested int64) int64 {
	grace := requested
	if requested < 0 {
		grace = 30
		if pod.Spec.TerminationGracePeriodSeconds != nil {
			grace = *pod.Spec.TerminationGracePeriodSeconds
		}
	}
	if pod.Spec.NodeName == "" {
		grace = 0
	}
	if apiPhase == v1.PodSucceeded || apiPhase == v1.PodFailed {
		grace = 0
	}
	if grace < 0 {
		grace = 1
	}
	return grace
}

// apiDelete is a DELETE of the pod with the requested grace (-1: none
// given). A static pod has no API object: its manifest is removed.
func (p *podSim) apiDelete(requested int64) {
	if p.static || p.apiGone {
		p.remove()
		return
	}
	if dg := p.pod.DeletionGracePeriodSeconds; p.pod.DeletionTimestamp != nil {
		// BeforeDelete: an object already being deleted. With a grace of 0
		// (or none) recorded, the store deletes it now unless finalizers
		// hold it; otherwise only a shorter grace changes it.
		if dg == nil || *dg == 0 {
			if !p.finalizers {
				p.remove()
			}
			return
		}
		if requested < 0 || requested >= *dg {
			return // graceful deletion pending: nothing changes
		}
		start := p.pod.DeletionTimestamp.Add(-time.Duration(*dg) * time.Second)
		ts := start.Add(time.Duration(requested) * time.Second)
		if ts.Before(p.loop.Now) {
			// Never into the past: now, and a grace other than 0 becomes 1.
			ts = p.loop.Now.Truncate(time.Second)
			if requested != 0 {
				requested = 1
			}
		}
		p.setDeletion(metav1.NewTime(ts), requested, false)
		return
	}
	phase := v1.PodPending
	if p.api != nil {
		phase = p.api.Phase
	}
	// The simulated pod is bound to the node: read it as scheduled.
	view := *p.pod
	if view.Spec.NodeName == "" {
		view.Spec.NodeName = "node"
	}
	grace := APIDeleteGrace(&view, phase, requested)
	p.setDeletion(metav1.NewTime(p.loop.Now.Add(time.Duration(grace)*time.Second).Truncate(time.Second)), grace, true)
}

// setDeletion records the object's deletion timestamp and grace, as the
// store's updateForGracefulDeletionAndFinalizers does: with a grace of 0
// and no finalizer the object is deleted at once (the kubelet sees a
// REMOVE); otherwise the kubelet sees the update.
func (p *podSim) setDeletion(ts metav1.Time, grace int64, first bool) {
	if grace == 0 && !p.finalizers {
		p.remove()
		return
	}
	// A shallow copy: the spec, metadata and status are never changed
	// in place, only replaced (see writeAPI).
	pod := new(v1.Pod)
	*pod = *p.pod
	pod.DeletionTimestamp = &ts
	pod.DeletionGracePeriodSeconds = &grace
	if first {
		pod.Generation++
	}
	p.pod = pod
	p.update(termination.Update{Type: termination.UpdateUpdate, Pod: p.pod})
	// The status manager's full sweep (every 10 s) deletes a pod the
	// kubelet had already finished with (status_manager.go syncBatch,
	// needsUpdate).
	p.at(engine.NextAfter(p.node.clocks.StatusSync, 10*time.Second, p.loop.Now), p.maybeDelete)
}

// apiRemoveFinalizers clears the object's finalizers. The store deletes an
// object being deleted whose grace is 0 once no finalizer is left
// (ShouldDeleteDuringUpdate); the kubelet's own delete (grace 0) comes
// only after TerminatePod.
func (p *podSim) apiRemoveFinalizers() {
	p.finalizers = false
	if p.pod.DeletionTimestamp == nil {
		return
	}
	if dg := p.pod.DeletionGracePeriodSeconds; p.mem.Finished || (dg != nil && *dg == 0) {
		p.gone()
	}
}

// afterTerminating is the status manager's sync of the status
// SyncTerminatingPod stored last. The kubelet's status manager syncs on its
// own goroutine once notified (status_manager.go syncBatch, syncPod): it
// reads the API object, then merges with PodCouldHaveRunningContainers
// (mergePodStatus); by then the pod worker has completed the terminating
// work (pod_workers.go completeTerminating, right after the sync returns),
// so the terminal phase reaches the API object when the sync returns, well
// before SyncTerminatedPod's TerminatePod lets the kubelet delete it.
// Until then the write waits (terminatingInFlight); a sync that failed (a
// container still runs) writes with the phase held back.
func (p *podSim) afterTerminating() {
	p.writeAPI()
}

// terminatingInFlight: SyncTerminatingPod is running; a terminal status it
// stores reaches the API when it returns.
func (p *podSim) terminatingInFlight() bool {
	return p.busy && p.mem.Worker != nil && p.mem.Worker.WorkType() == termination.TerminatingPod
}
