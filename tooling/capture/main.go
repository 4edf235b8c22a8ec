// Command capture runs a real kubelet v1.37.2 on loopback with containerd,
// runs the scenarios of scenarios.go as static pods, records the kubelet's pod
// status, the runtime's view and the kubelet's CRI calls, stops everything it
// started and writes one JSON fixture per scenario. See README.md.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/tooling/captured"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	v1 "k8s.io/api/core/v1"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

const nodeName = "kl-capture"

// The fixture format is package captured's (one definition with the
// library's replay tests).
type (
	Fixture     = captured.Fixture
	Observation = captured.Observation
	Event       = captured.Event
	APIObject   = captured.APIObject
	CRICall     = captured.CRICall
)

var (
	apiMode           bool
	etcdPath, apiPath string
	bridgeMade        bool

	// The kubelet now running, and the function that restarts it once
	// (action restart-kubelet).
	kmu             sync.Mutex
	kubeletNow      *proc
	kubeletRestarts int
	restartKubelet  = func() string { return "no kubelet" }
)

type state struct {
	mu       sync.Mutex
	fixtures map[string]*Fixture // by static pod name (scenario name)
}

func main() {
	work := flag.String("work", "/tmp/kl-capture", "work folder (deleted at the end)")
	out := flag.String("out", "../../testdata/captured", "fixture folder")
	kubelet := flag.String("kubelet", "", "kubelet binary (built into the work folder when empty)")
	only := flag.String("only", "", "comma-separated scenario names (all when empty)")
	api := flag.Bool("api", false, "run the API-server scenarios (etcd + kube-apiserver) instead of the static-pod ones")
	etcdBin := flag.String("etcd", "", "embedded-etcd binary built from ./etcd (API mode)")
	apiBin := flag.String("apiserver", "", "kube-apiserver binary (API mode)")
	flag.Parse()
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	apiMode, etcdPath, apiPath = *api, *etcdBin, *apiBin
	if err := run(*work, *out, *kubelet, *only); err != nil {
		log.Fatal(err)
	}
}

