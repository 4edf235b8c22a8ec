package node_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/node"
	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
)

// TestPods runs pods on Standalone nodes against a real control plane
// (etcd, kube-apiserver, kube-controller-manager, kube-scheduler v1.37.2)
// and checks what the real controllers make of what the nodes write.
func TestPods(t *testing.T) {
	cp := controlplane.Start(t, controlplane.Options{})
	c := cp.Client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	specs, err := node.Numbered("kp", 2)
	if err != nil {
		t.Fatal(err)
	}
	sa, err := node.NewStandalone(c, specs, node.Options{Logf: t.Logf, Pods: node.PodOptions{JobRunTime: 4 * time.Second, Seed: 7}})
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
	t.Run("job with a native sidecar completes", func(t *testing.T) { jobWithSidecar(ctx, t, c) })
	t.Run("deployment crash loop", func(t *testing.T) { crashLoop(ctx, t, c) })
	t.Run("deletions", func(t *testing.T) { deletions(ctx, t, c) })
	t.Run("bad script", func(t *testing.T) { badScript(ctx, t, c) })
	t.Run("in-place resize", func(t *testing.T) { inPlaceResize(ctx, t, c) })
	t.Run("active deadline", func(t *testing.T) { activeDeadline(ctx, t, c) })
}

// jobWithSidecar: the app exits 0 after JobRunTime (the node's default for
// a Job's pod), the kubelet then stops the sidecar, the pod is Succeeded
// with both containers terminated (the sidecar after the app) and the real
// Job controller marks the Job Complete.
func jobWithSidecar(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	t0 := time.Now()
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "sidecar-job", Namespace: "default"},
		Spec: batchv1.JobSpec{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{
			RestartPolicy: v1.RestartPolicyNever,
			InitContainers: []v1.Container{{Name: "proxy", Image: "envoy",
				RestartPolicy: ptr(v1.ContainerRestartPolicyAlways)}},
			Containers: []v1.Container{{Name: "app", Image: "busybox"}},
		}}},
	}
	if _, err := c.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	j := waitFor(t, 90*time.Second, func() (*batchv1.Job, bool) {
		j, err := c.BatchV1().Jobs("default").Get(ctx, "sidecar-job", metav1.GetOptions{})
		if err != nil {
			return nil, false
		}
		for _, cd := range j.Status.Conditions {
			if cd.Type == batchv1.JobComplete && cd.Status == v1.ConditionTrue {
				return j, true
			}
		}
		return j, false
	})
	if j.Status.Succeeded != 1 {
		t.Errorf("job succeeded %d: want 1", j.Status.Succeeded)
	}
	pods, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "job-name=sidecar-job"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("job pods: %v %v", pods, err)
	}
	p := pods.Items[0]
	if p.Status.Phase != v1.PodSucceeded {
		t.Errorf("pod phase %s: want Succeeded", p.Status.Phase)
	}
	if len(p.Status.ContainerStatuses) != 1 || len(p.Status.InitContainerStatuses) != 1 {
		t.Fatalf("statuses %+v", p.Status)
	}
	app, proxy := p.Status.ContainerStatuses[0].State.Terminated, p.Status.InitContainerStatuses[0].State.Terminated
	if app == nil || proxy == nil || app.ExitCode != 0 || app.Reason != "Completed" {
		t.Fatalf("app %+v proxy %+v: want both terminated, the app with 0 Completed", app, proxy)
	}
	if proxy.FinishedAt.Before(&app.FinishedAt) {
		t.Errorf("sidecar finished %v before the app %v", proxy.FinishedAt, app.FinishedAt)
	}
	if run := app.FinishedAt.Sub(app.StartedAt.Time); run < 3*time.Second || run > 5*time.Second {
		t.Errorf("app ran %s: want the JobRunTime 4 s (whole seconds)", run)
	}
	if p.Status.HostIP == "" || p.Status.PodIP == "" || !strings.HasPrefix(p.Status.PodIP, "10.244.") || p.Status.StartTime == nil {
		t.Errorf("hostIP %q podIP %q startTime %v", p.Status.HostIP, p.Status.PodIP, p.Status.StartTime)
	}
	reasons := kubeletEvents(ctx, t, c, p.Name)
	for _, want := range []string{"Pulled spec.initContainers{proxy}", "Created spec.initContainers{proxy}", "Started spec.initContainers{proxy}",
		"Started spec.containers{app}", "Killing spec.initContainers{proxy}"} {
		if !reasons[want] {
			t.Errorf("no %s event (got %v)", want, reasons)
		}
	}
	t.Logf("job complete %s after its creation", time.Since(t0).Round(time.Second))
}

