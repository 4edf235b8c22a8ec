package node_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/node"
	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
	"github.com/kubeletlogic/kubeletlogic/node/internal/plot"
	"github.com/kubeletlogic/kubeletlogic/tooling/captured"
)

// The two pools of TestSideBySide: nodes labelled sbsPoolLabel=kwok are
// KWOK's (the real kwok v0.8.0 with its default, "fast", pod stages),
// sbsPoolLabel=kl are kubeletlogic-node's (standalone nodes). Every pod
// carries its scenario and pool as labels.
const (
	sbsPoolLabel     = "kubeletlogic.io/pool"
	sbsScenarioLabel = "sbs-scenario"
	sbsPodPoolLabel  = "sbs-pool"
	sbsKwok          = "kwok"
	sbsKl            = "kl"
)

var sbsPools = []string{sbsKwok, sbsKl}

// The scenarios' timing: the sidecar Job's app runs 3 s, the crash-looping
// container exits 1 after 2 s, the preStop sleep hook runs 4 s under a
// grace period of 20 s.
const (
	sbsJobRun  = 3 * time.Second
	sbsPreStop = 4
	sbsGrace   = 20
)

// sbsCell is what a user sees of one scenario on one pool (or in a
// capture of the real kubelet): the STATUS column as it changed, the
// highest restart count, and the scenario's own facts (a Job's condition,
// how long a deletion took).
type sbsCell struct {
	statuses string
	restarts int32
	facts    []string
}

func (c sbsCell) String() string {
	s := fmt.Sprintf("%s; restarts %d", c.statuses, c.restarts)
	for _, f := range c.facts {
		s += "; " + f
	}
	return s
}

// sbsRow is one scenario: a cell per pool and the capture's.
type sbsRow struct {
	order    int
	scenario string
	cells    map[string]*sbsCell
	capture  string
}

type sbsTable struct {
	mu   sync.Mutex
	rows []*sbsRow
}

func (tb *sbsTable) add(r *sbsRow) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.rows = append(tb.rows, r)
}

func (tb *sbsTable) markdown() string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	rows := append([]*sbsRow(nil), tb.rows...)
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && rows[j].order < rows[j-1].order; j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	var b strings.Builder
	b.WriteString("| Scenario | KWOK v0.8.0, default (fast) pod stages | kubeletlogic-node | real kubelet v1.37.2 (capture) |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, r := range rows {
		cell := func(p string) string {
			if c := r.cells[p]; c != nil {
				return c.String()
			}
			return "(not run)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.scenario, cell(sbsKwok), cell(sbsKl), r.capture)
	}
	return b.String()
}

