package node

import (
	"context"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/clock"
)

// The kubelet's client rate limit (pkg/kubelet/apis/config/v1beta1/
// defaults.go SetDefaults_KubeletConfiguration: kubeAPIQPS 50,
// kubeAPIBurst 100) and its status manager's sweep period
// (pkg/kubelet/status/status_manager.go syncPeriod).
const (
	DefaultQPS        = 50
	DefaultBurst      = 100
	statusSyncPeriod  = 10 * time.Second
	statusQueueLogMax = 5 // failed writes logged per pod before the log goes quiet
)

// statusQueue is one node's status manager (pkg/kubelet/status/
// status_manager.go): the engine's newest status per pod is kept
// (SetPodStatus's cache, with a version), and one goroutine writes the
// pods whose newest status is not written yet, one after the other
// (syncBatch over podStatusChannel: a pod's older statuses that were not
// written yet are never written, only its newest), each write a GET, the
// merge and a PATCH of the status subresource with the UID precondition
// (syncPod, mergePodStatus, PatchPodStatus), then the final delete when
// the kubelet may delete the object (canBeDeleted). Every request waits
// for the rate limiter first, as client-go's limiter makes the kubelet's
// client wait (kubeAPIQPS, kubeAPIBurst). Every 10 s it sweeps all pods
// (syncBatch with all=true): a status whose write failed is written again,
// and so is one the API object no longer shows in the fields the kubelet
// owns (needsReconcile: another client patched the container statuses or
// the phase; the conditions the kubelet does not own are other clients'
// and are kept).
type statusQueue struct {
	client  kubernetes.Interface
	clock   clock.Clock
	limiter flowcontrol.RateLimiter
	logf    func(format string, args ...any)
	hostIP  string
	// store is the informer's store of the node's pods: the pod manager's
	// view that needsReconcile compares with (nil until the driver runs).
	store cache.Store

	mu    sync.Mutex
	pods  map[types.UID]*statusEntry
	queue []types.UID
	kick  chan struct{}
	// sets and patches count the statuses the engine gave and the status
	// PATCHes sent.
	sets, patches int
}

// statusEntry is the status manager's record of one pod.
type statusEntry struct {
	namespace, name string
	uid             types.UID
	// status is the engine's newest status (the status manager's cache);
	// podIP, sandboxUp and hostNetwork complete it (statusToWrite).
	status      v1.PodStatus
	hostNetwork bool
	podIP       string
	sandboxUp   bool
	// version counts the statuses set; written is the version last
	// written (the status manager's apiStatusVersions).
	version, written int
	// del: the kubelet deletes the object once its status is written
	// (canBeDeleted); deleted once that delete was sent.
	del, deleted bool
	queued       bool
	failures     int
}

func newStatusQueue(client kubernetes.Interface, clk clock.Clock, qps float32, burst int, hostIP string, logf func(string, ...any)) *statusQueue {
	q := &statusQueue{client: client, clock: clk, logf: logf, hostIP: hostIP,
		pods: map[types.UID]*statusEntry{}, kick: make(chan struct{}, 1)}
	if qps > 0 {
		if burst < 1 {
			burst = 1
		}
		q.limiter = flowcontrol.NewTokenBucketRateLimiter(qps, burst)
	}
	return q
}

// set is SetPodStatus: pod's newest status st (the engine's), with the
// pod IP the driver gave the pod and whether its sandbox is up.
func (q *statusQueue) set(pod *v1.Pod, st v1.PodStatus, podIP string, sandboxUp bool) {
	q.mu.Lock()
	e := q.entry(pod)
	e.status = st
	e.podIP, e.sandboxUp = podIP, sandboxUp
	e.version++
	q.sets++
	q.enqueue(e)
	q.mu.Unlock()
	q.wake()
}

// requestDelete notes that the kubelet may delete pod's object once its
// newest status is written (the engine's APIDeleted or APIDeleteHeld).
func (q *statusQueue) requestDelete(pod *v1.Pod) {
	q.mu.Lock()
	e := q.entry(pod)
	e.del = true
	q.enqueue(e)
	q.mu.Unlock()
	q.wake()
}

// forget drops a pod (RemoveOrphanedStatuses).
func (q *statusQueue) forget(uid types.UID) {
	q.mu.Lock()
	delete(q.pods, uid)
	q.mu.Unlock()
}

// cached is the newest status of the pod the engine gave (the status
// manager's GetPodStatus), with the node's IPs as written; false when none.
func (q *statusQueue) cached(uid types.UID) (v1.PodStatus, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.pods[uid]
	if e == nil || e.version == 0 {
		return v1.PodStatus{}, false
	}
	return *e.status.DeepCopy(), true
}

// counts are sets and patches.
func (q *statusQueue) counts() (sets, patches int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.sets, q.patches
}

func (q *statusQueue) entry(pod *v1.Pod) *statusEntry {
	e := q.pods[pod.UID]
	if e == nil {
		e = &statusEntry{namespace: pod.Namespace, name: pod.Name, uid: pod.UID}
		q.pods[pod.UID] = e
	}
	e.hostNetwork = pod.Spec.HostNetwork
	return e
}