// crashLoop: a Deployment's container exits 1 after 2 s every run (the
// script annotation); the pod is restarted after the kubelet's back-off
// (none after the first exit, then 10 s, 20 s), shows CrashLoopBackOff in between,
// and the ReplicaSet keeps the same pod. The watch is printed as kubectl
// get pods -w prints it.
func crashLoop(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	labels := map[string]string{"app": "crashy"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "crashy", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{
					node.ScriptAnnotation: "apiVersion: kubeletlogic/v1alpha1\nkind: Script\ncontainers:\n  app:\n    runs:\n    - {exitAfter: 2s, exitCode: 1}\n"}},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}},
			},
		},
	}
	w, err := c.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{LabelSelector: "app=crashy"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := c.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%-24s %-6s %-17s %-22s %s", "NAME", "READY", "STATUS", "RESTARTS", "AGE")
	uids := map[string]bool{}
	type start struct {
		restarts  int32
		started   time.Time
		lastEnded time.Time
	}
	var starts []start
	crash := false
	deadline := time.After(150 * time.Second)
	for len(starts) < 4 {
		var ev watch.Event
		select {
		case ev = <-w.ResultChan():
		case <-deadline:
			t.Fatalf("after 150 s: %d runs seen: %+v", len(starts), starts)
		}
		p, ok := ev.Object.(*v1.Pod)
		if !ok {
			continue
		}
		uids[string(p.UID)] = true
		now := time.Now()
		t.Logf("%-24s %-6s %-17s %-22s %s", p.Name, kubectlstatus.Ready(p), kubectlstatus.Compute(p),
			kubectlstatus.Restarts(p, now), now.Sub(p.CreationTimestamp.Time).Round(time.Second))
		if len(p.Status.ContainerStatuses) != 1 {
			continue
		}
		cs := p.Status.ContainerStatuses[0]
		if cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff" {
			crash = true
		}
		if r := cs.State.Running; r != nil && (len(starts) == 0 || starts[len(starts)-1].restarts != cs.RestartCount) {
			s := start{restarts: cs.RestartCount, started: r.StartedAt.Time}
			if lt := cs.LastTerminationState.Terminated; lt != nil {
				s.lastEnded = lt.FinishedAt.Time
				if lt.ExitCode != 1 || lt.Reason != "Error" {
					t.Errorf("last state %+v: want exit code 1, Error", lt)
				}
			}
			starts = append(starts, s)
		}
	}
	if !crash {
		t.Error("no CrashLoopBackOff seen")
	}
	if len(uids) != 1 {
		t.Errorf("%d pods seen: want the ReplicaSet to keep its one pod", len(uids))
	}
	for k := 1; k < len(starts); k++ {
		if starts[k].restarts != int32(k) {
			t.Errorf("run %d has restart count %d", k+1, starts[k].restarts)
		}
		// Whole-second times: the back-off is measured from the exit;
		// the engine adds the relist and a sync (up to about 2 s).
		// No back-off before the first restart, then 10 s, 20 s.
		gap := starts[k].started.Sub(starts[k].lastEnded)
		want := time.Duration(0)
		if k > 1 {
			want = 10 * time.Second << (k - 2)
		}
		// The worker's requeue is wait.Jitter(back-off, 0.5); whole
		// seconds and the relist and sync delays add up to 5 s.
		if hi := want*3/2 + 5*time.Second; gap < want-time.Second || gap > hi {
			t.Errorf("run %d started %s after the previous exit: want the back-off %s (-1 s) to %s", k+1, gap, want, hi)
		}
	}
	pods, _ := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=crashy"})
	if len(pods.Items) == 1 {
		if r := kubeletEvents(ctx, t, c, pods.Items[0].Name); !r["BackOff spec.containers{app}"] {
			t.Errorf("no BackOff event: %v", r)
		}
	}
}

