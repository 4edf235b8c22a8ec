package node_test

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
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

	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
	"github.com/kubeletlogic/kubeletlogic/node/internal/plot"
)

// The scale benchmark's pools: nodes labelled kubeletlogic.io/pool=kwok
// are kept, with their pods, by the real kwok v0.8.0 with KWOK's default
// pod stages; nodes labelled kubeletlogic.io/pool=kl are standalone nodes
// of a kubeletlogic-node process (go build of cmd/kubeletlogic-node).
var scalePools = []string{sbsKwok, sbsKl}

// TestScale is issue 28's scale benchmark, not a test: it runs only with
// KUBELETLOGIC_SCALE=1 (node/bench/scale.sh). One control plane (the
// controller manager's and the scheduler's client limits lifted, as
// kwokctl's --disable-qps-limits lifts them), KUBELETLOGIC_SCALE_NODES
// nodes per pool (default 10) and a Deployment of KUBELETLOGIC_SCALE_PODS
// pods per pool (default 200), both pools at once: the same pod template
// but for the pool's nodeSelector. It measures, per pool, the time until
// every pod is Running, the time until every pod is gone after the
// Deployments are deleted, the status writes a watch sees, the CPU and
// peak memory of kwok and of the kubeletlogic-node process, and the API
// server's own numbers (requests in flight, latency); it logs a markdown
// table and writes it to $KUBELETLOGIC_SCALE_OUT when set.
func TestScale(t *testing.T) {
	if os.Getenv("KUBELETLOGIC_SCALE") != "1" {
		t.Skip("benchmark, not a test: run it with KUBELETLOGIC_SCALE=1 (node/bench/scale.sh; KUBELETLOGIC_SCALE_NODES and KUBELETLOGIC_SCALE_PODS per pool)")
	}
	nodes := scaleEnv(t, "KUBELETLOGIC_SCALE_NODES", 10)
	pods := scaleEnv(t, "KUBELETLOGIC_SCALE_PODS", 200)
	qps := scaleEnv(t, "KUBELETLOGIC_SCALE_QPS", 5000)
	limit := time.Duration(scaleEnv(t, "KUBELETLOGIC_SCALE_TIMEOUT_S", 600)) * time.Second

	bin := filepath.Join(t.TempDir(), "kubeletlogic-node")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/kubeletlogic-node").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	unlimited := []string{"--kube-api-qps=5000", "--kube-api-burst=10000"}
	cp := controlplane.Start(t, controlplane.Options{ExtraArgs: map[string][]string{
		"kube-controller-manager": unlimited, "kube-scheduler": unlimited}})
	c := cp.Client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp.StartKwok(t, controlplane.KwokOptions{PodStages: controlplane.KwokPodFastStages})
	kwokPid := cp.Pid("kwok")

	res := &scaleResult{nodes: nodes, pods: pods, qps: qps, pool: map[string]*scalePool{}}
	for _, p := range scalePools {
		res.pool[p] = &scalePool{}
	}

	// Nodes: KWOK's are created through the API (kwok initializes them),
	// kubeletlogic-node registers its own.
	t0 := time.Now()
	klLog, err := os.Create(filepath.Join(cp.Dir, "logs", "kubeletlogic-node.log"))
	if err != nil {
		t.Fatal(err)
	}
	kl := exec.Command(bin, "--mode", "standalone", "--nodes", strconv.Itoa(nodes), "--node-prefix", "scale-kl",
		"--kubeconfig", cp.Kubeconfig, "--qps", strconv.Itoa(qps), "--burst", strconv.Itoa(2*qps))
	kl.Stdout, kl.Stderr = klLog, klLog
	if err := kl.Start(); err != nil {
		t.Fatal(err)
	}
	klDone := make(chan struct{})
	go func() { _ = kl.Wait(); close(klDone) }()
	defer func() { _ = kl.Process.Signal(os.Interrupt); <-klDone; klLog.Close() }()
	scaleParallel(nodes, 20, func(i int) {
		n := kwokNode(fmt.Sprintf("scale-kwok-%d", i))
		n.Labels[sbsPoolLabel] = sbsKwok
		if _, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Error(err)
		}
	})
	for _, p := range scalePools {
		prefix := "scale-" + p + "-"
		res.pool[p].nodesReady = waitFor(t, limit, func() (time.Duration, bool) {
			l, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			if err != nil {
				return 0, false
			}
			n := 0
			for i := range l.Items {
				if strings.HasPrefix(l.Items[i].Name, prefix) && ready(&l.Items[i]) == v1.ConditionTrue {
					n++
				}
			}
			return time.Since(t0), n == nodes
		})
	}
	// The standalone nodes get their pool label from here (the command
	// has no --node-labels).
	scaleParallel(nodes, 20, func(i int) {
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, sbsPoolLabel, sbsKl)
		if _, err := c.CoreV1().Nodes().Patch(ctx, fmt.Sprintf("scale-kl-%d", i), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Error(err)
		}
	})
	if t.Failed() {
		t.FailNow()
	}

	w := watchScalePods(ctx, t, c)
	procs := map[string]int{"kwok": kwokPid, "kubeletlogic-node": kl.Process.Pid,
		"kube-apiserver": cp.Pid("kube-apiserver"), "etcd": cp.Pid("etcd"),
		"kube-controller-manager": cp.Pid("kube-controller-manager"), "kube-scheduler": cp.Pid("kube-scheduler")}
	m := startScaleMetrics(ctx, c)

	// Create: both Deployments at once.
	cpu0 := scaleCPU(procs)
	met0 := m.snapshot(ctx)
	tc := time.Now()
	// Each pool's pods Running, every 0.5 s from the Deployments'
	// creation to the end (written with KUBELETLOGIC_PLOT_OUT).
	sampler := startScaleSampler(ctx, tc, 500*time.Millisecond, func() []float64 {
		var out []float64
		for _, p := range scalePools {
			out = append(out, float64(w.stats(p).running))
		}
		return out
	})
	for _, p := range scalePools {
		d := shardDeployment("scale-"+p, map[string]string{sbsPoolLabel: p}, int32(pods))
		d.Spec.Template.Labels[sbsPodPoolLabel] = p
		if _, err := c.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w.mark(tc)
	scaleWait(t, w, tc, limit, "all Running", func() bool {
		done := true
		for _, p := range scalePools {
			s := w.stats(p)
			if s.running >= pods && res.pool[p].allRunning == 0 {
				res.pool[p].allRunning = s.lastRunning.Sub(tc)
				res.pool[p].allCreated = s.lastCreated.Sub(tc)
				res.pool[p].allBound = s.lastBound.Sub(tc)
				t.Logf("%s: all %d pods Running %.1f s after the Deployment (last created %.1f s, last bound %.1f s)", p, pods,
					res.pool[p].allRunning.Seconds(), res.pool[p].allCreated.Seconds(), res.pool[p].allBound.Seconds())
			}
			done = done && res.pool[p].allRunning > 0
		}
		return done
	})
	// Let the writes that follow Running (a kubelet's Ready condition)
	// land before the phase ends.
	time.Sleep(3 * time.Second)
	createDur := time.Since(tc)
	cpu1 := scaleCPU(procs)
	met1 := m.snapshot(ctx)
	for _, p := range scalePools {
		res.pool[p].createWrites = w.stats(p).writes
	}
	res.create = scalePhase{dur: createDur, cpu: scaleSub(cpu1, cpu0), api: met1.sub(met0), inflight: m.takeMax()}

	// Delete: both Deployments at once, the garbage collector deletes the
	// ReplicaSets and their pods.
	td := time.Now()
	w.mark(td)
	bg := metav1.DeletePropagationBackground
	for _, p := range scalePools {
		if err := c.AppsV1().Deployments("default").Delete(ctx, "scale-"+p, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
			t.Fatal(err)
		}
	}
	scaleWait(t, w, td, limit, "all gone", func() bool {
		done := true
		for _, p := range scalePools {
			s := w.stats(p)
			if s.present == 0 && s.gone >= pods && res.pool[p].allGone == 0 {
				res.pool[p].allGone = s.lastGone.Sub(td)
				t.Logf("%s: all pods gone %.1f s after the Deployment's delete", p, res.pool[p].allGone.Seconds())
			}
			done = done && res.pool[p].allGone > 0
		}
		return done
	})
	deleteDur := time.Since(td)
	cpu2 := scaleCPU(procs)
	met2 := m.snapshot(ctx)
	for _, p := range scalePools {
		res.pool[p].deleteWrites = w.stats(p).writes
	}
	res.del = scalePhase{dur: deleteDur, cpu: scaleSub(cpu2, cpu1), api: met2.sub(met1), inflight: m.takeMax()}
	res.rss = scaleRSS(procs)
	res.procs = procs
	out := res.markdown()
	t.Logf("scale (KUBELETLOGIC_SCALE=1 KUBELETLOGIC_SCALE_NODES=%d KUBELETLOGIC_SCALE_PODS=%d):\n\n%s", nodes, pods, out)
	if f := os.Getenv("KUBELETLOGIC_SCALE_OUT"); f != "" {
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Error(err)
		}
	}
	if dir := os.Getenv("KUBELETLOGIC_PLOT_OUT"); dir != "" {
		scalePlot(t, dir, res, sampler.stop(), td.Sub(tc))
	}
}