func run(work, out, kubeletBin, only string) (err error) {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if kubeletBin == "" {
		kubeletBin = filepath.Join(work, "kubelet")
		log.Printf("building kubelet into %s", kubeletBin)
		b := exec.Command("go", "build", "-o", kubeletBin, "k8s.io/kubernetes/cmd/kubelet")
		b.Stdout, b.Stderr = os.Stderr, os.Stderr
		if err := b.Run(); err != nil {
			return fmt.Errorf("building kubelet: %w", err)
		}
	}
	sel := map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		if s != "" {
			sel[s] = true
		}
	}
	var scs []Scenario
	all := scenarios()
	if apiMode {
		all = apiScenarios()
	} else if len(sel) > 0 {
		// Restarting the kubelet touches every pod of the run: these run
		// only when named.
		all = append(all, restartScenarios()...)
		all = append(all, backoffReset())
		all = append(all, burstScenarios()...)
	}
	for _, s := range all {
		if len(sel) == 0 || sel[s.Name] || (sel["burst"] && strings.HasPrefix(s.Name, "burst-")) {
			scs = append(scs, s)
		}
	}
	st := &state{fixtures: map[string]*Fixture{}}
	env := map[string]string{
		"kubelet":    "k8s.io/kubernetes v1.37.2 cmd/kubelet, standalone, static pods, --v=2",
		"apiServer":  "none",
		"containerd": cmdOut("containerd", "--version"),
		"runc":       strings.SplitN(cmdOut("runc", "--version"), "\n", 2)[0],
		"kernel":     cmdOut("uname", "-r"),
		"statusFrom": "GET http://127.0.0.1:10255/pods (kubelet read-only port)",
		"runtimeFrom": "CRI ListPodSandbox/PodSandboxStatus/ListContainers/ContainerStatus on containerd, " +
			"polled every 250 ms; criCalls from a CRI proxy between the kubelet and containerd",
	}
	if apiMode {
		env["kubelet"] = "k8s.io/kubernetes v1.37.2 cmd/kubelet with --kubeconfig (node kl-capture), --v=2"
		env["apiServer"] = "k8s.io/kubernetes v1.37.2 cmd/kube-apiserver on 127.0.0.1:6443, embedded etcd v3.7.0; pods POSTed with spec.nodeName"
	}
	var maxRestart time.Duration
	needRegistry := false
	for _, s := range scs {
		maxRestart = max(maxRestart, s.MaxRestartPeriod)
		needRegistry = needRegistry || s.Registry
	}
	if maxRestart > 0 {
		env["crashLoopBackOff.maxContainerRestartPeriod"] = maxRestart.String()
	}
	if needRegistry {
		env["registry"] = cmdOut("docker-registry", "--version") + " (Debian docker-registry) on " + registryAddr +
			"; pods pull through the harness's proxies on " + slowAddr + " (throttled) and " + flakyAddr + " (manifest 500s)"
	}
	for _, s := range scs {
		st.fixtures[s.Name] = &Fixture{Scenario: s.Name, Description: s.Description, Facts: s.Facts, Environment: env}
	}

	sock := filepath.Join(work, "containerd.sock")
	// The containers' logs of an earlier run would count as restarts: a
	// static pod's UID is the same in every run, and for a container the
	// runtime knows no instance of, the kubelet takes the restart count
	// from the log files it finds (kuberuntime_container.go startContainer,
	// calcRestartCountByLogDir). Each run
	// starts with an empty log folder of its own (podLogsDir).
	_ = os.RemoveAll(filepath.Join(work, "pod-logs"))
	for _, d := range []string{"manifests", "cni", "kubelet-root", "logs", "pod-logs"} {
		_ = os.MkdirAll(filepath.Join(work, d), 0o755)
	}
	if err := writeFile(filepath.Join(work, "containerd.toml"), containerdConfig(work)); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(work, "kubelet.yaml"), kubeletConfig(work, maxRestart)); err != nil {
		return err
	}
	// The pod network's bridge, created here and deleted in cleanup; the
	// CNI config is in place before containerd starts.
	if o, err := exec.Command("ip", "link", "add", cniBridge, "type", "bridge").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link add %s: %v: %s", cniBridge, err, o)
	}
	bridgeMade = true
	if o, err := exec.Command("ip", "link", "set", cniBridge, "up").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link set %s up: %v: %s", cniBridge, err, o)
	}
	if err := writeFile(filepath.Join(work, "cni", "10-kl-capture.conflist"), cniConfig(work)); err != nil {
		return err
	}

	var cd, kl, etcd, apiserver, registry *proc
	var proxy *grpc.Server
	var regProxies []*http.Server
	defer func() {
		kmu.Lock()
		if kubeletNow != nil {
			kl = kubeletNow
		}
		kmu.Unlock()
		cleanup(work, sock, cd, kl, proxy, etcd, apiserver)
		for _, s := range regProxies {
			_ = s.Close()
		}
		registry.stop(15 * time.Second)
		if registry != nil {
			if err := os.RemoveAll(filepath.Join(work, "registry")); err != nil {
				log.Printf("remove registry: %v", err)
			}
		}
	}()
	cd, err = start("containerd", filepath.Join(work, "logs", "containerd.log"), "containerd", "--config", filepath.Join(work, "containerd.toml"))
	if err != nil {
		return err
	}
	if err := waitFor(30*time.Second, func() bool { _, e := os.Stat(sock); return e == nil }); err != nil {
		return fmt.Errorf("containerd socket: %w", err)
	}
	img := filepath.Join(work, "busybox-oci.tar")
	if err := busyboxImage(img); err != nil {
		return err
	}
	if o, err := exec.Command("ctr", "-a", sock, "-n", "k8s.io", "images", "import", img).CombinedOutput(); err != nil {
		return fmt.Errorf("ctr import: %v: %s", err, o)
	}
	if needRegistry {
		registry, regProxies, err = startRegistry(work, func(name, what string) {
			st.mu.Lock()
			f := st.fixtures[name]
			st.mu.Unlock()
			if f != nil {
				st.event(name, what)
			}
		})
		if err != nil {
			return err
		}
	}
	lg := &criLog{}
	proxy, err = runProxy(filepath.Join(work, "cri-proxy.sock"), sock, lg)
	if err != nil {
		return err
	}
	klArgs := []string{"--config", filepath.Join(work, "kubelet.yaml"), "--root-dir", filepath.Join(work, "kubelet-root"),
		"--hostname-override", nodeName, "--v=2"}
	if apiMode {
		var kc string
		etcd, apiserver, kc, err = startControlPlane(work, etcdPath, apiPath)
		if err != nil {
			return err
		}
		klArgs = append(klArgs, "--kubeconfig", kc)
	}
	kl, err = start("kubelet", filepath.Join(work, "logs", "kubelet.log"), kubeletBin, klArgs...)
	if err != nil {
		return err
	}
	// When the kubelet process started: a probe worker made within one
	// probe period of it waits a random part of the period first
	// (prober/worker.go run), so the replay needs the kubelet's uptime.
	env["kubeletStarted"] = time.Now().UTC().Format(time.RFC3339Nano)
	kubeletNow = kl
	restartKubelet = func() string {
		kmu.Lock()
		defer kmu.Unlock()
		if kubeletRestarts > 0 {
			return "already restarted"
		}
		kubeletRestarts++
		kubeletNow.stop(30 * time.Second)
		time.Sleep(5 * time.Second)
		p, err := start("kubelet", filepath.Join(work, "logs", fmt.Sprintf("kubelet-%d.log", kubeletRestarts)), kubeletBin, klArgs...)
		if err != nil {
			return "restart failed: " + err.Error()
		}
		kubeletNow, kl = p, p
		return fmt.Sprintf("kubelet restarted (new pid %d)", p.cmd.Process.Pid)
	}
	if err := waitFor(60*time.Second, func() bool {
		r, e := http.Get("http://127.0.0.1:10255/pods")
		if e == nil {
			r.Body.Close()
		}
		return e == nil
	}); err != nil {
		return fmt.Errorf("kubelet read-only port: %w", err)
	}

	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	rt := cri.NewRuntimeServiceClient(conn)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); observe(rt, st, stop) }()

	t0 := time.Now()
	var awg sync.WaitGroup
	for _, s := range scs {
		awg.Add(1)
		go func(s Scenario) {
			defer awg.Done()
			if apiMode {
				apiScenarioRun(st, s)
			} else {
				scenarioRun(work, sock, rt, st, s)
			}
		}(s)
	}
	awg.Wait()
	// Wait until every pod is gone from the kubelet and the runtime.
	_ = waitFor(90*time.Second, func() bool {
		pods, _ := getPods()
		for _, v := range runtimeViews(rt) {
			for _, s := range v.Sandboxes {
				if s.Ready {
					return false
				}
			}
			for _, c := range v.Containers {
				if c.State == runtimestate.Running {
					return false
				}
			}
		}
		if apiMode {
			for _, s := range scs {
				if o := apiGetPod(s.Pod.Name); o == nil || !o.Gone {
					return false
				}
			}
		}
		return len(pods) == 0
	})
	time.Sleep(3 * time.Second)
	close(stop)
	wg.Wait()
	log.Printf("scenarios done in %s", time.Since(t0).Round(time.Second))

	klLog := kubeletLogLines(filepath.Join(work, "logs", "kubelet.log"))
	for i := 1; i <= kubeletRestarts; i++ {
		klLog = append(klLog, kubeletLogLines(filepath.Join(work, "logs", fmt.Sprintf("kubelet-%d.log", i)))...)
	}
	lg.mu.Lock()
	calls := append([]CRICall(nil), lg.calls...)
	lg.mu.Unlock()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, s := range scs {
		f := st.fixtures[s.Name]
		assignCalls(f, calls)
		for _, l := range klLog {
			if f.Pod != nil && (strings.Contains(l, "\""+f.Pod.Namespace+"/"+f.Pod.Name+"\"") || strings.Contains(l, string(f.Pod.UID))) {
				f.KubeletLog = append(f.KubeletLog, l)
			}
		}
		b, err := json.MarshalIndent(f, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, s.Name+".json"), append(b, '\n'), 0o644); err != nil {
			return err
		}
		log.Printf("wrote %s: %d observations, %d CRI calls", s.Name, len(f.Observations), len(f.CRICalls))
	}
	return nil
}

