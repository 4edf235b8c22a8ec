package termination

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// WorkType is the pod worker's view of a pod (PodWorkerState,
// pkg/kubelet/pod_workers.go).
type WorkType int

// The pod worker states.
const (
	// SyncPod: the pod should be started and kept running (SyncPod runs).
	SyncPod WorkType = iota
	// TerminatingPod: termination was requested; containers are being
	// stopped (SyncTerminatingPod runs).
	TerminatingPod
	// TerminatedPod: every container has stopped; resources are being
	// released (SyncTerminatedPod runs).
	TerminatedPod
)

func (w WorkType) String() string {
	switch w {
	case SyncPod:
		return "sync"
	case TerminatingPod:
		return "terminating"
	case TerminatedPod:
		return "terminated"
	}
	return fmt.Sprintf("WorkType(%d)", int(w))
}

// WorkerState is what the pod worker remembers about one pod UID: the
// fields of the kubelet's podSyncStatus (pkg/kubelet/pod_workers.go) that
// decisions read. A nil *WorkerState is a pod the worker does not know.
type WorkerState struct {
	// TerminatingAt is when termination was requested (zero: not yet).
	TerminatingAt time.Time
	// TerminatedAt is when SyncTerminatingPod succeeded (zero: not yet).
	TerminatedAt time.Time
	// StartedTerminating is true once the worker has observed the request
	// (no container will be started any more).
	StartedTerminating bool
	// Deleted: deleted on the API server, or an orphaned runtime pod.
	Deleted bool
	// Evicted: the kill request was an eviction.
	Evicted bool
	// Finished: SyncTerminatedPod succeeded; the UID is never synced again
	// until housekeeping forgets it.
	Finished bool
	// RestartRequested: a create for the same UID arrived while terminating.
	RestartRequested bool
	// ObservedRuntime: an orphaned runtime pod of this UID was seen.
	ObservedRuntime bool
	// GracePeriod is the effective grace stored while terminating
	// (0: none yet).
	GracePeriod int64
}

// WorkType mirrors podSyncStatus.WorkType: terminated once TerminatedAt is
// set, else terminating once TerminatingAt is set, else sync. A nil state
// reads as sync.
func (s *WorkerState) WorkType() WorkType {
	switch {
	case s == nil:
		return SyncPod
	case !s.TerminatedAt.IsZero():
		return TerminatedPod
	case !s.TerminatingAt.IsZero():
		return TerminatingPod
	}
	return SyncPod
}

func (s *WorkerState) terminationRequested() bool { return s != nil && !s.TerminatingAt.IsZero() }
func (s *WorkerState) terminated() bool           { return s != nil && !s.TerminatedAt.IsZero() }

// UpdateType is the kind of update the kubelet hands to the pod worker
// (kubetypes.SyncPodType).
type UpdateType string

// The update types.
const (
	UpdateSync   UpdateType = "sync"
	UpdateUpdate UpdateType = "update"
	UpdateCreate UpdateType = "create"
	UpdateKill   UpdateType = "kill"
)

// Update is one call of the pod worker's UpdatePod.
type Update struct {
	Type UpdateType
	// Pod is the pod as the kubelet's config knows it.
	Pod *v1.Pod
	// RuntimeOnly is true for an update that carries only a running pod
	// (RunningPod set, Pod nil): an orphan the kubelet has no config for.
	// Pod may then hold the spec the worker already has for the UID (its
	// pending or active update), which the kubelet uses for the grace
	// period; leave it nil when the worker has none.
	RuntimeOnly bool
	// Kill holds the kill options, or nil.
	Kill *KillRequest
	// Cached is the pod cache's runtime state for the UID, read only when
	// the worker meets a pod in a terminal API phase for the first time.
	// nil means the cache has no entry, which the kubelet's cache answers
	// with an empty state (nothing running). CacheErr means the entry holds
	// an error instead.
	Cached   *runtimestate.Pod
	CacheErr bool
}