// TestSideBySide runs issue 27's end-to-end scenarios on one control plane
// (etcd, kube-apiserver, kube-controller-manager, kube-scheduler v1.37.2)
// with two node pools at once: one node managed by the real kwok v0.8.0
// with its default pod stages (pod-ready, pod-complete, pod-delete: what a
// KWOK user gets), one standalone node of kubeletlogic-node. Each scenario
// creates the same manifest on both pools (pinned by nodeSelector) at the
// same time; a watch records what a user sees on each, and the test
// asserts the differences that hold by construction (KWOK's stages never
// restart, never fail, never wait for a hook; the kubelet does) and logs a
// markdown table of both beside the real kubelet's captures
// (testdata/captured). README "Side by side with KWOK" holds a run's
// table.
func TestSideBySide(t *testing.T) {
	cp := controlplane.Start(t, controlplane.Options{})
	c := cp.Client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp.StartKwok(t, controlplane.KwokOptions{PodStages: controlplane.KwokPodFastStages})

	kn := kwokNode("sbs-kwok-0")
	kn.Labels[sbsPoolLabel] = sbsKwok
	if _, err := c.CoreV1().Nodes().Create(ctx, kn, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sa, err := node.NewStandalone(c, []node.NodeSpec{{Name: "sbs-kl-0", InternalIP: "10.88.28.1",
		Labels: map[string]string{sbsPoolLabel: sbsKl}}}, node.Options{Logf: t.Logf, Pods: node.PodOptions{Seed: 28}})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = sa.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()
	for _, n := range []string{"sbs-kwok-0", "sbs-kl-0"} {
		waitNode(t, c, n, 60*time.Second, func(n *v1.Node) bool { return ready(n) == v1.ConditionTrue })
	}

	tr := tracePods(ctx, t, c, metav1.ListOptions{LabelSelector: sbsScenarioLabel})
	table := &sbsTable{}
	t0 := time.Now()
	t.Run("scenarios", func(t *testing.T) {
		t.Run("sidecar job", func(t *testing.T) { t.Parallel(); sbsSidecarJob(ctx, t, c, tr, table) })
		t.Run("crash loop", func(t *testing.T) { t.Parallel(); sbsCrashLoop(ctx, t, c, tr, table) })
		t.Run("preStop delete", func(t *testing.T) { t.Parallel(); sbsPreStopDelete(ctx, t, c, tr, table) })
		t.Run("failed job pod deleted", func(t *testing.T) { t.Parallel(); sbsFailedJob(ctx, t, c, tr, table) })
		t.Run("succeeded pod deleted", func(t *testing.T) { t.Parallel(); sbsSucceededPod(ctx, t, c, tr, table) })
	})
	t.Logf("scenarios took %s", time.Since(t0).Round(time.Second))
	t.Run("kwok leaves the kl pool alone", func(t *testing.T) { sbsKwokLeavesKl(ctx, t, c) })
	t.Logf("side by side (cd node && bash test.sh -run TestSideBySide -v):\n\n%s", table.markdown())
}

// ---- manifests ----

// sbsScript is a script annotation naming the container app.
func sbsScript(run string) map[string]string {
	return map[string]string{node.ScriptAnnotation: "apiVersion: kubeletlogic/v1alpha1\nkind: Script\ncontainers:\n  app:\n    runs:\n    - " + run + "\n"}
}

// sbsTemplate is a pod template pinned to pool: its nodeSelector, the
// toleration of KWOK's taint, the scenario's labels.
func sbsTemplate(scenario, pool string, annotations map[string]string, spec v1.PodSpec) v1.PodTemplateSpec {
	spec.NodeSelector = map[string]string{sbsPoolLabel: pool}
	spec.Tolerations = append(spec.Tolerations, v1.Toleration{Key: controlplane.KwokNodeKey, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
	return v1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{sbsScenarioLabel: scenario, sbsPodPoolLabel: pool}, Annotations: annotations},
		Spec:       spec,
	}
}

func sbsPod(name, scenario, pool string, annotations map[string]string, spec v1.PodSpec) *v1.Pod {
	tp := sbsTemplate(scenario, pool, annotations, spec)
	tp.ObjectMeta.Name, tp.ObjectMeta.Namespace = name+"-"+pool, "default"
	return &v1.Pod{ObjectMeta: tp.ObjectMeta, Spec: tp.Spec}
}

// ---- what the watch saw ----

// sbsPodOf waits until the watch has seen the pod of scenario on pool
// (a Job's or a Deployment's pod has a generated name) and returns its
// name.
func sbsPodOf(t *testing.T, tr *podTrace, scenario, pool string) string {
	t.Helper()
	return waitFor(t, 60*time.Second, func() (string, bool) {
		for _, s := range tr.get() {
			if s.pod.Labels[sbsScenarioLabel] == scenario && s.pod.Labels[sbsPodPoolLabel] == pool {
				return s.pod.Name, true
			}
		}
		return "", false
	})
}

// sbsTrace is the watch's versions of the pod called name.
func sbsTrace(tr *podTrace, name string) []seenPod {
	var out []seenPod
	for _, s := range tr.get() {
		if s.pod.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// sbsStatuses is the STATUS column as the watch saw it change (with the
// restart count in parentheses once it is not 0), each with its time
// since the first version, "gone" for the DELETED event; and the highest
// restart count.
func sbsStatuses(trace []seenPod) (string, int32) {
	var parts []string
	last := ""
	var max int32
	var zero time.Time
	for _, s := range trace {
		if zero.IsZero() {
			zero = s.at
		}
		cell := "gone"
		if !s.gone {
			cell = kubectlstatus.Compute(s.pod)
			if n, _ := kubectlstatus.RestartCount(s.pod); n > 0 {
				cell += fmt.Sprintf(" (%d)", n)
			}
			for _, cs := range append(append([]v1.ContainerStatus(nil), s.pod.Status.InitContainerStatuses...), s.pod.Status.ContainerStatuses...) {
				if cs.RestartCount > max {
					max = cs.RestartCount
				}
			}
		}
		if cell == last {
			continue
		}
		last = cell
		parts = append(parts, fmt.Sprintf("%s %s", cell, sbsSeconds(s.at.Sub(zero))))
	}
	return strings.Join(parts, " → "), max
}

func sbsSeconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	if d < 10*time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%.0fs", d.Seconds())
}

// sbsCellOf is the cell of the pod called name as the watch saw it so far.
func sbsCellOf(tr *podTrace, name string, facts ...string) *sbsCell {
	s, r := sbsStatuses(sbsTrace(tr, name))
	return &sbsCell{statuses: s, restarts: r, facts: facts}
}

// sbsGone waits until the watch saw the pod called name deleted and
// returns when.
func sbsGone(t *testing.T, tr *podTrace, name string, limit time.Duration) time.Time {
	t.Helper()
	return waitFor(t, limit, func() (time.Time, bool) {
		for _, s := range sbsTrace(tr, name) {
			if s.gone {
				return s.at, true
			}
		}
		return time.Time{}, false
	})
}

// sbsJobDone waits until the Job is Complete or Failed and returns that
// condition.
func sbsJobDone(ctx context.Context, t *testing.T, c kubernetes.Interface, name string) batchv1.JobCondition {
	t.Helper()
	return waitFor(t, 60*time.Second, func() (batchv1.JobCondition, bool) {
		j, err := c.BatchV1().Jobs("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return batchv1.JobCondition{}, false
		}
		for _, cd := range j.Status.Conditions {
			if (cd.Type == batchv1.JobComplete || cd.Type == batchv1.JobFailed) && cd.Status == v1.ConditionTrue {
				return cd, true
			}
		}
		return batchv1.JobCondition{}, false
	})
}

// sbsDelete deletes the pod called name on each pool at once (in the
// order given) and returns when each DELETE was sent.
func sbsDelete(ctx context.Context, t *testing.T, c kubernetes.Interface, names map[string]string) map[string]time.Time {
	t.Helper()
	at := map[string]time.Time{}
	for _, pool := range sbsPools {
		at[pool] = time.Now()
		if err := c.CoreV1().Pods("default").Delete(ctx, names[pool], metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return at
}

// sbsGoneFact says how the pod called name went after its DELETE at
// deleted: the grace period the API server gave the deletion, and how long
// until the object was gone. A terminal pod's deletion gets grace 0 from
// the API server (its pod strategy's CheckGracefulDelete), which removes
// it at once when no finalizer holds it: no node is involved.
func sbsGoneFact(tr *podTrace, name string, deleted, gone time.Time) string {
	f := fmt.Sprintf("gone %s after the DELETE", sbsSeconds(gone.Sub(deleted)))
	for _, s := range sbsTrace(tr, name) {
		if g := s.pod.DeletionGracePeriodSeconds; s.pod.DeletionTimestamp != nil && g != nil {
			if *g == 0 {
				return f + " (grace 0: the API server removed the terminal pod itself)"
			}
			return f + fmt.Sprintf(" (grace %d s)", *g)
		}
	}
	return f
}

// sbsLastPhase is the phase of the last version the watch saw before the
// pod went.
func sbsLastPhase(trace []seenPod) v1.PodPhase {
	var ph v1.PodPhase
	for _, s := range trace {
		if !s.gone {
			ph = s.pod.Status.Phase
		}
	}
	return ph
}

// ---- 1. a Job with a native sidecar ----

// sbsSidecarJob: a Job whose pod has a native sidecar (proxy) and an app
// that exits 0 after 3 s (script). kubeletlogic-node: the app runs its
// 3 s, the sidecar is stopped after it, the pod is Succeeded and the Job
// Complete no sooner than 3 s after its creation. KWOK: pod-ready sets
// both running, pod-complete sets the app terminated and the pod
// Succeeded at once; the sidecar's status is left as it was.
func sbsSidecarJob(ctx context.Context, t *testing.T, c kubernetes.Interface, tr *podTrace, table *sbsTable) {
	const scenario = "sidecar-job"
	row := &sbsRow{order: 1, scenario: "1. Job, native sidecar, app exits 0 after 3 s", cells: map[string]*sbsCell{},
		capture: "none (no Job captured; startorder shows the sidecar started before the app)"}
	defer table.add(row)
	created := map[string]time.Time{}
	for _, pool := range sbsPools {
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: scenario + "-" + pool, Namespace: "default"},
			Spec: batchv1.JobSpec{Template: sbsTemplate(scenario, pool, sbsScript(fmt.Sprintf("{exitAfter: %s}", sbsJobRun)), v1.PodSpec{
				RestartPolicy: v1.RestartPolicyNever,
				InitContainers: []v1.Container{{Name: "proxy", Image: "envoy",
					RestartPolicy: ptr(v1.ContainerRestartPolicyAlways)}},
				Containers: []v1.Container{{Name: "app", Image: "busybox"}},
			})},
		}
		created[pool] = time.Now()
		if _, err := c.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, pool := range sbsPools {
		cd := sbsJobDone(ctx, t, c, scenario+"-"+pool)
		took := time.Since(created[pool])
		name := sbsPodOf(t, tr, scenario, pool)
		p, err := c.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sidecar := "no sidecar status"
		if len(p.Status.InitContainerStatuses) == 1 {
			st := p.Status.InitContainerStatuses[0].State
			switch {
			case st.Running != nil:
				sidecar = "sidecar still running in the " + string(p.Status.Phase) + " pod"
			case st.Terminated != nil:
				sidecar = fmt.Sprintf("sidecar stopped after the app (exit %d)", st.Terminated.ExitCode)
			}
		}
		row.cells[pool] = sbsCellOf(tr, name, fmt.Sprintf("Job %s %s after creation", cd.Type, sbsSeconds(took)), sidecar)
		if cd.Type != batchv1.JobComplete {
			t.Errorf("%s: Job %s (%s): want Complete", pool, cd.Type, cd.Reason)
		}
		if pool != sbsKl {
			// KWOK's fast stages complete a Job's pod with no delay.
			if took >= sbsJobRun {
				t.Errorf("kwok: Job Complete %s after creation: want it sooner than the app's %s (pod-complete has no delay)", took, sbsJobRun)
			}
			continue
		}
		if took < sbsJobRun {
			t.Errorf("kl: Job Complete %s after creation: want no sooner than the app's %s", took, sbsJobRun)
		}
		app := containerStatus(p, "app")
		if p.Status.Phase != v1.PodSucceeded || app == nil || app.State.Terminated == nil || app.State.Terminated.ExitCode != 0 ||
			len(p.Status.InitContainerStatuses) != 1 || p.Status.InitContainerStatuses[0].State.Terminated == nil {
			t.Errorf("kl: pod %s %+v: want Succeeded, app exited 0, the sidecar terminated", p.Status.Phase, p.Status)
		} else if px := p.Status.InitContainerStatuses[0].State.Terminated; px.FinishedAt.Before(&app.State.Terminated.FinishedAt) {
			t.Errorf("kl: sidecar finished %v before the app %v", px.FinishedAt, app.State.Terminated.FinishedAt)
		}
	}
}

// ---- 2. a crash-looping Deployment ----

// sbsCrashLoop: a Deployment whose container exits 1 after 2 s every run
// (script). kubeletlogic-node: Error, a restart at once, then
// CrashLoopBackOff and restarts after the kubelet's back-off (10 s, 20 s);
// KWOK ignores the script: Running with 0 restarts all along. Watched
// until the kl pod's second restart.
func sbsCrashLoop(ctx context.Context, t *testing.T, c kubernetes.Interface, tr *podTrace, table *sbsTable) {
	const scenario = "crashloop"
	row := &sbsRow{order: 2, scenario: "2. Deployment, container exits 1 after 2 s (script)", cells: map[string]*sbsCell{},
		capture: sbsCaptureCell(t, "crashloop")}
	defer table.add(row)
	for _, pool := range sbsPools {
		dep := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: scenario + "-" + pool, Namespace: "default"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr(int32(1)),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{sbsScenarioLabel: scenario, sbsPodPoolLabel: pool}},
				Template: sbsTemplate(scenario, pool, sbsScript("{exitAfter: 2s, exitCode: 1}"),
					v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}),
			},
		}
		if _, err := c.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	names := map[string]string{}
	for _, pool := range sbsPools {
		names[pool] = sbsPodOf(t, tr, scenario, pool)
	}
	// Until the kl pod's second restart (about 15 to 20 s), at most 60 s.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if _, r := sbsStatuses(sbsTrace(tr, names[sbsKl])); r >= 2 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	for _, pool := range sbsPools {
		trace := sbsTrace(tr, names[pool])
		cell := sbsCellOf(tr, names[pool], "watched "+sbsSeconds(time.Since(trace[0].at)))
		row.cells[pool] = cell
		crashLoop, errored := false, false
		for _, s := range trace {
			if cs := containerStatus(s.pod, "app"); cs != nil {
				crashLoop = crashLoop || cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff"
				errored = errored || cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 1
			}
		}
		switch pool {
		case sbsKl:
			if cell.restarts < 2 || !crashLoop || !errored {
				t.Errorf("kl: restarts %d, CrashLoopBackOff seen %v, exit 1 seen %v: want 2 restarts, both seen (%s)", cell.restarts, crashLoop, errored, cell.statuses)
			}
		case sbsKwok:
			last := trace[len(trace)-1].pod
			if cell.restarts != 0 || crashLoop || errored || last.Status.Phase != v1.PodRunning {
				t.Errorf("kwok: restarts %d, CrashLoopBackOff %v, exit 1 %v, phase %s: want KWOK's stages to keep it Running with 0 restarts (%s)",
					cell.restarts, crashLoop, errored, last.Status.Phase, cell.statuses)
			}
		}
	}
	if dir := os.Getenv("KUBELETLOGIC_PLOT_OUT"); dir != "" {
		sbsPlotCrashLoop(t, tr, names, dir)
	}
}

