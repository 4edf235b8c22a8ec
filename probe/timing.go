package probe

import (
	"time"

	v1 "k8s.io/api/core/v1"
)

// The API server's defaults for a probe's timing fields
// (pkg/apis/core/v1/defaults.go SetDefaults_Probe).
const (
	DefaultPeriod           = 10 * time.Second
	DefaultTimeout          = 1 * time.Second
	DefaultSuccessThreshold = 1
	DefaultFailureThreshold = 3
)

// Timing is a probe's timing: its spec's fields as durations, with the
// API server's defaults for the fields left out (zero or, as no valid pod
// has them, negative).
type Timing struct {
	InitialDelay     time.Duration
	Period           time.Duration
	Timeout          time.Duration
	SuccessThreshold int32
	FailureThreshold int32
	// Grace is the probe's own terminationGracePeriodSeconds, nil when it
	// has none (a liveness or startup kill then uses the pod's).
	Grace *int64
}

// TimingOf reads the timing of p; a nil p gives the defaults.
func TimingOf(p *v1.Probe) Timing {
	t := Timing{Period: DefaultPeriod, Timeout: DefaultTimeout, SuccessThreshold: DefaultSuccessThreshold, FailureThreshold: DefaultFailureThreshold}
	if p == nil {
		return t
	}
	if p.InitialDelaySeconds > 0 {
		t.InitialDelay = time.Duration(p.InitialDelaySeconds) * time.Second
	}
	if p.PeriodSeconds > 0 {
		t.Period = time.Duration(p.PeriodSeconds) * time.Second
	}
	if p.TimeoutSeconds > 0 {
		t.Timeout = time.Duration(p.TimeoutSeconds) * time.Second
	}
	if p.SuccessThreshold > 0 {
		t.SuccessThreshold = p.SuccessThreshold
	}
	if p.FailureThreshold > 0 {
		t.FailureThreshold = p.FailureThreshold
	}
	if p.TerminationGracePeriodSeconds != nil {
		g := *p.TerminationGracePeriodSeconds
		t.Grace = &g
	}
	return t
}

// orDefault fills what a hand-built Timing leaves out.
func (t Timing) orDefault() Timing {
	if t.Period <= 0 {
		t.Period = DefaultPeriod
	}
	if t.Timeout <= 0 {
		t.Timeout = DefaultTimeout
	}
	if t.InitialDelay < 0 {
		t.InitialDelay = 0
	}
	if t.SuccessThreshold <= 0 {
		t.SuccessThreshold = DefaultSuccessThreshold
	}
	if t.FailureThreshold <= 0 {
		t.FailureThreshold = DefaultFailureThreshold
	}
	return t
}

// Clock is one probe worker's clock: the kubelet's prober manager starts a
// worker (a goroutine) per container and probe kind at the pod's first
// SyncPod (prober_manager.go AddPod), and the worker probes at once, then
// on every tick of a ticker of the probe's period (worker.go run).
type Clock struct {
	// Start is when the worker started: the pod's first SyncPod.
	Start time.Time
	// KubeletUp is how long the kubelet (its prober manager) had been
	// running at Start. A worker started less than a period after the
	// kubelet sleeps Jitter × period before its first probe; otherwise
	// Jitter is not used.
	KubeletUp time.Duration
	// Jitter is the random fraction of the period, in [0, 1), that such a
	// worker sleeps (the kubelet draws it from math/rand; out-of-range
	// values are clamped).
	Jitter float64
}

// First returns the worker's first probe time (its ticks are First + k ×
// period): Start, or Start plus Jitter × period for a worker started
// within one period of the kubelet's start (worker.go run).
func (c Clock) First(period time.Duration) time.Time {
	if period <= 0 {
		period = DefaultPeriod
	}
	if c.KubeletUp < period {
		j := min(max(c.Jitter, 0), 1)
		if j != j { // NaN
			j = 0
		}
		return c.Start.Add(time.Duration(j * float64(period)))
	}
	return c.Start
}

// TickAtOrAfter returns the worker's first tick at or after t.
func (c Clock) TickAtOrAfter(period time.Duration, t time.Time) time.Time {
	if period <= 0 {
		period = DefaultPeriod
	}
	first := c.First(period)
	if !t.After(first) {
		return first
	}
	d := t.Sub(first) // saturates for times centuries apart
	k := d / period
	if d%period != 0 {
		k++
	}
	if int64(k) > (1<<63-1)/int64(period) {
		return t // beyond what a Duration holds: no tick to name
	}
	return first.Add(time.Duration(k) * period)
}

