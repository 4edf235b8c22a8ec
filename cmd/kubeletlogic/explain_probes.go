package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/probe"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// probeReport is what explain says about one probe of one container: its
// timing fields, when the kubelet's worker first probes, and for a
// liveness or startup probe when the first kill can come and what follows;
// for readiness when Ready can first become True; for a sidecar's startup
// probe which containers wait for it. Times are after the pod's start.
type probeReport struct {
	Container string `json:"container"`
	Probe     string `json:"probe"`
	Handler   string `json:"handler"`

	InitialDelaySeconds int32 `json:"initialDelaySeconds"`
	PeriodSeconds       int32 `json:"periodSeconds"`
	TimeoutSeconds      int32 `json:"timeoutSeconds"`
	SuccessThreshold    int32 `json:"successThreshold"`
	FailureThreshold    int32 `json:"failureThreshold"`

	// Basis says which container start the times assume.
	Basis string `json:"basis"`
	// FirstProbe is the first probe at the earliest.
	FirstProbe string `json:"firstProbe"`
	// FirstKill is, for a liveness or startup probe, the earliest kill:
	// the failureThreshold-th failure in a row of a probe that fails at
	// once; FirstKillTimedOut the same when each probe hangs until its
	// timeout.
	FirstKill         string `json:"firstPossibleKill,omitempty"`
	FirstKillTimedOut string `json:"firstPossibleKillIfProbesTimeOut,omitempty"`
	// RacesStartup is true when the first probe falls on the tick at which
	// the startup probe succeeds: the kubelet's two workers race, and when
	// this one reads the status first, every time here is one period
	// later.
	RacesStartup bool `json:"racesStartupProbe,omitempty"`
	// Started is, for a startup probe, when the container counts as
	// started at the earliest; Ready, for readiness, when it can first
	// be ready.
	Started string `json:"startedAtTheEarliest,omitempty"`
	Ready   string `json:"readyAtTheEarliest,omitempty"`
	// ReadyBy is when a readiness probe that succeeds makes the container
	// ready at the latest, for a container seen started at its earliest.
	ReadyBy string `json:"readyAtTheLatest,omitempty"`
	// Waiting are the containers that wait for this startup probe.
	Waiting []string `json:"waiting,omitempty"`
	// Say is all of it in words, one a line.
	Say []string `json:"say"`
}

// probesReport is the PROBES section.
type probesReport struct {
	Probes []probeReport `json:"probes,omitempty"`
	// assumptions are what the times take for granted (explain lists
	// them with the others, under ASSUMED).
	assumptions []string
}