// sbsPlotCrashLoop watches the crash-looping pods on until
// KUBELETLOGIC_PLOT_CRASH_S seconds (default 360) after the kl pod's first
// version, then writes to dir their restart counts over time beside the
// real kubelet's (the capture crashloop-long: the same crash loop, a
// 1 s run), as beside-kwok-crashloop.json and the picture
// beside-kwok-crashloop.svg (docs/beside-kwok.md).
func sbsPlotCrashLoop(t *testing.T, tr *podTrace, names map[string]string, dir string) {
	watch := time.Duration(scaleEnv(t, "KUBELETLOGIC_PLOT_CRASH_S", 360)) * time.Second
	first := sbsTrace(tr, names[sbsKl])[0].at
	time.Sleep(time.Until(first.Add(watch)))
	series := map[string][]plot.Point{}
	for _, pool := range sbsPools {
		series[pool] = sbsRestartSeries(sbsTrace(tr, names[pool]), time.Time{}, watch)
	}
	series["capture"] = sbsRestartSeries(sbsCaptureTrace(t, "crashloop-long"), sbsCaptureCreated(t, "crashloop-long"), watch)
	data := plot.CrashLoop{WatchedS: watch.Seconds(), Date: time.Now().UTC().Format(time.RFC3339),
		Command: "cd node && KUBELETLOGIC_PLOT_OUT=../docs bash test.sh -run TestSideBySide -v", Series: series}
	if err := plot.Write(dir, plot.CrashLoopName, data); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s/beside-kwok-crashloop.json and beside-kwok-crashloop.svg (watched %s)", dir, watch)
}

