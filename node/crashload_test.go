package node_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeletlogic/kubeletlogic/node"
	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
)

// TestCrashLoopLoad is issue 28's crash-loop load benchmark, not a test: it
// runs only with KUBELETLOGIC_CRASHLOAD=1. One control plane (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler v1.37.2),
// KUBELETLOGIC_CRASHLOAD_NODES standalone nodes of kubeletlogic-node run in
// this process (default 20; the kubelet's own client limits, 50 QPS and
// burst 100 per node's status writer), and KUBELETLOGIC_CRASHLOAD_CONTAINERS
// crash-looping containers (default 2000), KUBELETLOGIC_CRASHLOAD_PER_POD
// to a pod (default 5), each exiting 1 after KUBELETLOGIC_CRASHLOAD_RUN_S
// seconds of every run (default 5; the script annotation), the pods bound
// to the nodes round robin (spec.nodeName: no scheduler in the way),
// created at once, or spread evenly over KUBELETLOGIC_CRASHLOAD_SPREAD_S
// seconds (default 0: the crash loops then run in step, the worst case
// for the writers; spread over the 5-minute back-off cap, they restart
// evenly). It runs KUBELETLOGIC_CRASHLOAD_MINUTES (default 10) from
// the first pod's creation and measures:
//
//   - the status writes a watch of the pods sees (a version whose status
//     differs from the one before), per second;
//   - the lag behind the kubelet's schedule: for each container restart,
//     the time from when the engine's kubelet wrote the status showing
//     the new restart count (Options.StatusScheduled) until the watch saw
//     a version showing it (crashLag);
//   - the CPU of this process (the nodes, and the watch's bookkeeping) and
//     of the control plane's, the API server's requests and latency.
//
// It logs a markdown table, and writes it to $KUBELETLOGIC_CRASHLOAD_OUT
// when set. node/README.md "Scale" holds a run's.
func TestCrashLoopLoad(t *testing.T) {
	if os.Getenv("KUBELETLOGIC_CRASHLOAD") != "1" {
		t.Skip("benchmark, not a test: run it with KUBELETLOGIC_CRASHLOAD=1 (KUBELETLOGIC_CRASHLOAD_CONTAINERS, _PER_POD, _NODES, _RUN_S, _MINUTES, _SPREAD_S)")
	}
	containers := scaleEnv(t, "KUBELETLOGIC_CRASHLOAD_CONTAINERS", 2000)
	perPod := scaleEnv(t, "KUBELETLOGIC_CRASHLOAD_PER_POD", 5)
	nodes := scaleEnv(t, "KUBELETLOGIC_CRASHLOAD_NODES", 20)
	runS := scaleEnv(t, "KUBELETLOGIC_CRASHLOAD_RUN_S", 5)
	dur := time.Duration(scaleEnv(t, "KUBELETLOGIC_CRASHLOAD_MINUTES", 10)) * time.Minute
	spread := time.Duration(0)
	if os.Getenv("KUBELETLOGIC_CRASHLOAD_SPREAD_S") != "" {
		spread = time.Duration(scaleEnv(t, "KUBELETLOGIC_CRASHLOAD_SPREAD_S", 0)) * time.Second
	}
	pods := (containers + perPod - 1) / perPod
	if pods > 110*nodes {
		t.Fatalf("%d pods on %d nodes: more than the kubelet's 110 pods a node", pods, nodes)
	}

	cp := controlplane.Start(t, controlplane.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := *cp.Config
	cfg.QPS, cfg.Burst = 5000, 10000
	c, err := kubernetes.NewForConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}

	lag := newCrashLag()
	var specs []node.NodeSpec
	for i := range nodes {
		specs = append(specs, node.NodeSpec{Name: fmt.Sprintf("crash-%d", i), InternalIP: fmt.Sprintf("10.88.%d.%d", 30+i/250, 1+i%250)})
	}
	sa, err := node.NewStandalone(c, specs, node.Options{Logf: t.Logf, Pods: node.PodOptions{Seed: 28}, StatusScheduled: lag.scheduled})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = sa.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()
	for _, n := range specs {
		waitNode(t, c, n.Name, 120*time.Second, func(n *v1.Node) bool { return ready(n) == v1.ConditionTrue })
	}

	w := watchCrashPods(ctx, t, c, lag)
	procs := map[string]int{"kube-apiserver": cp.Pid("kube-apiserver"), "etcd": cp.Pid("etcd"),
		"kube-controller-manager": cp.Pid("kube-controller-manager"), "kube-scheduler": cp.Pid("kube-scheduler"),
		"this process": os.Getpid()}
	m := startScaleMetrics(ctx, c)
	cpu0 := scaleCPU(procs)
	met0 := m.snapshot(ctx)

	var script strings.Builder
	script.WriteString("apiVersion: kubeletlogic/v1alpha1\nkind: Script\ncontainers:\n")
	var cs []v1.Container
	for i := range perPod {
		name := fmt.Sprintf("c%d", i)
		fmt.Fprintf(&script, "  %s:\n    runs:\n    - {exitAfter: %ds, exitCode: 1}\n", name, runS)
		cs = append(cs, v1.Container{Name: name, Image: "busybox"})
	}
	t0 := time.Now()
	scaleParallel(pods, 20, func(i int) {
		time.Sleep(time.Until(t0.Add(spread * time.Duration(i) / time.Duration(pods))))
		p := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("crash-%d", i), Namespace: "default",
				Labels: map[string]string{"crashload": "1"}, Annotations: map[string]string{node.ScriptAnnotation: script.String()}},
			Spec: v1.PodSpec{NodeName: specs[i%nodes].Name, Containers: cs},
		}
		if _, err := c.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Error(err)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d pods of %d containers created in %.1f s (spread over %s)", pods, perPod, time.Since(t0).Seconds(), spread)
	end := t0.Add(dur)
	next := t0.Add(time.Minute)
	for next.Before(time.Now()) {
		next = next.Add(time.Minute)
	}
	for ; time.Now().Before(end); next = next.Add(time.Minute) {
		time.Sleep(time.Until(minTime(next, end)))
		r := lag.result(time.Now().Add(-5 * time.Second))
		t.Logf("%4.0f s: %d status writes seen, %d restarts scheduled, %d seen, lag p50 %s p99 %s max %s", time.Since(t0).Seconds(),
			w.total(), r.restarts, len(r.lags), r.q(0.5), r.q(0.99), r.q(1))
	}
	cpu1 := scaleCPU(procs)
	met1 := m.snapshot(ctx)
	writes := w.perSecond(t0, end)
	// Restarts scheduled in the last 5 s of the window may be seen after it:
	// they are left out.
	time.Sleep(5 * time.Second)
	r := lag.result(end.Add(-5 * time.Second))
	steady := lag.resultBetween(t0.Add(dur/2), end.Add(-5*time.Second))
	res := crashLoadResult{containers: containers, perPod: perPod, pods: pods, nodes: nodes, runS: runS, dur: dur, spread: spread,
		writes: writes, lag: r, steady: steady, cpu: scaleSub(cpu1, cpu0), api: met1.sub(met0), inflight: m.takeMax(),
		rss: scaleRSS(map[string]int{"this process": os.Getpid()})["this process"]}
	out := res.markdown()
	t.Logf("crash-loop load:\n\n%s", out)
	if f := os.Getenv("KUBELETLOGIC_CRASHLOAD_OUT"); f != "" {
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Error(err)
		}
	}
	if len(r.lags) == 0 {
		t.Error("no restart seen")
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// ---- the lag behind the kubelet's schedule ----

// crashLag pairs each container restart the engine's kubelet wrote (a
// status showing a container's restart count k for the first time, at the
// engine's time) with the first version of the pod a watch saw showing a
// restart count of k or more for that container. A status the status
// writer coalesced away (k and k+1 both pending) is seen when k+1 is.
//
// The lag splits in two at the moment the node's driver handed the status
// to its status writer (the hook's call, on the wall clock): the driver's
// own lateness (its timer fired late or its loop was busy: on a loaded
// machine, the CPU it did not get) and the rest (the status writer's queue
// and rate limit, the GET and PATCH, the watch's delivery).
type crashLag struct {
	mu  sync.Mutex
	now func() time.Time
	// sched, handed and seen: by pod UID and container, the time each
	// restart count was first scheduled (the engine's time), handed to the
	// status writer and seen (index k-1 for count k).
	sched, handed, seen map[types.UID]map[string][]time.Time
}

func newCrashLag() *crashLag {
	return &crashLag{now: time.Now, sched: map[types.UID]map[string][]time.Time{},
		handed: map[types.UID]map[string][]time.Time{}, seen: map[types.UID]map[string][]time.Time{}}
}

// record notes count k of container name first at at in m.
func crashRecord(m map[types.UID]map[string][]time.Time, uid types.UID, st v1.PodStatus, at time.Time) {
	for _, cs := range st.ContainerStatuses {
		byName := m[uid]
		if byName == nil {
			byName = map[string][]time.Time{}
			m[uid] = byName
		}
		for k := int32(len(byName[cs.Name])) + 1; k <= cs.RestartCount; k++ {
			byName[cs.Name] = append(byName[cs.Name], at)
		}
	}
}

// scheduled is Options.StatusScheduled.
func (l *crashLag) scheduled(pod *v1.Pod, st v1.PodStatus, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	crashRecord(l.sched, pod.UID, st, at)
	crashRecord(l.handed, pod.UID, st, l.now())
}

// observed is a version of the pod the watch saw at at.
func (l *crashLag) observed(pod *v1.Pod, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	crashRecord(l.seen, pod.UID, pod.Status, at)
}

type crashLagResult struct {
	restarts int             // restarts scheduled in the window
	lags     []time.Duration // sorted; one per restart scheduled and seen
	unseen   int             // scheduled, not seen
	// driver and write split each lag (sorted each): scheduled to handed,
	// handed to seen.
	driver, write []time.Duration
}

// q is the q-quantile of the lags (nearest rank; 1 is the maximum).
func (r crashLagResult) q(q float64) time.Duration { return quantile(r.lags, q) }

// quantile is the q-quantile of sorted (nearest rank; 1 is the maximum).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)].Round(time.Millisecond)
}