// explainProbes computes the PROBES section: for every probe of a regular
// container or native sidecar, probe.ScheduleOf on the worker's clock
// (started at the pod's first sync, which start stands for) and the
// container's running instance, or, for a container not running, its
// earliest possible start (now, and not before the sidecars before it have
// started). The kill and restart that follow a liveness or startup failure
// are podactions.Compute's, with that probe result set on a running
// instance.
func explainProbes(pod *v1.Pod, st *runtimestate.Pod, start, now time.Time, f features.Set, rel func(time.Time) string) probesReport {
	var r probesReport
	// Times to the millisecond: the nanosecond that orders "after the
	// start" is not shown.
	exact := rel
	rel = func(t time.Time) string {
		if t.IsZero() {
			return exact(t)
		}
		d := t.Sub(start).Truncate(time.Millisecond)
		if d < 0 {
			return exact(start.Add(d))
		}
		return "+" + d.String() // also when start is unknown (zero)
	}
	type ctr struct {
		c       *v1.Container
		sidecar bool
	}
	var ctrs []ctr
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if restart.IsSidecar(c) {
			ctrs = append(ctrs, ctr{c, true})
		}
	}
	for i := range pod.Spec.Containers {
		ctrs = append(ctrs, ctr{&pod.Spec.Containers[i], false})
	}
	has := false
	for _, c := range ctrs {
		if c.c.LivenessProbe != nil || c.c.ReadinessProbe != nil || c.c.StartupProbe != nil {
			has = true
		}
	}
	if !has {
		return r
	}
	clock := probe.Clock{Start: start, KubeletUp: 24 * time.Hour}
	coincide := false
	// notBefore is the earliest start of a container not running yet: no
	// earlier than now, nor than the startup of every sidecar before it.
	notBefore := now
	for _, c := range ctrs {
		name := c.c.Name
		inst := probe.Instance{}
		basis := ""
		running := false
		if in := st.Newest(name); in != nil && in.State == runtimestate.Running && !in.StartedAt.IsZero() {
			running = true
			inst.StartedAt = in.StartedAt
			inst.Seen = later(in.StartedAt.Add(time.Nanosecond), now)
			basis = fmt.Sprintf("its running instance %s (started at %s)", shortID(in.ID), rel(in.StartedAt))
			if now.After(in.StartedAt) {
				basis += fmt.Sprintf(", for a probe that starts failing now (%s)", rel(now))
			}
		} else {
			inst.StartedAt = notBefore
			inst.Seen = notBefore.Add(time.Nanosecond)
			basis = fmt.Sprintf("its earliest start, at %s", rel(notBefore))
			if notBefore.Equal(start) {
				basis = "its earliest start: at the pod's start (+0s), in the pod's first second"
			}
			if n := initBefore(pod, name); n == 1 {
				basis += ", taking the init container before it to complete at once"
			} else if n > 1 {
				basis += fmt.Sprintf(", taking the %d init containers before it to complete at once", n)
			}
		}
		// A startup probe holds the others until it succeeds.
		startedAt := inst.Seen
		var startupAt time.Time
		if c.c.StartupProbe != nil {
			rep, s := startupReport(pod, st, c.c, c.sidecar, clock, inst, running, basis, f, rel)
			r.Probes = append(r.Probes, rep)
			// A liveness or readiness tick at the very moment the startup
			// probe succeeds may already see the container started: the
			// earliest case (see the assumption on coinciding ticks).
			startedAt = s.Succeed
			startupAt = s.Succeed
			if c.sidecar {
				notBefore = later(notBefore, s.Succeed)
			}
		}
		gated := inst
		gated.Seen = later(inst.Seen, startedAt)
		gatedBasis := basis
		if c.c.StartupProbe != nil {
			gatedBasis += fmt.Sprintf("; it waits for the startup probe to succeed (%s at the earliest)", rel(startedAt))
		}
		if c.c.LivenessProbe != nil {
			rep := livenessReport(pod, st, c.c, clock, gated, running, gatedBasis, f, rel)
			if !startupAt.IsZero() && probe.FirstProbe(probe.TimingOf(c.c.LivenessProbe), clock, gated).Equal(startupAt) {
				rep.Say = append(rep.Say, fmt.Sprintf("  (its first probe falls on the tick at which the startup probe succeeds: it runs then only if it reads %s's status after that success; the startup probe's own run usually makes it lose that race, and everything here comes one liveness period later)", c.c.Name))
				coincide, rep.RacesStartup = true, true
			}
			r.Probes = append(r.Probes, rep)
		}
		if c.c.ReadinessProbe != nil {
			r.Probes = append(r.Probes, readinessReport(c.c, gated, gatedBasis, rel))
		}
	}
	r.assumptions = []string{
		"probe workers start at the pod's first sync, which the pod's start stands for (to the second, when read off a status); they tick every periodSeconds from there",
		"the kubelet has run for longer than a period: a worker started within one period of the kubelet's start first waits a random part of its period, up to one period later than these times",
		"the container is seen running as soon as it starts (in fact at the next PLEG relist, up to about a second later: the first probe can then move to the next tick)",
		"a failing probe fails at once (an exec probe exiting non-zero, a refused connection); one that hangs fails at its timeout: the times marked so",
	}
	if coincide {
		r.assumptions = append(r.assumptions, "a liveness probe that ticks together with the startup probe's success sees it (the earliest case: the kubelet's two workers race)")
	}
	return r
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func handlerOf(p *v1.Probe) string {
	switch {
	case p.Exec != nil:
		return "exec " + strings.Join(p.Exec.Command, " ")
	case p.HTTPGet != nil:
		return fmt.Sprintf("httpGet %s port %s", orSlash(p.HTTPGet.Path), p.HTTPGet.Port.String())
	case p.TCPSocket != nil:
		return "tcpSocket port " + p.TCPSocket.Port.String()
	case p.GRPC != nil:
		return fmt.Sprintf("grpc port %d", p.GRPC.Port)
	}
	return "no handler"
}

