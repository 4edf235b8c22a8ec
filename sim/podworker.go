package sim

import (
	"time"

	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim/internal/engine"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// ---- the pod worker ----

func (p *podSim) update(u termination.Update) {
	f := p.node.cfg.Kubelet.Features
	if p.forgotten || p.down {
		return
	}
	u.Cached = p.cache
	r := termination.UpdatePod(p.mem.Worker, u, p.loop.Now, f)
	if r.State == nil {
		return
	}
	p.mem.Worker = r.State
	if r.GracePeriodOverride != nil {
		p.grace = *r.GracePeriodOverride
	}
	if r.Outcome != termination.Queued {
		return
	}
	p.pending = true
	p.tryRun()
}

// fresh is the pod worker's wait for a cache newer than its last sync: a
// relist of the pod after the sync ended (the on-demand one, or a global
// relist that started after it). When it is not fresh yet, the next global
// relist wakes the worker.
func (p *podSim) fresh() bool {
	if p.lastSyncEnd.IsZero() || p.cacheTime.After(p.lastSyncEnd) {
		return true
	}
	next := engine.NextAfter(p.node.clocks.Relist, p.node.clocks.RelistEvery, p.lastSyncEnd)
	if !next.After(p.loop.Now) {
		return true
	}
	p.scheduleRelist(next)
	return false
}

func (p *podSim) tryRun() {
	if p.busy || !p.pending || p.finished || !p.fresh() {
		return
	}
	p.pending = false
	p.busy = true
	if p.mem.Worker != nil && p.mem.Worker.WorkType() == termination.TerminatingPod {
		p.mem.Worker = termination.AcknowledgeTerminating(p.mem.Worker)
	}
	work := termination.SyncPod
	if p.mem.Worker != nil {
		work = p.mem.Worker.WorkType()
	}
	if work == termination.SyncPod && !p.probesAdded {
		p.addProbes()
	}
	// SyncPod waits for the pod's volumes to be mounted
	// (WaitForAttachAndMount) before it acts.
	if work == termination.SyncPod && !p.volumesMounted && hasMountedVolumes(&p.pod.Spec) {
		p.volumesMounted = true
	}
	var unmounted time.Time
	if work == termination.TerminatedPod && p.volumesMounted {
		unmounted = volumesUnmountedAt(p.node.clocks, p.mem.Worker.TerminatedAt)
	}
	if work == termination.TerminatingPod {
		p.stopProbes(false)
	}
	cache := p.cache
	if cache == nil {
		cache = &runtimestate.Pod{UID: p.pod.UID, Name: p.pod.Name, Namespace: p.pod.Namespace}
	}
	// The sync's memory is handed over: the worker takes the output's
	// as its own when the sync completes (finish).
	startResize := p.mem.Resize
	out := runSync(SyncInput{
		Pod:        p.allocatedPod(),
		Runtime:    cache,
		Now:        p.loop.Now,
		Memory:     p.mem,
		Kubelet:    p.node.cfg.Kubelet,
		Grace:      p.grace,
		Containers: p.rt.runs(),
		Delays:     p.syncDelays(),
		Logs:       p.rt.logMax(),
		Created:    p.created,
		Behaviours: p.script.Containers,
		Images:     p.script.Images,
		ImagePulls: p.pulls,
		Eviction:   p.eviction,

		VolumesUnmounted: unmounted,
	}, p.mem.handOver(), &p.statusMemo)
	p.syncs++
	p.log(KindSync, p.loop.Now, p.syncLine(work, out.Decision)).Work = work.String()
	// The sync's effects play out on the pod's loop: each call starts and
	// is done, statuses are stored, the sync completes.
	sp := p.freePlay
	if sp == nil {
		sp = &syncPlay{p: p}
		sp.fn = sp.play
		sp.steps, sp.logged = sp.stepBuf[:0], sp.loggedBuf[:0]
	}
	p.freePlay = nil
	sp.start, sp.out, sp.work, sp.gen, sp.resize = p.loop.Now, out, work, p.pod.Generation, startResize
	sp.fly = -1
	p.playing = sp
	// The steps are played one at a time (sp.arm): a call in flight can
	// then be lengthened, with what follows it (runtimeLedger).
	sp.steps, sp.next = sp.steps[:0], 0
	sp.logged = sp.logged[:0]
	for i := range out.Calls {
		sp.steps = append(sp.steps, playStep{arg: int64(i)*4 + playCallStarted, order: len(sp.steps)},
			playStep{arg: int64(i)*4 + playCallDone, order: len(sp.steps) + 1})
		sp.logged = append(sp.logged, nil)
	}
	for i := range out.Statuses {
		s := &out.Statuses[i]
		if s.At == 0 {
			p.storedAt(&s.Status, s.By, sp.gen)
			continue
		}
		sp.steps = append(sp.steps, playStep{arg: int64(i)*4 + playStatus, order: len(sp.steps)})
	}
	for _, m := range out.Messages {
		p.log(KindSync, p.loop.Now, oneLine(m))
	}
	if work == termination.SyncPod && p.readinessWorking() {
		// The status generation triggers readiness probes of started,
		// running containers that are not ready yet (a pod with no
		// readiness worker running has nothing to trigger: no event).
		if p.readinessTick == nil {
			p.readinessTick = p.triggerReadiness
		}
		p.at(p.loop.Now, p.readinessTick)
	}
	sp.steps = append(sp.steps, playStep{arg: playFinish, order: len(sp.steps)})
	sp.sortSteps()
	sp.arm()
}

// syncLine is the message of a sync's entry: the work, with the decision
// in one line. Most syncs repeat the last decision, so the last line is
// kept and used again.
func (p *podSim) syncLine(work termination.WorkType, decision string) string {
	if p.lastLine != "" && work == p.lastLineWork && decision == p.lastLineDecision {
		return p.lastLine
	}
	if m := &p.statusMemo; work == termination.SyncPod && m.lastLine != "" && decision == m.lastDecision {
		p.lastLine, p.lastLineWork, p.lastLineDecision = m.lastLine, work, decision
		return p.lastLine
	}
	msg := work.String()
	if decision != "" {
		msg += ": " + decision
	}
	p.lastLine, p.lastLineWork, p.lastLineDecision = oneLine(msg), work, decision
	return p.lastLine
}

// syncPlay is one sync's output playing out on the pod's loop; play(arg)
// is one step of it, scheduled through engine.Loop.AtCall without a
// closure per step.
type syncPlay struct {
	p     *podSim
	start time.Time
	out   SyncOutput
	work  termination.WorkType
	gen   int64 // the pod's generation when the sync ran
	fn    func(int64)
	// resize are the resize conditions when the sync started.
	resize ResizeConditions
	// steps are the sync's steps in the order they run, next the first
	// not run yet; only steps[next] is scheduled, with the token armed
	// (an event scheduled with another token does nothing).
	steps []playStep
	next  int
	token int64
	// fly is the index of the contended call in flight (-1: none), g0 the
	// runtime ledger's g when it started and applied how much of g's
	// growth since then sp has been shifted by (runtimeLedger).
	fly         int
	g0, applied time.Duration
	// logged are the calls' entries in the timeline, once started, so
	// that a call the runtime's contention lengthens while it runs is
	// shown as it returned (runtimeLedger).
	logged []*Call
	// stepBuf and loggedBuf are where steps and logged start: room for
	// the usual sync's, inside the syncPlay (made once per pod and played
	// on again) rather than lists grown through 1, 2, 4, 8.
	stepBuf   [8]playStep
	loggedBuf [4]*Call
}

// playStep is one step of a syncPlay: its argument of play, and its place
// in the output (calls, then statuses, then the finish), which orders the
// steps of one time.
type playStep struct {
	arg   int64
	order int
}

// at is when step st runs.
func (sp *syncPlay) at(st playStep) time.Time {
	if st.arg == playFinish {
		return sp.start.Add(sp.out.Duration)
	}
	i := st.arg / 4
	switch st.arg % 4 {
	case playCallStarted:
		return sp.start.Add(sp.out.Calls[i].At)
	case playCallDone:
		return sp.start.Add(sp.out.Calls[i].Done)
	}
	return sp.start.Add(sp.out.Statuses[i].At)
}

// sortSteps orders the steps by time, then by their place in the output.
func (sp *syncPlay) sortSteps() {
	st := sp.steps
	for i := 1; i < len(st); i++ {
		for j := i; j > 0; j-- {
			a, b := sp.at(st[j-1]), sp.at(st[j])
			if a.Before(b) || (a.Equal(b) && st[j-1].order < st[j].order) {
				break
			}
			st[j-1], st[j] = st[j], st[j-1]
		}
	}
}

// arm schedules the next step.
func (sp *syncPlay) arm() {
	if sp.next >= len(sp.steps) {
		return
	}
	sp.token++
	st := sp.steps[sp.next]
	sp.p.loop.AtCall(sp.at(st), sp.fn, sp.token)
}

// shift makes every step of the sync after t come d later: the call in
// flight at t returns later, and what follows it waits for it.
func (sp *syncPlay) shift(t time.Time, d time.Duration) {
	after := t.Sub(sp.start)
	for i := range sp.out.Calls {
		c := &sp.out.Calls[i]
		if c.At > after {
			c.At += d
		}
		if c.Done > after {
			c.Done += d
			if l := sp.logged[i]; l != nil {
				l.Done += d
			}
		}
	}
	for i := range sp.out.Statuses {
		if s := &sp.out.Statuses[i]; s.At > after {
			s.At += d
		}
	}
	if sp.out.Duration > after {
		sp.out.Duration += d
	}
	// The step scheduled keeps its event: when it comes, it finds its
	// step later and schedules it again (play), so that a sync shifted by
	// every call that starts while it runs has one event, not one per
	// shift.
}

// The steps of a syncPlay: the index of a call or status times 4 plus the
// kind, or playFinish.
const (
	playCallStarted = 0
	playCallDone    = 1
	playStatus      = 2
	playFinish      = -1
)

func (sp *syncPlay) play(token int64) {
	if token != sp.token || sp.next >= len(sp.steps) {
		return
	}
	if l := sp.p.node.ledger; l != nil {
		l.settle(sp)
	}
	if at := sp.at(sp.steps[sp.next]); at.After(sp.p.loop.Now) {
		sp.arm() // shifted since it was scheduled
		return
	}
	arg := sp.steps[sp.next].arg
	sp.next++
	sp.step(arg)
	if arg != playFinish {
		sp.arm()
	}
}

func (sp *syncPlay) step(arg int64) {
	if arg == playFinish {
		// Finishing is the sync's last step (every call and status
		// comes before its end): the next sync may play on sp again,
		// while finish reads its own copy of the output. The resize
		// conditions are the status manager's, shared with the
		// allocation manager: what the sync set stands unless the
		// allocation manager changed them while it ran.
		out, work := sp.out, sp.work
		if live := sp.p.mem.Resize; live.Pending != sp.resize.Pending || live.InProgress != sp.resize.InProgress {
			out.Memory.Resize = live
		}
		sp.out = SyncOutput{}
		sp.p.freePlay = sp
		sp.p.playing = nil
		sp.p.finish(out, work)
		// Nothing holds the played calls (entries have copies): the
		// next sync appends to their list.
		if calls := out.Calls; cap(calls) > 0 {
			clear(calls)
			sp.p.statusMemo.spareCalls = calls[:0]
		}
		if msgs := out.Messages; cap(msgs) > 0 {
			clear(msgs)
			sp.p.statusMemo.spareMessages = msgs[:0]
		}
		return
	}
	i := arg / 4
	switch arg % 4 {
	case playCallStarted:
		sp.logged[i] = sp.p.callStarted(sp.out.Calls[i], sp.start)
		if l := sp.p.node.ledger; l != nil {
			l.started(sp, int(i))
		}
	case playCallDone:
		if l := sp.p.node.ledger; l != nil && sp.fly == int(i) {
			l.done(sp)
		}
		sp.p.apply(sp.out.Calls[i], sp.start)
	case playStatus:
		s := &sp.out.Statuses[i]
		sp.p.storedAt(&s.Status, s.By, sp.gen)
	}
}

func (p *podSim) finish(out SyncOutput, work termination.WorkType) {
	f := p.node.cfg.Kubelet.Features
	p.busy = false
	p.lastSyncEnd = p.loop.Now
	live := p.mem
	p.mem = out.Memory
	p.mem.Probes = live.Probes
	p.mem.Status = live.Status
	p.mem.Version = live.Version
	// Updates and housekeeping may have changed the worker meanwhile.
	p.mem.Worker = live.Worker
	if work == termination.TerminatingPod {
		for id, r := range p.mem.Probes {
			r.Liveness, r.Startup = vocab.ProbeNoResult, vocab.ProbeNoResult
			p.mem.Probes[id] = r
		}
	}
	if p.rt.running() && work == termination.TerminatingPod {
		// A container still runs: SyncTerminatingPod fails and is retried.
		out.Result.Err = true
		out.Requeue = RequeueError
	}
	// The worker completes the work it ran (podWorkerLoop switches on
	// update.WorkType): a deletion that made it terminating meanwhile
	// waits for SyncTerminatingPod.
	if p.mem.Worker.WorkType() == work {
		runtimeOnly := p.mem.Worker != nil && p.mem.Worker.ObservedRuntime
		p.mem.Worker = termination.Complete(p.mem.Worker, out.Result, runtimeOnly, p.loop.Now, f)
		if runtimeOnly && p.mem.Worker == nil {
			p.forgotten = true
			p.log(KindSync, p.loop.Now, "the orphan's containers are stopped: the pod worker forgets the pod").Work = "forgotten"
		}
	}
	if work == termination.TerminatingPod && !out.Result.Err {
		p.stopProbes(true)
	}
	if work == termination.TerminatingPod {
		p.afterTerminating()
	}
	switch out.Requeue {
	case RequeueNow:
		p.pending = true
	case RequeueSuccess:
		p.setWorkDue(p.loop.Now.Add(p.jitter(p.node.cfg.Kubelet.syncFrequency())))
	case RequeueBackOff:
		d := out.BackOffUntil.Sub(p.loop.Now)
		if d < 0 {
			d = 0
		}
		if sf := p.node.cfg.Kubelet.syncFrequency(); d > sf {
			d = sf
		}
		p.setWorkDue(p.loop.Now.Add(p.jitter(d)))
	case RequeueError:
		d := 10 * time.Second
		if sf := p.node.cfg.Kubelet.syncFrequency(); d > sf {
			d = sf
		}
		p.setWorkDue(p.loop.Now.Add(p.jitter(d)))
	case RequeueNever:
		p.finished = true
		p.workDue = time.Time{}
		p.maybeDelete()
	}
	// From v1.36 on, a successful reset syncs the pod again at once (D12);
	// v1.35 waits for the relist or the resync.
	if out.ResetAll && f.Version().Minor() >= 36 {
		p.pending = true
	}
	if out.Reinspect {
		p.requestReinspect()
	}
	// The on-demand relist after a sync came with v1.36 (kubelet.go
	// SyncPod's postSync, RequestPodRelist, v1.36.3 :2270, gate
	// PLEGOnDemandRelist); v1.35.4's SyncPod has none, and the pod's next
	// sync waits for the periodic relist.
	if out.ActedOnRuntime && !out.Result.Err && work == termination.SyncPod && f.Version().Minor() >= 36 {
		p.relistPod()
	}
	if p.kubeletStopRequested() {
		return
	}
	p.tryRun()
}

// ---- the sync loop tick ----

// setWorkDue enqueues the pod in the work queue; the first sync-loop tick
// strictly after due syncs it, unless it was enqueued again meanwhile.
func (p *podSim) setWorkDue(due time.Time) {
	p.workDue = due
	t := engine.NextAfter(p.node.clocks.Tick, time.Second, due)
	if p.workTick == nil {
		p.workTick = p.onWorkTick
	}
	p.loop.AtCall(t, p.workTick, due.UnixNano())
}

// onWorkTick is the sync loop's tick picking up work due at due (in
// nanoseconds since the Unix epoch), unless the pod was enqueued again
// meanwhile.
func (p *podSim) onWorkTick(due int64) {
	if p.finished || p.workDue.IsZero() || p.workDue.UnixNano() != due {
		return
	}
	p.workDue = time.Time{}
	p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
}

// checkDeadline arranges for the first tick at or after the pod's active
// deadline to sync it (active_deadline.go).
func (p *podSim) checkDeadline() {
	ads := p.pod.Spec.ActiveDeadlineSeconds
	if ads == nil || p.mem.Status == nil || p.mem.Status.StartTime == nil {
		return
	}
	deadline := p.mem.Status.StartTime.Add(time.Duration(*ads) * time.Second)
	if p.deadline.Equal(deadline) {
		return
	}
	p.deadline = deadline
	t := engine.NextAfter(p.node.clocks.Tick, time.Second, deadline.Add(-time.Nanosecond))
	p.at(t, func() {
		if p.finished || p.mem.Worker == nil || p.mem.Worker.WorkType() != termination.SyncPod {
			return
		}
		if phase.PastActiveDeadline(p.pod, p.mem.Status, p.loop.Now) {
			p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
		}
	})
}