// Instance is what a probe worker sees of one container instance through
// the status manager's cached status.
type Instance struct {
	// StartedAt is the instance's start as the runtime reports it; the
	// status manager keeps it to the whole second (status_manager.go
	// normalizeStatus), and the worker measures initialDelaySeconds from
	// that, so StartedAt is cut to the second here.
	StartedAt time.Time
	// Seen is when the cached status first shows the instance running,
	// with started true for a liveness or readiness probe (the sync after
	// the PLEG relist that saw it start; for a container with a startup
	// probe, when that probe succeeded). A worker's tick before Seen
	// probes nothing. Zero: StartedAt.
	Seen time.Time
}

// FirstProbe returns when the worker first runs its probe against the
// instance: its first tick at or after both Seen and the whole-second
// StartedAt plus initialDelaySeconds. It mirrors worker.go doProbe (the
// checks before w.probeManager.prober.probe: no container ID, not
// running, int32(time.Since(startedAt).Seconds()) < InitialDelaySeconds,
// not started) on the ticks of worker.go run. Manual runs (a readiness
// worker triggered by prober_manager.go UpdatePodStatus) are not ticks:
// see EarliestProbe.
func FirstProbe(t Timing, c Clock, in Instance) time.Time {
	t = t.orDefault()
	return c.TickAtOrAfter(t.Period, EarliestProbe(t, in))
}

// EarliestProbe returns the earliest time the worker's checks let a probe
// of the instance run: the later of Seen and the whole-second StartedAt
// plus initialDelaySeconds (worker.go doProbe). A worker's ticks, or for a
// readiness probe a manual run, decide when at or after it the probe runs.
func EarliestProbe(t Timing, in Instance) time.Time {
	t = t.orDefault()
	seen := in.Seen
	if seen.IsZero() {
		seen = in.StartedAt
	}
	ready := in.StartedAt.Truncate(time.Second).Add(t.InitialDelay)
	if seen.After(ready) {
		return seen
	}
	return ready
}

// Commit returns when the worker commits a result after n probes in a row
// give it, the first starting at first, each taking took (0: the answer
// comes at once; the probe's timeout for one that hangs: the kubelet
// counts it a failure then; longer is cut to the timeout). Probes start on
// the worker's ticks, every period; a probe that outlasts the period makes
// the next one start as it ends, because the ticker drops the ticks
// missed meanwhile and keeps one (worker.go run, doProbe's resultRun and
// its thresholds). n below 1 is 1.
func Commit(t Timing, first time.Time, n int32, took time.Duration) time.Time {
	t = t.orDefault()
	took = min(max(took, 0), t.Timeout)
	if n < 1 {
		n = 1
	}
	step := t.Period
	if took >= t.Period {
		step = took
	}
	return first.Add(mulSat(time.Duration(n-1), step)).Add(took)
}

// mulSat is a × b, held at the largest Duration instead of overflowing
// (both are not negative here).
func mulSat(a, b time.Duration) time.Duration {
	if a != 0 && b > (1<<63-1)/a {
		return 1<<63 - 1
	}
	return a * b
}

// Schedule is when a probe worker acts on one container instance.
type Schedule struct {
	// FirstProbe is when the worker first probes the instance.
	FirstProbe time.Time
	// Fail is when a probe that fails every time, at once, is committed
	// as Failure (failureThreshold failures in a row): for a liveness or
	// startup probe, the sync that kills the container.
	Fail time.Time
	// FailHanging is the same for a probe that hangs until its timeout
	// every time.
	FailHanging time.Time
	// Succeed is when a probe that succeeds every time is committed as
	// Success (successThreshold successes in a row): for a startup probe,
	// when the container counts as started; for readiness, when it is
	// ready (a manual run can come earlier: see EarliestProbe).
	Succeed time.Time
}

// ScheduleOf returns the worker's schedule for the instance: FirstProbe,
// then Commit for each outcome. It mirrors worker.go run and doProbe for a
// probe whose every run gives the same result.
func ScheduleOf(t Timing, c Clock, in Instance) Schedule {
	t = t.orDefault()
	first := FirstProbe(t, c, in)
	return Schedule{
		FirstProbe:  first,
		Fail:        Commit(t, first, t.FailureThreshold, 0),
		FailHanging: Commit(t, first, t.FailureThreshold, t.Timeout),
		Succeed:     Commit(t, first, t.SuccessThreshold, 0),
	}
}