// scalePlot writes the pods Running per pool over time (rows of seconds
// since the Deployments' creation, KWOK's count, kl's) to dir as
// beside-kwok-scale.json and the picture beside-kwok-scale.svg
// (docs/beside-kwok.md), the Deployments' deletion marked.
func scalePlot(t *testing.T, dir string, res *scaleResult, rows [][]float64, deleted time.Duration) {
	load, _ := os.ReadFile("/proc/loadavg")
	data := plot.Scale{Nodes: res.nodes, Pods: res.pods, DeletedS: deleted.Seconds(),
		Date: time.Now().UTC().Format(time.RFC3339), LoadAvg: strings.TrimSpace(string(load)),
		Columns: []string{"s since the Deployments' creation", "kwok Running", "kl Running"}, Rows: rows}
	if err := plot.Write(dir, plot.ScaleName, data); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s/beside-kwok-scale.json and beside-kwok-scale.svg", dir)
}

// scaleSampler is a series of samples: each row the seconds since t0, then
// the values read at that moment.
type scaleSampler struct {
	mu   sync.Mutex
	t0   time.Time
	read func() []float64
	rows [][]float64
	done chan struct{}
	quit chan struct{}
}

// startScaleSampler samples read at t0's moment (now), then every interval
// until stop or ctx's end.
func startScaleSampler(ctx context.Context, t0 time.Time, every time.Duration, read func() []float64) *scaleSampler {
	s := &scaleSampler{t0: t0, read: read, done: make(chan struct{}), quit: make(chan struct{})}
	go func() {
		defer close(s.done)
		tk := time.NewTicker(every)
		defer tk.Stop()
		s.sample(time.Now())
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.quit:
				return
			case now := <-tk.C:
				s.sample(now)
			}
		}
	}()
	return s
}

