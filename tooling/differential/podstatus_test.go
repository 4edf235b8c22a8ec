//go:build kubeletlogic_overlay

package differential

import (
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Cases per run, each under its own random gate set.
const podstatusCases = 40000

// podstatusInput is one case for both sides.
type podstatusInput struct {
	c        podgen.StatusCase
	opts     podstatus.Options
	resize   []v1.PodCondition
	workers  map[string]podstatus.ProbeWorkers // as the kubelet's manager holds them
	nodeIPs  []net.IP
	nodeAddr []v1.NodeAddress
}

var (
	podstatusNodeIPs = [][]string{nil, {"10.0.0.1"}, {"fd00::1"}, {"fd00::1", "10.0.0.1"}}
	podstatusHostIPs = [][]string{nil, {}, {"192.168.0.1"}, {"192.168.0.1", "fd00::10"}, {"fd00::10", "192.168.0.1"}, {"fd00::10"}}
)

func drawPodstatusInput(rt *rapid.T, f features.Set) podstatusInput {
	c := podgen.StatusCases(podgen.CaseOptions{Gates: &f}).Draw(rt, "case")
	pod := c.Pod
	// What statusPod adds to a pod: static pods, readiness gates, a
	// deadline, a generation; plus host networking, and an API status next
	// to a cached one.
	switch rapid.IntRange(0, 5).Draw(rt, "config source") {
	case 1:
		pod.Annotations = map[string]string{phase.AnnotationConfigSource: "file"}
	case 2:
		pod.Annotations = map[string]string{phase.AnnotationConfigSource: "api"}
	}
	pod.Spec.ReadinessGates = podgen.ReadinessGates().Draw(rt, "readiness gates")
	if rapid.IntRange(0, 3).Draw(rt, "deadline") == 0 {
		pod.Spec.ActiveDeadlineSeconds = ptr(int64(rapid.IntRange(1, 4000).Draw(rt, "deadline seconds")))
	}
	pod.Generation = int64(rapid.IntRange(0, 4).Draw(rt, "generation"))
	pod.Spec.HostNetwork = rapid.IntRange(0, 4).Draw(rt, "host network") == 0
	if c.Previous != nil && rapid.IntRange(0, 2).Draw(rt, "API status too") == 0 {
		pod.Status = *podgen.APIStatus(pod, podgen.APIStatusOptions{}).Draw(rt, "api status")
	}
	if rapid.IntRange(0, 5).Draw(rt, "API QoS class") == 0 {
		pod.Status.QOSClass = v1.PodQOSGuaranteed
	}
	// Sandbox IPs in other shapes: IPv6 first, two of a family, leading
	// zeros (which the kubelet parses and rewrites).
	if sb := c.State.LatestSandbox(); sb != nil && sb.IP != "" {
		switch rapid.IntRange(0, 5).Draw(rt, "ip shape") {
		case 1:
			sb.IP, sb.AdditionalIPs = "fd00::5", []string{"fd00::6", "10.1.0.5"}
		case 2:
			sb.IP, sb.AdditionalIPs = "010.001.000.007", nil
		case 3:
			sb.IP, sb.AdditionalIPs = "10.1.0.5", []string{"10.1.0.6"}
		}
	}

	in := podstatusInput{c: c, resize: drawResizeConditions(rt)}
	o := &in.opts
	o.Features = f
	o.Cached = c.Previous
	o.PodIsTerminal = rapid.Bool().Draw(rt, "podIsTerminal")
	o.Now = drawNow(rt)
	o.RuntimeType = kubeletconv.RuntimeType
	o.ResizeConditions = in.resize
	o.StartFailures = map[string]vocab.StartFailure{}
	for n, sf := range c.StartFailures {
		o.StartFailures[n] = sf
	}
	o.Probes = map[string]vocab.ProbeResults{}
	for id, p := range podgen.ProbeResults(pod, c.State).Draw(rt, "probe results") {
		o.Probes[id] = vocab.ProbeResults{Readiness: vocab.ProbeResult(p.Readiness), Startup: vocab.ProbeResult(p.Startup)}
	}
	// Probe workers: those AddPod creates (Options.ProbeWorkers nil), or
	// any set.
	in.workers = map[string]podstatus.ProbeWorkers{}
	addPod := rapid.IntRange(0, 3).Draw(rt, "workers from spec") != 0
	if !addPod {
		o.ProbeWorkers = in.workers
	}
	for k, list := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		isInit := k == 1
		for i := range list {
			c := &list[i]
			sidecar := c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
			var w podstatus.ProbeWorkers
			if addPod {
				if isInit && !sidecar {
					continue
				}
				w = podstatus.ProbeWorkers{Readiness: c.ReadinessProbe != nil, Startup: c.StartupProbe != nil}
			} else {
				w = podstatus.ProbeWorkers{
					Readiness: rapid.Bool().Draw(rt, c.Name+" readiness worker"),
					Startup:   rapid.Bool().Draw(rt, c.Name+" startup worker"),
				}
			}
			if w != (podstatus.ProbeWorkers{}) {
				in.workers[c.Name] = w
			}
		}
	}
	if rapid.Bool().Draw(rt, "prober started late") {
		o.ProberStart = podgen.Epoch.Add(time.Duration(rapid.IntRange(0, 4000).Draw(rt, "prober start offset")) * time.Second)
	}
	o.NodeIPs = rapid.SampledFrom(podstatusNodeIPs).Draw(rt, "node IPs")
	for _, ip := range o.NodeIPs {
		in.nodeIPs = append(in.nodeIPs, net.ParseIP(ip))
	}
	host := rapid.SampledFrom(podstatusHostIPs).Draw(rt, "host IPs")
	if host != nil {
		in.nodeAddr = []v1.NodeAddress{}
		for _, ip := range host {
			in.nodeAddr = append(in.nodeAddr, v1.NodeAddress{Type: v1.NodeInternalIP, Address: ip})
		}
		o.HostIPs = host
	}
	return in
}

