package node_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubeletlogic/kubeletlogic/node"
	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
)

// lfCrashScript makes a pod's container app exit 1 one second after
// each start (a crash loop).
const lfCrashScript = "apiVersion: kubeletlogic/v1alpha1\nkind: Script\ncontainers:\n  app:\n    runs:\n    - {exitAfter: 1s, exitCode: 1}\n"

// lfLabel marks every pod of TestLoadFaults (its value is the pod's
// kind: crash, run or job).
const lfLabel = "loadfault"

// lfOutageSlack is how long after the API server is ready again a
// status may still catch up with restarts the engine made while nothing
// could be written (the status manager's 10 s sweep, and some).
const lfOutageSlack = 15 * time.Second

// TestLoadFaults is issue 28's faults under load, a benchmark with
// checks, not a test: it runs only with KUBELETLOGIC_LOADFAULT=1
// (node/bench/loadfault.sh). One control plane, the real kwok with its
// node stages only, and two kubeletlogic-node processes in KWOK mode
// (go build of cmd/kubeletlogic-node; --node-label-selector
// kubeletlogic.io/shard=a and =b, each shard its own nodes with their
// own podCIDRs, as TestShards). KUBELETLOGIC_LOADFAULT_PODS pods
// (default 300), half pinned to each shard's nodes by nodeSelector: a
// fifth in a Job per shard (containers exit 0 after --job-run-time 8s),
// of the rest half crash-looping (the script annotation: exit 1 after
// 1 s) and half running. Once every pod has a status from its node:
//
//  1. kube-apiserver is stopped for 2 s and started again
//     (controlplane.RestartAPIServer);
//  2. once the outage's catch-up is over, shard b's process is killed
//     (SIGKILL) and started again 3 s later: it must adopt its pods
//     (each crash-looping pod of shard b restarts again);
//  3. KUBELETLOGIC_LOADFAULT_DELETES pods (default a fifth of all;
//     crash-looping and running, of both shards) are deleted at once;
//  4. once the Jobs completed and a status sweep passed, every pod left
//     must pass podstatus.Check (a status a kubelet v1.37.2 could write),
//     every container's restart count, over every version a watch saw
//     from the start, must never go down, go up by more than one only as
//     far as the engine's back-off lets it restart in the time between
//     the two versions (the status manager writes the newest status only,
//     so restarts made while a write waited show as one jump), go up in
//     the first count the restarted shard writes by no more than the
//     back-off allows since the new process started, and
//     never show one container ID with two counts (a restart counted
//     twice); every deleted pod's last status must show no running
//     container.
//
// It logs a markdown table and writes it to $KUBELETLOGIC_LOADFAULT_OUT
// when set.
func TestLoadFaults(t *testing.T) {
	if os.Getenv("KUBELETLOGIC_LOADFAULT") != "1" {
		t.Skip("benchmark, not a test: run it with KUBELETLOGIC_LOADFAULT=1 (node/bench/loadfault.sh; KUBELETLOGIC_LOADFAULT_PODS, _DELETES)")
	}
	total := scaleEnv(t, "KUBELETLOGIC_LOADFAULT_PODS", 300)
	deletes := scaleEnv(t, "KUBELETLOGIC_LOADFAULT_DELETES", max(1, total/5))
	limit := time.Duration(scaleEnv(t, "KUBELETLOGIC_LOADFAULT_TIMEOUT_S", 600)) * time.Second
	load0 := loadavg()

	bin := filepath.Join(t.TempDir(), "kubeletlogic-node")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/kubeletlogic-node").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	unlimited := []string{"--kube-api-qps=5000", "--kube-api-burst=10000"}
	cp := controlplane.Start(t, controlplane.Options{ExtraArgs: map[string][]string{
		"kube-controller-manager": unlimited, "kube-scheduler": unlimited}})
	// The test's own client has no client-side limit: the deletes go out
	// at once.
	cfg := rest.CopyConfig(cp.Config)
	cfg.QPS, cfg.Burst = 5000, 10000
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp.StartKwok(t, controlplane.KwokOptions{})

	shards := []string{"a", "b"}
	perShard := total / 2
	jobs := perShard / 5
	crash := (perShard - jobs) / 2
	run := perShard - jobs - crash
	nodesPerShard := max(2, (perShard+99)/100)
	for j, s := range shards {
		for i := range nodesPerShard {
			n := kwokNode(fmt.Sprintf("lf-%s-%d", s, i))
			n.Labels[shardLabel] = s
			n.Spec.PodCIDR = fmt.Sprintf("10.246.%d.0/24", j*nodesPerShard+i)
			if _, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	procs := map[string]*lfShard{}
	for _, s := range shards {
		procs[s] = startShard(t, cp, bin, s)
	}
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()

	w := watchLoadPods(ctx, t, c)
	res := &lfResult{total: total, perShard: perShard, crash: crash, run: run, jobs: jobs, nodes: nodesPerShard, load0: load0}

	// Create: the bare pods of both shards, then a Job per shard.
	t0 := time.Now()
	type spec struct{ name, shard, kind string }
	var bare []spec
	for _, s := range shards {
		for i := range crash {
			bare = append(bare, spec{fmt.Sprintf("lf-%s-crash-%d", s, i), s, "crash"})
		}
		for i := range run {
			bare = append(bare, spec{fmt.Sprintf("lf-%s-run-%d", s, i), s, "run"})
		}
	}
	scaleParallel(len(bare), 20, func(i int) {
		sp := bare[i]
		script := ""
		if sp.kind == "crash" {
			script = lfCrashScript
		}
		if _, err := c.CoreV1().Pods("default").Create(ctx, lfPod(sp.name, sp.shard, sp.kind, script), metav1.CreateOptions{}); err != nil {
			t.Error(err)
		}
	})
	for _, s := range shards {
		if jobs == 0 {
			break
		}
		if _, err := c.BatchV1().Jobs("default").Create(ctx, lfJob("lf-"+s+"-job", s, int32(jobs)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	// Every pod has a status from its node (and the crash-looping ones
	// have crashed once).
	lfWait(t, w, t0, limit, "every pod written by its node", func() bool {
		s := w.summary()
		return s.written >= total-total%2 && s.crashedOnce >= 2*crash
	})
	res.allWritten = time.Since(t0)
	t.Logf("all %d pods written by their nodes %.1f s after the first create", total, res.allWritten.Seconds())

	// 1. The API server restarted.
	res.outageFrom = time.Now()
	outage, err := cp.RestartAPIServer(2 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	res.outageTo = time.Now()
	res.outage = outage
	t.Logf("kube-apiserver stopped and ready again after %.1f s", outage.Seconds())
	w.allowJumps(res.outageFrom, res.outageTo.Add(lfOutageSlack))
	time.Sleep(time.Until(res.outageTo.Add(lfOutageSlack)))

	// 2. Shard b killed and started again.
	before := w.ids("b", "crash")
	res.killAt = time.Now()
	procs["b"].kill()
	time.Sleep(3 * time.Second)
	procs["b"] = startShard(t, cp, bin, "b")
	res.restartAt = time.Now()
	w.adoptedAt("b", res.restartAt)
	lfWait(t, w, res.restartAt, limit, "every crash-looping pod of shard b started again (a new container ID) after the adoption", func() bool {
		now := w.ids("b", "crash")
		for name, id := range before {
			if now[name] == id {
				return false
			}
		}
		return true
	})
	res.adopted = time.Since(res.restartAt)
	t.Logf("shard b killed, started again 3 s later; every one of its %d crash-looping pods restarted %.1f s after the start", len(before), res.adopted.Seconds())

	// 3. A burst of deletes: crash-looping and running pods, alternately
	// of shard a and b.
	// bare is shard a's crash-looping pods, its running ones, then shard
	// b's: deletes of them spread evenly over the list cover all four.
	var victims []string
	for k := range min(deletes, len(bare)) {
		victims = append(victims, bare[k*len(bare)/min(deletes, len(bare))].name)
	}
	res.deletes = len(victims)
	td := time.Now()
	w.expectGone(victims)
	scaleParallel(len(victims), 50, func(i int) {
		if err := c.CoreV1().Pods("default").Delete(ctx, victims[i], metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Error(err)
		}
	})
	res.deleteCalls = time.Since(td)
	lfWait(t, w, td, limit, "every deleted pod gone", func() bool { return w.summary().goneExpected >= len(victims) })
	res.allGone = time.Since(td)
	t.Logf("%d pods deleted at once (the DELETE calls took %.1f s); all gone %.1f s after the first", len(victims), res.deleteCalls.Seconds(), res.allGone.Seconds())

	// 4. The Jobs complete; a status sweep passes.
	lfWait(t, w, t0, limit, "every Job pod Succeeded", func() bool { return w.summary().succeeded >= 2*jobs })
	time.Sleep(12 * time.Second)
	res.end = time.Since(t0)

	// The checks.
	l, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: lfLabel})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var bad []string
	for i := range l.Items {
		p := &l.Items[i]
		res.checked++
		m := podstatus.Check(p, podstatus.RecomputeOptions{Now: now})
		if len(m) > 0 && len(podstatus.Check(p, podstatus.RecomputeOptions{Now: now, PodIsTerminal: true})) == 0 {
			m = nil
		}
		if len(m) > 0 {
			res.checkFailed++
			if len(bad) < 5 {
				bad = append(bad, fmt.Sprintf("pod %s: %v", p.Name, m))
			}
		}
	}
	for _, b := range bad {
		t.Errorf("a kubelet does not write this status: %s", b)
	}
	w.check(t, res)
	res.load1 = loadavg()
	out := res.markdown()
	t.Logf("faults under load (KUBELETLOGIC_LOADFAULT=1 KUBELETLOGIC_LOADFAULT_PODS=%d KUBELETLOGIC_LOADFAULT_DELETES=%d):\n\n%s", total, deletes, out)
	if f := os.Getenv("KUBELETLOGIC_LOADFAULT_OUT"); f != "" {
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func lfPod(name, shard, kind, script string) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{lfLabel: kind, shardLabel: shard}},
		Spec:       lfPodSpec(shard, v1.RestartPolicyAlways),
	}
	if script != "" {
		p.Annotations = map[string]string{node.ScriptAnnotation: script}
	}
	return p
}

func lfPodSpec(shard string, rp v1.RestartPolicy) v1.PodSpec {
	return v1.PodSpec{
		NodeSelector:                  map[string]string{shardLabel: shard},
		Tolerations:                   []v1.Toleration{{Key: controlplane.KwokNodeKey, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
		TerminationGracePeriodSeconds: ptr(int64(1)),
		RestartPolicy:                 rp,
		Containers:                    []v1.Container{{Name: "app", Image: "busybox"}},
	}
}

func lfJob(name, shard string, n int32) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.JobSpec{
			Parallelism: &n, Completions: &n,
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{lfLabel: "job", shardLabel: shard}},
				Spec:       lfPodSpec(shard, v1.RestartPolicyNever),
			},
		},
	}
}

// ---- the shards: kubeletlogic-node processes ----

type lfShard struct {
	cmd  *exec.Cmd
	done chan struct{}
	log  *os.File
}

// startShard starts a kubeletlogic-node process in KWOK mode driving the
// nodes labelled kubeletlogic.io/shard=s, logging to
// logs/kubeletlogic-node-<s>.log (appended to across restarts).
func startShard(t *testing.T, cp *controlplane.ControlPlane, bin, s string) *lfShard {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(cp.Dir, "logs", "kubeletlogic-node-"+s+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--mode", "kwok", "--node-label-selector", shardLabel+"="+s,
		"--kubeconfig", cp.Kubeconfig, "--qps", "5000", "--burst", "10000", "--job-run-time", "8s")
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &lfShard{cmd: cmd, done: make(chan struct{}), log: f}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p
}

// kill ends the process at once (SIGKILL): no clean stop.
func (p *lfShard) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
	p.log.Close()
}