func (s *scaleSampler) sample(now time.Time) {
	row := append([]float64{now.Sub(s.t0).Seconds()}, s.read()...)
	s.mu.Lock()
	s.rows = append(s.rows, row)
	s.mu.Unlock()
}

// stop ends the sampling, takes a last sample and returns the rows.
func (s *scaleSampler) stop() [][]float64 {
	close(s.quit)
	<-s.done
	s.sample(time.Now())
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rows
}

// TestScaleSampler: the sampler takes a sample at once, then one every
// interval, each row the seconds since t0 and the values read then, and a
// last one at stop.
func TestScaleSampler(t *testing.T) {
	var mu sync.Mutex
	n := 0.0
	t0 := time.Now().Add(-time.Second)
	s := startScaleSampler(context.Background(), t0, 20*time.Millisecond, func() []float64 {
		mu.Lock()
		defer mu.Unlock()
		n++
		return []float64{n, 10 * n}
	})
	time.Sleep(200 * time.Millisecond)
	rows := s.stop()
	if len(rows) < 5 || len(rows) > 13 {
		t.Fatalf("%d rows in 200 ms every 20 ms: want about 11", len(rows))
	}
	for i, r := range rows {
		if len(r) != 3 || r[1] != float64(i+1) || r[2] != 10*r[1] {
			t.Errorf("row %d %v: want [s %d %d]", i, r, i+1, 10*(i+1))
		}
		if r[0] < 1 || r[0] > 1.5 {
			t.Errorf("row %d at %.3f s: want within 1 to 1.5 s of t0", i, r[0])
		}
		if gap := r[0] - rows[max(i-1, 0)][0]; i > 0 && (gap < 0 || gap > 0.1 || gap < 0.005 && i < len(rows)-1) {
			t.Errorf("row %d %.3f s after the one before: want about 0.02 s (the last: up to it)", i, gap)
		}
	}
}

