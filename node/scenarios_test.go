package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeletlogic/kubeletlogic/node"
	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/tooling/captured"
)

// The simulator's time tolerances (tooling/replay: tolStatus, tolVisible):
// a status within one PLEG relist period (1 s) plus a 250 ms poll and the
// runtime's call-time jitter of the capture; the time a phase stays
// visible within two polls and the jitter.
const (
	tolStatus  = 1500 * time.Millisecond
	tolVisible = 750 * time.Millisecond
)

// TestScenarios runs issue 27's end-to-end scenarios on Standalone nodes
// against a real control plane (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler v1.37.2), in parallel: a rolling
// update with preStop and a readiness probe, a Job with a podFailurePolicy
// on exit code 42, and the captured real-kubelet API scenarios
// (testdata/captured/api-*.json) compared field by field.
func TestScenarios(t *testing.T) {
	cp := controlplane.Start(t, controlplane.Options{})
	c := cp.Client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	specs, err := node.Numbered("ks", 3)
	if err != nil {
		t.Fatal(err)
	}
	sa, err := node.NewStandalone(c, specs, node.Options{Logf: t.Logf, Pods: node.PodOptions{Seed: 27}, StatusScheduled: terminalDue.record})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = sa.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()
	for _, s := range specs {
		waitNode(t, c, s.Name, 60*time.Second, func(n *v1.Node) bool { return ready(n) == v1.ConditionTrue })
	}
	t.Run("scenarios", func(t *testing.T) {
		t.Run("rolling update", func(t *testing.T) { t.Parallel(); rollingUpdate(ctx, t, c) })
		t.Run("pod failure policy", func(t *testing.T) { t.Parallel(); podFailurePolicy(ctx, t, c) })
		for _, name := range []string{"api-delete-grace", "api-finalizer", "api-ephemeral", "api-readiness-gate"} {
			t.Run(name, func(t *testing.T) { t.Parallel(); capturedAPIScenario(ctx, t, c, name, "ks-2") })
		}
	})
}

// ---- a watch of pods, every version with the time it arrived ----

type seenPod struct {
	at   time.Time
	pod  *v1.Pod
	gone bool // the DELETED event (pod is the last version)
}

type podTrace struct {
	mu   sync.Mutex
	list []seenPod
}

func (p *podTrace) get() []seenPod {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]seenPod(nil), p.list...)
}

// byName is the trace of each pod, by name, in arrival order.
func (p *podTrace) byName() map[string][]seenPod {
	out := map[string][]seenPod{}
	for _, s := range p.get() {
		out[s.pod.Name] = append(out[s.pod.Name], s)
	}
	return out
}

// tracePods watches the pods opts selects in default from now until ctx
// ends, watching again from the last resource version when the server
// closes the watch.
func tracePods(ctx context.Context, t *testing.T, c kubernetes.Interface, opts metav1.ListOptions) *podTrace {
	t.Helper()
	tr := &podTrace{}
	w, err := c.CoreV1().Pods("default").Watch(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		rv := ""
		for {
			for ev := range w.ResultChan() {
				p, ok := ev.Object.(*v1.Pod)
				if !ok {
					continue
				}
				rv = p.ResourceVersion
				tr.mu.Lock()
				tr.list = append(tr.list, seenPod{at: time.Now(), pod: p, gone: ev.Type == watch.Deleted})
				tr.mu.Unlock()
			}
			if ctx.Err() != nil {
				return
			}
			o := opts
			o.ResourceVersion = rv
			if w, err = c.CoreV1().Pods("default").Watch(ctx, o); err != nil {
				return
			}
		}
	}()
	t.Cleanup(w.Stop)
	return tr
}

func podCondition(p *v1.Pod, ct v1.PodConditionType) *v1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == ct {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func containerStatus(p *v1.Pod, name string) *v1.ContainerStatus {
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == name {
			return &p.Status.ContainerStatuses[i]
		}
	}
	return nil
}

// lifecycle is what a watch saw of one pod: zero times are never.
type lifecycle struct {
	name, hash string
	created    time.Time
	started    time.Time // the app container's startedAt (whole seconds)
	readySeen  time.Time // first version with Ready True
	readyLTT   time.Time // its lastTransitionTime
	deleted    time.Time // first version with a deletionTimestamp
	deletion   *v1.Pod   // that version
	terminal   time.Time // first version in Succeeded or Failed
	final      *v1.Pod   // that version
	gone       time.Time
}

func lifecycleOf(trace []seenPod) lifecycle {
	var l lifecycle
	for _, s := range trace {
		p := s.pod
		if l.name == "" {
			l.name, l.hash, l.created = p.Name, p.Labels[appsv1.DefaultDeploymentUniqueLabelKey], s.at
		}
		if s.gone {
			l.gone = s.at
			continue
		}
		if cs := containerStatus(p, "app"); cs != nil && cs.State.Running != nil && l.started.IsZero() {
			l.started = cs.State.Running.StartedAt.Time
		}
		if r := podCondition(p, v1.PodReady); r != nil && r.Status == v1.ConditionTrue && l.readySeen.IsZero() {
			l.readySeen, l.readyLTT = s.at, r.LastTransitionTime.Time
		}
		if p.DeletionTimestamp != nil && l.deleted.IsZero() {
			l.deleted, l.deletion = s.at, p
		}
		if (p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed) && l.terminal.IsZero() {
			l.terminal, l.final = s.at, p
		}
	}
	return l
}

