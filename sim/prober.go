package sim

import (
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// prober is one probe worker (pkg/kubelet/prober/worker.go): one
// container, one kind of probe.
type prober struct {
	p         *podSim
	container *v1.Container
	sidecar   bool
	kind      string // liveness, readiness, startup
	spec      *v1.Probe
	period    time.Duration
	gen       int
	tick      func(int64) // onTick, made once
	stopped   bool
	lastID    string
	// lastCID is the status's container ID ("containerd://...") lastID
	// was cut from, so that a tick on the same container cuts none.
	lastCID   string
	lastRes   vocab.ProbeResult
	resultRun int
	onHold    bool
	// seeding: the result being set is the initial one for a new
	// container ID, not a probe's.
	seeding bool
	// anchor is the ticker's reference: it ticks at anchor + k*period
	// (set when the ticker is made or reset). inFlight is set while a
	// probe that takes time runs; triggered records a manual run asked
	// for meanwhile; note is added to the result's entry (a timeout).
	anchor    time.Time
	inFlight  bool
	triggered bool
	note      string
	// lines are the result entries' messages made so far (resultLine);
	// they start in lineBuf, room for the usual worker's.
	lines   []proberLine
	lineBuf [4]proberLine
	// What the ticks looked up last (status, instance): cs is the
	// container's status in the pod status statusOf; in is the instance
	// inID while the runtime's removals were inRemovals.
	statusOf   *v1.PodStatus
	cs         *v1.ContainerStatus
	in         *instance
	inID       string
	inRemovals int
}

type proberLine struct {
	result  vocab.ProbeResult
	note    string
	seeding bool
	msg     string
}

// resultLine is the message of the entry of result r: results repeat, so
// each message is made once per worker.
func (w *prober) resultLine(r vocab.ProbeResult) string {
	for _, l := range w.lines {
		if l.result == r && l.note == w.note && l.seeding == w.seeding {
			return l.msg
		}
	}
	var msg string
	if w.seeding {
		msg = w.kind + " of " + w.container.Name + ": " + string(r) + " (the initial result for a new container)"
	} else {
		msg = w.kind + " probe of " + w.container.Name + ": " + string(r) + w.note
	}
	if w.lines == nil {
		w.lines = w.lineBuf[:0]
	}
	if len(w.lines) < 8 {
		w.lines = append(w.lines, proberLine{result: r, note: w.note, seeding: w.seeding, msg: msg})
	}
	return msg
}

// addProbes is the probe manager's AddPod: one worker per probe of every
// regular container and sidecar, created at the pod's first SyncPod.
func (p *podSim) addProbes() {
	p.probesAdded = true
	add := func(c *v1.Container, sidecar bool) {
		for _, k := range []struct {
			kind string
			spec *v1.Probe
		}{{"startup", c.StartupProbe}, {"readiness", c.ReadinessProbe}, {"liveness", c.LivenessProbe}} {
			if k.spec == nil {
				continue
			}
			period := time.Duration(k.spec.PeriodSeconds) * time.Second
			if period <= 0 {
				period = 10 * time.Second
			}
			w := &prober{p: p, container: c, sidecar: sidecar, kind: k.kind, spec: k.spec, period: period}
			p.probes = append(p.probes, w)
			first := p.loop.Now
			// Within one period of the kubelet's start, a worker first
			// waits a random part of its period.
			if p.loop.Now.Sub(p.node.kubeletUp) < period {
				first = first.Add(time.Duration(p.rng.Float64() * float64(period)))
			}
			w.schedule(first)
		}
	}
	for i := range p.pod.Spec.InitContainers {
		c := &p.pod.Spec.InitContainers[i]
		if restart.IsSidecar(c) {
			add(c, true)
		}
	}
	for i := range p.pod.Spec.Containers {
		add(&p.pod.Spec.Containers[i], false)
	}
}

// stopProbes stops liveness and startup workers (termination starts), or
// every worker (the containers are stopped).
func (p *podSim) stopProbes(all bool) {
	for _, w := range p.probes {
		if all || w.kind != "readiness" {
			w.stopped = true
		}
	}
}

// schedule runs the probe at t, and then every period from t: the
// worker's ticker made (prober/worker.go run: time.NewTicker after the
// initial random wait, and the first doProbe at once) or reset by a
// manual run (probeTicker.Reset on manualTriggerCh).
func (w *prober) schedule(t time.Time) {
	w.anchor = t
	w.runAt(t)
}

// runAt runs the probe at t, the ticker left as it is.
func (w *prober) runAt(t time.Time) {
	w.gen++
	if w.tick == nil {
		w.tick = w.onTick
	}
	w.p.loop.AtCall(t, w.tick, int64(w.gen))
}

// onTick is a run of the worker scheduled at generation gen.
func (w *prober) onTick(gen int64) {
	if int64(w.gen) != gen || w.stopped || w.inFlight {
		return
	}
	start := w.p.loop.Now
	keep, takes := w.doProbe()
	if !keep {
		w.stopped = true
		return
	}
	if takes > 0 {
		// doProbe has scheduled the result at start+takes; the worker's
		// loop is blocked until then.
		w.inFlight = true
		return
	}
	w.next(start, start)
}

// next schedules the worker's next run after a probe that started at
// start and returned at end. The worker's loop (prober/worker.go run)
// waits on a ticker of fixed period that a slow probe does not move:
// time.Ticker keeps one tick for a receiver that is late and drops the
// others, so when a tick fell while the probe ran, the next probe starts
// at once when it returns, and later ones are on the ticker's times again;
// otherwise the next probe is at the next tick. A manual run asked for
// while the probe ran is taken first (it resets the ticker).
func (w *prober) next(start, end time.Time) {
	if w.triggered {
		w.triggered = false
		w.schedule(end)
		return
	}
	w.runAt(nextProbeStart(w.anchor, w.period, start, end))
}

// nextProbeStart is when a worker whose ticker ticks at anchor + k*period
// (k >= 1) starts its next probe after one that ran from start to end:
// at end when a tick fell in (start, end], else at the first tick after
// end.
func nextProbeStart(anchor time.Time, period time.Duration, start, end time.Time) time.Time {
	k := start.Sub(anchor)/period + 1
	if k < 1 {
		k = 1
	}
	tick := anchor.Add(k * period)
	if !tick.After(end) {
		return end
	}
	return tick
}

// probeTime is how long a probe whose command or request takes takes
// lasts, and whether it timed out: the probe's timeoutSeconds bounds it
// (prober/prober.go runProbe passes it to ExecSync, which the runtime
// enforces, and to the httpGet, tcpSocket and grpc probers), and a probe
// that reaches it fails (probe/exec/exec.go Probe: ErrCommandTimedOut is
// a Failure). timeoutSeconds 0 is taken as 1, the API's default.
func (w *prober) probeTime(takes time.Duration) (time.Duration, bool) {
	timeout := time.Duration(w.spec.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = time.Second
	}
	if takes >= timeout {
		return timeout, true
	}
	return takes, false
}

// triggerReadiness is the probe manager's UpdatePodStatus trigger: a
// readiness worker of a started, running container that is not ready
// probes at once.
func (p *podSim) triggerReadiness() {
	if p.mem.Status == nil {
		return
	}
	for _, w := range p.probes {
		if w.kind != "readiness" || w.stopped {
			continue
		}
		cs := w.status()
		if cs == nil || cs.State.Running == nil || cs.Started == nil || !*cs.Started {
			continue
		}
		if p.mem.Probes[trimID(cs.ContainerID)].Readiness == vocab.ProbeSuccess {
			continue
		}
		if w.inFlight {
			w.triggered = true
			continue
		}
		w.schedule(p.loop.Now)
	}
}

// readinessWorking reports whether the pod has a readiness worker not
// stopped, which triggerReadiness may run. A stopped worker stays stopped,
// and workers are added only by the sync that schedules the trigger.
func (p *podSim) readinessWorking() bool {
	for _, w := range p.probes {
		if w.kind == "readiness" && !w.stopped {
			return true
		}
	}
	return false
}

// status is the container's status in the cached pod status (nil: none),
// looked up once per status stored: a stored status is never changed in
// place.
func (w *prober) status() *v1.ContainerStatus {
	st := w.p.mem.Status
	if st == nil {
		return nil
	}
	if st == w.statusOf {
		return w.cs
	}
	w.statusOf, w.cs = st, probedStatus(st, w.container.Name)
	return w.cs
}

// probedStatus is the status of the container name with an ID in st (nil:
// none), the regular containers first.
func probedStatus(st *v1.PodStatus, name string) *v1.ContainerStatus {
	for i := range st.ContainerStatuses {
		if st.ContainerStatuses[i].Name == name && st.ContainerStatuses[i].ContainerID != "" {
			return &st.ContainerStatuses[i]
		}
	}
	for i := range st.InitContainerStatuses {
		if st.InitContainerStatuses[i].Name == name && st.InitContainerStatuses[i].ContainerID != "" {
			return &st.InitContainerStatuses[i]
		}
	}
	return nil
}

// instance is the runtime's instance id (nil: none), looked up again only
// for another ID or once the runtime removed an instance: an instance
// added later does not come before it in the list (find).
func (w *prober) instance(id string) *instance {
	r := &w.p.rt
	if w.in != nil && w.inID == id && w.inRemovals == r.removals {
		return w.in
	}
	w.in, w.inID, w.inRemovals = r.find(id), id, r.removals
	return w.in
}

func trimID(id string) string {
	if i := strings.Index(id, "://"); i >= 0 {
		return id[i+3:]
	}
	return id
}

func (w *prober) initial() vocab.ProbeResult {
	switch w.kind {
	case "readiness":
		return vocab.ProbeFailure
	case "liveness":
		return vocab.ProbeSuccess
	}
	return vocab.ProbeUnknown
}

// doProbe is one run of the worker (prober/worker.go doProbe); false ends
// the worker. takes > 0 when the probe ran and takes time: its result is
// then recorded when it returns (recordAt), takes later.
func (w *prober) doProbe() (keep bool, takes time.Duration) {
	p := w.p
	st := p.mem.Status
	if st == nil {
		return true, 0
	}
	if st.Phase == v1.PodFailed || st.Phase == v1.PodSucceeded {
		return false, 0
	}
	cs := w.status()
	if cs == nil {
		return true, 0
	}
	id := w.lastID
	if cs.ContainerID != w.lastCID {
		id = trimID(cs.ContainerID)
	}
	if id != w.lastID {
		if w.lastID != "" {
			p.setResult(w, w.lastID, vocab.ProbeNoResult)
		}
		w.lastID = id
		w.seeding = true
		p.setResult(w, id, w.initial())
		w.seeding = false
		w.onHold = false
	}
	w.lastCID = cs.ContainerID
	if w.onHold {
		return true, 0
	}
	if cs.State.Running == nil {
		p.setResult(w, id, vocab.ProbeFailure)
		if cs.State.Terminated == nil {
			return true, 0
		}
		return restart.ContainerShouldRestart(w.container, &p.pod.Spec, cs.State.Terminated.ExitCode, p.node.cfg.Kubelet.Features) ||
			w.sidecar || p.pod.Spec.RestartPolicy != v1.RestartPolicyNever, 0
	}
	if p.pod.DeletionTimestamp != nil && w.kind != "readiness" {
		p.setResult(w, id, vocab.ProbeSuccess)
		return false, 0
	}
	if int32(p.loop.Now.Sub(cs.State.Running.StartedAt.Time).Seconds()) < w.spec.InitialDelaySeconds {
		return true, 0
	}
	started := cs.Started != nil && *cs.Started
	if started == (w.kind == "startup") {
		return true, 0
	}
	in := w.instance(id)
	if in == nil {
		return true, 0
	}
	var steps []ProbeStep
	switch w.kind {
	case "liveness":
		steps = in.run.Liveness
	case "readiness":
		steps = in.run.Readiness
	default:
		steps = in.run.Startup
	}
	age := p.loop.Now.Sub(in.c.StartedAt)
	if in.c.StartedAt.IsZero() || in.c.FinishedAt.After(in.c.StartedAt) {
		return true, 0
	}
	res, scripted := outcome(steps, age)
	d, timedOut := w.probeTime(scripted)
	if timedOut {
		res = vocab.ProbeFailure
	}
	if d > 0 {
		start := p.loop.Now
		p.at(start.Add(d), func() {
			w.inFlight = false
			if w.stopped {
				// Stopped meanwhile: the worker's clean-up drops the
				// results of its container.
				return
			}
			if timedOut {
				w.note = " (timed out after " + d.String() + ")"
			}
			w.record(id, res)
			w.note = ""
			w.next(start, p.loop.Now)
		})
		return true, d
	}
	w.record(id, res)
	return true, 0
}

// record counts a probe's result against the thresholds and sets it when
// they are reached (prober/worker.go doProbe, after the probe returned).
func (w *prober) record(id string, res vocab.ProbeResult) {
	p := w.p
	if w.lastRes == res {
		w.resultRun++
	} else {
		w.lastRes, w.resultRun = res, 1
	}
	if (res == vocab.ProbeFailure && w.resultRun < int(w.spec.FailureThreshold)) ||
		(res == vocab.ProbeSuccess && w.resultRun < int(w.spec.SuccessThreshold)) {
		return
	}
	p.setResult(w, id, res)
	if (w.kind == "liveness" && res == vocab.ProbeFailure) || w.kind == "startup" {
		w.onHold = true
		w.resultRun = 0
	}
}

// setResult is the results manager's Set and the kubelet's reaction to an
// update (syncLoopIteration's probe cases).
func (p *podSim) setResult(w *prober, id string, r vocab.ProbeResult) {
	if p.mem.Probes == nil {
		p.mem.Probes = map[string]vocab.ProbeResults{}
	}
	cur := p.mem.Probes[id]
	var old *vocab.ProbeResult
	switch w.kind {
	case "liveness":
		old = &cur.Liveness
	case "readiness":
		old = &cur.Readiness
	default:
		old = &cur.Startup
	}
	if *old == r {
		return
	}
	*old = r
	if cur == (vocab.ProbeResults{}) {
		delete(p.mem.Probes, id)
	} else {
		p.mem.Probes[id] = cur
	}
	if r == vocab.ProbeNoResult {
		return
	}
	e := p.log(KindProbe, p.loop.Now, w.resultLine(r))
	e.Probe = p.newProbe()
	*e.Probe = ProbeEntry{Container: w.container.Name, ID: id, Probe: w.kind, Result: r, Initial: w.seeding}
	switch w.kind {
	case "liveness":
		if r != vocab.ProbeFailure {
			return
		}
	case "readiness":
		p.patchStatus(id, true, r == vocab.ProbeSuccess)
	default:
		p.patchStatus(id, false, r == vocab.ProbeSuccess)
	}
	if p.mem.Worker == nil || p.mem.Worker.WorkType() != termination.TerminatedPod {
		p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
	}
}

// patchStatus is the status manager's SetContainerReadiness (readiness:
// the container's ready set to value, with the ContainersReady and Ready
// conditions) or SetContainerStartup (its started set to value).
func (p *podSim) patchStatus(id string, readiness, value bool) {
	if p.mem.Status == nil {
		return
	}
	cur := p.mem.Status
	init, idx := false, -1
	for li, l := range [][]v1.ContainerStatus{cur.ContainerStatuses, cur.InitContainerStatuses} {
		for i := range l {
			if trimID(l[i].ContainerID) == id {
				init, idx = li == 1, i
			}
		}
	}
	if idx < 0 {
		return
	}
	list := func(st *v1.PodStatus) *[]v1.ContainerStatus {
		if init {
			return &st.InitContainerStatuses
		}
		return &st.ContainerStatuses
	}
	if cs := &(*list(cur))[idx]; readiness && cs.Ready == value || !readiness && cs.Started != nil && *cs.Started == value {
		return // no change
	}
	// set changes the container's status in the new status (the
	// cached one is read only, above).
	set := func(cs *v1.ContainerStatus) {
		if readiness {
			cs.Ready = value
			return
		}
		started := value
		cs.Started = &started
	}
	var st *v1.PodStatus
	if normalized(cur) {
		// The new status shares what it does not change with the
		// cached one (stored statuses are never changed in place, and
		// storeStatus writes no time of a normalized status): only the
		// container's list and the conditions are copies.
		s := *cur
		l := list(&s)
		*l = slices.Clone(*l)
		set(&(*l)[idx])
		s.Conditions = slices.Clone(s.Conditions)
		st = &s
	} else {
		st = cur.DeepCopy()
		set(&(*list(st))[idx])
	}
	if readiness {
		gen := conditions.Generate(p.pod, st, conditions.Options{Features: p.node.cfg.Kubelet.Features, Cached: p.mem.Status, Runtime: p.cache})
		for _, c := range gen {
			if c.Type == v1.ContainersReady || c.Type == v1.PodReady {
				setConditionFull(st, c)
			}
		}
	}
	by := "SetContainerStartup"
	if readiness {
		by = "SetContainerReadiness"
	}
	stored, err := storeStatus(p.pod, p.mem.Status, *st, p.loop.Now, p.node.cfg.Kubelet.Features)
	if err != nil {
		// A patch of ready or started changes no state; kept for the
		// status manager's rule, which every store goes through.
		p.log(KindSync, p.loop.Now, by+": status update aborted: "+err.Error())
		return
	}
	p.stored(stored, by, p.pod.Generation)
}

func setConditionFull(st *v1.PodStatus, c v1.PodCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}