// sbsRestartSeries is the highest restart count of the pod's containers
// over trace as a step series: a point at each change, in seconds since
// zero (the trace's first version when zero is the zero time), and one at
// end holding the last count.
func sbsRestartSeries(trace []seenPod, zero time.Time, end time.Duration) []plot.Point {
	var out []plot.Point
	if len(trace) == 0 {
		return nil
	}
	if zero.IsZero() {
		zero = trace[0].at
	}
	last := int32(-1)
	for _, s := range trace {
		if s.gone {
			continue
		}
		var n int32
		for _, cs := range s.pod.Status.ContainerStatuses {
			n = max(n, cs.RestartCount)
		}
		x := s.at.Sub(zero)
		if x > end {
			break
		}
		if n != last {
			out = append(out, plot.Point{X: x.Seconds(), Y: float64(n)})
			last = n
		}
	}
	if len(out) > 0 {
		out = append(out, plot.Point{X: end.Seconds(), Y: float64(last)})
	}
	return out
}

// ---- 3. a pod with a preStop sleep hook, deleted ----

// sbsPreStopDelete: a pod whose container has a preStop sleep hook of 4 s,
// grace 20 s, deleted once Running. kubeletlogic-node: the hook runs, the
// container is stopped, the pod is gone no sooner than 4 s after the
// DELETE (the capture api-delete-grace, an exec hook of 4 s: 6.0 s);
// KWOK's pod-delete stage deletes it at once.
func sbsPreStopDelete(ctx context.Context, t *testing.T, c kubernetes.Interface, tr *podTrace, table *sbsTable) {
	const scenario = "prestop"
	row := &sbsRow{order: 3, scenario: fmt.Sprintf("3. Pod, preStop sleep %d s, grace %d s, deleted once Running", sbsPreStop, sbsGrace),
		cells: map[string]*sbsCell{}, capture: sbsCaptureCell(t, "api-delete-grace")}
	defer table.add(row)
	names := map[string]string{}
	for _, pool := range sbsPools {
		p := sbsPod(scenario, scenario, pool, nil, v1.PodSpec{
			TerminationGracePeriodSeconds: ptr(int64(sbsGrace)),
			Containers: []v1.Container{{Name: "app", Image: "busybox",
				Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: sbsPreStop}}}}},
		})
		names[pool] = p.Name
		if _, err := c.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, pool := range sbsPools {
		waitFor(t, 60*time.Second, func() (string, bool) {
			p, err := c.CoreV1().Pods("default").Get(ctx, names[pool], metav1.GetOptions{})
			if err != nil {
				return err.Error(), false
			}
			r := podCondition(p, v1.PodReady)
			return pool + " " + string(p.Status.Phase), p.Status.Phase == v1.PodRunning && r != nil && r.Status == v1.ConditionTrue
		})
	}
	time.Sleep(time.Second)
	deleted := sbsDelete(ctx, t, c, names)
	for _, pool := range sbsPools {
		gone := sbsGone(t, tr, names[pool], 40*time.Second)
		took := gone.Sub(deleted[pool])
		trace := sbsTrace(tr, names[pool])
		row.cells[pool] = sbsCellOf(tr, names[pool], sbsGoneFact(tr, names[pool], deleted[pool], gone)+", last phase "+string(sbsLastPhase(trace)))
		switch pool {
		case sbsKl:
			if took < sbsPreStop*time.Second || took > (sbsGrace+2)*time.Second {
				t.Errorf("kl: gone %s after the DELETE: want the preStop's %d s at least, within the grace %d s", took, sbsPreStop, sbsGrace)
			}
		case sbsKwok:
			if took >= sbsPreStop*time.Second {
				t.Errorf("kwok: gone %s after the DELETE: want KWOK's pod-delete stage to delete it at once", took)
			}
		}
	}
}

