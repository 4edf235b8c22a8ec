package node

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
)

// crashScript makes a pod's container app exit 1 one second after each
// start.
const crashScript = "apiVersion: kubeletlogic/v1alpha1\nkind: Script\ncontainers:\n  app:\n    runs:\n    - {exitAfter: 1s, exitCode: 1}\n"

// TestFaults runs issue 27's faults against the real control plane:
//
//   - node restarted: a crash-looping pod's node stops and a new one starts
//     (a restarted kubeletlogic-node): the pod is adopted from its API
//     status, its restart count goes on one per crash from where it was,
//     never repeating or dropping, and the first restart after the
//     adoption comes without the back-off the old process had built up;
//   - status reconciled: another client rewrites a running pod's phase
//     and container status through the status subresource; the node's
//     status manager writes its own back within its 10 s sweep, keeping
//     the other client's own condition;
//   - rate limit: a node with QPS 0.5 and burst 1 writes at most
//     1 + 0.5/s of status writes over 30 s, counted from a watch, while six
//     crash-looping pods would write more;
//   - API server restarted: kube-apiserver is stopped and started again
//     mid-run; the node's watch and writes resume (a pod created after the
//     restart runs), and a crash-looping pod's restart count goes on
//     monotonically, each count with one container ID, and ends equal to
//     the engine's.
func TestFaults(t *testing.T) {
	cp := controlplane.Start(t, controlplane.Options{
		Controllers: []string{"serviceaccount-controller", "root-ca-certificate-publisher-controller"}})
	c := cp.Client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := newPodLog(ctx, t, c)

	// The main node: the reconcile and the API server restart.
	main, stopMain := startNodes(t, ctx, c, "flt", Options{Logf: t.Logf})
	defer stopMain()

	t.Run("faults", func(t *testing.T) {
		t.Run("node restarted", func(t *testing.T) { t.Parallel(); nodeRestarted(ctx, t, c, logs) })
		t.Run("status reconciled", func(t *testing.T) { t.Parallel(); statusReconciled(ctx, t, c, main, logs) })
		t.Run("rate limit", func(t *testing.T) { t.Parallel(); rateLimited(ctx, t, c, logs) })
	})
	t.Run("API server restarted", func(t *testing.T) { apiServerRestarted(ctx, t, cp, main, logs) })
}

// startNodes runs a Standalone of one node <prefix>-0 until the returned
// stop is called (which waits for it to return).
func startNodes(t *testing.T, ctx context.Context, c kubernetes.Interface, prefix string, o Options) (*Standalone, func()) {
	t.Helper()
	specs, err := Numbered(prefix, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStandalone(c, specs, o)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = s.Run(runCtx); close(done) }()
	var once sync.Once
	return s, func() { once.Do(func() { stop(); <-done }) }
}

func createPod(ctx context.Context, t *testing.T, c kubernetes.Interface, name, nodeName, script string) *v1.Pod {
	t.Helper()
	return createPodWith(ctx, t, c, name, nodeName, script, v1.RestartPolicyAlways)
}

func createPodWith(ctx context.Context, t *testing.T, c kubernetes.Interface, name, nodeName, script string, rp v1.RestartPolicy) *v1.Pod {
	t.Helper()
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"faults": "yes"}},
		Spec: v1.PodSpec{NodeName: nodeName, TerminationGracePeriodSeconds: ptrTo(int64(1)), RestartPolicy: rp,
			Containers: []v1.Container{{Name: "app", Image: "busybox"}}},
	}
	if script != "" {
		pod.Annotations = map[string]string{ScriptAnnotation: script}
	}
	out, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// seen is one version of a pod as the test's watch saw it.
type seen struct {
	at  time.Time
	pod *v1.Pod
}

// podLog records every version of the test's pods (label faults=yes) from
// a watch that resumes after the API server's restart (from the last
// resourceVersion, or from a new list when that is too old).
type podLog struct {
	mu   sync.Mutex
	pods map[string][]seen
}

func newPodLog(ctx context.Context, t *testing.T, c kubernetes.Interface) *podLog {
	l := &podLog{pods: map[string][]seen{}}
	ResumingPodWatch(ctx, c, metav1.ListOptions{LabelSelector: "faults=yes"}, func(typ watch.EventType, p *v1.Pod) {
		if typ != watch.Deleted {
			l.add(p)
		}
	})
	return l
}

// add records p unless it is the version last recorded.
func (l *podLog) add(p *v1.Pod) {
	l.mu.Lock()
	defer l.mu.Unlock()
	vs := l.pods[p.Name]
	if n := len(vs); n > 0 && vs[n-1].pod.ResourceVersion == p.ResourceVersion {
		return
	}
	l.pods[p.Name] = append(vs, seen{at: time.Now(), pod: p.DeepCopy()})
}