func orSlash(s string) string {
	if s == "" {
		return "/"
	}
	return s
}

// newProbeReport fills the fields every kind shares.
func newProbeReport(c *v1.Container, kind string, p *v1.Probe, t probe.Timing, basis string) probeReport {
	rep := probeReport{Container: c.Name, Probe: kind, Handler: handlerOf(p),
		InitialDelaySeconds: int32(t.InitialDelay / time.Second), PeriodSeconds: int32(t.Period / time.Second),
		TimeoutSeconds: int32(t.Timeout / time.Second), SuccessThreshold: t.SuccessThreshold, FailureThreshold: t.FailureThreshold,
		Basis: basis}
	rep.Say = append(rep.Say,
		fmt.Sprintf("%s: %s probe (%s): initialDelay %ds, every %ds, timeout %ds, successThreshold %d, failureThreshold %d",
			c.Name, kind, rep.Handler, rep.InitialDelaySeconds, rep.PeriodSeconds, rep.TimeoutSeconds, rep.SuccessThreshold, rep.FailureThreshold),
		"  times for "+basis)
	return rep
}

func livenessReport(pod *v1.Pod, st *runtimestate.Pod, c *v1.Container, clock probe.Clock, inst probe.Instance, running bool, basis string, f features.Set, rel func(time.Time) string) probeReport {
	t := probe.TimingOf(c.LivenessProbe)
	rep := newProbeReport(c, "liveness", c.LivenessProbe, t, basis)
	s := probe.ScheduleOf(t, clock, inst)
	rep.FirstProbe, rep.FirstKill, rep.FirstKillTimedOut = rel(s.FirstProbe), rel(s.Fail), rel(s.FailHanging)
	rep.Say = append(rep.Say,
		fmt.Sprintf("  first probe at %s: the worker's first tick at or after the whole-second startedAt + %ds, once the status shows %s started", rep.FirstProbe, rep.InitialDelaySeconds, c.Name),
		fmt.Sprintf("  a probe that keeps failing: the first possible kill at %s, %s (%s if each probe hangs until its %ds timeout)",
			rep.FirstKill, failureWords(t.FailureThreshold, s.Fail.Sub(s.FirstProbe)), rep.FirstKillTimedOut, rep.TimeoutSeconds))
	rep.Say = append(rep.Say, killWords(pod, st, c, vocab.ReasonLivenessProbe, running, f)...)
	return rep
}