func (p *lfShard) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.log.Close()
}

// ---- the pods as a watch sees them, every version ----

// lfSeen is one container's status in one version of a pod.
type lfSeen struct {
	at      time.Time
	restart int32
	id      string
	running bool
}

type lfPodLog struct {
	shard, kind string
	seen        map[string][]lfSeen // by container name
	last        *v1.Pod
	gone        bool
}

type lfWatch struct {
	mu         sync.Mutex
	pods       map[string]*lfPodLog
	expected   map[string]bool // pods deleted by the test
	jumpWindow [2]time.Time
	adoptShard string
	adoptAt    time.Time
	versions   int
}

type lfSummary struct {
	written, crashedOnce, succeeded, goneExpected int
}

// watchLoadPods records every version of the test's pods from a watch
// that resumes after the API server's restart (from the last
// resourceVersion; from a new list when that is too old).
func watchLoadPods(ctx context.Context, t *testing.T, c kubernetes.Interface) *lfWatch {
	w := &lfWatch{pods: map[string]*lfPodLog{}, expected: map[string]bool{}}
	node.ResumingPodWatch(ctx, c, metav1.ListOptions{LabelSelector: lfLabel}, w.observe)
	return w
}

func (w *lfWatch) observe(typ watch.EventType, p *v1.Pod) {
	at := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	pl := w.pods[p.Name]
	if pl == nil {
		pl = &lfPodLog{shard: p.Labels[shardLabel], kind: p.Labels[lfLabel], seen: map[string][]lfSeen{}}
		w.pods[p.Name] = pl
	}
	if pl.last != nil && pl.last.ResourceVersion == p.ResourceVersion && typ != watch.Deleted {
		return
	}
	w.versions++
	pl.last = p.DeepCopy()
	if typ == watch.Deleted {
		pl.gone = true
	}
	for _, l := range [][]v1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range l {
			pl.seen[cs.Name] = append(pl.seen[cs.Name], lfSeen{at: at, restart: cs.RestartCount, id: cs.ContainerID, running: cs.State.Running != nil})
		}
	}
}

