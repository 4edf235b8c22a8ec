// Package controlplane starts a real Kubernetes v1.37.2 control plane for
// node/'s tests: etcd (the embedded etcd v3.7.0 of tooling/capture/etcd),
// kube-apiserver, kube-controller-manager and kube-scheduler, each a
// binary that node/test.sh builds from the module proxy and caches. Every
// component listens on free loopback ports, so tests of several packages
// can run side by side; Start stops them (and deletes their folder) when
// the test ends, keeping the folder and printing the logs' last lines when
// the test failed. Nothing here fakes an API server.
//
// The binaries are found through environment variables (KUBELETLOGIC_ETCD,
// KUBELETLOGIC_KUBE_APISERVER, KUBELETLOGIC_KUBE_CONTROLLER_MANAGER,
// KUBELETLOGIC_KUBE_SCHEDULER, KUBELETLOGIC_KWOK), else in the cache folder
// node/test.sh fills (${KUBELETLOGIC_CACHE:-$HOME/.cache/kubeletlogic}/
// controlplane/v1.37.2 and kwok/v0.8.0). A missing binary fails the test,
// naming the script that builds it.
package controlplane

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Versions of the cached components.
const (
	KubernetesVersion = "v1.37.2"
	KwokVersion       = "v0.8.0"
)

// DefaultControllers are the kube-controller-manager controllers Start
// runs: the workload controllers issue 27's scenarios need (Job,
// ReplicaSet, Deployment, the garbage collector), the node lifecycle and
// taint eviction controllers (what a node that stops heartbeating meets),
// the pod garbage collector, and the service account and root CA
// publishers (a pod admitted by the ServiceAccount plugin needs its
// namespace's default service account).
var DefaultControllers = []string{
	"job-controller", "replicaset-controller", "deployment-controller", "garbage-collector-controller",
	"node-lifecycle-controller", "taint-eviction-controller", "pod-garbage-collector-controller",
	"serviceaccount-controller", "root-ca-certificate-publisher-controller",
}

// Options adjusts the control plane; the zero value is the components'
// defaults with DefaultControllers.
type Options struct {
	// Controllers replaces DefaultControllers when not nil.
	Controllers []string
	// NodeMonitorGracePeriod is kube-controller-manager's
	// --node-monitor-grace-period (how long a node may go without a
	// heartbeat before it is marked Unknown); 0 keeps its default, 50 s.
	NodeMonitorGracePeriod time.Duration
	// ExtraArgs are flags appended to a component's command line, by
	// component name ("kube-apiserver", "kube-controller-manager",
	// "kube-scheduler"); the scale benchmark lifts the controller
	// manager's and the scheduler's client rate limits with them, as
	// kwokctl's --disable-qps-limits does.
	ExtraArgs map[string][]string
}

// ControlPlane is a running control plane.
type ControlPlane struct {
	// Dir holds the certificates, kubeconfigs, etcd's data and the logs
	// (logs/<component>.log).
	Dir string
	// Kubeconfig is an admin kubeconfig (a token in system:masters).
	Kubeconfig string
	// Config and Client are the admin's.
	Config *rest.Config
	Client kubernetes.Interface
	procs  []*proc
}

// Binary returns the path of a cached component: "etcd",
// "kube-apiserver", "kube-controller-manager", "kube-scheduler" or "kwok".
func Binary(name string) (string, error) {
	env := "KUBELETLOGIC_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %v", env, p, err)
		}
		return p, nil
	}
	cache := os.Getenv("KUBELETLOGIC_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(home, ".cache", "kubeletlogic")
	}
	var p string
	switch name {
	case "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler":
		p = filepath.Join(cache, "controlplane", KubernetesVersion, name)
	case "kwok":
		p = filepath.Join(cache, "kwok", KwokVersion, name)
	default:
		return "", fmt.Errorf("controlplane: no component %q", name)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s not built (%v): run node/test.sh, or set %s", name, err, env)
	}
	return p, nil
}

// Start starts etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler, waits until each is healthy and the controller manager
// has created the default namespace's service account, and registers their
// stop with t.Cleanup.
func Start(t testing.TB, o Options) *ControlPlane {
	t.Helper()
	bins := map[string]string{}
	for _, n := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		p, err := Binary(n)
		if err != nil {
			t.Fatal(err)
		}
		bins[n] = p
	}
	dir, err := os.MkdirTemp("", "kubeletlogic-controlplane-")
	if err != nil {
		t.Fatal(err)
	}
	cp := &ControlPlane{Dir: dir}
	t.Cleanup(func() { cp.stop(t) })
	if err := cp.start(bins, o); err != nil {
		t.Fatalf("control plane: %v", err)
	}
	return cp
}

