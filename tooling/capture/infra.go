package main

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/proto"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/kubeletlogic/kubeletlogic/tooling/captured"
)

// imageName is the locally built busybox image every pod uses; the pause
// image is the same image.
const imageName = "localhost/kl-busybox:1"

// missingRegistryImage names a registry on a loopback port where nothing
// listens: every pull fails at once, nothing leaves the machine.
const missingRegistryImage = "127.0.0.1:5999/kl-missing:1"

// The pod network: a private bridge (no gateway address, no masquerading,
// nothing routed) and host-local IPAM.
const (
	cniBridge = "klcap0"
	cniSubnet = "10.254.77.0/24"
)

func cniConfig(work string) string {
	return fmt.Sprintf(`{"cniVersion":"1.0.0","name":"kl-capture","plugins":[{"type":"bridge","bridge":%q,"isGateway":false,"ipMasq":false,`+
		`"ipam":{"type":"host-local","ranges":[[{"subnet":%q}]],"dataDir":%q}}]}
`, cniBridge, cniSubnet, filepath.Join(work, "cni-ipam"))
}

// proc is a process the harness started; stop ends it by PID.
type proc struct {
	name string
	cmd  *exec.Cmd
}

func start(name, logPath string, bin string, args ...string) (*proc, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	log.Printf("started %s pid %d", name, cmd.Process.Pid)
	return &proc{name: name, cmd: cmd}, nil
}

func (p *proc) stop(grace time.Duration) {
	if p == nil || p.cmd.Process == nil {
		return
	}
	pid := p.cmd.Process.Pid
	_ = syscall.Kill(pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		_ = syscall.Kill(pid, syscall.SIGKILL)
		<-done
	}
	log.Printf("stopped %s pid %d", p.name, pid)
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

func containerdConfig(work string) string {
	return fmt.Sprintf(`version = 2
root = "%[1]s/containerd/root"
state = "%[1]s/containerd/state"
[grpc]
  address = "%[1]s/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "%[2]s"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "%[1]s/cni"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
`, work, imageName)
}

func kubeletConfig(work string, maxRestart time.Duration) string {
	extra := ""
	if maxRestart > 0 {
		extra = fmt.Sprintf("crashLoopBackOff:\n  maxContainerRestartPeriod: %s\n", maxRestart)
	}
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
staticPodPath: %[1]s/manifests
podLogsDir: %[1]s/pod-logs
fileCheckFrequency: 1s
containerRuntimeEndpoint: unix://%[1]s/cri-proxy.sock
readOnlyPort: 10255
address: 127.0.0.1
healthzBindAddress: 127.0.0.1
port: 10250
failSwapOn: false
enforceNodeAllocatable: []
localStorageCapacityIsolation: false
resolvConf: ""
authentication:
  anonymous:
    enabled: true
  webhook:
    enabled: false
authorization:
  mode: AlwaysAllow
%s`, work, extra)
}

// busyboxImage writes an OCI image layout tarball holding /bin/busybox and
// its applet links.
func busyboxImage(path string) error {
	layerB, cfg, man, err := imageParts("")
	if err != nil {
		return err
	}
	idx, _ := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"manifests": []any{map[string]any{
			"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": digestOf(man), "size": len(man),
			"annotations": map[string]string{"io.containerd.image.name": imageName, "org.opencontainers.image.ref.name": "1"},
		}},
	})
	var out bytes.Buffer
	ow := tar.NewWriter(&out)
	add := func(name string, b []byte) {
		_ = ow.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		_, _ = ow.Write(b)
	}
	add("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`))
	add("index.json", idx)
	for _, b := range [][]byte{layerB, cfg, man} {
		add("blobs/sha256/"+strings.TrimPrefix(digestOf(b), "sha256:"), b)
	}
	if err := ow.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

func digestOf(b []byte) string { s := sha256.Sum256(b); return "sha256:" + hex.EncodeToString(s[:]) }