func within(d, lo, hi time.Duration) bool { return d >= lo && d <= hi }

// ---- 1. a rolling update with preStop and a readiness probe ----

// Rolling update timing: the readiness probe's initial delay and period,
// the preStop hook's run time (the script's; the hook is exec) and the
// grace period.
const (
	rollInitialDelay = 5 * time.Second
	rollPeriod       = 3 * time.Second
	rollPreStop      = 4 * time.Second
	rollGrace        = 20
)

// rollingUpdate: a Deployment of 2 replicas (maxSurge 1, maxUnavailable 0)
// whose container has an exec preStop hook that runs 4 s, grace 20 s, and
// a readiness probe (initialDelaySeconds 5, periodSeconds 3) that always
// succeeds. Every pod becomes Ready only once the probe ran: not before
// its container's start plus the initial delay, at most one period (and
// the status write) later. The template is changed: the real Deployment
// controller deletes an old pod only once a new one is Ready, and each
// old pod stops with the kubelet's timing: the Killing Event at the
// deletion, the container's exit after the 4 s preStop, the Succeeded
// phase at the next relist, the object gone once the kubelet deletes it
// (the capture api-delete-grace, the same hook and grace: terminal 5.2 s
// and gone 6.0 s after the DELETE).
func rollingUpdate(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	labels := map[string]string{"app": "roll"}
	grace := int64(rollGrace)
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "roll", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(2)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: ptr(intstr.FromInt32(1)), MaxUnavailable: ptr(intstr.FromInt32(0))}},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{
					node.ScriptAnnotation: "containers:\n  app:\n    runs:\n    - {preStop: 4s}\n"}},
				Spec: v1.PodSpec{
					TerminationGracePeriodSeconds: &grace,
					Containers: []v1.Container{{Name: "app", Image: "nginx",
						Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"sh", "-c", "sleep 4"}}}},
						ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"cat", "/tmp/ready"}}},
							InitialDelaySeconds: int32(rollInitialDelay / time.Second), PeriodSeconds: int32(rollPeriod / time.Second)}}},
				},
			},
		},
	}
	tr := tracePods(ctx, t, c, metav1.ListOptions{LabelSelector: "app=roll"})
	deps := c.AppsV1().Deployments("default")
	if _, err := deps.Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rolledOut := func(gen int64) func() (string, bool) {
		return func() (string, bool) {
			d, err := deps.Get(ctx, "roll", metav1.GetOptions{})
			if err != nil {
				return err.Error(), false
			}
			s := d.Status
			return fmt.Sprintf("%+v", s), s.ObservedGeneration >= gen && s.UpdatedReplicas == 2 && s.AvailableReplicas == 2 && s.Replicas == 2
		}
	}
	waitFor(t, 90*time.Second, rolledOut(1))
	tUpdate := time.Now()
	if _, err := deps.Patch(ctx, "roll", types.StrategicMergePatchType,
		[]byte(`{"spec":{"template":{"metadata":{"annotations":{"kubeletlogic.io/revision":"2"}}}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 120*time.Second, rolledOut(2))
	// The old pods are gone from the API (the kubelet's final delete).
	waitFor(t, 60*time.Second, func() (string, bool) {
		var old []string
		for name, l := range tr.byName() {
			if lc := lifecycleOf(l); lc.created.Before(tUpdate) && lc.gone.IsZero() {
				old = append(old, name)
			}
		}
		return fmt.Sprintf("old pods still there: %v", old), len(old) == 0
	})
	t.Logf("rolled out %s after the update", time.Since(tUpdate).Round(100*time.Millisecond))

	var olds, news []lifecycle
	for _, l := range tr.byName() {
		lc := lifecycleOf(l)
		if lc.created.Before(tUpdate) {
			olds = append(olds, lc)
		} else {
			news = append(news, lc)
		}
	}
	if len(olds) != 2 || len(news) != 2 {
		t.Fatalf("%d old and %d new pods: want 2 and 2", len(olds), len(news))
	}
	sort.Slice(olds, func(i, j int) bool { return olds[i].deleted.Before(olds[j].deleted) })
	sort.Slice(news, func(i, j int) bool { return news[i].readySeen.Before(news[j].readySeen) })
	// Readiness: not before start + initialDelay (both whole seconds on
	// the API: the transition is truncated as the start is), at most one
	// period after it plus the truncation and the status write.
	for _, l := range append(append([]lifecycle(nil), olds...), news...) {
		if l.started.IsZero() || l.readySeen.IsZero() {
			t.Errorf("pod %s: started %v, Ready seen %v", l.name, l.started, l.readySeen)
			continue
		}
		ltt, seen := l.readyLTT.Sub(l.started), l.readySeen.Sub(l.started)
		t.Logf("pod %s: Ready %s after its container's start (transition written %s)", l.name, seen.Round(10*time.Millisecond), ltt)
		if ltt < rollInitialDelay || !within(seen, rollInitialDelay, rollInitialDelay+rollPeriod+time.Second+tolStatus) {
			t.Errorf("pod %s: Ready at %s (transition %s) after the start: want from the initial delay %s to one period %s, 1 s and %s later",
				l.name, seen, ltt, rollInitialDelay, rollPeriod, tolStatus)
		}
	}
	for k, o := range olds {
		if o.deletion == nil {
			t.Errorf("old pod %s never deleted", o.name)
			continue
		}
		// maxUnavailable 0: the controller deletes the k-th old pod only
		// once k+1 new pods are Ready.
		if n := news[k]; n.readySeen.IsZero() || !n.readySeen.Before(o.deleted) {
			t.Errorf("old pod %s deleted at %s, before the new pod %s was Ready (%s)", o.name, o.deleted.Format(time.StampMilli), n.name, n.readySeen.Format(time.StampMilli))
		}
		dp := o.deletion
		if g := dp.DeletionGracePeriodSeconds; g == nil || *g != rollGrace {
			t.Errorf("old pod %s: deletion grace %v: want %d", o.name, g, rollGrace)
		}
		if d := dp.DeletionTimestamp.Sub(o.deleted); !within(d, rollGrace*time.Second-time.Second-tolStatus, rollGrace*time.Second+tolStatus) {
			t.Errorf("old pod %s: deletionTimestamp %s after the deletion was seen: want the grace %ds", o.name, d, rollGrace)
		}
		if o.final == nil || o.gone.IsZero() {
			t.Errorf("old pod %s: terminal %v, gone %v", o.name, o.final != nil, o.gone)
			continue
		}
		cs := containerStatus(o.final, "app")
		if o.final.Status.Phase != v1.PodSucceeded || cs == nil || cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 0 {
			t.Errorf("old pod %s: final phase %s, app %+v: want Succeeded, exit code 0 (it exits at once on SIGTERM)", o.name, o.final.Status.Phase, cs)
			continue
		}
		// The container stops after the preStop hook: its finish (whole
		// seconds) at least 4 s after the deletion (-1 s of truncation),
		// at most the hook, a relist and the status write later.
		fin := cs.State.Terminated.FinishedAt.Sub(o.deleted)
		term, gone := o.terminal.Sub(o.deleted), o.gone.Sub(o.deleted)
		t.Logf("old pod %s: deleted; container finished %s, Succeeded seen %s, gone %s later", o.name, fin.Round(10*time.Millisecond),
			term.Round(10*time.Millisecond), gone.Round(10*time.Millisecond))
		if !within(fin, rollPreStop-tolStatus, rollPreStop+tolStatus) {
			t.Errorf("old pod %s: container finished %s after the deletion: want after the preStop %s (within %s)", o.name, fin, rollPreStop, tolStatus)
		}
		if !within(term, rollPreStop-250*time.Millisecond, rollPreStop+time.Second+tolStatus) {
			t.Errorf("old pod %s: Succeeded %s after the deletion: want the preStop %s, a relist and %s", o.name, term, rollPreStop, tolStatus)
		}
		if v := gone - term; v < 0 || v > time.Second+tolVisible {
			t.Errorf("old pod %s: gone %s after it showed Succeeded: want the kubelet's delete after SyncTerminatedPod (capture: 0.78 s, within %s)", o.name, v, time.Second+tolVisible)
		}
		killing := false
		evs, err := c.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + o.name + ",reason=Killing"})
		if err == nil {
			for _, e := range evs.Items {
				at := e.FirstTimestamp.Time
				if !e.EventTime.IsZero() {
					at = e.EventTime.Time
				}
				if e.Source.Component == "kubelet" && e.InvolvedObject.FieldPath == "spec.containers{app}" &&
					within(at.Sub(o.deleted), -time.Second, tolStatus) {
					killing = true
				}
			}
		}
		if !killing {
			t.Errorf("old pod %s: no Killing event for app at its deletion (%v)", o.name, err)
		}
	}
}

// ---- 2. a Job with a podFailurePolicy on exit code 42 ----

// podFailurePolicy: the Job's container exits 42 after 2 s (script); the
// pod is Failed with the container terminated with exit code 42 (reason
// Error), and the real Job controller fails the Job at once by the rule
// FailJob on exit code 42 (reason PodFailurePolicy), with no retry although
// backoffLimit allows one.
func podFailurePolicy(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "fail42", Namespace: "default"},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr(int32(1)),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionFailJob,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptr("app"),
					Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
			}}},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
					node.ScriptAnnotation: "containers:\n  app:\n    runs:\n    - {exitAfter: 2s, exitCode: 42}\n"}},
				Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "busybox"}}},
			},
		},
	}
	if _, err := c.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	j := waitFor(t, 90*time.Second, func() (*batchv1.Job, bool) {
		j, err := c.BatchV1().Jobs("default").Get(ctx, "fail42", metav1.GetOptions{})
		if err != nil {
			return nil, false
		}
		for _, cd := range j.Status.Conditions {
			if (cd.Type == batchv1.JobFailed || cd.Type == batchv1.JobComplete) && cd.Status == v1.ConditionTrue {
				return j, true
			}
		}
		return j, false
	})
	var failed *batchv1.JobCondition
	for i, cd := range j.Status.Conditions {
		if cd.Type == batchv1.JobFailed && cd.Status == v1.ConditionTrue {
			failed = &j.Status.Conditions[i]
		}
	}
	if failed == nil || failed.Reason != batchv1.JobReasonPodFailurePolicy {
		t.Fatalf("job conditions %+v: want Failed with reason %s", j.Status.Conditions, batchv1.JobReasonPodFailurePolicy)
	}
	t.Logf("job failed: %s: %s", failed.Reason, failed.Message)
	if j.Status.Failed != 1 {
		t.Errorf("job failed pods %d: want 1 (no retry)", j.Status.Failed)
	}
	pods, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "job-name=fail42"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("job pods: %v %v: want one", pods, err)
	}
	p := pods.Items[0]
	cs := containerStatus(&p, "app")
	if p.Status.Phase != v1.PodFailed || cs == nil || cs.State.Terminated == nil {
		t.Fatalf("pod phase %s, app %+v: want Failed, terminated", p.Status.Phase, cs)
	}
	term := cs.State.Terminated
	if term.ExitCode != 42 || term.Reason != "Error" {
		t.Errorf("app terminated %+v: want exit code 42, reason Error", term)
	}
	if run := term.FinishedAt.Sub(term.StartedAt.Time); !within(run, time.Second, 3*time.Second) {
		t.Errorf("app ran %s: want the script's 2 s (whole seconds)", run)
	}
	if !strings.Contains(failed.Message, "42") {
		t.Errorf("job failure message %q does not name exit code 42", failed.Message)
	}
}

// ---- 3. the captured real-kubelet API scenarios ----

// apiState is one version of the API object as a watcher sees it: its key
// (the fields compared), when it first showed (from the kubelet's receipt
// of the pod), and its deletion timestamp.
type apiState struct {
	at       time.Duration
	key      string
	deletion *time.Time
}

// apiKey is what is compared of one version of the object: the phase and
// its observedGeneration, the conditions (type, status, reason), each
// container's state (running, waiting or terminated with reason and exit
// code), ready, started, restart count and last state, the deletion
// (whether set, its grace) and the finalizers; "gone" for an object no
// longer there. Times, IDs, IPs and messages are the run's own.
func apiKey(st v1.PodStatus, deletion *metav1.Time, grace *int64, finalizers []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s gen=%d", st.Phase, st.ObservedGeneration)
	if deletion != nil {
		g := "nil"
		if grace != nil {
			g = fmt.Sprint(*grace)
		}
		fmt.Fprintf(&b, " deleting(grace %s)", g)
	}
	if len(finalizers) > 0 {
		fmt.Fprintf(&b, " finalizers=%v", finalizers)
	}
	b.WriteString(" |")
	conds := append([]v1.PodCondition(nil), st.Conditions...)
	sort.Slice(conds, func(i, j int) bool { return conds[i].Type < conds[j].Type })
	for _, c := range conds {
		fmt.Fprintf(&b, " %s=%s/%s", c.Type, c.Status, c.Reason)
	}
	b.WriteString(" |")
	state := func(s v1.ContainerState) string {
		switch {
		case s.Running != nil:
			return "running"
		case s.Terminated != nil:
			return fmt.Sprintf("terminated:%s:%d", s.Terminated.Reason, s.Terminated.ExitCode)
		case s.Waiting != nil:
			return "waiting:" + s.Waiting.Reason
		}
		return "-"
	}
	for _, l := range [][]v1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
		for _, cs := range l {
			started := "nil"
			if cs.Started != nil {
				started = fmt.Sprint(*cs.Started)
			}
			fmt.Fprintf(&b, " %s:%s ready=%v started=%s restarts=%d last=%s;", cs.Name, state(cs.State), cs.Ready, started, cs.RestartCount, state(cs.LastTerminationState))
		}
	}
	return b.String()
}

const goneKey = "gone"

// realAPIStates are the capture's distinct versions of the object, from
// its polls, times from the kubelet's receipt of the pod (add).
func realAPIStates(f *captured.Fixture, add time.Time) []apiState {
	var out []apiState
	for _, o := range f.Observations {
		a := o.API
		if a == nil {
			continue
		}
		s := apiState{at: o.Time.Sub(add), key: goneKey}
		if !a.Gone {
			s.key = apiKey(a.Status, a.DeletionTimestamp, a.DeletionGracePeriodSeconds, a.Finalizers)
			if a.DeletionTimestamp != nil {
				d := a.DeletionTimestamp.Time
				s.deletion = &d
			}
		}
		if len(out) > 0 && out[len(out)-1].key == s.key {
			continue
		}
		out = append(out, s)
	}
	return out
}

// ourAPIStates are the watch's distinct versions, times from zero.
func ourAPIStates(trace []seenPod, zero time.Time) []apiState {
	var out []apiState
	for _, s := range trace {
		st := apiState{at: s.at.Sub(zero), key: goneKey}
		if !s.gone {
			p := s.pod
			st.key = apiKey(p.Status, p.DeletionTimestamp, p.DeletionGracePeriodSeconds, p.Finalizers)
			if p.DeletionTimestamp != nil {
				d := p.DeletionTimestamp.Time
				st.deletion = &d
			}
		}
		if len(out) > 0 && out[len(out)-1].key == st.key {
			continue
		}
		out = append(out, st)
	}
	return out
}

// compareAPIStates matches the capture's versions, in order, among ours:
// each must be there, first seen within tolStatus of the capture's poll
// that first saw it, its deletion timestamp within tolStatus and the
// second it is truncated to (both are written in whole seconds); a
// version of ours the capture did not see must have lasted less than
// tolVisible (the capture polled every 250 ms); the terminal phase must
// stay visible as long as in the capture, within tolVisible. realZero and
// ourZero are the times the deletion timestamps count from.
//
// ourDue is when our kubelet wrote the terminal phase (counted like ours'
// times; negative when unknown): a status that reached the API server
// later than that shortened the visible time by as much.
func compareAPIStates(real, ours []apiState, realZero, ourZero time.Time, ourDue time.Duration) []string {
	var errs []string
	j := 0
	matched := make([]int, len(real))
	for i, r := range real {
		k := j
		for k < len(ours) && ours[k].key != r.key {
			k++
		}
		if k == len(ours) {
			errs = append(errs, fmt.Sprintf("capture's version %d (%.2fs) never seen after our version %d:\n  capture: %s\n  ours:    %s",
				i, r.at.Seconds(), j, r.key, nearestKey(r.key, ours[min(j, len(ours)-1):])))
			matched[i] = -1
			continue
		}
		for x := j; x < k; x++ {
			if x > 0 && x+1 < len(ours) {
				if lasted := ours[x+1].at - ours[x].at; lasted >= tolVisible {
					errs = append(errs, fmt.Sprintf("our version %d at %.2fs lasted %.2fs, the capture never saw it: %s", x, ours[x].at.Seconds(), lasted.Seconds(), ours[x].key))
				}
			}
		}
		o := ours[k]
		matched[i] = k
		if e := absDur(o.at - r.at); e > tolStatus {
			errs = append(errs, fmt.Sprintf("version %d (%s) first seen at %.2fs, the capture at %.2fs: off by %.2fs > %s", i, r.key, o.at.Seconds(), r.at.Seconds(), e.Seconds(), tolStatus))
		}
		if (o.deletion == nil) != (r.deletion == nil) {
			errs = append(errs, fmt.Sprintf("version %d: deletion timestamp %v, capture %v", i, o.deletion, r.deletion))
		} else if o.deletion != nil {
			if e := absDur(o.deletion.Sub(ourZero) - r.deletion.Sub(realZero)); e > tolStatus+time.Second {
				errs = append(errs, fmt.Sprintf("version %d: deletion timestamp %.2fs from the start, the capture's %.2fs", i, o.deletion.Sub(ourZero).Seconds(), r.deletion.Sub(realZero).Seconds()))
			}
		}
		j = k + 1
	}
	// How long the terminal phase stays visible before the object is gone.
	visible := func(l []apiState, idx func(int) int, n int) (time.Duration, time.Duration, bool) {
		var term, gone time.Duration = -1, -1
		for i := 0; i < n; i++ {
			x := idx(i)
			if x < 0 {
				continue
			}
			key := l[x].key
			if term < 0 && (strings.HasPrefix(key, "Succeeded") || strings.HasPrefix(key, "Failed")) {
				term = l[x].at
			}
			if gone < 0 && key == goneKey {
				gone = l[x].at
			}
		}
		if term < 0 || gone < 0 {
			return 0, term, false
		}
		return gone - term, term, true
	}
	rv, rterm, rok := visible(real, func(i int) int { return i }, len(real))
	ov, oterm, ook := visible(ours, func(i int) int { return matched[i] }, len(real))
	// A terminal status that reached the API server late (a loaded
	// machine: the status PATCH waited) leaves less time before the
	// delete, which follows the kubelet's own schedule: the status
	// manager writes one request after the other, so a real kubelet's
	// late write shortens the visible time the same way. By how much it
	// was late widens the tolerance on the short side only.
	// Late is counted from the capture's terminal status and from our own
	// kubelet's write, whichever is more.
	short := tolVisible
	late := time.Duration(0)
	if rterm >= 0 && oterm >= 0 {
		late = max(late, oterm-rterm)
	}
	if ourDue >= 0 && oterm >= 0 {
		late = max(late, oterm-ourDue)
	}
	short += late
	if rok && (!ook || ov-rv > tolVisible || rv-ov > short) {
		errs = append(errs, fmt.Sprintf("terminal phase visible %.2fs before the object is gone; the capture %.2fs (tolerance %s, %s on the short side: the terminal status reached the API %.2fs late)",
			ov.Seconds(), rv.Seconds(), tolVisible, short, late.Seconds()))
	}
	if len(ours) > 0 && ours[len(ours)-1].key != goneKey && real[len(real)-1].key == goneKey {
		errs = append(errs, "the object never went")
	}
	return errs
}

// nearestKey is the key of ours with the longest common prefix with want
// (to show what differs).
func nearestKey(want string, ours []apiState) string {
	best, n := "", -1
	for _, o := range ours {
		k := 0
		for k < len(o.key) && k < len(want) && o.key[k] == want[k] {
			k++
		}
		if k > n {
			best, n = o.key, k
		}
	}
	return best
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// kubeletAddTime is when the captured kubelet received the pod: its
// "SyncLoop ADD" log line (the date from the pod's creation).
func kubeletAddTime(t *testing.T, f *captured.Fixture, created time.Time) time.Time {
	t.Helper()
	for _, l := range f.KubeletLog {
		if !strings.Contains(l, `"SyncLoop ADD"`) {
			continue
		}
		fields := strings.Fields(l)
		clock, err := time.Parse("15:04:05.000000", fields[1])
		if err != nil {
			t.Fatal(err)
		}
		y, m, d := created.UTC().Date()
		return time.Date(y, m, d, clock.Hour(), clock.Minute(), clock.Second(), clock.Nanosecond(), time.UTC)
	}
	t.Fatalf("%s: no SyncLoop ADD line", f.Scenario)
	return time.Time{}
}

// capturedScript is the script of a captured pod's containers, read from
// the capture where the kubelet does not decide it: how long each
// container took to exit once signalled (its StopContainer call; one that
// ran out its timeout ignored SIGTERM) and how long its preStop exec ran.
// The containers' commands say the same: the trap loop exits when its
// current `sleep 1` ends, the preStop is `sleep 4`, the ephemeral
// debugger is `sleep 3600` as PID 1 (SIGTERM ignored).
//
// withEphemeral includes the ephemeral containers, which the pod as
// created does not have (a script naming them does not fit it): the test
// annotates the pod with that script just before it adds the container,
// and the node reads it again when the container is added.
func capturedScript(f *captured.Fixture, withEphemeral bool) string {
	names := map[string]string{}
	for _, c := range f.CRICalls {
		if c.Method == "CreateContainer" {
			names[c.Response] = c.Name
		}
	}
	runs := map[string]map[string]any{}
	run := func(name string) map[string]any {
		if runs[name] == nil {
			runs[name] = map[string]any{}
		}
		return runs[name]
	}
	for _, c := range f.CRICalls {
		name := names[c.ID]
		if name == "" {
			continue
		}
		took := c.Done.Sub(c.Time)
		switch c.Method {
		case "StopContainer":
			if _, ok := runs[name]["termAfter"]; ok || runs[name]["ignoreSIGTERM"] != nil {
				continue
			}
			if c.Timeout != nil && took >= time.Duration(*c.Timeout)*time.Second {
				run(name)["ignoreSIGTERM"] = true
			} else {
				run(name)["termAfter"] = fmt.Sprintf("%dms", took.Milliseconds())
			}
		case "ExecSync":
			run(name)["preStop"] = fmt.Sprintf("%dms", took.Milliseconds())
		}
	}
	cs := map[string]any{}
	for name, r := range runs {
		if containerFieldPathOf(f.Pod, name) == "" && !withEphemeral {
			continue
		}
		cs[name] = map[string]any{"runs": []any{r}}
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "kubeletlogic/v1alpha1", "kind": "Script", "containers": cs})
	return string(b)
}

// capturedAPIScenario creates the captured pod on nodeName through the
// real API server, does what the capture's harness did at the same times
// after the kubelet received the pod (DELETE, finalizers removed, an
// ephemeral container added, a readiness gate's condition set), watches
// the object and compares its versions with the capture's
// (compareAPIStates).
// containerFieldPathOf is "" when pod has no container name in its spec.
func containerFieldPathOf(pod *v1.Pod, name string) string {
	for _, l := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range l {
			if c.Name == name {
				return c.Name
			}
		}
	}
	return ""
}

// knownDifferences are differences from a capture the node cannot remove
// yet, by scenario: the capture's key text and what the node shows
// instead, with why. They are applied to the capture's keys before the
// comparison and logged; everything else is compared as captured.
var knownDifferences = map[string][]struct{ capture, ours, why string }{}

// terminalDue records, per pod name, when the engine's kubelet first
// wrote a terminal phase for it (Options.StatusScheduled): the time our
// status manager would have made it visible on an idle machine.
var terminalDue = &dueTimes{at: map[string]time.Time{}}

type dueTimes struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (d *dueTimes) record(pod *v1.Pod, st v1.PodStatus, at time.Time) {
	if st.Phase != v1.PodSucceeded && st.Phase != v1.PodFailed {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.at[pod.Name]; !ok {
		d.at[pod.Name] = at
	}
}

func (d *dueTimes) get(name string) (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	at, ok := d.at[name]
	return at, ok
}

func capturedAPIScenario(ctx context.Context, t *testing.T, c kubernetes.Interface, name, nodeName string) {
	f, err := captured.Load(filepath.Join("..", "testdata", "captured", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var created time.Time
	for _, e := range f.Events {
		if strings.HasPrefix(e.What, "pod created") {
			created = e.Time
			break
		}
	}
	realAdd := kubeletAddTime(t, f, created)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: f.Pod.Name, Namespace: "default", Finalizers: f.Pod.Finalizers,
			Annotations: map[string]string{node.ScriptAnnotation: capturedScript(f, false)}},
		Spec: *f.Pod.Spec.DeepCopy(),
	}
	pod.Spec.NodeName = nodeName
	// Filled in again by the admission plugins from the class.
	pod.Spec.Priority, pod.Spec.PreemptionPolicy = nil, nil
	t.Logf("script: %s", pod.Annotations[node.ScriptAnnotation])
	pods := c.CoreV1().Pods("default")
	tr := tracePods(ctx, t, c, metav1.ListOptions{FieldSelector: "metadata.name=" + pod.Name})
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	zero := time.Now()
	// The harness's actions, at their times after the kubelet's receipt.
	var ephemeral *v1.EphemeralContainer
	for _, o := range f.Observations {
		if o.Pod != nil && len(o.Pod.Spec.EphemeralContainers) > 0 {
			ephemeral = o.Pod.Spec.EphemeralContainers[0].DeepCopy()
			break
		}
	}
	for _, e := range f.Events {
		at := e.Time.Sub(realAdd)
		var do func() error
		switch {
		case e.What == "pod deleted":
			do = func() error { return pods.Delete(ctx, pod.Name, metav1.DeleteOptions{}) }
		case strings.HasPrefix(e.What, "finalizers removed"):
			do = func() error {
				_, err := pods.Patch(ctx, pod.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
				return err
			}
		case strings.HasPrefix(e.What, "condition "):
			fs := strings.Fields(strings.SplitN(e.What, ":", 2)[0])
			if len(fs) != 4 || fs[2] != "set" {
				t.Fatalf("event %q", e.What)
			}
			do = func() error {
				patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []map[string]any{{
					"type": fs[1], "status": fs[3], "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}}}})
				_, err := pods.Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
				return err
			}
		case strings.HasPrefix(e.What, "ephemeral container "):
			if ephemeral == nil {
				t.Fatal("no observation shows the ephemeral container")
			}
			do = func() error {
				ann, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{node.ScriptAnnotation: capturedScript(f, true)}}})
				if _, err := pods.Patch(ctx, pod.Name, types.MergePatchType, ann, metav1.PatchOptions{}); err != nil {
					return err
				}
				patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"ephemeralContainers": []v1.EphemeralContainer{*ephemeral}}})
				_, err := pods.Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "ephemeralcontainers")
				return err
			}
		default:
			continue
		}
		time.Sleep(time.Until(zero.Add(at)))
		t.Logf("%.2fs: %s", time.Since(zero).Seconds(), strings.SplitN(e.What, ":", 2)[0])
		if err := do(); err != nil {
			t.Fatalf("%s: %v", e.What, err)
		}
	}
	realStates := realAPIStates(f, realAdd)
	for _, d := range knownDifferences[name] {
		n := 0
		for i := range realStates {
			if strings.Contains(realStates[i].key, d.capture) {
				realStates[i].key = strings.ReplaceAll(realStates[i].key, d.capture, d.ours)
				n++
			}
		}
		if n == 0 {
			t.Errorf("known difference %q not in the capture: remove it from knownDifferences", d.capture)
		}
		t.Logf("known difference: the capture's %s is compared as %s: %s", d.capture, d.ours, d.why)
	}
	last := realStates[len(realStates)-1]
	waitFor(t, last.at+30*time.Second-time.Since(zero), func() (string, bool) {
		_, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		return fmt.Sprint(err), apierrors.IsNotFound(err)
	})
	time.Sleep(500 * time.Millisecond) // the watch's DELETED event
	ours := ourAPIStates(tr.get(), zero)
	for _, s := range realStates {
		t.Logf("capture %6.2fs %s", s.at.Seconds(), s.key)
	}
	for _, s := range ours {
		t.Logf("ours    %6.2fs %s", s.at.Seconds(), s.key)
	}
	due := time.Duration(-1)
	if at, ok := terminalDue.get(pod.Name); ok {
		due = at.Sub(zero)
		t.Logf("our kubelet wrote the terminal phase at %.2fs", due.Seconds())
	}
	for _, e := range compareAPIStates(realStates, ours, realAdd, zero, due) {
		t.Error(e)
	}
}

// TestCapturedAPIComparison checks the comparison on the captures
// themselves, with no control plane: each capture's script annotation
// reads against its pod; a capture compared with itself matches; moved by
// 2 s, with a restart count changed, or with its terminal phase dropped,
// it does not.
func TestCapturedAPIComparison(t *testing.T) {
	visibleChecked := 0
	for _, name := range []string{"api-delete-grace", "api-finalizer", "api-ephemeral", "api-readiness-gate"} {
		f, err := captured.Load(filepath.Join("..", "testdata", "captured", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.ReadScript([]byte(capturedScript(f, false)), []*v1.Pod{f.Pod}); err != nil {
			t.Errorf("%s: script %s: %v", name, capturedScript(f, false), err)
		}
		// With its ephemeral containers, the script fits the pod once
		// they are added (and only then, when there are any).
		withEph := f.Pod.DeepCopy()
		for _, o := range f.Observations {
			if o.Pod != nil && len(o.Pod.Spec.EphemeralContainers) > len(withEph.Spec.EphemeralContainers) {
				withEph.Spec.EphemeralContainers = o.Pod.Spec.EphemeralContainers
			}
		}
		if _, err := sim.ReadScript([]byte(capturedScript(f, true)), []*v1.Pod{withEph}); err != nil {
			t.Errorf("%s: script with ephemeral containers %s: %v", name, capturedScript(f, true), err)
		}
		zero := f.Events[0].Time
		real := realAPIStates(f, zero)
		if errs := compareAPIStates(real, real, zero, zero, -1); len(errs) > 0 {
			t.Errorf("%s compared with itself: %v", name, errs)
		}
		late := append([]apiState(nil), real...)
		for i := range late {
			late[i].at += 2 * time.Second
		}
		if errs := compareAPIStates(real, late, zero, zero, -1); len(errs) == 0 {
			t.Errorf("%s moved by 2 s: no difference found", name)
		}
		restarts := append([]apiState(nil), real...)
		restarts[2].key = strings.Replace(restarts[2].key, "restarts=0", "restarts=1", 1)
		if errs := compareAPIStates(real, restarts, zero, zero, -1); len(errs) == 0 {
			t.Errorf("%s with a restart count changed: no difference found", name)
		}
		var noTerminal []apiState
		for _, s := range real {
			if !strings.HasPrefix(s.key, "Succeeded") {
				noTerminal = append(noTerminal, s)
			}
		}
		if errs := compareAPIStates(real, noTerminal, zero, zero, -1); len(errs) == 0 {
			t.Errorf("%s without its terminal phase: no difference found", name)
		}
		// The object gone 0.85 s sooner after a terminal phase on time:
		// too short. The terminal phase 0.85 s late, gone on time: the
		// late write explains the shorter visible time.
		ti, gi := -1, -1
		for i, s := range real {
			if ti < 0 && strings.HasPrefix(s.key, "Succeeded") {
				ti = i
			}
			if s.key == goneKey {
				gi = i
			}
		}
		if ti < 0 || gi < 0 {
			continue
		}
		visibleChecked++
		early := append([]apiState(nil), real...)
		early[gi].at -= 850 * time.Millisecond
		if errs := compareAPIStates(real, early, zero, zero, -1); !strings.Contains(strings.Join(errs, " "), "visible") {
			t.Errorf("%s gone 0.85 s sooner: %v, want the visible time found too short", name, errs)
		}
		lateTerm := append([]apiState(nil), real...)
		lateTerm[ti].at += 850 * time.Millisecond
		if errs := compareAPIStates(real, lateTerm, zero, zero, -1); strings.Contains(strings.Join(errs, " "), "visible") {
			t.Errorf("%s with its terminal phase written 0.85 s late: %v, want no complaint about the visible time", name, errs)
		}
		// Gone 0.85 s sooner, but our kubelet had written the terminal
		// phase 0.85 s before the API server showed it (a loaded
		// machine's status PATCH): the late write explains it. Written
		// when the API showed it: too short again.
		if errs := compareAPIStates(real, early, zero, zero, real[ti].at-850*time.Millisecond); strings.Contains(strings.Join(errs, " "), "visible") {
			t.Errorf("%s gone 0.85 s sooner after a write 0.85 s late: %v, want no complaint about the visible time", name, errs)
		}
		if errs := compareAPIStates(real, early, zero, zero, real[ti].at); !strings.Contains(strings.Join(errs, " "), "visible") {
			t.Errorf("%s gone 0.85 s sooner after a write on time: %v, want the visible time found too short", name, errs)
		}
	}
	if visibleChecked == 0 {
		t.Error("no capture has a terminal phase and the object's deletion: the visible-time checks ran on none")
	}
}