// result is the lags of the restarts scheduled before until.
func (l *crashLag) result(until time.Time) crashLagResult {
	return l.resultBetween(time.Time{}, until)
}

// resultBetween is the lags of the restarts scheduled in [from, until).
func (l *crashLag) resultBetween(from, until time.Time) crashLagResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	var r crashLagResult
	for uid, byName := range l.sched {
		for name, times := range byName {
			seen := l.seen[uid][name]
			for k, at := range times {
				if at.Before(from) || !at.Before(until) {
					continue
				}
				r.restarts++
				if k >= len(seen) {
					r.unseen++
					continue
				}
				r.lags = append(r.lags, seen[k].Sub(at))
				h := l.handed[uid][name][k]
				r.driver = append(r.driver, h.Sub(at))
				r.write = append(r.write, seen[k].Sub(h))
			}
		}
	}
	for _, x := range [][]time.Duration{r.lags, r.driver, r.write} {
		sort.Slice(x, func(i, j int) bool { return x[i] < x[j] })
	}
	return r
}

// TestCrashLagMetric checks crashLag on made-up statuses: a restart's lag
// is the first version seen showing its count (or a higher one) less
// when its status was scheduled; a count scheduled and never seen is
// unseen; the window counts by the scheduled time; quantiles by nearest
// rank.
func TestCrashLagMetric(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	pod := func(uid string, counts ...int32) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid)}}
		for i, n := range counts {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, v1.ContainerStatus{Name: fmt.Sprintf("c%d", i), RestartCount: n})
		}
		return p
	}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	l := newCrashLag()
	// The driver hands each status over 100 ms after its schedule.
	var handed time.Time
	l.now = func() time.Time { return handed }
	sched := func(p *v1.Pod, at time.Time) { handed = at.Add(100 * time.Millisecond); l.scheduled(p, p.Status, at) }
	// Pod a: c0 restarts at 1 s (seen at 1.2 s) and 12 s; c1 at 12 s.
	// The watch sees c0's count 2 only with c1's 1 at 12.5 s.
	sched(pod("a", 1, 0), at(1000))
	l.observed(pod("a", 0, 0), at(100))
	l.observed(pod("a", 1, 0), at(1200))
	sched(pod("a", 2, 0), at(12000))
	sched(pod("a", 2, 1), at(12100))
	l.observed(pod("a", 2, 1), at(12500))
	// Pod b: count 1 and 2 scheduled together (the writer coalesces), seen
	// as 2 at 3 s; count 3 at 40 s, never seen.
	sched(pod("b", 2), at(2000))
	l.observed(pod("b", 2), at(3000))
	sched(pod("b", 3), at(40000))
	r := l.result(at(60000))
	want := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 500 * time.Millisecond, time.Second, time.Second}
	if r.restarts != 6 || r.unseen != 1 || fmt.Sprint(r.lags) != fmt.Sprint(want) {
		t.Errorf("restarts %d unseen %d lags %v: want 6, 1, %v", r.restarts, r.unseen, r.lags, want)
	}
	if fmt.Sprint(r.driver) != "[100ms 100ms 100ms 100ms 100ms]" || fmt.Sprint(r.write) != "[100ms 300ms 400ms 900ms 900ms]" {
		t.Errorf("driver %v, write %v: want 100ms each, the rest of each lag", r.driver, r.write)
	}
	if r.q(0.5) != 500*time.Millisecond || r.q(0.99) != time.Second || r.q(0.2) != 200*time.Millisecond || r.q(0.21) != 400*time.Millisecond {
		t.Errorf("quantiles p50 %s p99 %s p20 %s p21 %s: want 500ms 1s 200ms 400ms", r.q(0.5), r.q(0.99), r.q(0.2), r.q(0.21))
	}
	if r := l.resultBetween(at(10000), at(39000)); r.restarts != 2 || r.unseen != 0 || fmt.Sprint(r.lags) != "[400ms 500ms]" {
		t.Errorf("between 10 s and 39 s: restarts %d unseen %d lags %v: want 2, 0, [400ms 500ms]", r.restarts, r.unseen, r.lags)
	}
}