// imageParts builds the busybox image's layer, config and OCI manifest.
// A non-empty marker adds the file /kl-image holding it, so that images
// with different markers share no layer (the registry scenarios pull
// layers the runtime does not have).
func imageParts(marker string) (layerB, cfg, man []byte, err error) {
	bb, err := os.ReadFile("/bin/busybox")
	if err != nil {
		return nil, nil, nil, err
	}
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	for _, d := range []string{"bin/", "tmp/", "etc/", "proc/", "dev/", "sys/"} {
		mode := int64(0o755)
		if d == "tmp/" {
			mode = 0o1777
		}
		_ = tw.WriteHeader(&tar.Header{Name: d, Typeflag: tar.TypeDir, Mode: mode})
	}
	_ = tw.WriteHeader(&tar.Header{Name: "bin/busybox", Mode: 0o755, Size: int64(len(bb)), Typeflag: tar.TypeReg})
	_, _ = tw.Write(bb)
	for _, a := range []string{"sh", "sleep", "cat", "touch", "rm", "true", "false", "echo", "ls", "kill", "head", "tr"} {
		_ = tw.WriteHeader(&tar.Header{Name: "bin/" + a, Linkname: "busybox", Typeflag: tar.TypeSymlink, Mode: 0o777})
	}
	if marker != "" {
		_ = tw.WriteHeader(&tar.Header{Name: "kl-image", Mode: 0o644, Size: int64(len(marker)), Typeflag: tar.TypeReg})
		_, _ = tw.Write([]byte(marker))
	}
	if err := tw.Close(); err != nil {
		return nil, nil, nil, err
	}
	layerB = layer.Bytes()
	cfg, _ = json.Marshal(map[string]any{
		"architecture": "amd64", "os": "linux",
		"config": map[string]any{"Env": []string{"PATH=/bin"}, "Cmd": []string{"sleep", "2147483647"}},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{digestOf(layerB)}},
	})
	man, _ = json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": digestOf(cfg), "size": len(cfg)},
		"layers": []any{map[string]any{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": digestOf(layerB), "size": len(layerB)}},
	})
	return layerB, cfg, man, nil
}

// ---- CRI proxy: records the kubelet's mutating CRI calls ----

type rawCodec struct{}

type frame struct{ b []byte }