// ---- 4. a Job's pod fails, then is deleted ----

// sbsFailedJob: a Job (backoffLimit 0, restartPolicy Never) whose
// container exits 1 after 2 s (script). kubeletlogic-node: the pod
// Failed (exit code 1, Error), the Job Failed (BackoffLimitExceeded).
// KWOK cannot make a container fail with its default stages: its
// pod-complete stage sets every Job pod Succeeded with exit code 0, and the
// Job Complete. The pod is then deleted on both.
func sbsFailedJob(ctx context.Context, t *testing.T, c kubernetes.Interface, tr *podTrace, table *sbsTable) {
	const scenario = "failjob"
	row := &sbsRow{order: 4, scenario: "4. Job (backoffLimit 0), container exits 1 after 2 s (script); the pod then deleted",
		cells: map[string]*sbsCell{}, capture: sbsCaptureCell(t, "never-exit7")}
	defer table.add(row)
	for _, pool := range sbsPools {
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: scenario + "-" + pool, Namespace: "default"},
			Spec: batchv1.JobSpec{BackoffLimit: ptr(int32(0)), Template: sbsTemplate(scenario, pool, sbsScript("{exitAfter: 2s, exitCode: 1}"),
				v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "busybox"}}})},
		}
		if _, err := c.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	names, conds := map[string]string{}, map[string]batchv1.JobCondition{}
	for _, pool := range sbsPools {
		conds[pool] = sbsJobDone(ctx, t, c, scenario+"-"+pool)
		names[pool] = sbsPodOf(t, tr, scenario, pool)
		// The pod terminal, and the Job controller done with it (its
		// finalizer removed).
		waitFor(t, 30*time.Second, func() (string, bool) {
			p, err := c.CoreV1().Pods("default").Get(ctx, names[pool], metav1.GetOptions{})
			if err != nil {
				return err.Error(), false
			}
			return fmt.Sprintf("%s %v", p.Status.Phase, p.Finalizers), (p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed) && len(p.Finalizers) == 0
		})
	}
	var exit string
	for _, pool := range sbsPools {
		p, err := c.CoreV1().Pods("default").Get(ctx, names[pool], metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		exit = "no exit code"
		if app := containerStatus(p, "app"); app != nil && app.State.Terminated != nil {
			exit = fmt.Sprintf("exit %d %s", app.State.Terminated.ExitCode, app.State.Terminated.Reason)
		}
		switch pool {
		case sbsKl:
			if p.Status.Phase != v1.PodFailed || conds[pool].Type != batchv1.JobFailed || conds[pool].Reason != batchv1.JobReasonBackoffLimitExceeded || exit != "exit 1 Error" {
				t.Errorf("kl: pod %s (%s), Job %s %s: want Failed, exit 1 Error, the Job Failed with BackoffLimitExceeded", p.Status.Phase, exit, conds[pool].Type, conds[pool].Reason)
			}
		case sbsKwok:
			if p.Status.Phase != v1.PodSucceeded || conds[pool].Type != batchv1.JobComplete {
				t.Errorf("kwok: pod %s, Job %s: want KWOK's pod-complete stage to make it Succeeded and the Job Complete", p.Status.Phase, conds[pool].Type)
			}
		}
		row.cells[pool] = &sbsCell{facts: []string{fmt.Sprintf("pod %s, %s; Job %s %s", p.Status.Phase, exit, conds[pool].Type, conds[pool].Reason)}}
	}
	deleted := sbsDelete(ctx, t, c, names)
	for _, pool := range sbsPools {
		gone := sbsGone(t, tr, names[pool], 20*time.Second)
		cell := sbsCellOf(tr, names[pool], append(row.cells[pool].facts, sbsGoneFact(tr, names[pool], deleted[pool], gone))...)
		row.cells[pool] = cell
		if cell.restarts != 0 {
			t.Errorf("%s: restarts %d: want 0 (restartPolicy Never)", pool, cell.restarts)
		}
	}
}