func cmdOut(name string, args ...string) string {
	o, _ := exec.Command(name, args...).CombinedOutput()
	return strings.TrimSpace(string(o))
}

func waitFor(d time.Duration, f func() bool) error {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if f() {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("timed out after %s", d)
}

func (st *state) event(name, what string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f := st.fixtures[name]
	f.Events = append(f.Events, Event{Time: time.Now(), What: what})
	log.Printf("%s: %s", name, what)
}

// eventObj records an event with the API object a write of the harness was
// answered with.
func (st *state) eventObj(name, what string, obj *APIObject) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f := st.fixtures[name]
	f.Events = append(f.Events, Event{Time: time.Now(), What: what, Object: obj})
	log.Printf("%s: %s", name, what)
}

func scenarioRun(work, sock string, rt cri.RuntimeServiceClient, st *state, s Scenario) {
	time.Sleep(s.StartAfter)
	manifest := filepath.Join(work, "manifests", s.Name+".json")
	b, _ := json.MarshalIndent(s.Pod, "", " ")
	t0 := time.Now()
	if err := os.WriteFile(manifest, b, 0o644); err != nil {
		st.event(s.Name, "write manifest failed: "+err.Error())
		return
	}
	st.event(s.Name, "manifest written")
	for _, a := range s.Actions {
		time.Sleep(time.Until(t0.Add(a.At)))
		id := ""
		st.mu.Lock()
		f := st.fixtures[s.Name]
		if n := len(f.Observations); n > 0 {
			rs := f.Observations[n-1].Runtime
			switch a.Kind {
			case "kill-container":
				for _, c := range rs.Containers {
					if c.Name == a.Name && c.State == runtimestate.Running {
						id = c.ID
						break
					}
				}
			case "kill-sandbox":
				if len(rs.Sandboxes) > 0 {
					id = rs.Sandboxes[0].ID
				}
			}
		}
		st.mu.Unlock()
		if a.Kind == "restart-kubelet" {
			st.event(s.Name, "kubelet stopping (SIGTERM)")
			st.event(s.Name, restartKubelet())
			continue
		}
		if id == "" {
			st.event(s.Name, fmt.Sprintf("%s %s: nothing to kill", a.Kind, a.Name))
			continue
		}
		o, err := exec.Command("ctr", "-a", sock, "-n", "k8s.io", "tasks", "kill", "-s", "SIGKILL", id).CombinedOutput()
		st.event(s.Name, fmt.Sprintf("%s %s: ctr tasks kill -s SIGKILL %s (err=%v %s)", a.Kind, a.Name, id, err, strings.TrimSpace(string(o))))
	}
	time.Sleep(time.Until(t0.Add(s.RemoveAfter)))
	st.event(s.Name, "manifest removed")
	_ = os.Remove(manifest)
}