func (l *podLog) get(name string) []seen {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]seen(nil), l.pods[name]...)
}

// last is the newest version of pod name seen, or nil.
func (l *podLog) last(name string) *v1.Pod {
	vs := l.get(name)
	if len(vs) == 0 {
		return nil
	}
	return vs[len(vs)-1].pod
}

// waitPod waits up to limit for a version of pod name for which ok holds.
func (l *podLog) waitPod(t *testing.T, name string, limit time.Duration, ok func(*v1.Pod) bool) *v1.Pod {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if p := l.last(name); p != nil && ok(p) {
			return p
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("pod %s: not as wanted after %s; last seen: %s", name, limit, describe(l.last(name)))
	return nil
}

func app(p *v1.Pod) *v1.ContainerStatus {
	if p == nil {
		return nil
	}
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == "app" {
			return &p.Status.ContainerStatuses[i]
		}
	}
	return nil
}

func restarts(p *v1.Pod) int32 {
	if cs := app(p); cs != nil {
		return cs.RestartCount
	}
	return -1
}

func describe(p *v1.Pod) string {
	if p == nil {
		return "nothing"
	}
	cs := app(p)
	if cs == nil {
		return fmt.Sprintf("phase %s, no container status", p.Status.Phase)
	}
	state := "waiting"
	switch {
	case cs.State.Running != nil:
		state = "running"
	case cs.State.Terminated != nil:
		state = "terminated"
	case cs.State.Waiting != nil:
		state = "waiting " + cs.State.Waiting.Reason
	}
	return fmt.Sprintf("phase %s, app %s, restarts %d, ready %v, id %s", p.Status.Phase, state, cs.RestartCount, cs.Ready, cs.ContainerID)
}

// checkRestartCounts checks the restart counts of every version seen:
// never lower than the one before, up by one at a time except across
// allowJumpAfter (an outage, when the API saw nothing; zero: never), and
// each count with one container ID (no restart counted twice).
func checkRestartCounts(t *testing.T, name string, vs []seen, jumpFrom, jumpTo time.Time) {
	t.Helper()
	last := int32(-1)
	ids := map[int32]string{}
	for _, v := range vs {
		cs := app(v.pod)
		if cs == nil {
			continue
		}
		r := cs.RestartCount
		jump := !jumpFrom.IsZero() && !v.at.Before(jumpFrom) && !v.at.After(jumpTo)
		if r < last || (r > last+1 && last >= 0 && !jump) {
			t.Errorf("pod %s: restart count %d after %d at %s (%s)", name, r, last, v.at.Format("15:04:05.000"), describe(v.pod))
		}
		last = r
		if cs.State.Running != nil {
			if id, ok := ids[r]; ok && id != cs.ContainerID {
				t.Errorf("pod %s: restart count %d shown by two containers, %s and %s", name, r, id, cs.ContainerID)
			}
			ids[r] = cs.ContainerID
		}
	}
}

// nodeRestarted: the node of a crash-looping pod stops once the pod's
// restart count is 2 or more, and a new process of it starts 2 s later.
func nodeRestarted(ctx context.Context, t *testing.T, c kubernetes.Interface, logs *podLog) {
	_, stop1 := startNodes(t, ctx, c, "flt-r", Options{Logf: t.Logf})
	defer stop1()
	createPod(ctx, t, c, "crashy", "flt-r-0", crashScript)
	logs.waitPod(t, "crashy", 60*time.Second, func(p *v1.Pod) bool { return restarts(p) >= 2 })
	stop1()
	stopped := time.Now()
	from := restarts(logs.last("crashy"))
	before := describe(logs.last("crashy"))
	time.Sleep(2 * time.Second)
	s2, stop2 := startNodes(t, ctx, c, "flt-r", Options{Logf: t.Logf})
	defer stop2()
	restarted := time.Now()
	next := logs.waitPod(t, "crashy", 10*time.Second, func(p *v1.Pod) bool { return restarts(p) >= from+1 })
	var firstAt time.Time
	for _, v := range logs.get("crashy") {
		if restarts(v.pod) == from+1 {
			firstAt = v.at
			break
		}
	}
	logs.waitPod(t, "crashy", 40*time.Second, func(p *v1.Pod) bool { return restarts(p) >= from+2 })
	checkRestartCounts(t, "crashy", logs.get("crashy"), time.Time{}, time.Time{})
	// The adopted pod's engine status and the API agree.
	p := logs.last("crashy")
	waitEngine(t, s2, "flt-r-0", p)
	t.Logf("node stopped at restart count %d (%s); new node started %.1f s later; restart %d written %.1f s after the start (%s), restart %d by %.1f s",
		from, before, restarted.Sub(stopped).Seconds(), from+1, firstAt.Sub(restarted).Seconds(), describe(next), restarts(p), time.Since(restarted).Seconds())
	// The new kubelet has no back-off record: the crash it sees is
	// restarted at once (the container exits 1 s after its start, the
	// relist and the sync take up to 2 s more), not after the 20 s or more
	// the old process would have waited.
	if d := firstAt.Sub(restarted); d > 5*time.Second {
		t.Errorf("restart %d written %s after the new node started: want at once (no back-off record)", from+1, d)
	}
}