// ---- 5. a Succeeded pod deleted ----

// sbsSucceededPod: a pod (no owner, restartPolicy Never) whose container
// exits 0 after 1 s (script), deleted once Succeeded on the kl pool.
// kubeletlogic-node: Succeeded (Completed), then gone as soon as the
// kubelet sees the deletion (its final delete, grace 0). KWOK completes
// only the pods a Job owns: this one stays Running until deleted.
func sbsSucceededPod(ctx context.Context, t *testing.T, c kubernetes.Interface, tr *podTrace, table *sbsTable) {
	const scenario = "done"
	row := &sbsRow{order: 5, scenario: "5. Pod (restartPolicy Never, no owner), exits 0 after 1 s (script); deleted once Succeeded",
		cells: map[string]*sbsCell{}, capture: sbsCaptureCell(t, "never-exit0")}
	defer table.add(row)
	names := map[string]string{}
	for _, pool := range sbsPools {
		p := sbsPod(scenario, scenario, pool, sbsScript("{exitAfter: 1s}"), v1.PodSpec{
			RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
		names[pool] = p.Name
		if _, err := c.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 60*time.Second, func() (string, bool) {
		p, err := c.CoreV1().Pods("default").Get(ctx, names[sbsKl], metav1.GetOptions{})
		if err != nil {
			return err.Error(), false
		}
		return string(p.Status.Phase), p.Status.Phase == v1.PodSucceeded
	})
	phases := map[string]v1.PodPhase{}
	for _, pool := range sbsPools {
		p, err := c.CoreV1().Pods("default").Get(ctx, names[pool], metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		phases[pool] = p.Status.Phase
	}
	if phases[sbsKwok] != v1.PodRunning {
		t.Errorf("kwok: phase %s: want Running (KWOK's pod-complete stage completes only Job pods)", phases[sbsKwok])
	}
	deleted := sbsDelete(ctx, t, c, names)
	for _, pool := range sbsPools {
		gone := sbsGone(t, tr, names[pool], 20*time.Second)
		row.cells[pool] = sbsCellOf(tr, names[pool], fmt.Sprintf("%s when deleted, %s", phases[pool], sbsGoneFact(tr, names[pool], deleted[pool], gone)))
	}
}

// sbsKwokLeavesKl: no pod of the kl pool was ever written by kwok (its
// pod controller manages the pods of the nodes it manages only).
func sbsKwokLeavesKl(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	pods, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: sbsPodPoolLabel + "=" + sbsKl})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		for _, f := range p.ManagedFields {
			if strings.Contains(f.Manager, "kwok") {
				t.Errorf("pod %s written by %s/%s", p.Name, f.Manager, f.Subresource)
			}
		}
	}
}