func scaleEnv(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

// scaleWait waits until done, logging each pool's pods (present, bound,
// Running, gone) every 10 s since t0; after limit it fails the test with
// the last counts.
func scaleWait(t *testing.T, w *scaleWatch, t0 time.Time, limit time.Duration, what string, done func() bool) {
	t.Helper()
	next := time.Now().Add(10 * time.Second)
	var end time.Time
	if e := os.Getenv("KUBELETLOGIC_SCALE_END"); e != "" {
		var err error
		if end, err = time.Parse(time.RFC3339, e); err != nil {
			t.Fatalf("KUBELETLOGIC_SCALE_END=%q: want an RFC 3339 time", e)
		}
	}
	for !done() {
		if time.Since(t0) > limit {
			t.Fatalf("not %s after %s: %s", what, limit, w.progress(t0))
		}
		if !end.IsZero() && time.Now().After(end) {
			t.Fatalf("not %s at KUBELETLOGIC_SCALE_END %s: %s", what, end.Format(time.RFC3339), w.progress(t0))
		}
		if time.Now().After(next) {
			t.Logf("%s", w.progress(t0))
			next = next.Add(10 * time.Second)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (w *scaleWatch) progress(t0 time.Time) string {
	out := fmt.Sprintf("%5.0f s:", time.Since(t0).Seconds())
	for _, p := range scalePools {
		s := w.stats(p)
		out += fmt.Sprintf(" %s present %d bound %d Running %d gone %d;", p, s.present, s.bound, s.running, s.gone)
	}
	return out
}

// scaleParallel runs f(0..n-1) on workers goroutines.
func scaleParallel(n, workers int, f func(int)) {
	var wg sync.WaitGroup
	ch := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				f(i)
			}
		}()
	}
	for i := range n {
		ch <- i
	}
	close(ch)
	wg.Wait()
}

// ---- the pods as a watch sees them ----

type scalePodState struct {
	pool    string
	status  v1.PodStatus
	running bool
	bound   bool
}

type scaleWatchStats struct {
	present, bound, running, gone                 int
	writes                                        int // status changes since the last mark
	lastCreated, lastBound, lastRunning, lastGone time.Time
}

type scaleWatch struct {
	mu    sync.Mutex
	pods  map[string]*scalePodState
	stat  map[string]*scaleWatchStats
	since time.Time
}

func (w *scaleWatch) mark(at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.since = at
	for _, s := range w.stat {
		s.writes = 0
	}
}

func (w *scaleWatch) stats(pool string) scaleWatchStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s := w.stat[pool]; s != nil {
		return *s
	}
	return scaleWatchStats{}
}

// watchScalePods watches the benchmark's pods (label sbs-pool) from now
// on and counts, per pool, the pods present, Running, bound and gone, and
// the status changes (a version whose status differs from the previous
// one's: one write of a node's, as the watch sees it).
func watchScalePods(ctx context.Context, t *testing.T, c kubernetes.Interface) *scaleWatch {
	w := &scaleWatch{pods: map[string]*scalePodState{}, stat: map[string]*scaleWatchStats{}}
	for _, p := range scalePools {
		w.stat[p] = &scaleWatchStats{}
	}
	l, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: sbsPodPoolLabel})
	if err != nil {
		t.Fatal(err)
	}
	rv := l.ResourceVersion
	go func() {
		for ctx.Err() == nil {
			wi, err := c.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{LabelSelector: sbsPodPoolLabel, ResourceVersion: rv, AllowWatchBookmarks: true})
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
				if ev.Type == watch.Bookmark {
					continue
				}
				w.observe(ev.Type, p, time.Now())
			}
		}
	}()
	return w
}