func startupReport(pod *v1.Pod, st *runtimestate.Pod, c *v1.Container, sidecar bool, clock probe.Clock, inst probe.Instance, running bool, basis string, f features.Set, rel func(time.Time) string) (probeReport, probe.Schedule) {
	t := probe.TimingOf(c.StartupProbe)
	rep := newProbeReport(c, "startup", c.StartupProbe, t, basis)
	s := probe.ScheduleOf(t, clock, inst)
	rep.FirstProbe, rep.Started, rep.FirstKill, rep.FirstKillTimedOut = rel(s.FirstProbe), rel(s.Succeed), rel(s.Fail), rel(s.FailHanging)
	rep.Say = append(rep.Say,
		fmt.Sprintf("  first probe at %s: the worker's first tick at or after the whole-second startedAt + %ds", rep.FirstProbe, rep.InitialDelaySeconds),
		fmt.Sprintf("  %s counts as started at %s at the earliest (the first probe that succeeds); until then its liveness and readiness probes do not run", c.Name, rep.Started))
	if !f.Enabled(features.ChangeContainerStatusOnKubeletRestart) {
		// convertToAPIContainerStatuses keeps Started of a running
		// container by name (kubelet_pods.go:2692 in v1.37.2), and
		// isContainerStarted takes it while the startup worker has no
		// result for the new instance (prober_manager.go:296).
		rep.Say = append(rep.Say, fmt.Sprintf("  if %s starts again after an instance that had started (a crash or a liveness kill), the new instance reads started from that instance's status until its startup worker's next tick (up to %ds later) sets it back to not started: the status shows it started (and ready, with no readiness probe) in that window (kubelet_pods.go convertToAPIContainerStatuses, gate ChangeContainerStatusOnKubeletRestart off)", c.Name, rep.PeriodSeconds))
	}
	if sidecar {
		rep.Waiting = waitersOf(pod, c.Name)
		if len(rep.Waiting) > 0 {
			rep.Say = append(rep.Say, fmt.Sprintf("  %s is a native sidecar: the kubelet starts the containers after it (%s) only once it has started, so they wait for this probe", c.Name, strings.Join(rep.Waiting, ", ")))
		}
	}
	rep.Say = append(rep.Say, fmt.Sprintf("  a probe that keeps failing: the first possible kill at %s, %s (%s if each probe hangs until its %ds timeout)",
		rep.FirstKill, failureWords(t.FailureThreshold, s.Fail.Sub(s.FirstProbe)), rep.FirstKillTimedOut, rep.TimeoutSeconds))
	rep.Say = append(rep.Say, killWords(pod, st, c, vocab.ReasonStartupProbe, running, f)...)
	return rep, s
}

func readinessReport(c *v1.Container, inst probe.Instance, basis string, rel func(time.Time) string) probeReport {
	t := probe.TimingOf(c.ReadinessProbe)
	rep := newProbeReport(c, "readiness", c.ReadinessProbe, t, basis)
	earliest := probe.EarliestProbe(t, inst)
	ready := probe.Commit(t, earliest, t.SuccessThreshold, 0)
	// A probe runs at least once a period (a sync's manual run restarts
	// the worker's ticker, it never delays a probe by more than one).
	latest := earliest.Add(time.Duration(t.SuccessThreshold) * t.Period)
	rep.FirstProbe, rep.Ready, rep.ReadyBy = rel(earliest), rel(ready), rel(latest)
	rep.Say = append(rep.Say,
		fmt.Sprintf("  first probe at %s at the earliest (initialDelay from the whole-second startedAt): a sync that finds %s started and not ready probes it at once and restarts the worker's ticks; otherwise the worker probes every %ds", rep.FirstProbe, c.Name, rep.PeriodSeconds),
		readyWords(rep.Ready, rep.FirstProbe, rep.ReadyBy, t.SuccessThreshold),
		fmt.Sprintf("  until then %s is not ready, and neither are the pod's Ready and ContainersReady conditions; %d failures in a row make it not ready again (no restart)", c.Name, t.FailureThreshold))
	return rep
}