func (cp *ControlPlane) start(bins map[string]string, o Options) error {
	ports, err := freePorts(5)
	if err != nil {
		return err
	}
	etcdPort, etcdPeer, apiPort, kcmPort, schedPort := ports[0], ports[1], ports[2], ports[3], ports[4]
	if err := os.MkdirAll(filepath.Join(cp.Dir, "logs"), 0o755); err != nil {
		return err
	}
	p, err := writePKI(filepath.Join(cp.Dir, "pki"))
	if err != nil {
		return err
	}
	// Static tokens: the admin and the controller manager in
	// system:masters (kube-controller-manager runs with its own credentials
	// rather than one service account per controller), the scheduler as
	// system:kube-scheduler with its bootstrap RBAC role.
	tokens := map[string]string{"admin": "admin-token", "kcm": "kcm-token", "scheduler": "scheduler-token"}
	tokenFile := filepath.Join(cp.Dir, "pki", "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(tokens["admin"]+",admin,admin,system:masters\n"+
		tokens["kcm"]+",system:kube-controller-manager,kcm,system:masters\n"+
		tokens["scheduler"]+",system:kube-scheduler,scheduler\n"), 0o600); err != nil {
		return err
	}
	server := "https://127.0.0.1:" + strconv.Itoa(apiPort)
	kc := map[string]string{}
	for user, tok := range tokens {
		kc[user] = filepath.Join(cp.Dir, user+".kubeconfig")
		if err := os.WriteFile(kc[user], []byte(kubeconfig(server, p.caCert, user, tok)), 0o600); err != nil {
			return err
		}
	}
	cp.Kubeconfig = kc["admin"]

	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdPort)
	if err := cp.run("etcd", bins["etcd"], "-data-dir", filepath.Join(cp.Dir, "etcd-data"),
		"-client-url", etcdURL, "-peer-url", "http://127.0.0.1:"+strconv.Itoa(etcdPeer)); err != nil {
		return err
	}
	if err := cp.waitHTTP("etcd", etcdURL+"/health", 60*time.Second); err != nil {
		return err
	}
	apiArgs := []string{"--etcd-servers=" + etcdURL, "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort), "--tls-cert-file=" + p.serverCert, "--tls-private-key-file=" + p.serverKey,
		"--client-ca-file=" + p.caCert, "--token-auth-file=" + tokenFile, "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local", "--service-account-key-file=" + p.saPub,
		"--service-account-signing-key-file=" + p.saKey, "--service-cluster-ip-range=10.96.0.0/24",
		"--endpoint-reconciler-type=none", "--profiling=false"}
	if err := cp.run("kube-apiserver", bins["kube-apiserver"], append(apiArgs, o.ExtraArgs["kube-apiserver"]...)...); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 50, 100
	cp.Config = cfg
	if cp.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	if err := cp.waitFor("kube-apiserver", 180*time.Second, func(ctx context.Context) error {
		b, err := cp.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			return fmt.Errorf("%v %s", err, b)
		}
		return nil
	}); err != nil {
		return err
	}
	kcmArgs := []string{"--kubeconfig=" + kc["kcm"], "--authentication-kubeconfig=" + kc["kcm"], "--authorization-kubeconfig=" + kc["kcm"],
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(kcmPort), "--cert-dir=" + filepath.Join(cp.Dir, "kcm-certs"),
		"--leader-elect=false", "--controllers=" + strings.Join(controllers(o), ","),
		"--root-ca-file=" + p.caCert, "--service-account-private-key-file=" + p.saKey, "--use-service-account-credentials=false"}
	if o.NodeMonitorGracePeriod > 0 {
		kcmArgs = append(kcmArgs, "--node-monitor-grace-period="+o.NodeMonitorGracePeriod.String())
	}
	kcmArgs = append(kcmArgs, o.ExtraArgs["kube-controller-manager"]...)
	if err := cp.run("kube-controller-manager", bins["kube-controller-manager"], kcmArgs...); err != nil {
		return err
	}
	schedArgs := []string{"--kubeconfig=" + kc["scheduler"], "--authentication-kubeconfig=" + kc["scheduler"], "--authorization-kubeconfig=" + kc["scheduler"],
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(schedPort), "--cert-dir=" + filepath.Join(cp.Dir, "scheduler-certs"),
		"--leader-elect=false"}
	if err := cp.run("kube-scheduler", bins["kube-scheduler"], append(schedArgs, o.ExtraArgs["kube-scheduler"]...)...); err != nil {
		return err
	}
	for name, port := range map[string]int{"kube-controller-manager": kcmPort, "kube-scheduler": schedPort} {
		if err := cp.waitHTTP(name, "https://127.0.0.1:"+strconv.Itoa(port)+"/healthz", 120*time.Second); err != nil {
			return err
		}
	}
	return cp.waitFor("the default service account", 120*time.Second, func(ctx context.Context) error {
		_, err := cp.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("not created yet by kube-controller-manager")
		}
		return err
	})
}

func controllers(o Options) []string {
	if o.Controllers != nil {
		return o.Controllers
	}
	return DefaultControllers
}