func (w *scaleWatch) observe(typ watch.EventType, p *v1.Pod, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.stat[p.Labels[sbsPodPoolLabel]]
	if st == nil {
		return
	}
	old := w.pods[p.Name]
	if typ == watch.Deleted {
		if old != nil {
			delete(w.pods, p.Name)
			st.present--
			if old.running {
				st.running--
			}
			if old.bound {
				st.bound--
			}
			st.gone++
			st.lastGone = at
		}
		return
	}
	if old == nil {
		old = &scalePodState{pool: p.Labels[sbsPodPoolLabel]}
		w.pods[p.Name] = old
		st.present++
		st.lastCreated = at
	} else if !equality.Semantic.DeepEqual(old.status, p.Status) {
		st.writes++
	}
	old.status = *p.Status.DeepCopy()
	if !old.bound && p.Spec.NodeName != "" {
		old.bound = true
		st.bound++
		st.lastBound = at
	}
	if r := p.Status.Phase == v1.PodRunning; r != old.running {
		old.running = r
		if r {
			st.running++
			st.lastRunning = at
		} else {
			st.running--
		}
	}
}

// ---- processes ----

// scaleCPU is each process's user+system CPU time so far
// (/proc/<pid>/stat, utime and stime, in clock ticks of 1/100 s).
func scaleCPU(procs map[string]int) map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, pid := range procs {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(b)
		// Fields after the command's closing parenthesis: state is the
		// 3rd field of the line, utime the 14th, stime the 15th.
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		k, _ := strconv.ParseInt(f[12], 10, 64)
		out[name] = time.Duration(u+k) * 10 * time.Millisecond
	}
	return out
}

func scaleSub(a, b map[string]time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for k, v := range a {
		out[k] = v - b[k]
	}
	return out
}

// scaleRSS is each process's peak resident set (VmHWM), in MiB.
func scaleRSS(procs map[string]int) map[string]float64 {
	out := map[string]float64{}
	for name, pid := range procs {
		f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
				out[name] = kb / 1024
			}
		}
		f.Close()
	}
	return out
}

// ---- the API server's /metrics ----

// scaleAPI is a snapshot of the API server's counters: requests and the
// request duration histogram (apiserver_request_duration_seconds, WATCH
// and CONNECT left out) summed over resources, by mutating or read-only.
type scaleAPI struct {
	count   map[string]float64
	sum     map[string]float64
	buckets map[string]map[float64]float64
}

func (a scaleAPI) sub(b scaleAPI) scaleAPI {
	out := scaleAPI{count: map[string]float64{}, sum: map[string]float64{}, buckets: map[string]map[float64]float64{}}
	for k, v := range a.count {
		out.count[k] = v - b.count[k]
		out.sum[k] = a.sum[k] - b.sum[k]
		out.buckets[k] = map[float64]float64{}
		for le, n := range a.buckets[k] {
			out.buckets[k][le] = n - b.buckets[k][le]
		}
	}
	return out
}

// quantile is the upper bound of the histogram bucket holding quantile q.
func (a scaleAPI) quantile(kind string, q float64) float64 {
	var les []float64
	for le := range a.buckets[kind] {
		les = append(les, le)
	}
	sort.Float64s(les)
	for _, le := range les {
		if a.buckets[kind][le] >= q*a.count[kind] {
			return le
		}
	}
	return math.Inf(1)
}

type scaleMetrics struct {
	c   kubernetes.Interface
	mu  sync.Mutex
	max map[string]float64 // the highest sampled gauges since takeMax
}

