// Adapter for the kubeletlogic differential tests (termination); written for
// this project. Added to the vendored package only through `go test -overlay`.

package kubelet

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet/allocation"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	testingclock "k8s.io/utils/clock/testing"
)

// KLTerminationEffectiveGracePeriod calls calculateEffectiveGracePeriod with
// a sync status whose stored grace period is previous.
func KLTerminationEffectiveGracePeriod(previous int64, pod *v1.Pod, override *int64) (int64, bool) {
	var opts *KillPodOptions
	if override != nil {
		opts = &KillPodOptions{PodTerminationGracePeriodSecondsOverride: override}
	}
	return calculateEffectiveGracePeriod(&podSyncStatus{gracePeriod: previous}, pod, opts)
}

// KLTermWorkerState copies the podSyncStatus fields kubeletlogic models.
type KLTermWorkerState struct {
	TerminatingAt, TerminatedAt time.Time
	StartedTerminating          bool
	Deleted, Evicted, Finished  bool
	RestartRequested            bool
	ObservedRuntime             bool
	GracePeriod                 int64
}

// KLTermUpdate is one UpdatePod call.
type KLTermUpdate struct {
	UpdateType    kubetypes.SyncPodType
	Pod           *v1.Pod
	RunningPod    *kubecontainer.Pod // with Pod nil: an orphan
	KnownPod      *v1.Pod            // the worker's pending update pod for a runtime-only kill
	HasKill       bool
	Override      *int64
	Evict         bool
	HasStatusFunc bool
	Cached        *kubecontainer.PodStatus // nil: no cache entry
	CacheErr      error
}

// KLTermUpdateResult is what UpdatePod left behind.
type KLTermUpdateResult struct {
	Known          bool
	State          KLTermWorkerState
	HasPending     bool
	Override       *int64 // pending update's KillPodOptions override
	KillCompleted  bool   // CompletedCh closed
	StatusFuncKept bool
}

// klStubAllocation answers UpdatePodFromAllocation with the pod unchanged;
// UpdatePod calls nothing else.
type klStubAllocation struct{ allocation.Manager }

func (klStubAllocation) UpdatePodFromAllocation(pod *v1.Pod) (*v1.Pod, bool) { return pod, false }

type klStubCache struct {
	kubecontainer.Cache
	status *kubecontainer.PodStatus
	err    error
}

func (c klStubCache) Get(id types.UID) (*kubecontainer.PodStatus, error) {
	if c.status == nil && c.err == nil {
		return &kubecontainer.PodStatus{ID: id}, nil
	}
	return c.status, c.err
}

// KLTerminationUpdatePod runs UpdatePod on a pod worker whose state for uid
// is prev (nil: unknown). The worker's update channel for uid is created
// beforehand, so that no worker goroutine starts and nothing but UpdatePod's
// own bookkeeping runs.
func KLTerminationUpdatePod(uid types.UID, prev *KLTermWorkerState, u KLTermUpdate, now time.Time) KLTermUpdateResult {
	p := &podWorkers{
		podSyncStatuses:                    map[types.UID]*podSyncStatus{},
		podUpdates:                         map[types.UID]chan struct{}{uid: make(chan struct{}, 1)},
		startedStaticPodsByFullname:        map[string]types.UID{},
		waitingToStartStaticPodsByFullname: map[string][]types.UID{},
		podCache:                           klStubCache{status: u.Cached, err: u.CacheErr},
		allocationManager:                  klStubAllocation{},
		clock:                              testingclock.NewFakePassiveClock(now),
	}
	var before *UpdatePodOptions
	if prev != nil {
		st := &podSyncStatus{
			terminatingAt: prev.TerminatingAt, terminatedAt: prev.TerminatedAt,
			startedTerminating: prev.StartedTerminating, deleted: prev.Deleted, evicted: prev.Evicted,
			finished: prev.Finished, restartRequested: prev.RestartRequested,
			observedRuntime: prev.ObservedRuntime, gracePeriod: prev.GracePeriod,
		}
		if u.KnownPod != nil {
			st.pendingUpdate = &UpdatePodOptions{Pod: u.KnownPod}
			before = st.pendingUpdate
		}
		p.podSyncStatuses[uid] = st
	}
	opts := UpdatePodOptions{UpdateType: u.UpdateType, Pod: u.Pod, RunningPod: u.RunningPod}
	var done chan struct{}
	if u.HasKill {
		done = make(chan struct{})
		opts.KillPodOptions = &KillPodOptions{CompletedCh: done, Evict: u.Evict, PodTerminationGracePeriodSecondsOverride: u.Override}
		if u.HasStatusFunc {
			opts.KillPodOptions.PodStatusFunc = func(*v1.PodStatus) {}
		}
	}
	klUpdatePod(p, opts)
	var out KLTermUpdateResult
	st, ok := p.podSyncStatuses[uid]
	if !ok {
		return out
	}
	out.Known = true
	out.State = KLTermWorkerState{
		TerminatingAt: st.terminatingAt, TerminatedAt: st.terminatedAt,
		StartedTerminating: st.startedTerminating, Deleted: st.deleted, Evicted: st.evicted,
		Finished: st.finished, RestartRequested: st.restartRequested,
		ObservedRuntime: st.observedRuntime, GracePeriod: st.gracePeriod,
	}
	if st.pendingUpdate != nil && st.pendingUpdate != before {
		out.HasPending = true
		if k := st.pendingUpdate.KillPodOptions; k != nil && k.PodTerminationGracePeriodSecondsOverride != nil {
			g := *k.PodTerminationGracePeriodSecondsOverride
			out.Override = &g
		}
	}
	if done != nil {
		select {
		case <-done:
			out.KillCompleted = true
		default:
		}
	}
	out.StatusFuncKept = len(st.statusPostTerminating) > 0
	return out
}