// KillRequest are the KillPodOptions of an update.
type KillRequest struct {
	// GracePeriodOverride is PodTerminationGracePeriodSecondsOverride.
	GracePeriodOverride *int64
	// Evict marks an eviction.
	Evict bool
	// HasStatusFunc is true when the request carries a PodStatusFunc
	// (eviction, preemption, node shutdown). SyncTerminatingPod applies the
	// last one registered.
	HasStatusFunc bool
}

// UpdateOutcome says what UpdatePod did with an update.
type UpdateOutcome string

// The outcomes.
const (
	// Queued: the update becomes the pending work of the worker.
	Queued UpdateOutcome = "queued"
	// IgnoredRuntimeNotKill: a runtime-only update that is not a kill.
	IgnoredRuntimeNotKill UpdateOutcome = "ignored: runtime pods can only be killed"
	// IgnoredRestartRequested: a create while terminating; remembered in
	// RestartRequested.
	IgnoredRestartRequested UpdateOutcome = "ignored: restart requested while terminating"
	// IgnoredFinished: the pod is finished.
	IgnoredFinished UpdateOutcome = "ignored: finished"
	// IgnoredTerminatedRuntimeKill: a runtime-only kill of a terminated pod.
	IgnoredTerminatedRuntimeKill UpdateOutcome = "ignored: runtime kill of a terminated pod"
)

// UpdateResult is the state after UpdatePod and what it decided.
type UpdateResult struct {
	// State is the new state; nil when the worker still does not know the
	// pod (an ignored runtime update of an unknown UID).
	State   *WorkerState
	Outcome UpdateOutcome
	// BecameTerminating is true when this update requested termination.
	BecameTerminating bool
	// GracePeriodShortened is true when the effective grace got shorter.
	GracePeriodShortened bool
	// GracePeriodOverride is the grace SyncTerminatingPod will get for this
	// update (set only while terminating and not terminated; never below 1).
	GracePeriodOverride *int64
	// KillCompleted is true when the kill request is answered at once (the
	// pod is terminated, or still syncing and the options are dropped).
	KillCompleted bool
	// StatusFuncKept is true when the request's status function was
	// registered for SyncTerminatingPod.
	StatusFuncKept bool
	// CancelsSync is true when a sync in progress is cancelled so that the
	// worker turns to termination (or restarts it with a shorter grace).
	CancelsSync bool
}

// UpdatePod mirrors podWorkers.UpdatePod (pkg/kubelet/pod_workers.go): how
// one update changes what the worker knows about a pod. prev is the state
// before (nil: unknown UID); it is not modified. now stamps TerminatingAt.
// The new state is prev itself when the update leaves it as it was (a
// state is a value its holders replace, never change in place).
//
// In the kubelet's order:
//  1. a runtime-only update that is not a kill is ignored;
//  2. an unknown UID gets a state; when the pod's API phase is Succeeded or
//     Failed and the cached runtime state (Update.Cached) has no running
//     container and no ready sandbox, it starts out terminated (a kubelet
//     restart found it);
//  3. a create of a known UID that is terminating only sets RestartRequested;
//  4. a finished pod ignores everything;
//  5. termination is requested by an orphan (deleted), a deletionTimestamp
//     (deleted), a terminal API phase, or a kill (evicted when Evict);
//  6. a terminated pod ignores runtime-only kills and answers kills at once;
//     a terminating one stores EffectiveGracePeriod and passes it down;
//     a syncing one drops kill options.
//
// Worker goroutines, channels and the static-pod start order are not
// modelled. No gate changes the outcome.
func UpdatePod(prev *WorkerState, u Update, now time.Time, f features.Set) UpdateResult {
	if u.RuntimeOnly && u.Type != UpdateKill {
		return UpdateResult{State: prev, Outcome: IgnoredRuntimeNotKill}
	}
	var s WorkerState
	res := updatePod(&s, prev, u, now, f)
	res.State = keep(prev, &s)
	return res
}