// waitEngine waits until the engine's restart count for pod equals the
// API's newest.
func waitEngine(t *testing.T, s *Standalone, nodeName string, p *v1.Pod) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var eng v1.PodStatus
	for time.Now().Before(deadline) {
		st, ok := s.engineStatus(nodeName, p.UID)
		eng = st
		if ok && len(st.ContainerStatuses) > 0 && st.ContainerStatuses[0].RestartCount == restarts(p) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	got := int32(-1)
	if len(eng.ContainerStatuses) > 0 {
		got = eng.ContainerStatuses[0].RestartCount
	}
	t.Errorf("pod %s: the engine's restart count %d, the API's %d", p.Name, got, restarts(p))
}

// statusReconciled: another client sets a running pod's phase to Pending
// and its container to waiting, not ready (a PUT of the status
// subresource), and adds its own condition.
func statusReconciled(ctx context.Context, t *testing.T, c kubernetes.Interface, s *Standalone, logs *podLog) {
	createPod(ctx, t, c, "steady", "flt-0", "")
	good := logs.waitPod(t, "steady", 30*time.Second, func(p *v1.Pod) bool {
		cs := app(p)
		return p.Status.Phase == v1.PodRunning && cs != nil && cs.Ready
	})
	goodCS := *app(good)
	// Let the writes of the start settle.
	time.Sleep(time.Second)
	sets0, patches0 := s.driver("flt-0").sq.counts()
	var tampered time.Time
	for {
		cur, err := c.CoreV1().Pods("default").Get(ctx, "steady", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cur.Status.Phase = v1.PodPending
		cur.Status.ContainerStatuses[0].Ready = false
		cur.Status.ContainerStatuses[0].Started = ptrTo(false)
		cur.Status.ContainerStatuses[0].State = v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "Tampered"}}
		cur.Status.Conditions = append(cur.Status.Conditions, v1.PodCondition{Type: "example.com/Audited", Status: v1.ConditionTrue,
			LastTransitionTime: metav1.Now()})
		_, err = c.CoreV1().Pods("default").UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		tampered = time.Now()
		break
	}
	logs.waitPod(t, "steady", 5*time.Second, func(p *v1.Pod) bool { return p.Status.Phase == v1.PodPending })
	back := logs.waitPod(t, "steady", 15*time.Second, func(p *v1.Pod) bool {
		cs := app(p)
		return p.Status.Phase == v1.PodRunning && cs != nil && cs.Ready && cs.State.Running != nil
	})
	restored := time.Now()
	sets1, patches1 := s.driver("flt-0").sq.counts()
	t.Logf("status tampered with; restored %.1f s later (%s); meanwhile the engine gave %d statuses, %d PATCHes sent",
		restored.Sub(tampered).Seconds(), describe(back), sets1-sets0, patches1-patches0)
	if d := restored.Sub(tampered); d > 12*time.Second {
		t.Errorf("restored %s after it was tampered with: want within the status manager's 10 s sweep", d)
	}
	if cs := *app(back); !apiequality.Semantic.DeepEqual(cs.State, goodCS.State) || cs.ContainerID != goodCS.ContainerID || cs.RestartCount != goodCS.RestartCount {
		t.Errorf("container status restored as %+v: want %+v", cs, goodCS)
	}
	if podCond(back, "example.com/Audited") == nil {
		t.Errorf("the other client's condition example.com/Audited was dropped: %+v", back.Status.Conditions)
	}
}