func getPods() ([]v1.Pod, error) {
	r, err := http.Get("http://127.0.0.1:10255/pods")
	if err != nil {
		return nil, err
	}
	defer r.Body.Close()
	var l v1.PodList
	if err := json.NewDecoder(r.Body).Decode(&l); err != nil {
		return nil, err
	}
	return l.Items, nil
}

func observe(rt cri.RuntimeServiceClient, st *state, stop chan struct{}) {
	uidOf := map[string]string{} // scenario -> pod UID
	for {
		select {
		case <-stop:
			return
		case <-time.After(250 * time.Millisecond):
		}
		now := time.Now()
		pods, err := getPods()
		if err != nil {
			continue
		}
		byName := map[string]*v1.Pod{}
		for i := range pods {
			p := &pods[i]
			byName[strings.TrimSuffix(p.Name, "-"+nodeName)] = p
		}
		views := runtimeViews(rt)
		st.mu.Lock()
		for name, f := range st.fixtures {
			p := byName[name]
			if p != nil {
				if f.Pod == nil {
					cp := p.DeepCopy()
					cp.Status = v1.PodStatus{}
					f.Pod = cp
				}
				uidOf[name] = string(p.UID)
			}
			uid, ok := uidOf[name]
			if !ok {
				continue
			}
			rs := views[uid]
			if rs == nil {
				rs = &runtimestate.Pod{}
			}
			rs.UID = f.Pod.UID
			rs.Name, rs.Namespace = f.Pod.Name, f.Pod.Namespace
			rs.Normalize()
			var status *v1.PodStatus
			if p != nil {
				status = p.Status.DeepCopy()
			}
			o := Observation{Time: now, Until: now, Status: status, Runtime: rs}
			if apiMode {
				o.API = apiGetPod(name)
			}
			if p != nil {
				ja, _ := json.Marshal(p.Spec)
				jb, _ := json.Marshal(f.Pod.Spec)
				if string(ja) != string(jb) || p.Generation != f.Pod.Generation {
					o.Pod = p.DeepCopy()
					o.Pod.Status = v1.PodStatus{}
				}
			}
			if n := len(f.Observations); n > 0 && same(f.Observations[n-1], o) {
				f.Observations[n-1].Until = now
				continue
			}
			if p == nil && len(rs.Sandboxes) == 0 && len(rs.Containers) == 0 && len(f.Observations) > 0 &&
				f.Observations[len(f.Observations)-1].Status == nil && !apiMode {
				continue
			}
			f.Observations = append(f.Observations, o)
		}
		st.mu.Unlock()
	}
}