// startScaleMetrics samples the API server's gauges of requests in flight
// (apiserver_current_inflight_requests by request kind, and priority and
// fairness's executing and queued requests summed) every 250 ms.
func startScaleMetrics(ctx context.Context, c kubernetes.Interface) *scaleMetrics {
	m := &scaleMetrics{c: c, max: map[string]float64{}}
	go func() {
		for ctx.Err() == nil {
			g := map[string]float64{}
			m.scrape(ctx, func(name, labels string, v float64) {
				switch name {
				case "apiserver_current_inflight_requests":
					g["inflight "+scaleLabel(labels, "request_kind")] += v
				case "apiserver_flowcontrol_current_executing_requests":
					g["executing"] += v
				case "apiserver_flowcontrol_current_inqueue_requests":
					g["queued"] += v
				}
			})
			m.mu.Lock()
			for k, v := range g {
				m.max[k] = max(m.max[k], v)
			}
			m.mu.Unlock()
			time.Sleep(250 * time.Millisecond)
		}
	}()
	return m
}

func (m *scaleMetrics) takeMax() map[string]float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.max
	m.max = map[string]float64{}
	return out
}

func (m *scaleMetrics) scrape(ctx context.Context, f func(name, labels string, v float64)) {
	b, err := m.c.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		if sp < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[sp+1:], 64)
		if err != nil {
			continue
		}
		name, labels := line[:sp], ""
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name, labels = name[:i], name[i:]
		}
		f(name, labels, v)
	}
}

func (m *scaleMetrics) snapshot(ctx context.Context) scaleAPI {
	a := scaleAPI{count: map[string]float64{}, sum: map[string]float64{}, buckets: map[string]map[float64]float64{}}
	for _, k := range []string{"mutating", "readOnly"} {
		a.buckets[k] = map[float64]float64{}
	}
	m.scrape(ctx, func(name, labels string, v float64) {
		if !strings.HasPrefix(name, "apiserver_request_duration_seconds") {
			return
		}
		kind := "readOnly"
		switch scaleLabel(labels, "verb") {
		case "WATCH", "CONNECT":
			return
		case "POST", "PUT", "PATCH", "DELETE", "DELETECOLLECTION":
			kind = "mutating"
		}
		switch name {
		case "apiserver_request_duration_seconds_count":
			a.count[kind] += v
		case "apiserver_request_duration_seconds_sum":
			a.sum[kind] += v
		case "apiserver_request_duration_seconds_bucket":
			le, err := strconv.ParseFloat(scaleLabel(labels, "le"), 64)
			if err == nil {
				a.buckets[kind][le] += v
			}
		}
	})
	return a
}

// scaleLabel is the value of label name in a metric's {a="b",...}.
func scaleLabel(labels, name string) string {
	i := strings.Index(labels, name+`="`)
	if i < 0 || (i > 0 && labels[i-1] != '{' && labels[i-1] != ',') {
		return ""
	}
	rest := labels[i+len(name)+2:]
	if j := strings.IndexByte(rest, '"'); j >= 0 {
		return rest[:j]
	}
	return ""
}

// ---- the result ----

type scalePool struct {
	nodesReady                       time.Duration
	allCreated, allBound, allRunning time.Duration
	allGone                          time.Duration
	createWrites, deleteWrites       int
}

type scalePhase struct {
	dur      time.Duration
	cpu      map[string]time.Duration
	api      scaleAPI
	inflight map[string]float64
}

type scaleResult struct {
	nodes, pods, qps int
	pool             map[string]*scalePool
	create, del      scalePhase
	rss              map[string]float64
	procs            map[string]int
}