// ---- the writes a watch sees ----

type crashWatch struct {
	mu     sync.Mutex
	last   map[types.UID]v1.PodStatus
	writes []time.Time // one per status change seen
}

// watchCrashPods watches the benchmark's pods (label crashload) and feeds
// each version to lag; it counts the status changes.
func watchCrashPods(ctx context.Context, t *testing.T, c kubernetes.Interface, lag *crashLag) *crashWatch {
	w := &crashWatch{last: map[types.UID]v1.PodStatus{}}
	l, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "crashload"})
	if err != nil {
		t.Fatal(err)
	}
	rv := l.ResourceVersion
	go func() {
		for ctx.Err() == nil {
			wi, err := c.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{LabelSelector: "crashload", ResourceVersion: rv, AllowWatchBookmarks: true})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for ev := range wi.ResultChan() {
				p, ok := ev.Object.(*v1.Pod)
				if !ok {
					continue
				}
				rv = p.ResourceVersion
				if ev.Type == watch.Bookmark || ev.Type == watch.Deleted {
					continue
				}
				now := time.Now()
				lag.observed(p, now)
				w.mu.Lock()
				if old, ok := w.last[p.UID]; ok && !equality.Semantic.DeepEqual(old, p.Status) {
					w.writes = append(w.writes, now)
				}
				w.last[p.UID] = *p.Status.DeepCopy()
				w.mu.Unlock()
			}
		}
	}()
	return w
}

