package sim

import (
	"fmt"
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
	lastRes   vocab.ProbeResult
	resultRun int
	onHold    bool
	// seeding: the result being set is the initial one for a new
	// container ID, not a probe's.
	seeding bool
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

// schedule runs the probe at t, and then every period (a ticker: a
// manual run resets it).
func (w *prober) schedule(t time.Time) {
	w.gen++
	if w.tick == nil {
		w.tick = w.onTick
	}
	w.p.loop.AtCall(t, w.tick, int64(w.gen))
}

// onTick is a run of the worker scheduled at generation gen.
func (w *prober) onTick(gen int64) {
	if int64(w.gen) != gen || w.stopped {
		return
	}
	if !w.doProbe() {
		w.stopped = true
		return
	}
	w.schedule(w.p.loop.Now.Add(w.period))
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
		w.schedule(p.loop.Now)
	}
}

func (w *prober) status() *v1.ContainerStatus {
	st := w.p.mem.Status
	if st == nil {
		return nil
	}
	for i := range st.ContainerStatuses {
		if st.ContainerStatuses[i].Name == w.container.Name && st.ContainerStatuses[i].ContainerID != "" {
			return &st.ContainerStatuses[i]
		}
	}
	for i := range st.InitContainerStatuses {
		if st.InitContainerStatuses[i].Name == w.container.Name && st.InitContainerStatuses[i].ContainerID != "" {
			return &st.InitContainerStatuses[i]
		}
	}
	return nil
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

// doProbe is one run of the worker; false ends the worker.
func (w *prober) doProbe() bool {
	p := w.p
	st := p.mem.Status
	if st == nil {
		return true
	}
	if st.Phase == v1.PodFailed || st.Phase == v1.PodSucceeded {
		return false
	}
	cs := w.status()
	if cs == nil {
		return true
	}
	id := trimID(cs.ContainerID)
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
	if w.onHold {
		return true
	}
	if cs.State.Running == nil {
		p.setResult(w, id, vocab.ProbeFailure)
		if cs.State.Terminated == nil {
			return true
		}
		return restart.ContainerShouldRestart(w.container, &p.pod.Spec, cs.State.Terminated.ExitCode, p.node.cfg.Kubelet.Features) ||
			w.sidecar || p.pod.Spec.RestartPolicy != v1.RestartPolicyNever
	}
	if p.pod.DeletionTimestamp != nil && w.kind != "readiness" {
		p.setResult(w, id, vocab.ProbeSuccess)
		return false
	}
	if int32(p.loop.Now.Sub(cs.State.Running.StartedAt.Time).Seconds()) < w.spec.InitialDelaySeconds {
		return true
	}
	started := cs.Started != nil && *cs.Started
	if started == (w.kind == "startup") {
		return true
	}
	in := p.rt.find(id)
	if in == nil {
		return true
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
		return true
	}
	res := outcome(steps, age)
	if w.lastRes == res {
		w.resultRun++
	} else {
		w.lastRes, w.resultRun = res, 1
	}
	if (res == vocab.ProbeFailure && w.resultRun < int(w.spec.FailureThreshold)) ||
		(res == vocab.ProbeSuccess && w.resultRun < int(w.spec.SuccessThreshold)) {
		return true
	}
	p.setResult(w, id, res)
	if (w.kind == "liveness" && res == vocab.ProbeFailure) || w.kind == "startup" {
		w.onHold = true
		w.resultRun = 0
	}
	return true
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
	msg := fmt.Sprintf("%s probe of %s: %s", w.kind, w.container.Name, r)
	if w.seeding {
		msg = fmt.Sprintf("%s of %s: %s (the initial result for a new container)", w.kind, w.container.Name, r)
	}
	e := p.log(KindProbe, p.loop.Now, msg)
	e.Probe = &ProbeEntry{Container: w.container.Name, ID: id, Probe: w.kind, Result: r, Initial: w.seeding}
	switch w.kind {
	case "liveness":
		if r != vocab.ProbeFailure {
			return
		}
	case "readiness":
		p.patchStatus(id, func(cs *v1.ContainerStatus) bool {
			ready := r == vocab.ProbeSuccess
			if cs.Ready == ready {
				return false
			}
			cs.Ready = ready
			return true
		}, true)
	default:
		p.patchStatus(id, func(cs *v1.ContainerStatus) bool {
			started := r == vocab.ProbeSuccess
			if cs.Started != nil && *cs.Started == started {
				return false
			}
			cs.Started = &started
			return true
		}, false)
	}
	if p.mem.Worker == nil || p.mem.Worker.WorkType() != termination.TerminatedPod {
		p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
	}
}

// patchStatus is the status manager's SetContainerReadiness (with the
// ContainersReady and Ready conditions) or SetContainerStartup.
func (p *podSim) patchStatus(id string, change func(*v1.ContainerStatus) bool, readiness bool) {
	if p.mem.Status == nil {
		return
	}
	st := p.mem.Status.DeepCopy()
	var cs *v1.ContainerStatus
	for _, l := range [][]v1.ContainerStatus{st.ContainerStatuses, st.InitContainerStatuses} {
		for i := range l {
			if trimID(l[i].ContainerID) == id {
				cs = &l[i]
			}
		}
	}
	if cs == nil || !change(cs) {
		return
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