// updatePod is UpdatePod writing the new state to s; the result's State
// is left to UpdatePod.
func updatePod(s, prev *WorkerState, u Update, now time.Time, f features.Set) UpdateResult {
	firstTime := prev == nil
	if prev != nil {
		*s = *prev
	} else if !u.RuntimeOnly && u.Pod != nil &&
		(u.Pod.Status.Phase == v1.PodFailed || u.Pod.Status.Phase == v1.PodSucceeded) &&
		!u.CacheErr && cacheTerminal(u.Cached) {
		*s = WorkerState{TerminatingAt: now, TerminatedAt: now, StartedTerminating: true}
	}
	res := UpdateResult{Outcome: Queued}

	pod := u.Pod
	if pod == nil {
		pod = &v1.Pod{}
	}
	if u.RuntimeOnly {
		s.ObservedRuntime = true
	}
	if !firstTime && s.terminationRequested() && u.Type == UpdateCreate {
		s.RestartRequested = true
		res.Outcome = IgnoredRestartRequested
		return res
	}
	if s.Finished {
		res.Outcome = IgnoredFinished
		return res
	}
	if !s.terminationRequested() {
		switch {
		case u.RuntimeOnly:
			s.Deleted, s.TerminatingAt, res.BecameTerminating = true, now, true
		case pod.DeletionTimestamp != nil:
			s.Deleted, s.TerminatingAt, res.BecameTerminating = true, now, true
		case pod.Status.Phase == v1.PodFailed, pod.Status.Phase == v1.PodSucceeded:
			s.TerminatingAt, res.BecameTerminating = now, true
		case u.Type == UpdateKill:
			if u.Kill != nil && u.Kill.Evict {
				s.Evicted = true
			}
			s.TerminatingAt, res.BecameTerminating = now, true
		}
	}
	switch {
	case s.terminated():
		if u.RuntimeOnly {
			res.Outcome = IgnoredTerminatedRuntimeKill
			return res
		}
		res.KillCompleted = u.Kill != nil
	case s.terminationRequested():
		var override *int64
		if u.Kill != nil {
			override = u.Kill.GracePeriodOverride
			res.StatusFuncKept = u.Kill.HasStatusFunc
		}
		g, shortened := EffectiveGracePeriod(s.GracePeriod, pod, override, f)
		s.GracePeriod = g
		res.GracePeriodShortened = shortened
		res.GracePeriodOverride = &g
	default:
		res.KillCompleted = u.Kill != nil
	}
	res.CancelsSync = res.BecameTerminating || res.GracePeriodShortened
	return res
}

// cacheTerminal mirrors isPodStatusCacheTerminal: no running container and
// no ready sandbox.
func cacheTerminal(st *runtimestate.Pod) bool {
	if st == nil {
		return true
	}
	for _, c := range st.Containers {
		if c.State == runtimestate.Running {
			return false
		}
	}
	for _, sb := range st.Sandboxes {
		if sb.Ready {
			return false
		}
	}
	return true
}