func same(a, b Observation) bool {
	ja, _ := json.Marshal(a.Status)
	jb, _ := json.Marshal(b.Status)
	if string(ja) != string(jb) {
		return false
	}
	if a.API != nil && b.API != nil {
		x, y := *a.API, *b.API
		x.ResourceVersion, y.ResourceVersion = "", ""
		ja, _ = json.Marshal(x)
		jb, _ = json.Marshal(y)
		if string(ja) != string(jb) {
			return false
		}
	} else if (a.API == nil) != (b.API == nil) {
		return false
	}
	ja, _ = json.Marshal(a.Pod)
	jb, _ = json.Marshal(b.Pod)
	if string(ja) != string(jb) {
		return false
	}
	ra, rb := *a.Runtime, *b.Runtime
	ra.Timestamp, rb.Timestamp = time.Time{}, time.Time{}
	ja, _ = json.Marshal(ra)
	jb, _ = json.Marshal(rb)
	return string(ja) == string(jb)
}

func runtimeViews(rt cri.RuntimeServiceClient) map[string]*runtimestate.Pod {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out := map[string]*runtimestate.Pod{}
	get := func(uid string) *runtimestate.Pod {
		if out[uid] == nil {
			out[uid] = &runtimestate.Pod{Timestamp: time.Now()}
		}
		return out[uid]
	}
	sbs, err := rt.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{})
	if err != nil {
		return out
	}
	for _, s := range sbs.Items {
		uid := s.Labels["io.kubernetes.pod.uid"]
		sb := runtimestate.Sandbox{ID: s.Id, Ready: s.State == cri.PodSandboxState_SANDBOX_READY, CreatedAt: time.Unix(0, s.CreatedAt).UTC()}
		if s.Metadata != nil {
			sb.Attempt = s.Metadata.Attempt
		}
		if ss, err := rt.PodSandboxStatus(ctx, &cri.PodSandboxStatusRequest{PodSandboxId: s.Id}); err == nil && ss.Status != nil {
			if ss.Status.Network == nil {
				sb.NoNetworkStatus = true
			} else {
				sb.IP = ss.Status.Network.Ip
				sb.NoIP = sb.IP == "" // a report without an IP, read faithfully
				for _, ip := range ss.Status.Network.AdditionalIps {
					sb.AdditionalIPs = append(sb.AdditionalIPs, ip.Ip)
				}
			}
			if l := ss.Status.Linux; l != nil && l.Namespaces != nil && l.Namespaces.Options != nil {
				sb.NetworkMode = runtimestate.NamespaceMode(l.Namespaces.Options.Network.String())
			}
		}
		p := get(uid)
		p.Sandboxes = append(p.Sandboxes, sb)
	}
	cs, err := rt.ListContainers(ctx, &cri.ListContainersRequest{})
	if err != nil {
		return out
	}
	for _, c := range cs.Containers {
		uid := c.Labels["io.kubernetes.pod.uid"]
		rc := runtimestate.Container{ID: c.Id, SandboxID: c.PodSandboxId, CreatedAt: time.Unix(0, c.CreatedAt).UTC()}
		if c.Metadata != nil {
			rc.Name = c.Metadata.Name
		}
		rc.State = criState(c.State)
		if h, err := strconv.ParseUint(c.Annotations["io.kubernetes.container.hash"], 16, 64); err == nil {
			rc.Hash = h
		}
		rc.RestartCount, _ = strconv.Atoi(c.Annotations["io.kubernetes.container.restartCount"])
		if s, err := rt.ContainerStatus(ctx, &cri.ContainerStatusRequest{ContainerId: c.Id}); err == nil && s.Status != nil {
			x := s.Status
			rc.State = criState(x.State)
			rc.ExitCode, rc.Reason, rc.Message = int(x.ExitCode), x.Reason, x.Message
			if x.Image != nil {
				rc.Image = x.Image.Image
			}
			rc.ImageRef = x.ImageRef
			if x.StartedAt != 0 {
				rc.StartedAt = time.Unix(0, x.StartedAt).UTC()
			}
			if x.FinishedAt != 0 {
				rc.FinishedAt = time.Unix(0, x.FinishedAt).UTC()
			}
		}
		p := get(uid)
		p.Containers = append(p.Containers, rc)
	}
	return out
}