func (q *statusQueue) enqueue(e *statusEntry) {
	if !e.queued {
		e.queued = true
		q.queue = append(q.queue, e.uid)
	}
}

func (q *statusQueue) wake() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// run writes until ctx ends: the queued pods as they come, and every
// statusSyncPeriod a sweep of all pods (syncBatch).
func (q *statusQueue) run(ctx context.Context) {
	next := q.clock.Now().Add(statusSyncPeriod)
	for {
		q.drain(ctx)
		t := q.clock.NewTimer(next.Sub(q.clock.Now()))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-q.kick:
		case <-t.C():
			q.sweep()
			next = next.Add(statusSyncPeriod)
			if now := q.clock.Now(); next.Before(now) {
				next = now.Add(statusSyncPeriod)
			}
		}
		t.Stop()
	}
}

// drain writes the queued pods, oldest first, each with its newest status.
func (q *statusQueue) drain(ctx context.Context) {
	for ctx.Err() == nil {
		q.mu.Lock()
		if len(q.queue) == 0 {
			q.mu.Unlock()
			return
		}
		uid := q.queue[0]
		q.queue = q.queue[1:]
		e := q.pods[uid]
		if e == nil {
			q.mu.Unlock()
			continue
		}
		e.queued = false
		snap := *e
		snap.status = *e.status.DeepCopy()
		q.mu.Unlock()

		ok := q.sync(ctx, &snap)
		q.mu.Lock()
		if cur := q.pods[uid]; cur != nil {
			if ok {
				cur.written = max(cur.written, snap.version)
				cur.deleted = cur.deleted || snap.deleted
				cur.failures = 0
			} else {
				cur.failures++
			}
		}
		q.mu.Unlock()
	}
}

// sweep is syncBatch with all=true: every pod whose newest status is not
// written, whose delete is not sent, or whose API object differs from it
// in what the kubelet owns (needsReconcile) is queued again.
func (q *statusQueue) sweep() {
	q.mu.Lock()
	for _, e := range q.pods {
		if e.version == 0 && !e.del {
			continue
		}
		if e.written < e.version || (e.del && !e.deleted) || q.needsReconcile(e) {
			q.enqueue(e)
		}
	}
	q.mu.Unlock()
}

// needsReconcile is status_manager.go needsReconcile: the pod as the
// informer holds it shows a status other than the one the kubelet would
// write now (isPodStatusByKubeletEqual over the merge: the conditions the
// kubelet does not own are not compared).
func (q *statusQueue) needsReconcile(e *statusEntry) bool {
	if q.store == nil || e.version == 0 {
		return false
	}
	obj, ok, err := q.store.GetByKey(e.namespace + "/" + e.name)
	if err != nil || !ok {
		return false
	}
	pod, isPod := obj.(*v1.Pod)
	if !isPod || pod.UID != e.uid {
		return false
	}
	want := statusToWrite(e.status, pod.Status, e.hostNetwork, q.hostIP, e.podIP, e.sandboxUp)
	_, unchanged, err := statusPatch(pod.UID, pod.Status, want)
	return err == nil && !unchanged
}

// sync is status_manager.go syncPod for one entry: true when done (written,
// or nothing to write because the object is gone or replaced).
func (q *statusQueue) sync(ctx context.Context, e *statusEntry) bool {
	pods := q.client.CoreV1().Pods(e.namespace)
	if !q.wait(ctx) {
		return false
	}
	cur, err := pods.Get(ctx, e.name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		q.fail(e, "get before status patch", err)
		return false
	}
	if err != nil || cur.UID != e.uid {
		// Gone, or replaced by a pod of the same name: nothing of this
		// pod is left to write or delete.
		e.deleted = true
		return true
	}
	if e.version > 0 {
		next := statusToWrite(e.status, cur.Status, cur.Spec.HostNetwork, q.hostIP, e.podIP, e.sandboxUp)
		patch, unchanged, err := statusPatch(cur.UID, cur.Status, next)
		if err != nil {
			q.logf("pod %s/%s: status patch: %v", e.namespace, e.name, err)
			return true
		}
		if !unchanged {
			if !q.wait(ctx) {
				return false
			}
			q.mu.Lock()
			q.patches++
			q.mu.Unlock()
			if _, err := pods.Patch(ctx, cur.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
				if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
					return true
				}
				q.fail(e, "status patch", err)
				return false
			}
		}
	}
	if e.del && !e.deleted {
		if !q.wait(ctx) {
			return false
		}
		zero := int64(0)
		err := pods.Delete(ctx, e.name, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: metav1.NewUIDPreconditions(string(e.uid))})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			q.fail(e, "delete", err)
			return false
		}
		e.deleted = true
	}
	return true
}

// wait takes a token of the rate limiter (none: no limit); false when ctx
// ended first.
func (q *statusQueue) wait(ctx context.Context) bool {
	if q.limiter == nil {
		return ctx.Err() == nil
	}
	return q.limiter.Wait(ctx) == nil
}

func (q *statusQueue) fail(e *statusEntry, what string, err error) {
	if e.failures < statusQueueLogMax {
		q.logf("pod %s/%s: %s: %v (written again at the next sweep)", e.namespace, e.name, what, err)
	}
}
