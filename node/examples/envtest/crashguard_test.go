package example

import (
	"context"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/node"
)

// cachedAssets is the envtest assets folder node/test.sh fills (etcd and
// kube-apiserver v1.37.2 built from the module proxy, laid out as
// setup-envtest lays out its downloads). envtest itself prefers
// KUBEBUILDER_ASSETS when it is set, so a folder from setup-envtest works
// as well.
func cachedAssets() string {
	cache := os.Getenv("KUBELETLOGIC_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache", "kubeletlogic")
	}
	return filepath.Join(cache, "envtest", "v1.37.2")
}

// TestCrashGuard is an envtest suite as a controller-runtime user writes
// one, plus the three lines that give its API server a kubelet: a
// Standalone node from the node module runs in the test process and drives
// the pods bound to it. The pod's container exits 1 one second after each
// start (its kubeletlogic.io/script annotation); the kubelet restarts it
// at once, then after its back-off of 10 s, then 20 s; CrashGuard must
// annotate the pod when it sees the third restart, and not before the
// kubelet's back-off allows it.
//
// envtest has no scheduler: the pod is created with spec.nodeName set to
// the fake node, as a scheduler (or a DaemonSet) would bind it.
func TestCrashGuard(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	env := &envtest.Environment{
		BinaryAssetsDirectory: cachedAssets(),
		// The default 20 s is short for a loaded CI machine.
		ControlPlaneStartTimeout: 3 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest: %v (build the assets with node/test.sh --build-only, or set KUBEBUILDER_ASSETS)", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("envtest stop: %v", err)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() }) // before env.Stop (cleanups run last first)

	// The kubelet: one fake node, its pods on the library's engine (the
	// READMEs show these lines; TestREADMESnippets keeps them the same).
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := node.Numbered("envtest", 1)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := node.NewStandalone(clientset, specs, node.Options{Logf: log.Printf})
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() { defer wg.Done(); _ = nodes.Run(ctx) }() // README: go nodes.Run(ctx)

	// The controller under test, in a manager as in any suite.
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&CrashGuard{Client: mgr.GetClient(), Threshold: 3}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "crashy", Namespace: "default", Annotations: map[string]string{
			node.ScriptAnnotation: "apiVersion: kubeletlogic/v1alpha1\nkind: Script\ncontainers:\n  app:\n    runs:\n    - {exitAfter: 1s, exitCode: 1}\n"}},
		Spec: corev1.PodSpec{
			NodeName:   specs[0].Name,
			Containers: []corev1.Container{{Name: "app", Image: "busybox"}},
		},
	}
	w, err := clientset.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=crashy"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created := time.Now()
	if _, err := clientset.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Follow the pod (the columns of kubectl get pods -w) until CrashGuard
	// has annotated it.
	t.Logf("%-8s %-6s %-17s %-12s %-5s %s", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "ANNOTATED")
	var last *corev1.Pod
	deadline := time.After(3 * time.Minute)
	for last == nil || last.Annotations[Annotation] == "" {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("watch closed")
			}
			p, isPod := ev.Object.(*corev1.Pod)
			if !isPod {
				continue
			}
			last = p
			now := time.Now()
			t.Logf("%-8s %-6s %-17s %-12s %-5s %s", p.Name, kubectlstatus.Ready(p), kubectlstatus.Compute(p),
				kubectlstatus.Restarts(p, now), now.Sub(created).Round(time.Second), p.Annotations[Annotation])
		case <-deadline:
			st := "no status"
			if last != nil {
				st = kubectlstatus.Compute(last) + ", restarts " + kubectlstatus.Restarts(last, time.Now())
			}
			t.Fatalf("after 3 min CrashGuard has not annotated the pod (last seen: %s)", st)
		}
	}
	elapsed := time.Since(created)

	if got := last.Annotations[Annotation]; got != "app=3" {
		t.Errorf("annotation %s=%q: want app=3 (the controller acts on the third restart)", Annotation, got)
	}
	// Restarts 2 and 3 each wait for the kubelet's back-off (10 s, 20 s);
	// a pod patched to Running by hand, or an engine with no back-off,
	// gets there at once.
	if elapsed < 30*time.Second {
		t.Errorf("annotated %s after the pod's creation: the kubelet's back-offs alone take 30 s", elapsed.Round(time.Second))
	}
	if len(last.Status.ContainerStatuses) != 1 {
		t.Fatalf("container statuses %+v: want app's", last.Status.ContainerStatuses)
	}
	if lt := last.Status.ContainerStatuses[0].LastTerminationState.Terminated; lt == nil || lt.ExitCode != 1 || lt.Reason != "Error" {
		t.Errorf("app's last state %+v: want terminated with exit code 1, reason Error", lt)
	}
	if last.Status.HostIP != specs[0].InternalIP {
		t.Errorf("hostIP %q: want the node's %s", last.Status.HostIP, specs[0].InternalIP)
	}
	evs, err := clientset.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=crashy"})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]int{}
	for _, e := range evs.Items {
		if e.Source.Component == "kubelet" && e.Source.Host == specs[0].Name {
			reasons[e.Reason] += int(max(e.Count, 1))
		}
	}
	if reasons["Started"] < 3 || reasons["BackOff"] < 1 {
		t.Errorf("the kubelet's Events %v: want Started at least 3 times and BackOff", reasons)
	}
}

// TestREADMESnippets: every line of the Go snippet in node/README.md's and
// the root README.md's "Use it with envtest" is a line of TestCrashGuard
// (comments and spacing aside; "go nodes.Run(ctx)" is the comment on the
// test's goroutine), so what a user pastes is what this suite runs.
func TestREADMESnippets(t *testing.T) {
	src, err := os.ReadFile("crashguard_test.go")
	if err != nil {
		t.Fatal(err)
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	code := squash(string(src))
	for _, readme := range []string{"../../README.md", "../../../README.md"} {
		b, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		_, sec, ok := strings.Cut(string(b), "## Use it with envtest\n")
		_, snippet, ok2 := strings.Cut(sec, "```go\n")
		snippet, _, ok3 := strings.Cut(snippet, "```")
		if !ok || !ok2 || !ok3 {
			t.Errorf("%s: no Go snippet under \"Use it with envtest\"", readme)
			continue
		}
		n := 0
		for _, l := range strings.Split(snippet, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "import ") {
				l = strings.Replace(l, "import ", "", 1)
			}
			l, _, _ = strings.Cut(l, "//")
			if l = squash(l); l == "" {
				continue
			}
			n++
			if !strings.Contains(code, l) {
				t.Errorf("%s: snippet line %q is not in TestCrashGuard", readme, l)
			}
		}
		if n < 4 {
			t.Errorf("%s: %d code lines in the snippet: want the four that start the node", readme, n)
		}
	}
}