func podCond(p *v1.Pod, ct v1.PodConditionType) *v1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == ct {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// rateLimited: six crash-looping pods on a node whose status writer may
// make 0.5 requests a second, burst 1; the writes the watch sees over
// 30 s from their creation.
func rateLimited(ctx context.Context, t *testing.T, c kubernetes.Interface, logs *podLog) {
	const qps, burst, span = 0.5, 1, 30 * time.Second
	sq, stop := startNodes(t, ctx, c, "flt-q", Options{Logf: t.Logf, QPS: qps, Burst: burst})
	defer stop()
	var names []string
	for i := range 6 {
		names = append(names, fmt.Sprintf("limited-%d", i))
	}
	// The node's first writes wait for its registration; create the pods
	// once the node is there.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := c.CoreV1().Nodes().Get(ctx, "flt-q-0", metav1.GetOptions{}); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("node flt-q-0 not registered after 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	start := time.Now()
	for _, n := range names {
		createPod(ctx, t, c, n, "flt-q-0", crashScript)
	}
	time.Sleep(span + 500*time.Millisecond)
	writes := 0
	var at []string
	for _, n := range names {
		vs := logs.get(n)
		for i := 1; i < len(vs); i++ {
			if vs[i].at.Sub(start) > span {
				break
			}
			if !apiequality.Semantic.DeepEqual(vs[i].pod.Status, vs[i-1].pod.Status) {
				writes++
				at = append(at, fmt.Sprintf("%04.1f", vs[i].at.Sub(start).Seconds()))
			}
		}
	}
	sort.Strings(at)
	limit := burst + int(qps*span.Seconds())
	sets, patches := sq.driver("flt-q-0").sq.counts()
	t.Logf("status writes in %s: %d (limit %d: burst %d + %.1f/s), at %v s; the engine gave %d statuses, %d PATCHes sent (coalesced per pod)",
		span, writes, limit, burst, qps, at, sets, patches)
	if writes > limit {
		t.Errorf("%d status writes in %s: want at most %d", writes, span, limit)
	}
	if writes < 3 {
		t.Errorf("%d status writes in %s: the node wrote (almost) nothing", writes, span)
	}
}

// apiServerRestarted: kube-apiserver is stopped for at least 2 s and
// started again while a pod crash-loops on the main node and another's
// container, running when the API server stops, exits 0 during the
// outage (restartPolicy Never): its Succeeded, which nothing changes
// afterwards, can only reach the API object through the status manager's
// retry of the write that failed.
func apiServerRestarted(ctx context.Context, t *testing.T, cp *controlplane.ControlPlane, s *Standalone, logs *podLog) {
	c := cp.Client
	createPod(ctx, t, c, "loop", "flt-0", crashScript)
	createPodWith(ctx, t, c, "oneshot", "flt-0", "apiVersion: kubeletlogic/v1alpha1\nkind: Script\ncontainers:\n  app:\n    runs:\n    - {exitAfter: 3s}\n", v1.RestartPolicyNever)
	logs.waitPod(t, "oneshot", 30*time.Second, func(p *v1.Pod) bool { return p.Status.Phase == v1.PodRunning })
	before := logs.last("loop")
	stopAt := time.Now()
	outage, err := cp.RestartAPIServer(2 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	backAt := time.Now()
	t.Logf("kube-apiserver stopped with loop at %s and oneshot Running; ready again after %.1f s", describe(before), outage.Seconds())
	// The write that failed during the outage is made again at the status
	// manager's next sweep (10 s).
	logs.waitPod(t, "oneshot", 12*time.Second, func(p *v1.Pod) bool { return p.Status.Phase == v1.PodSucceeded })
	for _, v := range logs.get("oneshot") {
		if v.pod.Status.Phase == v1.PodSucceeded {
			// Its container exited during the outage: nothing could be
			// written before the API server was up again.
			if v.at.Before(stopAt.Add(2 * time.Second)) {
				t.Fatalf("oneshot Succeeded seen %s after the API server stopped: want its exit to fall in the outage", v.at.Sub(stopAt))
			}
			t.Logf("oneshot Succeeded in the API %.1f s after the API server was back", v.at.Sub(backAt).Seconds())
			break
		}
	}
	// The node's watch resumed: a pod created now runs.
	createPod(ctx, t, c, "after", "flt-0", "")
	logs.waitPod(t, "after", 30*time.Second, func(p *v1.Pod) bool { cs := app(p); return cs != nil && cs.State.Running != nil })
	// The crash loop goes on past the outage (restart 2 comes about 10 s
	// after restart 1's exit, near the outage's end); the API's count
	// catches up with the engine's.
	p := logs.waitPod(t, "loop", 40*time.Second, func(p *v1.Pod) bool {
		st, ok := s.engineStatus("flt-0", p.UID)
		return ok && restarts(p) >= 2 && len(st.ContainerStatuses) > 0 && st.ContainerStatuses[0].RestartCount == restarts(p)
	})
	waitEngine(t, s, "flt-0", p)
	// Across the outage (and the first writes after it) the API may skip
	// counts the engine went through while nothing could be written.
	checkRestartCounts(t, "loop", logs.get("loop"), stopAt, backAt.Add(12*time.Second))
	var counts []string
	for _, v := range logs.get("loop") {
		counts = append(counts, fmt.Sprintf("%d@%+.1fs", restarts(v.pod), v.at.Sub(backAt).Seconds()))
	}
	t.Logf("loop's restart counts (time from the API server's return): %v; engine and API agree at %s", counts, describe(p))
}