func kubeconfig(server, ca, user, token string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: %q, certificate-authority: %q}
users:
- name: %s
  user: {token: %q}
contexts:
- name: test
  context: {cluster: test, user: %s}
current-context: test
`, server, ca, user, token, user)
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// Pid returns the process id of the running component called name
// ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler",
// "kwok"), or 0 if none runs.
func (cp *ControlPlane) Pid(name string) int {
	for i := len(cp.procs) - 1; i >= 0; i-- {
		p := cp.procs[i]
		if p.name == name && p.cmd.Process != nil {
			select {
			case <-p.done:
				return 0
			default:
				return p.cmd.Process.Pid
			}
		}
	}
	return 0
}

// proc is a component the control plane started.
type proc struct {
	name, log string
	cmd       *exec.Cmd
	done      chan struct{}
	// bin, env and args started it (RestartAPIServer starts it again).
	bin  string
	env  []string
	args []string
}

func (cp *ControlPlane) run(name, bin string, args ...string) error {
	return cp.runEnv(name, bin, nil, args...)
}

// runEnv is run with env added to the test's environment.
func (cp *ControlPlane) runEnv(name, bin string, env []string, args ...string) error {
	p, err := startProc(filepath.Join(cp.Dir, "logs", name+".log"), name, bin, env, args)
	if err != nil {
		return err
	}
	cp.procs = append(cp.procs, p)
	return nil
}

// startProc starts a component in its own process group, its output
// appended to logPath.
func startProc(logPath, name, bin string, env, args []string) (*proc, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %v", name, err)
	}
	p := &proc{name: name, log: logPath, cmd: cmd, done: make(chan struct{}), bin: bin, env: env, args: args}
	go func() { _ = cmd.Wait(); f.Close(); close(p.done) }()
	return p, nil
}

// RestartAPIServer stops kube-apiserver (SIGTERM to its process group,
// SIGKILL after 10 s), leaves it stopped for down, and starts it again with
// the same flags: the same port, certificates and etcd (which keeps
// running, so every object and resourceVersion survives). It returns once
// /readyz answers again, with how long the API server was unreachable
// from the stop to the first ready answer.
func (cp *ControlPlane) RestartAPIServer(down time.Duration) (time.Duration, error) {
	i := slices.IndexFunc(cp.procs, func(p *proc) bool { return p.name == "kube-apiserver" })
	if i < 0 {
		return 0, fmt.Errorf("controlplane: no kube-apiserver running")
	}
	old := cp.procs[i]
	stopped := time.Now()
	stopProc(old)
	time.Sleep(down)
	p, err := startProc(old.log, old.name, old.bin, old.env, old.args)
	if err != nil {
		return 0, err
	}
	cp.procs[i] = p
	err = cp.waitFor("kube-apiserver (restarted)", 180*time.Second, func(ctx context.Context) error {
		b, err := cp.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			return fmt.Errorf("%v %s", err, b)
		}
		return nil
	})
	return time.Since(stopped), err
}

// stopProc sends SIGTERM to p's process group, SIGKILL after 10 s, and
// waits for it to exit.
func stopProc(p *proc) {
	pid := p.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-p.done
	}
}

// exited names a component that has exited.
func (cp *ControlPlane) exited() error {
	for _, p := range cp.procs {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%v); log %s", p.name, p.cmd.ProcessState, p.log)
		default:
		}
	}
	return nil
}

func (cp *ControlPlane) waitFor(what string, limit time.Duration, ok func(context.Context) error) error {
	deadline := time.Now().Add(limit)
	var last error
	for time.Now().Before(deadline) {
		if err := cp.exited(); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		last = ok(ctx)
		cancel()
		if last == nil {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready after %s: %v", what, limit, last)
}

var insecureHTTP = &http.Client{Timeout: 5 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

// waitHTTP waits for a 200 from a component's health endpoint (the
// controller manager and the scheduler serve self-signed certificates).
func (cp *ControlPlane) waitHTTP(name, url string, limit time.Duration) error {
	return cp.waitFor(name, limit, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		r, err := insecureHTTP.Do(req)
		if err != nil {
			return err
		}
		defer r.Body.Close()
		if r.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, r.Status)
		}
		return nil
	})
}

// stop ends the components in reverse order (SIGTERM to each one's process
// group, SIGKILL after 10 s) and deletes Dir, or keeps it and prints the
// end of every log when the test failed.
func (cp *ControlPlane) stop(t testing.TB) {
	for i := len(cp.procs) - 1; i >= 0; i-- {
		stopProc(cp.procs[i])
	}
	if !t.Failed() {
		_ = os.RemoveAll(cp.Dir)
		return
	}
	for _, p := range cp.procs {
		b, _ := os.ReadFile(p.log)
		lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		t.Logf("--- last lines of %s:\n%s", p.log, bytes.Join(lines, []byte("\n")))
	}
	t.Logf("control plane folder kept: %s", cp.Dir)
}
