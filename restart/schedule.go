package restart

import (
	"fmt"
	"regexp"
	"time"

	v1 "k8s.io/api/core/v1"
)

// String renders the configuration as "initial 10s, max 5m0s".
func (cfg BackOffConfig) String() string {
	return fmt.Sprintf("initial %s, max %s", cfg.Initial, cfg.Max)
}

// ScheduledRestart is one restart of a crash-looping container, as offsets
// from the container's first start.
type ScheduledRestart struct {
	// N counts restarts from 1 (the container's restartCount after it).
	N int
	// Exit is when the instance before it exited; Start when the kubelet
	// may start the next one at the earliest (Exit plus Wait).
	Exit, Start time.Duration
	// Wait is the back-off the kubelet waited (0 for the first restart and
	// after the record expired); Delay is the record's delay after the
	// restart, i.e. the next wait.
	Wait, Delay time.Duration
}

func (r ScheduledRestart) String() string {
	return fmt.Sprintf("restart %d: exit at %s, start at %s (waited %s)", r.N, r.Exit, r.Start, r.Wait)
}

// Schedule returns the first n restarts of a container that runs for
// runFor, then exits and is restarted (its restart policy says so), under
// this back-off. It applies Decide's rule at each exit: start at once when
// there is no live record, else wait out the record's delay; then Next
// advances the record (and GC drops a record older than BackOffResetAfter).
//
// These are the earliest times. A real kubelet starts each restart after
// its next sync: the pod worker's requeue after a back-off adds up to
// half the delay again of jitter plus PLEG latency (see the replay tests
// and ../shared/kubelet-time-map.md in the project); the first restart
// also waits for the relist that sees the exit. n <= 0 gives nil; a
// negative runFor counts as 0.
func (cfg BackOffConfig) Schedule(n int, runFor time.Duration) []ScheduledRestart {
	if n <= 0 {
		return nil
	}
	runFor = max(runFor, 0)
	epoch := time.Unix(0, 0)
	var e BackOffEntry
	start := time.Duration(0)
	out := make([]ScheduledRestart, 0, n)
	for k := 1; k <= n; k++ {
		exit := start + runFor
		at := exit
		wait := time.Duration(0)
		if e = e.GC(epoch.Add(exit)); e.InBackOff(epoch.Add(exit), epoch.Add(exit)) {
			wait = e.Delay
			at = exit + wait
		}
		e = cfg.Next(e.GC(epoch.Add(at)), epoch.Add(exit), epoch.Add(at))
		out = append(out, ScheduledRestart{N: k, Exit: exit, Start: at, Wait: wait, Delay: e.Delay})
		start = at
	}
	return out
}

// backOffMessage matches the delay in the kubelet's CrashLoopBackOff
// message ("back-off 40s restarting failed container=…").
var backOffMessage = regexp.MustCompile(`^back-off (\S+) restarting failed`)

// EntrySource says how EntryFromStatus found the delay.
type EntrySource string

const (
	// FromMessage: the delay is the one in the CrashLoopBackOff message,
	// which the kubelet wrote from its record: exact.
	FromMessage EntrySource = "CrashLoopBackOff message"
	// FromRestartCount: no message; the delay is the one restartCount
	// consecutive restarts reach when the record never expired (an
	// estimate: a container that ran for more than BackOffResetAfter
	// between two exits started over from the initial delay).
	FromRestartCount EntrySource = "restartCount"
	// NoEntry: the container never restarted, so the kubelet holds no
	// record.
	NoEntry EntrySource = "no restart"
)

// EntryFromStatus rebuilds the kubelet's back-off record for a container
// from its API status (what `kubectl get pod -o yaml` shows), for when the
// runtime's instance history is not at hand. The delay comes from the
// waiting message when the container is in CrashLoopBackOff (exact), else
// from restartCount (see EntrySource). LastUpdate is when the kubelet last
// advanced the record, which is when it started the newest instance: the
// running or terminated state's startedAt, else lastState's. The kubelet
// advances the record moments before the start, so LastUpdate may be late
// by the create call's latency. A nil status gives no record.
func (cfg BackOffConfig) EntryFromStatus(cs *v1.ContainerStatus) (BackOffEntry, EntrySource) {
	if cs == nil || cs.RestartCount <= 0 {
		return BackOffEntry{}, NoEntry
	}
	var e BackOffEntry
	switch {
	case cs.State.Running != nil:
		e.LastUpdate = cs.State.Running.StartedAt.Time
	case cs.State.Terminated != nil:
		e.LastUpdate = cs.State.Terminated.StartedAt.Time
	case cs.LastTerminationState.Terminated != nil:
		e.LastUpdate = cs.LastTerminationState.Terminated.StartedAt.Time
	}
	if w := cs.State.Waiting; w != nil && w.Reason == "CrashLoopBackOff" {
		if m := backOffMessage.FindStringSubmatch(w.Message); m != nil {
			if d, err := time.ParseDuration(m[1]); err == nil && d > 0 {
				e.Delay = d
				return e, FromMessage
			}
		}
	}
	e.Delay = cfg.Initial
	for i := int32(1); i < cs.RestartCount && e.Delay < cfg.Max; i++ {
		e.Delay = min(2*e.Delay, cfg.Max)
	}
	return e, FromRestartCount
}
