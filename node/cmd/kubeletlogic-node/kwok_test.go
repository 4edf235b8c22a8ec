package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/node"
	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
)

// TestKwokMode runs the command, built with go build, in KWOK mode against
// the real control plane (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler v1.37.2) and the real kwok v0.8.0 with its node stages
// only: a Deployment's crash-looping pod scheduled onto a KWOK node
// restarts at the kubelet's back-off times and shows CrashLoopBackOff, the
// ReplicaSet keeps it; a pod bound to a node without KWOK's annotation is
// never written; SIGTERM stops the command with exit code 0.
func TestKwokMode(t *testing.T) {
	cp := controlplane.Start(t, controlplane.Options{})
	c := cp.Client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const kwokIP = "10.99.0.1"
	cp.StartKwok(t, controlplane.KwokOptions{NodeIP: kwokIP})

	// The nodes: kwok-0 as KWOK's documentation writes a fake node (kwok
	// makes it Ready and gives it the InternalIP kwokIP); plain-0 without the
	// annotation, given an InternalIP here so that only the selector keeps
	// the command off it.
	kwok0 := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok-0",
		Annotations: map[string]string{controlplane.KwokNodeKey: controlplane.KwokNodeValue},
		Labels:      map[string]string{"type": "kwok", "kubernetes.io/hostname": "kwok-0"}},
		Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: controlplane.KwokNodeKey, Value: controlplane.KwokNodeValue, Effect: v1.TaintEffectNoSchedule}}}}
	plain0 := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "plain-0", Labels: map[string]string{"type": "plain"}}}
	for _, n := range []*v1.Node{kwok0, plain0} {
		if _, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CoreV1().Nodes().Patch(ctx, "plain-0", types.MergePatchType,
		[]byte(`{"status":{"addresses":[{"type":"InternalIP","address":"10.77.0.1"}]}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, func() (string, bool) {
		n, err := c.CoreV1().Nodes().Get(ctx, "kwok-0", metav1.GetOptions{})
		if err != nil {
			return err.Error(), false
		}
		for _, a := range n.Status.Addresses {
			if a.Type == v1.NodeInternalIP && a.Address == kwokIP {
				for _, cd := range n.Status.Conditions {
					if cd.Type == v1.NodeReady && cd.Status == v1.ConditionTrue {
						return a.Address, true
					}
				}
			}
		}
		return fmt.Sprintf("kwok-0 status %+v", n.Status), false
	})
	untouched, err := c.CoreV1().Pods("default").Create(ctx, &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "on-plain", Namespace: "default", Annotations: map[string]string{
			node.ScriptAnnotation: "containers:\n  app:\n    runs:\n    - {exitAfter: 1s, exitCode: 1}\n"}},
		Spec: v1.PodSpec{NodeName: "plain-0", Containers: []v1.Container{{Name: "app", Image: "busybox"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	cmd := startCommand(t, "--mode", "kwok", "--kubeconfig", cp.Kubeconfig, "--seed", "7")
	cmd.waitLog(t, 30*time.Second, "node kwok-0: driving its pods (hostIP "+kwokIP)

	crashLoopOnKwok(ctx, t, c, kwokIP)

	t.Run("pod on a node not selected is untouched", func(t *testing.T) {
		got, err := c.CoreV1().Pods("default").Get(ctx, "on-plain", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.ResourceVersion != untouched.ResourceVersion {
			t.Errorf("pod on plain-0 changed (resourceVersion %s, was %s): status %+v", got.ResourceVersion, untouched.ResourceVersion, got.Status)
		}
		if st := got.Status; st.Phase != v1.PodPending || len(st.ContainerStatuses) != 0 || st.HostIP != "" {
			t.Errorf("pod on plain-0 status %+v: want Pending and nothing else", st)
		}
		evs, err := c.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=on-plain"})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs.Items {
			t.Errorf("event about the pod on plain-0: %s %s from %s/%s", e.Reason, e.Message, e.Source.Component, e.Source.Host)
		}
		if strings.Contains(cmd.log(), "plain-0") {
			t.Errorf("the command's log names plain-0:\n%s", cmd.log())
		}
	})

	t.Run("SIGTERM stops it cleanly", func(t *testing.T) {
		code, err := cmd.stop(20 * time.Second)
		if err != nil || code != 0 {
			t.Errorf("exit code %d, %v: want 0", code, err)
		}
		for _, want := range []string{"node kwok-0: shutting down; its pods are no longer driven", "stopped"} {
			if !strings.Contains(cmd.log(), want) {
				t.Errorf("log does not say %q:\n%s", want, cmd.log())
			}
		}
	})
}

// crashLoopOnKwok: a Deployment on the KWOK node whose container exits 1
// after 2 s every run; the pod restarts with no back-off after its first
// exit, then after 10 s and 20 s (the kubelet's back-off, requeued with
// up to 50 % jitter), shows CrashLoopBackOff in between, keeps its UID,
// carries kwok-0's InternalIP as hostIP, and gets the kubelet's Events
// from kwok-0. The watch is logged as kubectl get pods -w prints it.
func crashLoopOnKwok(ctx context.Context, t *testing.T, c kubernetes.Interface, hostIP string) {
	labels := map[string]string{"app": "crashy"}
	replicas := int32(1)
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "crashy", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{
					node.ScriptAnnotation: "apiVersion: kubeletlogic/v1alpha1\nkind: Script\ncontainers:\n  app:\n    runs:\n    - {exitAfter: 2s, exitCode: 1}\n"}},
				Spec: v1.PodSpec{
					NodeSelector: map[string]string{"type": "kwok"},
					Tolerations:  []v1.Toleration{{Key: controlplane.KwokNodeKey, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
					Containers:   []v1.Container{{Name: "app", Image: "busybox"}},
				},
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
	type run struct {
		restarts  int32
		started   time.Time
		lastEnded time.Time
	}
	var runs []run
	uids := map[string]bool{}
	crash := false
	var last *v1.Pod
	deadline := time.After(150 * time.Second)
	for len(runs) < 4 {
		var ev watch.Event
		select {
		case ev = <-w.ResultChan():
		case <-deadline:
			t.Fatalf("after 150 s: %d runs seen: %+v", len(runs), runs)
		}
		p, ok := ev.Object.(*v1.Pod)
		if !ok {
			continue
		}
		last = p
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
		if r := cs.State.Running; r != nil && (len(runs) == 0 || runs[len(runs)-1].restarts != cs.RestartCount) {
			s := run{restarts: cs.RestartCount, started: r.StartedAt.Time}
			if lt := cs.LastTerminationState.Terminated; lt != nil {
				s.lastEnded = lt.FinishedAt.Time
				if lt.ExitCode != 1 || lt.Reason != "Error" {
					t.Errorf("last state %+v: want exit code 1, Error", lt)
				}
			}
			runs = append(runs, s)
		}
	}
	if !crash {
		t.Error("no CrashLoopBackOff seen")
	}
	if len(uids) != 1 {
		t.Errorf("%d pods seen: want the ReplicaSet to keep its one pod", len(uids))
	}
	for k := 1; k < len(runs); k++ {
		if runs[k].restarts != int32(k) {
			t.Errorf("run %d has restart count %d", k+1, runs[k].restarts)
		}
		// No back-off before the first restart, then 10 s, 20 s; whole
		// seconds, the worker's requeue jitter (up to 50 %), the relist
		// and a sync add up to the upper bound.
		want := time.Duration(0)
		if k > 1 {
			want = 10 * time.Second << (k - 2)
		}
		gap := runs[k].started.Sub(runs[k].lastEnded)
		if hi := want*3/2 + 5*time.Second; gap < want-time.Second || gap > hi {
			t.Errorf("run %d started %s after the previous exit: want the back-off %s (-1 s) to %s", k+1, gap, want, hi)
		}
	}
	if last.Spec.NodeName != "kwok-0" || last.Status.HostIP != hostIP || !strings.HasPrefix(last.Status.PodIP, "10.244.0.") {
		t.Errorf("pod on %q hostIP %q podIP %q: want kwok-0, its InternalIP %s, 10.244.0.x", last.Spec.NodeName, last.Status.HostIP, last.Status.PodIP, hostIP)
	}
	reasons := map[string]bool{}
	waitFor(t, 15*time.Second, func() (map[string]bool, bool) {
		evs, err := c.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + last.Name})
		if err == nil {
			for _, e := range evs.Items {
				if e.Source.Component == "kubelet" && e.Source.Host == "kwok-0" {
					reasons[e.Reason] = true
				}
			}
		}
		return reasons, reasons["Started"] && reasons["BackOff"]
	})
}

// command is the built kubeletlogic-node running as a child process.
type command struct {
	cmd  *exec.Cmd
	buf  *syncBuffer
	done chan struct{}
	err  error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startCommand builds this package with go build into a temporary folder
// and starts it with args; the test's end kills it if still running and
// logs its stderr when the test failed.
func startCommand(t *testing.T, args ...string) *command {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kubeletlogic-node")
	t0 := time.Now()
	b := exec.Command("go", "build", "-o", bin, ".")
	if out, err := b.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("go build: %s", time.Since(t0).Round(time.Second))
	c := &command{cmd: exec.Command(bin, args...), buf: &syncBuffer{}, done: make(chan struct{})}
	c.cmd.Stdout = os.Stdout
	c.cmd.Stderr = c.buf
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.err = c.cmd.Wait(); close(c.done) }()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			_ = c.cmd.Process.Kill()
			<-c.done
		}
		if t.Failed() {
			t.Logf("kubeletlogic-node stderr:\n%s", c.log())
		}
	})
	return c
}

func (c *command) log() string { return c.buf.String() }

func (c *command) waitLog(t *testing.T, limit time.Duration, want string) {
	t.Helper()
	waitFor(t, limit, func() (string, bool) {
		select {
		case <-c.done:
			t.Fatalf("kubeletlogic-node exited (%v):\n%s", c.err, c.log())
		default:
		}
		return "log without " + want + ":\n" + c.log(), strings.Contains(c.log(), want)
	})
}

// stop sends SIGTERM and waits up to limit for the exit code.
func (c *command) stop(limit time.Duration) (int, error) {
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return -1, err
	}
	select {
	case <-c.done:
		return c.cmd.ProcessState.ExitCode(), nil
	case <-time.After(limit):
		return -1, fmt.Errorf("still running %s after SIGTERM", limit)
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
			t.Fatalf("not after %s: %+v", limit, v)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
