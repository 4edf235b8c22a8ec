package sim

import (
	"strconv"

	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/termination"
	v1 "k8s.io/api/core/v1"
)

// ---- the status manager ----

func (p *podSim) stored(st v1.PodStatus, by string, gen int64) { p.storedAt(&st, by, gen) }

// storedAt is stored for a status the caller never changes again (a sync
// output's): the cache points at it instead of a copy.
func (p *podSim) storedAt(st *v1.PodStatus, by string, gen int64) {
	final := by == "TerminatePod"
	if p.mem.Status != nil && equalStatus(*p.mem.Status, *st) && !final {
		return
	}
	p.mem.Status = st
	p.mem.Version++
	if final {
		p.mem.Finished = true
	}
	p.show(*st, by, gen)
	p.writeAPI()
	p.checkDeadline()
}

// show logs a status as kubectl would show it.
func (p *podSim) show(st v1.PodStatus, by string, gen int64) {
	e := p.log(KindStatus, p.loop.Now, "")
	p.fillStatus(e, st)
	e.Status.By = by
	e.Status.Generation = gen
	e.Message = p.showLine(e.Status)
}

// showLine is the message of a status entry: STATUS, READY and the
// restart count. Statuses in a row often show the same, so the last line
// is kept and used again.
func (p *podSim) showLine(s *StatusEntry) string {
	l := &p.lastShowLine
	if l.msg == "" || l.column != s.Column || l.ready != s.Ready || l.restarts != s.Restarts {
		l.column, l.ready, l.restarts = s.Column, s.Ready, s.Restarts
		l.msg = s.Column + " " + s.Ready + " restarts " + strconv.FormatInt(int64(s.Restarts), 10)
	}
	return l.msg
}

// fillStatus attaches st, as kubectl shows it, to an entry.
func (p *podSim) fillStatus(e *Entry, st v1.PodStatus) {
	// kubectlstatus reads the pod; a shallow copy with the status is
	// enough. Stored statuses are never changed in place, so the entry
	// shares st.
	view := *p.pod
	view.Status = st
	restarts, last := kubectlstatus.RestartCount(&view)
	// RESTARTS depends on the count, the last restart and the time only
	// (kubectlstatus.Restarts): the status and API entries of a write
	// share it.
	rc := &p.restartsCell
	if !rc.valid || rc.n != restarts || rc.last != last || rc.now != p.loop.Now {
		rc.valid, rc.n, rc.last, rc.now = true, restarts, last, p.loop.Now
		rc.cell = kubectlstatus.Restarts(&view, p.loop.Now)
	}
	e.Status = p.newStatusEntry()
	*e.Status = StatusEntry{Ready: kubectlstatus.Ready(&view), Column: kubectlstatus.Compute(&view), Restarts: int32(restarts),
		RestartsColumn: rc.cell, Status: st, Generation: p.pod.Generation}
}

// writeAPI writes the cached status to the API object, holding back a
// terminal phase, with its reason and message, while containers may still
// run.
func (p *podSim) writeAPI() {
	if p.static || p.apiGone || p.mem.Status == nil {
		return
	}
	// A shallow copy: stored statuses are never changed in place (see
	// storeStatus), so the API status shares the cached one's lists; it
	// moves to the heap only when it is written. mergeAPIConditions
	// builds a new condition list rather than changing the shared one.
	view := *p.mem.Status
	p.mergeAPIConditions(&view)
	if (view.Phase == v1.PodSucceeded || view.Phase == v1.PodFailed) && p.api != nil && p.api.Phase != view.Phase {
		q := termination.Query(p.mem.Worker, true, p.node.cfg.Kubelet.Features)
		if q.CouldHaveRunningContainers && !p.mem.Finished {
			if p.terminatingInFlight() {
				return // written when the sync returns (afterTerminating)
			}
			// mergePodStatus keeps the API's reason and message with
			// its phase.
			view.Phase, view.Reason, view.Message = p.api.Phase, p.api.Reason, p.api.Message
		}
	}
	if p.api != nil && equalStatus(*p.api, view) {
		p.maybeDelete()
		return
	}
	// The kubelet's pod manager sees the written status through its watch.
	// (The spec and metadata are never changed in place, only replaced.)
	// The API status is the new pod's: neither is changed in place.
	pod := new(v1.Pod)
	*pod = *p.pod
	pod.Status = view
	p.pod = pod
	st := &pod.Status
	p.api = st
	e := p.log(KindAPI, p.loop.Now, statusWritten(st.Phase))
	e.API = APIStatus
	p.fillStatus(e, *st)
	p.maybeDelete()
}

// statusWritten is the message of an API status write: the phases' are
// constants, so a write allocates no message.
func statusWritten(ph v1.PodPhase) string {
	switch ph {
	case v1.PodPending:
		return "status written: phase Pending"
	case v1.PodRunning:
		return "status written: phase Running"
	case v1.PodSucceeded:
		return "status written: phase Succeeded"
	case v1.PodFailed:
		return "status written: phase Failed"
	}
	return "status written: phase " + string(ph)
}

// maybeDelete is the status manager's final delete (canBeDeleted).
func (p *podSim) maybeDelete() {
	if p.static || p.apiGone || p.pod.DeletionTimestamp == nil || p.api == nil {
		return
	}
	// CanBeDeleted only reads the pod: a shallow copy is enough.
	view := *p.pod
	view.Status = *p.api
	if !termination.CanBeDeleted(&view, nil, &termination.WorkerState{Finished: p.mem.Finished}).Delete {
		return
	}
	if p.finalizers {
		if p.lastShown != "deleted" {
			p.lastShown = "deleted"
			p.log(KindAPI, p.loop.Now, "kubelet deleted the API object (grace 0); finalizers hold it").API = APIDeleteHeld
		}
		return
	}
	p.log(KindAPI, p.loop.Now, "kubelet deleted the API object (grace 0)").API = APIDeleted
	p.gone()
}