func (w *lfWatch) allowJumps(from, to time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.jumpWindow = [2]time.Time{from, to}
}

func (w *lfWatch) adoptedAt(shard string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.adoptShard, w.adoptAt = shard, at
}

func (w *lfWatch) expectGone(names []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range names {
		w.expected[n] = true
	}
}

func (w *lfWatch) summary() lfSummary {
	w.mu.Lock()
	defer w.mu.Unlock()
	var s lfSummary
	for name, pl := range w.pods {
		if pl.gone {
			if w.expected[name] {
				s.goneExpected++
			}
			continue
		}
		if pl.last == nil {
			continue
		}
		if len(pl.last.Status.ContainerStatuses) > 0 {
			s.written++
		}
		if pl.kind == "crash" && restartsOf(pl.last) >= 1 {
			s.crashedOnce++
		}
		if pl.kind == "job" && pl.last.Status.Phase == v1.PodSucceeded {
			s.succeeded++
		}
	}
	return s
}

func restartsOf(p *v1.Pod) int32 {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == "app" {
			return cs.RestartCount
		}
	}
	return -1
}

// ids is the newest container ID of container app of every present pod
// of shard s and kind k (a new one: the container started again).
func (w *lfWatch) ids(s, k string) map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]string{}
	for name, pl := range w.pods {
		if pl.shard == s && pl.kind == k && !pl.gone && pl.last != nil {
			for _, cs := range pl.last.Status.ContainerStatuses {
				if cs.Name == "app" {
					out[name] = cs.ContainerID
				}
			}
		}
	}
	return out
}