// kubeletPodstatus runs the kubelet's generateAPIPodStatus on in, with the
// real probe manager holding in's results and workers, and sets
// observedGeneration with the kubelet's CalculatePodStatusObservedGeneration
// as the status manager does. Pod-level resources and allocatedResources
// are cleared: podstatus does not model them (they come from cgroups).
func kubeletPodstatus(in podstatusInput) v1.PodStatus {
	pod, ks, kin := kubeletPodstatusArgs(in)
	s := kubelet.KLPodstatusGenerateAPIPodStatus(pod, ks, kin)
	s.ObservedGeneration = podutil.CalculatePodStatusObservedGeneration(pod)
	s.Resources = nil // read from the pod's cgroups: not modelled
	return s
}

// kubeletPodstatusArgs converts in to the arguments of the kubelet-side
// adapters: a copy of the pod, the runtime state through the kubelet's own
// types, and the probe manager, reason cache, cached status, resize
// conditions and node the Kubelet is built with. Nothing the library
// computed goes in.
func kubeletPodstatusArgs(in podstatusInput) (*v1.Pod, *kubecontainer.PodStatus, kubelet.KLPodstatusInput) {
	pod := in.c.Pod.DeepCopy()
	readiness, startup := map[string]string{}, map[string]string{}
	for id, p := range in.opts.Probes {
		key := kubeletconv.RuntimeType + "://" + id
		if p.Readiness != "" {
			readiness[key] = string(p.Readiness)
		}
		if p.Startup != "" {
			startup[key] = string(p.Startup)
		}
	}
	workers := map[string]prober.KLPodstatusWorkers{}
	for n, w := range in.workers {
		workers[n] = prober.KLPodstatusWorkers{Readiness: w.Readiness, Startup: w.Startup}
	}
	failures := map[string]kubelet.KLApistatusStartFailure{}
	for n, sf := range in.c.StartFailures {
		failures[n] = kubelet.KLApistatusStartFailure(sf)
	}
	var resize []*v1.PodCondition
	for i := range in.resize {
		resize = append(resize, in.resize[i].DeepCopy())
	}
	var cached *v1.PodStatus
	if in.opts.Cached != nil {
		cached = in.opts.Cached.DeepCopy()
	}
	return pod, kubeletconv.PodStatus(in.c.State), kubelet.KLPodstatusInput{
		PodIsTerminal: in.opts.PodIsTerminal,
		Cached:        cached,
		Resize:        resize,
		Now:           in.opts.Now,
		Probe:         prober.KLPodstatusProbeManager(pod, readiness, startup, workers, in.opts.ProberStart),
		Failures:      failures,
		NodeIPs:       in.nodeIPs,
		NodeAddresses: in.nodeAddr,
	}
}

// TestDifferentialPodstatus compares podstatus.Compute's whole status with
// the kubelet's generateAPIPodStatus (probe manager, reason cache, node
// IPs and Node included).
func TestDifferentialPodstatus(t *testing.T) {
	check(t, podstatusCases, []string{"generateAPIPodStatus"}, func(rt *rapid.T, f features.Set) {
		in := drawPodstatusInput(rt, f)
		want := kubeletPodstatus(in)
		got := podstatus.Compute(in.c.Pod, in.c.State, in.opts)
		if d := cmp.Diff(want, got.Status, quantityEqual); d != "" {
			rt.Fatalf("Compute differs from generateAPIPodStatus (-kubelet +ours):\n%s\nours:\n%s", d, got)
		}
		compared(rt, "generateAPIPodStatus")
	})
}