// killWords says what the kubelet does when the probe commits Failure:
// podactions.Compute with that result on a running instance of c.
func killWords(pod *v1.Pod, st *runtimestate.Pod, c *v1.Container, reason vocab.KillReason, running bool, f features.Set) []string {
	state := st
	if !running {
		state = steadyState(pod)
	}
	in := state.Newest(c.Name)
	if in == nil || in.State != runtimestate.Running {
		return []string{"  (no running instance to show the kill on)"}
	}
	res := vocab.ProbeResults{Liveness: vocab.ProbeFailure}
	if reason == vocab.ReasonStartupProbe {
		res = vocab.ProbeResults{Startup: vocab.ProbeFailure}
	}
	// The running instances were started with the spec's resources: no
	// resize comes into it.
	acts := podactions.Compute(pod, state, podactions.Options{Features: f, Probes: map[string]vocab.ProbeResults{in.ID: res}, Actuated: actuatedAs(pod)})
	var kill *podactions.Kill
	for i := range acts.ContainersToKill {
		if acts.ContainersToKill[i].ID == in.ID {
			kill = &acts.ContainersToKill[i]
		}
	}
	if kill == nil {
		return []string{"  then: the kubelet does not kill it (see NEXT)"}
	}
	grace := termination.ContainerGracePeriod(pod, c, reason, f)
	from := "the pod's terminationGracePeriodSeconds"
	if p := probeOf(c, reason); p != nil && p.TerminationGracePeriodSeconds != nil {
		from = "the probe's own terminationGracePeriodSeconds"
	}
	preStop := ""
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
		preStop = ", its preStop hook first"
	}
	out := []string{fmt.Sprintf("  then: the kubelet's next sync kills %s (%q), grace %ds (%s%s)", c.Name, kill.Message, grace, from, preStop)}
	restarted := false
	for _, l := range [][]podactions.Ref{acts.InitContainersToStart, acts.ContainersToStart} {
		for _, ref := range l {
			if ref.Name == c.Name {
				restarted = true
			}
		}
	}
	switch {
	case restarted:
		out = append(out, fmt.Sprintf("  and starts it again in the same sync, unless crash-loop back-off holds it: each kill counts as an exit (see RESTARTS); repeated kills end in CrashLoopBackOff"))
	case acts.KillPod:
		out = append(out, "  and, with nothing left to run, kills the pod: "+afterKill(pod, state, f))
	default:
		out = append(out, fmt.Sprintf("  and does not start it again (%s)", policyWords(pod, effectiveOf(pod, c.Name, f))))
	}
	return out
}

func effectiveOf(pod *v1.Pod, name string, f features.Set) restart.Effective {
	e, _ := restart.EffectivePolicy(pod, name, f)
	return e
}

func probeOf(c *v1.Container, reason vocab.KillReason) *v1.Probe {
	if reason == vocab.ReasonStartupProbe {
		return c.StartupProbe
	}
	return c.LivenessProbe
}

// waitersOf returns the init containers after the sidecar named name and
// every regular container: the kubelet starts none of them before it has
// started.
func waitersOf(pod *v1.Pod, name string) []string {
	var out []string
	after := false
	for _, c := range pod.Spec.InitContainers {
		if after {
			out = append(out, c.Name)
		}
		if c.Name == name {
			after = true
		}
	}
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	return out
}

func ordinal(n int32) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// writeProbes renders the PROBES section (nothing for a pod without
// probes).
func writeProbes(w io.Writer, r *probesReport) {
	if len(r.Probes) == 0 {
		return
	}
	fmt.Fprintf(w, "\nPROBES: when a probe can first kill a container, or hold it not started or not ready\n")
	for _, p := range r.Probes {
		for _, l := range p.Say {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

func readyWords(ready, first, by string, n int32) string {
	l := fmt.Sprintf("  Ready can first become True at %s", ready)
	if n > 1 {
		l += fmt.Sprintf(", the %s success in a row a period apart (syncs in between probe too and can make it sooner, down to %s)", ordinal(n), first)
	}
	return l + fmt.Sprintf("; by %s at the latest for a container seen started then (a probe at least every period)", by)
}

// initBefore counts the regular (run-to-completion) init containers the
// kubelet runs before the container named name starts.
func initBefore(pod *v1.Pod, name string) int {
	n := 0
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.Name == name {
			return n
		}
		if !restart.IsSidecar(c) {
			n++
		}
	}
	return n
}

// failureWords says which failure commits the result.
func failureWords(n int32, after time.Duration) string {
	if n <= 1 {
		return "at the first failure (failureThreshold 1)"
	}
	return fmt.Sprintf("the %s failure in a row, %s after the first", ordinal(n), after)
}

// shortID cuts a runtime's 64-hex container ID as crictl ps does.
func shortID(id string) string {
	if len(id) > 13 {
		return id[:13]
	}
	return id
}