// lfMaxRestarts bounds the restarts an engine can make in d: a crash
// loop's container runs 1 s and waits at least the back-off's first 10 s
// between restarts, the first restart after an adoption coming at once.
func lfMaxRestarts(d time.Duration) int32 {
	return 1 + int32(d/(11*time.Second))
}

// check checks the restart counts and the deleted pods' last statuses.
func (w *lfWatch) check(t *testing.T, res *lfResult) {
	w.mu.Lock()
	defer w.mu.Unlock()
	res.versions = w.versions
	names := make([]string, 0, len(w.pods))
	for n := range w.pods {
		names = append(names, n)
	}
	sort.Strings(names)
	report := func(format string, args ...any) {
		res.restartFailures++
		if res.restartFailures <= 10 {
			t.Errorf(format, args...)
		}
	}
	for _, name := range names {
		pl := w.pods[name]
		for cname, vs := range pl.seen {
			byID := map[string]int32{}
			adopting := pl.shard == w.adoptShard
			for i, v := range vs {
				res.restartSteps++
				if v.id != "" {
					if r, ok := byID[v.id]; ok && r != v.restart {
						res.twice++
						report("pod %s container %s: container %s shown with restart counts %d and %d (a restart counted twice)", name, cname, v.id, r, v.restart)
					}
					byID[v.id] = v.restart
				}
				if i == 0 {
					continue
				}
				prev := vs[i-1]
				d := v.restart - prev.restart
				if adopting && !v.at.Before(w.adoptAt) && d != 0 {
					// The first count the new process writes: the dead
					// one restarted nothing, the new one restarts an
					// adopted crashed container at once and the next
					// time only after the back-off's 10 s (and the
					// container's 1 s): counted from the new process's
					// start, not from the version before.
					adopting = false
					if d > lfMaxRestarts(v.at.Sub(w.adoptAt)) {
						res.adoptJumps++
						report("pod %s container %s: restart count %d after %d, the first the restarted shard wrote, %.1f s after its start: more than it could restart", name, cname, v.restart, prev.restart, v.at.Sub(w.adoptAt).Seconds())
						continue
					}
					if d > 1 {
						res.adoptLate++
						continue
					}
				}
				switch {
				case d < 0:
					res.down++
					report("pod %s container %s: restart count %d after %d at %s", name, cname, v.restart, prev.restart, v.at.Format("15:04:05.000"))
				case d > 1:
					// The status manager writes the newest status only:
					// restarts made while a write waited (the API server
					// down or slow) show as one jump, no larger than the
					// engine's back-off allows in the time between.
					if d <= lfMaxRestarts(v.at.Sub(prev.at)) {
						res.jumps++
						if !v.at.Before(w.jumpWindow[0]) && !v.at.After(w.jumpWindow[1]) {
							res.outageJumps++
						}
						res.maxJump = max(res.maxJump, d)
						continue
					}
					res.overJumps++
					report("pod %s container %s: restart count %d after %d (%.1f s before) at %s: more than the engine could restart", name, cname, v.restart, prev.restart, v.at.Sub(prev.at).Seconds(), v.at.Format("15:04:05.000"))
				}
			}
		}
		if w.expected[name] {
			res.deletedChecked++
			if !pl.gone {
				t.Errorf("pod %s: deleted, not gone", name)
			}
			if pl.last != nil {
				for _, cs := range pl.last.Status.ContainerStatuses {
					if cs.State.Running != nil {
						res.deletedRunning++
						if res.deletedRunning <= 10 {
							t.Errorf("pod %s: gone with container %s running (%s) in its last status", name, cs.Name, cs.ContainerID)
						}
					}
				}
			}
		}
	}
	for name, pl := range w.pods {
		if pl.gone && !w.expected[name] {
			t.Errorf("pod %s gone: the test did not delete it", name)
		}
	}
}