// deletions: a pod with a finalizer, deleted, is stopped, written
// Succeeded and deleted by the kubelet with grace 0 (the finalizer holds
// it) and goes once the finalizer is removed; a Succeeded pod deleted is
// deleted by the kubelet (grace 0) within its status manager's sweep.
func deletions(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	pods := c.CoreV1().Pods("default")
	held := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "default", Finalizers: []string{"kubeletlogic.io/hold"}},
		Spec:       v1.PodSpec{NodeName: "kp-0", Containers: []v1.Container{{Name: "app", Image: "busybox"}}},
	}
	done := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "done", Namespace: "default", Annotations: map[string]string{
			node.ScriptAnnotation: `{"containers": {"app": {"runs": [{"exitAfter": "1s"}]}}}`}},
		Spec: v1.PodSpec{NodeName: "kp-1", RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "busybox"}}},
	}
	for _, p := range []*v1.Pod{held, done} {
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	get := func(name string) (*v1.Pod, error) { return pods.Get(ctx, name, metav1.GetOptions{}) }
	waitFor(t, 30*time.Second, func() (*v1.Pod, bool) {
		p, err := get("held")
		return p, err == nil && p.Status.Phase == v1.PodRunning
	})
	waitFor(t, 30*time.Second, func() (*v1.Pod, bool) {
		p, err := get("done")
		return p, err == nil && p.Status.Phase == v1.PodSucceeded
	})
	if err := pods.Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, "done", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	p := waitFor(t, 40*time.Second, func() (*v1.Pod, bool) {
		p, err := get("held")
		return p, err == nil && p.DeletionGracePeriodSeconds != nil && *p.DeletionGracePeriodSeconds == 0
	})
	if p.Status.Phase != v1.PodSucceeded {
		t.Errorf("held pod deleted by the kubelet in phase %s: want Succeeded (its container exits 0 on SIGTERM)", p.Status.Phase)
	}
	t.Logf("held pod: the kubelet's grace-0 delete %s after ours", time.Since(t0).Round(100*time.Millisecond))
	waitFor(t, 20*time.Second, func() (*v1.Pod, bool) {
		_, err := get("done")
		return nil, apierrors.IsNotFound(err)
	})
	t.Logf("Succeeded pod gone %s after its deletion", time.Since(t0).Round(100*time.Millisecond))
	if _, err := pods.Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, func() (*v1.Pod, bool) {
		_, err := get("held")
		return nil, apierrors.IsNotFound(err)
	})
}

// badScript: a script that does not read gets a Warning Event with the
// error, and the pod runs with the defaults (until stopped).
func badScript(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: "default", Annotations: map[string]string{
			node.ScriptAnnotation: "containers:\n  app:\n    runs: [{exitAfter: soon}]\n"}},
		Spec: v1.PodSpec{NodeName: "kp-1", Containers: []v1.Container{{Name: "app", Image: "busybox"}}},
	}
	if _, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, func() (*v1.Pod, bool) {
		p, err := c.CoreV1().Pods("default").Get(ctx, "bad", metav1.GetOptions{})
		return p, err == nil && p.Status.Phase == v1.PodRunning
	})
	ev := waitFor(t, 15*time.Second, func() (string, bool) {
		evs, err := c.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=bad,reason=KubeletlogicScriptInvalid"})
		if err != nil || len(evs.Items) == 0 {
			return "", false
		}
		return evs.Items[0].Type + " " + evs.Items[0].Message, true
	})
	if !strings.HasPrefix(ev, "Warning ") || !strings.Contains(ev, "exitAfter") {
		t.Errorf("event %q: want a Warning naming the field", ev)
	}
}

// kubeletEvents are the "<reason> <fieldPath>" of the kubelet's Events
// about a pod, waiting up to 10 s for the recorder to flush.
func kubeletEvents(ctx context.Context, t *testing.T, c kubernetes.Interface, pod string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	deadline := time.Now().Add(10 * time.Second)
	for {
		evs, err := c.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + pod})
		if err == nil {
			for _, e := range evs.Items {
				if e.Source.Component == "kubelet" && strings.HasPrefix(e.Source.Host, "kp-") {
					out[e.Reason+" "+e.InvolvedObject.FieldPath] = true
				}
			}
		}
		if len(out) > 3 || time.Now().After(deadline) {
			return out
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func waitFor[T any](t *testing.T, limit time.Duration, f func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		v, ok := f()
		if ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("not after %s: %s", limit, fmt.Sprintf("%+v", v))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func ptr[T any](v T) *T { return &v }