func (w *crashWatch) total() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.writes)
}

// crashWrites is the status writes seen in a window: the total, the mean
// and highest per second, and the highest per minute.
type crashWrites struct {
	total              int
	perS, maxS, maxMin float64
}

func (w *crashWatch) perSecond(from, until time.Time) crashWrites {
	w.mu.Lock()
	defer w.mu.Unlock()
	sec, minute := map[int]int{}, map[int]int{}
	var r crashWrites
	for _, at := range w.writes {
		if at.Before(from) || !at.Before(until) {
			continue
		}
		r.total++
		s := int(at.Sub(from) / time.Second)
		sec[s]++
		minute[s/60]++
	}
	for _, n := range sec {
		r.maxS = max(r.maxS, float64(n))
	}
	for _, n := range minute {
		r.maxMin = max(r.maxMin, float64(n)/60)
	}
	r.perS = float64(r.total) / until.Sub(from).Seconds()
	return r
}

// ---- the result ----

type crashLoadResult struct {
	containers, perPod, pods, nodes, runS int
	dur, spread                           time.Duration
	writes                                crashWrites
	lag, steady                           crashLagResult
	cpu                                   map[string]time.Duration
	api                                   scaleAPI
	inflight                              map[string]float64
	rss                                   float64
}

func (r crashLoadResult) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d crash-looping containers (%d pods of %d, each run exits 1 after %d s; created over %s) on %d nodes, %s\n\n",
		r.containers, r.pods, r.perPod, r.runS, r.spread, r.nodes, r.dur)
	b.WriteString("| | |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, v) }
	row("status writes seen by a watch", fmt.Sprintf("%d: %.1f/s mean, highest minute %.1f/s, highest second %.0f", r.writes.total, r.writes.perS, r.writes.maxMin, r.writes.maxS))
	lagRow := func(l crashLagResult) string {
		return fmt.Sprintf("%d restarts (%d not seen): p50 %s, p99 %s, max %s", l.restarts, l.unseen, l.q(0.5), l.q(0.99), l.q(1))
	}
	row("lag behind the kubelet's schedule, every restart", lagRow(r.lag))
	row("the same, restarts in the second half", lagRow(r.steady))
	split := func(all, steady []time.Duration) string {
		return fmt.Sprintf("p50 %s, p99 %s, max %s; in the second half p99 %s", quantile(all, 0.5), quantile(all, 0.99), quantile(all, 1), quantile(steady, 0.99))
	}
	row("of which the driver late (the schedule to the status writer)", split(r.lag.driver, r.steady.driver))
	row("and the status writer, API server, watch (to the watch)", split(r.lag.write, r.steady.write))
	cpu := func(name string) string {
		return fmt.Sprintf("%.1f s (%.0f %% of a core)", r.cpu[name].Seconds(), 100*r.cpu[name].Seconds()/r.dur.Seconds())
	}
	row("CPU, this process (the nodes, the watch)", cpu("this process"))
	row("peak RSS, this process", fmt.Sprintf("%.0f MiB", r.rss))
	row("CPU kube-apiserver, etcd", cpu("kube-apiserver")+", "+cpu("etcd"))
	a := r.api
	mean := func(kind string) string {
		if a.count[kind] == 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f ms", 1000*a.sum[kind]/a.count[kind])
	}
	row("API requests (mutating / read-only)", fmt.Sprintf("%.0f / %.0f (%.1f/s); mean latency %s / %s; p99 bucket ≤ %g s / ≤ %g s; max in flight %.0f / %.0f",
		a.count["mutating"], a.count["readOnly"], (a.count["mutating"]+a.count["readOnly"])/r.dur.Seconds(), mean("mutating"), mean("readOnly"),
		a.quantile("mutating", 0.99), a.quantile("readOnly", 0.99), r.inflight["inflight mutating"], r.inflight["inflight readOnly"]))
	return b.String()
}