func copyState(s *WorkerState) *WorkerState {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// keep is the new state s as a pointer: prev itself when s equals it (a
// state is a value its holders replace, never change in place), so that
// an update or a sync that changes nothing allocates nothing.
func keep(prev *WorkerState, s *WorkerState) *WorkerState {
	if prev != nil && *prev == *s {
		return prev
	}
	return copyState(s)
}

// SyncResult is how one run of the worker's sync function ended.
type SyncResult struct {
	// Err is true when it returned an error (including a cancellation):
	// the state does not move and the work is retried.
	Err bool
	// Terminal is SyncPod's isTerminal result (the pod reached a terminal
	// phase on its own).
	Terminal bool
}

// Complete mirrors what podWorkerLoop does after a sync function returns
// without error (pkg/kubelet/pod_workers.go): from sync with a terminal
// result, completeSync (TerminatingAt, StartedTerminating); from terminating,
// completeTerminating (TerminatedAt), or completeTerminatingRuntimePod for
// an orphan (runtimeOnly; the worker then forgets the pod: nil); from
// terminated, completeTerminated (Finished). An error leaves the state as
// it is. s is not modified; a nil s gives nil, and the result is s itself
// when nothing changes.
func Complete(s *WorkerState, r SyncResult, runtimeOnly bool, now time.Time, f features.Set) *WorkerState {
	_ = f
	if s == nil {
		return nil
	}
	if r.Err {
		return s
	}
	out := *s
	switch s.WorkType() {
	case TerminatedPod:
		out.Finished = true
	case TerminatingPod:
		if runtimeOnly {
			return nil
		}
		out.TerminatedAt = now
	default:
		if r.Terminal {
			if out.TerminatingAt.IsZero() {
				out.TerminatingAt = now
			}
			out.StartedTerminating = true
		}
	}
	return keep(s, &out)
}

// AcknowledgeTerminating mirrors acknowledgeTerminating: when the worker
// picks up terminating work it marks StartedTerminating. s is not modified
// (the result is s itself when it was marked already).
func AcknowledgeTerminating(s *WorkerState) *WorkerState {
	if s == nil {
		return nil
	}
	out := *s
	if !out.TerminatingAt.IsZero() {
		out.StartedTerminating = true
	}
	return keep(s, &out)
}

// Queries are the pod worker's answers to the rest of the kubelet about one
// pod (pkg/kubelet/pod_workers.go, IsPodKnownTerminated through
// ShouldPodContentBeRemoved). PodsSynced is whether the worker has synced
// the known pods once (SyncKnownPods ran): unknown pods are then known to
// have nothing running.
type Queries struct {
	IsPodKnownTerminated             bool
	CouldHaveRunningContainers       bool
	ShouldPodBeFinished              bool
	IsPodTerminationRequested        bool
	ShouldPodContainersBeTerminating bool
	ShouldPodRuntimeBeRemoved        bool
	ShouldPodContentBeRemoved        bool
}

// String lists the queries that answer true, by the kubelet's method
// names ("CouldHaveRunningContainers, ShouldPodContainersBeTerminating"),
// or "none".
func (q Queries) String() string {
	var on []string
	for _, e := range []struct {
		v    bool
		name string
	}{
		{q.IsPodKnownTerminated, "IsPodKnownTerminated"},
		{q.CouldHaveRunningContainers, "CouldHaveRunningContainers"},
		{q.ShouldPodBeFinished, "ShouldPodBeFinished"},
		{q.IsPodTerminationRequested, "IsPodTerminationRequested"},
		{q.ShouldPodContainersBeTerminating, "ShouldPodContainersBeTerminating"},
		{q.ShouldPodRuntimeBeRemoved, "ShouldPodRuntimeBeRemoved"},
		{q.ShouldPodContentBeRemoved, "ShouldPodContentBeRemoved"},
	} {
		if e.v {
			on = append(on, e.name)
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ", ")
}

// Query mirrors the pod worker's query methods for a pod in state s (nil:
// unknown to the worker).
func Query(s *WorkerState, podsSynced bool, f features.Set) Queries {
	_ = f
	if s == nil {
		return Queries{
			CouldHaveRunningContainers:       !podsSynced,
			ShouldPodBeFinished:              podsSynced,
			ShouldPodContainersBeTerminating: podsSynced,
			ShouldPodRuntimeBeRemoved:        podsSynced,
			ShouldPodContentBeRemoved:        podsSynced,
		}
	}
	return Queries{
		IsPodKnownTerminated:             s.terminated(),
		CouldHaveRunningContainers:       !s.terminated(),
		ShouldPodBeFinished:              s.Finished,
		IsPodTerminationRequested:        s.terminationRequested(),
		ShouldPodContainersBeTerminating: s.StartedTerminating,
		ShouldPodRuntimeBeRemoved:        s.terminated(),
		ShouldPodContentBeRemoved:        s.Evicted || (s.Deleted && s.terminated()),
	}
}

// String renders the state on one line.
func (s *WorkerState) String() string {
	if s == nil {
		return "unknown"
	}
	parts := []string{s.WorkType().String()}
	for _, b := range []struct {
		on   bool
		name string
	}{
		{s.StartedTerminating, "startedTerminating"}, {s.Deleted, "deleted"}, {s.Evicted, "evicted"},
		{s.Finished, "finished"}, {s.RestartRequested, "restartRequested"}, {s.ObservedRuntime, "observedRuntime"},
	} {
		if b.on {
			parts = append(parts, b.name)
		}
	}
	if s.GracePeriod != 0 {
		parts = append(parts, fmt.Sprintf("grace=%ds", s.GracePeriod))
	}
	return strings.Join(parts, " ")
}