func (rawCodec) Marshal(v any) ([]byte, error) { return v.(*frame).b, nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	v.(*frame).b = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

var _ encoding.Codec = rawCodec{}

type criLog struct {
	mu    sync.Mutex
	calls []CRICall
}

var recorded = map[string]bool{
	"RunPodSandbox": true, "StopPodSandbox": true, "RemovePodSandbox": true,
	"CreateContainer": true, "StartContainer": true, "StopContainer": true, "RemoveContainer": true,
	"ExecSync": true, "UpdateContainerResources": true, "PullImage": true,
}

func decodeCall(method string, req, resp []byte, c *CRICall) {
	switch method {
	case "RunPodSandbox":
		var r cri.RunPodSandboxRequest
		if proto.Unmarshal(req, &r) == nil && r.Config != nil && r.Config.Metadata != nil {
			c.PodUID, c.Name, c.Attempt = r.Config.Metadata.Uid, r.Config.Metadata.Name, r.Config.Metadata.Attempt
		}
		var o cri.RunPodSandboxResponse
		if proto.Unmarshal(resp, &o) == nil {
			c.Response = o.PodSandboxId
		}
	case "StopPodSandbox":
		var r cri.StopPodSandboxRequest
		if proto.Unmarshal(req, &r) == nil {
			c.Sandbox = r.PodSandboxId
		}
	case "RemovePodSandbox":
		var r cri.RemovePodSandboxRequest
		if proto.Unmarshal(req, &r) == nil {
			c.Sandbox = r.PodSandboxId
		}
	case "CreateContainer":
		var r cri.CreateContainerRequest
		if proto.Unmarshal(req, &r) == nil {
			c.Sandbox = r.PodSandboxId
			if r.Config != nil && r.Config.Metadata != nil {
				c.Name, c.Attempt = r.Config.Metadata.Name, r.Config.Metadata.Attempt
			}
			if r.SandboxConfig != nil && r.SandboxConfig.Metadata != nil {
				c.PodUID = r.SandboxConfig.Metadata.Uid
			}
		}
		var o cri.CreateContainerResponse
		if proto.Unmarshal(resp, &o) == nil {
			c.Response = o.ContainerId
		}
	case "StartContainer":
		var r cri.StartContainerRequest
		if proto.Unmarshal(req, &r) == nil {
			c.ID = r.ContainerId
		}
	case "StopContainer":
		var r cri.StopContainerRequest
		if proto.Unmarshal(req, &r) == nil {
			c.ID = r.ContainerId
			t := r.Timeout
			c.Timeout = &t
		}
	case "ExecSync":
		var r cri.ExecSyncRequest
		if proto.Unmarshal(req, &r) == nil {
			c.ID, c.Cmd = r.ContainerId, r.Cmd
			t := r.Timeout
			c.Timeout = &t
		}
	case "RemoveContainer":
		var r cri.RemoveContainerRequest
		if proto.Unmarshal(req, &r) == nil {
			c.ID = r.ContainerId
		}
	case "PullImage":
		var r cri.PullImageRequest
		if proto.Unmarshal(req, &r) == nil {
			if r.Image != nil {
				c.Image = r.Image.Image
			}
			if r.SandboxConfig != nil && r.SandboxConfig.Metadata != nil {
				c.PodUID = r.SandboxConfig.Metadata.Uid
			}
		}
		var o cri.PullImageResponse
		if proto.Unmarshal(resp, &o) == nil {
			c.Response = o.ImageRef
		}
	case "UpdateContainerResources":
		var r cri.UpdateContainerResourcesRequest
		if proto.Unmarshal(req, &r) == nil {
			c.ID = r.ContainerId
			if l := r.Linux; l != nil {
				c.Resources = &captured.LinuxResources{CPUShares: l.CpuShares, CPUQuota: l.CpuQuota, CPUPeriod: l.CpuPeriod, MemoryLimitBytes: l.MemoryLimitInBytes}
			}
		}
	}
}

// runProxy serves listen and forwards every call to backend.
func runProxy(listen, backend string, lg *criLog) (*grpc.Server, error) {
	_ = os.Remove(listen)
	l, err := net.Listen("unix", listen)
	if err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient("unix://"+backend, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{}), grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		return nil, err
	}
	handler := func(_ any, ss grpc.ServerStream) error {
		full, _ := grpc.MethodFromServerStream(ss)
		method := full[strings.LastIndex(full, "/")+1:]
		ctx, cancel := context.WithCancel(ss.Context())
		defer cancel()
		cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, full)
		if err != nil {
			return err
		}
		var in frame
		if err := ss.RecvMsg(&in); err != nil {
			return err
		}
		t0 := time.Now()
		if err := cs.SendMsg(&in); err != nil {
			return err
		}
		_ = cs.CloseSend()
		first := true
		var firstResp []byte
		var callErr error
		for {
			var out frame
			if err := cs.RecvMsg(&out); err != nil {
				if err != io.EOF {
					callErr = err
				}
				break
			}
			if first {
				firstResp, first = out.b, false
				if md, e := cs.Header(); e == nil {
					_ = ss.SendHeader(md)
				}
			}
			if err := ss.SendMsg(&out); err != nil {
				return err
			}
		}
		if recorded[method] {
			c := CRICall{Time: t0, Done: time.Now(), Method: method}
			decodeCall(method, in.b, firstResp, &c)
			if callErr != nil {
				c.Error = callErr.Error()
			}
			lg.mu.Lock()
			lg.calls = append(lg.calls, c)
			lg.mu.Unlock()
		}
		ss.SetTrailer(cs.Trailer())
		return callErr
	}
	s := grpc.NewServer(grpc.UnknownServiceHandler(handler), grpc.ForceServerCodec(rawCodec{}), grpc.MaxRecvMsgSize(64<<20))
	go func() { _ = s.Serve(l) }()
	return s, nil
}

// unmountUnder unmounts every mount point under dir, deepest first.
func unmountUnder(dir string) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	var mps []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			mps = append(mps, f[4])
		}
	}
	sort.Slice(mps, func(i, j int) bool { return len(mps[i]) > len(mps[j]) })
	for _, m := range mps {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil {
			log.Printf("unmount %s: %v", m, err)
		}
	}
}