func criState(s cri.ContainerState) runtimestate.State {
	switch s {
	case cri.ContainerState_CONTAINER_CREATED:
		return runtimestate.Created
	case cri.ContainerState_CONTAINER_RUNNING:
		return runtimestate.Running
	case cri.ContainerState_CONTAINER_EXITED:
		return runtimestate.Exited
	}
	return runtimestate.Unknown
}

// assignCalls keeps the CRI calls that concern f's pod.
func assignCalls(f *Fixture, calls []CRICall) {
	if f.Pod == nil {
		return
	}
	uid := string(f.Pod.UID)
	sbs, ids := map[string]bool{}, map[string]bool{}
	for _, o := range f.Observations {
		for _, s := range o.Runtime.Sandboxes {
			sbs[s.ID] = true
		}
		for _, c := range o.Runtime.Containers {
			ids[c.ID] = true
		}
	}
	for _, c := range calls {
		if c.PodUID == uid && c.Response != "" {
			if c.Method == "RunPodSandbox" {
				sbs[c.Response] = true
			} else {
				ids[c.Response] = true
			}
		}
	}
	for _, c := range calls {
		if c.PodUID == uid || (c.Sandbox != "" && sbs[c.Sandbox]) || (c.ID != "" && ids[c.ID]) {
			f.CRICalls = append(f.CRICalls, c)
		}
	}
	sort.SliceStable(f.CRICalls, func(i, j int) bool { return f.CRICalls[i].Time.Before(f.CRICalls[j].Time) })
}

func kubeletLogLines(path string) []string {
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		l := sc.Text()
		for _, k := range []string{"Killing container with a grace period", "back-off", "Back-off", "Probe failed", "SyncLoop", "will be restarted", "Container exited",
			"ErrImage", "ImagePull", "pull", "Pull", "OOM", "DeadlineExceeded", "deadline", "esize", "Error syncing pod", "admission denied"} {
			if strings.Contains(l, k) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// cleanup stops the kubelet, every task, containerd and its shims (by PID),
// unmounts and deletes the work folder's state.
func cleanup(work, sock string, cd, kl *proc, proxy *grpc.Server, etcd, apiserver *proc) {
	kl.stop(15 * time.Second)
	apiserver.stop(15 * time.Second)
	etcd.stop(15 * time.Second)
	if proxy != nil {
		proxy.Stop()
	}
	if cd != nil {
		o, _ := exec.Command("ctr", "-a", sock, "-n", "k8s.io", "tasks", "ls", "-q").Output()
		for _, id := range strings.Fields(string(o)) {
			_ = exec.Command("ctr", "-a", sock, "-n", "k8s.io", "tasks", "kill", "-s", "SIGKILL", id).Run()
		}
		time.Sleep(time.Second)
	}
	cd.stop(15 * time.Second)
	// containerd's shims carry our socket path on their command line.
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cl := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cl, "containerd-shim") && strings.Contains(cl, sock) {
			log.Printf("killing shim pid %d", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	time.Sleep(time.Second)
	unmountUnder(work)
	if bridgeMade {
		if o, err := exec.Command("ip", "link", "del", cniBridge).CombinedOutput(); err != nil {
			log.Printf("ip link del %s: %v: %s", cniBridge, err, o)
		}
	}
	for _, d := range []string{"containerd", "kubelet-root", "etcd-data", "pki", "cni-ipam"} {
		if err := os.RemoveAll(filepath.Join(work, d)); err != nil {
			log.Printf("remove %s: %v", d, err)
		}
	}
}