func (r *scaleResult) markdown() string {
	var b strings.Builder
	k, l := r.pool[sbsKwok], r.pool[sbsKl]
	ratio := func(a, b float64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	sec := func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
	fmt.Fprintf(&b, "%d nodes and a Deployment of %d pods per pool, both pools at once; kubeletlogic-node --qps %d --burst %d\n\n", r.nodes, r.pods, r.qps, 2*r.qps)
	b.WriteString("| | KWOK v0.8.0 (fast pod stages) | kubeletlogic-node | ratio kl/KWOK |\n|---|---|---|---|\n")
	row := func(name, a, c, q string) { fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, a, c, q) }
	row("nodes Ready after start", sec(k.nodesReady), sec(l.nodesReady), "")
	row("last pod created (after the Deployment)", sec(k.allCreated), sec(l.allCreated), "")
	row("last pod bound", sec(k.allBound), sec(l.allBound), "")
	row("**all pods Running**", sec(k.allRunning), sec(l.allRunning), ratio(l.allRunning.Seconds(), k.allRunning.Seconds()))
	row("all Running after the last bind", sec(k.allRunning-k.allBound), sec(l.allRunning-l.allBound), "")
	row("**all pods gone after the Deployment's delete**", sec(k.allGone), sec(l.allGone), ratio(l.allGone.Seconds(), k.allGone.Seconds()))
	perS := func(n int, d time.Duration) string {
		return fmt.Sprintf("%d (%.0f/s)", n, float64(n)/d.Seconds())
	}
	row("status writes seen, create phase (per second until all Running)", perS(k.createWrites, k.allRunning), perS(l.createWrites, l.allRunning), ratio(float64(l.createWrites), float64(k.createWrites)))
	row("status writes seen, delete phase (per second until all gone)", perS(k.deleteWrites, k.allGone), perS(l.deleteWrites, l.allGone), ratio(float64(l.deleteWrites), float64(k.deleteWrites)))
	cpu := func(ph scalePhase, name string) string {
		return fmt.Sprintf("%.1f s (%.0f %% of a core)", ph.cpu[name].Seconds(), 100*ph.cpu[name].Seconds()/ph.dur.Seconds())
	}
	row("CPU, create phase", cpu(r.create, "kwok"), cpu(r.create, "kubeletlogic-node"), ratio(r.create.cpu["kubeletlogic-node"].Seconds(), r.create.cpu["kwok"].Seconds()))
	row("CPU, delete phase", cpu(r.del, "kwok"), cpu(r.del, "kubeletlogic-node"), ratio(r.del.cpu["kubeletlogic-node"].Seconds(), r.del.cpu["kwok"].Seconds()))
	row("peak RSS (VmHWM)", fmt.Sprintf("%.0f MiB", r.rss["kwok"]), fmt.Sprintf("%.0f MiB", r.rss["kubeletlogic-node"]), ratio(r.rss["kubeletlogic-node"], r.rss["kwok"]))
	b.WriteString("\nThe API server and the other components in the same phases (both pools' load together):\n\n")
	b.WriteString("| phase | length | requests (mutating / read-only) | mean latency mutating / read-only | p99 bucket mutating / read-only | max in flight (mutating / read-only; APF executing, queued) | CPU kube-apiserver, etcd, kube-controller-manager, kube-scheduler |\n|---|---|---|---|---|---|---|\n")
	for _, ph := range []struct {
		name string
		p    scalePhase
	}{{"create", r.create}, {"delete", r.del}} {
		a := ph.p.api
		mean := func(kind string) string {
			if a.count[kind] == 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f ms", 1000*a.sum[kind]/a.count[kind])
		}
		q := func(kind string) string { return fmt.Sprintf("≤ %g s", a.quantile(kind, 0.99)) }
		fmt.Fprintf(&b, "| %s | %.1f s | %.0f / %.0f (%.0f/s) | %s / %s | %s / %s | %.0f / %.0f; %.0f, %.0f | %.1f s, %.1f s, %.1f s, %.1f s |\n",
			ph.name, ph.p.dur.Seconds(), a.count["mutating"], a.count["readOnly"], (a.count["mutating"]+a.count["readOnly"])/ph.p.dur.Seconds(),
			mean("mutating"), mean("readOnly"), q("mutating"), q("readOnly"),
			ph.p.inflight["inflight mutating"], ph.p.inflight["inflight readOnly"], ph.p.inflight["executing"], ph.p.inflight["queued"],
			ph.p.cpu["kube-apiserver"].Seconds(), ph.p.cpu["etcd"].Seconds(), ph.p.cpu["kube-controller-manager"].Seconds(), ph.p.cpu["kube-scheduler"].Seconds())
	}
	return b.String()
}