// ---- the real kubelet's captures ----

// sbsCaptureCell is what the capture called name shows, as the cells of
// the pools show it: the STATUS column as it changed (the kubelet's own
// status, or the API server's object in an api-* capture), the highest
// restart count, and for a capture with a DELETE how long the object took
// to go. Times count from the pod's creation (its manifest written).
func sbsCaptureCell(t *testing.T, name string) string {
	t.Helper()
	trace, deleted, gone := sbsCaptureObserved(t, name)
	s, r := sbsStatuses(trace)
	cell := sbsCell{statuses: s, restarts: r}
	if !deleted.IsZero() && !gone.IsZero() {
		cell.facts = append(cell.facts, fmt.Sprintf("gone %s after the DELETE, last phase %s", sbsSeconds(gone.Sub(deleted)), sbsLastPhase(trace)))
	}
	return fmt.Sprintf("%s: %s", name, cell)
}

// sbsCaptureTrace is the capture's pod as the watch would have seen it
// (sbsCaptureCell).
func sbsCaptureTrace(t *testing.T, name string) []seenPod {
	trace, _, _ := sbsCaptureObserved(t, name)
	return trace
}

// sbsCaptureCreated is when the capture's pod was created.
func sbsCaptureCreated(t *testing.T, name string) time.Time {
	return sbsCaptureTrace(t, name)[0].at
}