// lfWait waits until done, logging progress every 10 s; it fails the test
// after limit.
func lfWait(t *testing.T, w *lfWatch, t0 time.Time, limit time.Duration, what string, done func() bool) {
	t.Helper()
	next := time.Now().Add(10 * time.Second)
	for !done() {
		if time.Since(t0) > limit {
			t.Fatalf("not %s after %s: %+v", what, limit, w.summary())
		}
		if time.Now().After(next) {
			t.Logf("%5.0f s, waiting for %s: %+v", time.Since(t0).Seconds(), what, w.summary())
			next = next.Add(10 * time.Second)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ---- the result ----

type lfResult struct {
	total, perShard, crash, run, jobs, nodes int
	load0, load1                             string
	allWritten                               time.Duration
	outageFrom, outageTo                     time.Time
	outage                                   time.Duration
	killAt, restartAt                        time.Time
	adopted                                  time.Duration
	deletes                                  int
	deleteCalls, allGone, end                time.Duration
	checked, checkFailed                     int
	versions, restartSteps, restartFailures  int
	outageJumps, jumps                       int
	down, overJumps, adoptJumps, twice       int
	adoptLate                                int
	maxJump                                  int32
	deletedChecked, deletedRunning           int
}

func (r *lfResult) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d pods on 2 shards (kubeletlogic-node processes, KWOK mode, %d nodes each): per shard %d crash-looping, %d running, a Job of %d; load average %s at the start, %s at the end\n\n",
		r.total, r.nodes, r.crash, r.run, r.jobs, r.load0, r.load1)
	b.WriteString("| step | measured |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, v) }
	row("every pod written by its node", fmt.Sprintf("%.1f s after the first create", r.allWritten.Seconds()))
	row("1. kube-apiserver stopped 2 s, started again", fmt.Sprintf("ready again %.1f s after the stop", r.outage.Seconds()))
	row("2. shard b killed (SIGKILL), started 3 s later", fmt.Sprintf("all its %d crash-looping pods restarted again %.1f s after the start", r.crash, r.adopted.Seconds()))
	row("3. burst of deletes", fmt.Sprintf("%d pods; DELETE calls %.1f s; all gone %.1f s after the first", r.deletes, r.deleteCalls.Seconds(), r.allGone.Seconds()))
	row("whole run", fmt.Sprintf("%.0f s", r.end.Seconds()))
	row("podstatus.Check on every pod left", fmt.Sprintf("%d pods, %d failed", r.checked, r.checkFailed))
	row("restart counts (every container status of every version the watch saw)", fmt.Sprintf("%d versions, %d container statuses; %d failures (%d down, %d jumps over the back-off's bound, %d jumps at the adoption over the bound since the new process's start, %d container IDs with two counts); %d jumps by more than one within the bound, %d of them during the API server's outage or the 15 s after it (largest %d); %d first counts after the adoption more than one up, within the bound",
		r.versions, r.restartSteps, r.restartFailures, r.down, r.overJumps, r.adoptJumps, r.twice, r.jumps, r.outageJumps, r.maxJump, r.adoptLate))
	row("deleted pods' last status", fmt.Sprintf("%d pods, %d with a running container", r.deletedChecked, r.deletedRunning))
	return b.String()
}