// sbsCaptureObserved reads the capture called name: its observations as
// versions of the pod, the first a Pending pod at its creation; when it
// was deleted and gone (zero: not).
func sbsCaptureObserved(t *testing.T, name string) (trace []seenPod, deleted, gone time.Time) {
	t.Helper()
	f, err := captured.Load(filepath.Join("..", "testdata", "captured", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var created time.Time
	for _, e := range f.Events {
		switch {
		case created.IsZero() && (strings.HasPrefix(e.What, "pod created") || e.What == "manifest written"):
			created = e.Time
		case e.What == "pod deleted":
			deleted = e.Time
		}
	}
	for _, o := range f.Observations {
		p := f.Pod.DeepCopy()
		switch {
		case o.API != nil && o.API.Gone:
			trace = append(trace, seenPod{at: o.Time, pod: p, gone: true})
			if gone.IsZero() {
				gone = o.Time
			}
			continue
		case o.API != nil:
			p.Status, p.DeletionTimestamp, p.DeletionGracePeriodSeconds = o.API.Status, o.API.DeletionTimestamp, o.API.DeletionGracePeriodSeconds
		case o.Status != nil:
			p.Status = *o.Status
		default:
			continue // the kubelet no longer holds the pod
		}
		trace = append(trace, seenPod{at: o.Time, pod: p})
	}
	if len(trace) > 0 && !created.IsZero() {
		trace = append([]seenPod{{at: created, pod: &v1.Pod{ObjectMeta: f.Pod.ObjectMeta, Status: v1.PodStatus{Phase: v1.PodPending}}}}, trace...)
	}
	return trace, deleted, gone
}

// TestSideBySideCaptures checks the capture cells of TestSideBySide's
// table (no control plane): the real kubelet's crash loop restarts and
// shows CrashLoopBackOff, its preStop deletion takes the hook's 4 s and
// more, its failing pod is Failed with exit code 7.
func TestSideBySideCaptures(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"crashloop", []string{"CrashLoopBackOff (1)", "Running (2)", "restarts 4"}},
		{"api-delete-grace", []string{"Terminating", "Completed", "gone 6.0s after the DELETE, last phase Succeeded", "restarts 0"}},
		{"never-exit7", []string{"Error", "restarts 0"}},
		{"never-exit0", []string{"Completed", "restarts 0"}},
	} {
		got := sbsCaptureCell(t, c.name)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		t.Logf("%s", got)
	}
	// The picture's capture series (sbsPlotCrashLoop): crashloop-long's
	// restart count steps from 0 to 7, the 7th restart 664 s after the
	// creation, held to the end of the picture.
	pts := sbsRestartSeries(sbsCaptureTrace(t, "crashloop-long"), sbsCaptureCreated(t, "crashloop-long"), 750*time.Second)
	var ys []float64
	for _, p := range pts {
		ys = append(ys, p.Y)
	}
	if fmt.Sprint(ys) != "[0 1 2 3 4 5 6 7 7]" || pts[0].X != 0 || math.Abs(pts[7].X-664.3) > 0.1 || pts[8].X != 750 {
		t.Errorf("crashloop-long's restart series %v: want steps 0 to 7 from 0 s, the 7th at 664.3 s, held to 750 s", pts)
	}
}
