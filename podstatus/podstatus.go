package podstatus

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// ProbeWorkers says which probe workers the probe manager has for one
// container.
type ProbeWorkers struct {
	Readiness bool `json:"readiness,omitempty"`
	Startup   bool `json:"startup,omitempty"`
}

// Options are the inputs of Compute besides the pod and the runtime state.
// The zero value is a kubelet v1.37.2 with its default gates, no cached
// status, no probe
// result, the probe workers of the pod's spec, an IPv4 node whose Node
// object the kubelet cannot read (no hostIP), and the clock at the zero
// time.
type Options struct {
	// Features are the kubelet's feature gates; every step reads its own
	// (see apistatus, phase and conditions). The probe step reads
	// ChangeContainerStatusOnKubeletRestart, and observedGeneration reads
	// PodObservedGenerationTracking.
	// The zero value is kubelet v1.37.2's defaults (features.V1_37).
	Features features.Set
	// Cached is the status the kubelet's status manager holds for the pod
	// (the status it generated last), or nil when it holds none; then
	// pod.Status is the kubelet's previous status, as in
	// generateAPIPodStatus.
	Cached *v1.PodStatus
	// PodIsTerminal is the kubelet's podIsTerminal: false in SyncPod and in
	// SyncTerminatingPod before the containers are stopped, true after that
	// and in SyncTerminatedPod.
	PodIsTerminal bool
	// Now is the kubelet's clock, read for spec.activeDeadlineSeconds.
	Now time.Time
	// StartFailures are the reason cache's entries by container name (see
	// vocab.StartFailure).
	StartFailures map[string]vocab.StartFailure
	// RecursiveReadOnlySupported is whether the pod's runtime handler
	// supports recursive read-only mounts.
	RecursiveReadOnlySupported bool
	// RuntimeType is the scheme of container IDs ("containerd" when
	// empty), as in apistatus.Options.
	RuntimeType string
	// ResizeConditions are the PodResizePending and PodResizeInProgress
	// conditions the status manager holds (see conditions.Options).
	ResizeConditions []v1.PodCondition

	// Probes are the readiness and startup results by container instance
	// ID (runtimestate.Container.ID). An absent ID has no result of
	// either kind.
	Probes map[string]vocab.ProbeResults
	// ProbeWorkers are the probe workers by container name. nil means the
	// workers the probe manager's AddPod creates: one per readiness or
	// startup probe of a regular container or sidecar in the spec. A
	// non-nil map is taken as it is (a worker stops, for instance, once its
	// container can no longer restart); an absent name has no worker.
	ProbeWorkers map[string]ProbeWorkers
	// ProberStart is when the kubelet's probe manager was created (the
	// kubelet's start). A running container that started more than 10 s
	// before it is treated as one that ran before a kubelet restart (gate
	// ChangeContainerStatusOnKubeletRestart off). The zero time means no
	// container predates the kubelet.
	ProberStart time.Time

	// NodeIPs are the kubelet's configured node IPs (--node-ip); only the
	// first one's family is read: pod IPs of that family come first. None,
	// or an IPv4 first one, prefers IPv4.
	NodeIPs []string
	// HostIPs are the host IPs the kubelet reads from its Node object
	// (utilnode.GetNodeHostIPs: the first InternalIP, else ExternalIP,
	// then the first address of the other family), primary first, at most
	// two, in canonical form. Empty means the kubelet writes no hostIP: it
	// runs without an API client, or the Node has no usable address.
	HostIPs []string
}

// Result is the status the kubelet writes, with the intermediate answers
// that explain it.
type Result struct {
	// Status is the pod status: what generateAPIPodStatus returns, with
	// observedGeneration set as the status manager sets it.
	Status v1.PodStatus
	// GetPhase is getPhase's answer over the container statuses before the
	// probe step.
	GetPhase phase.Result
	// Phase is the phase, reason and message after the rules that follow
	// getPhase.
	Phase phase.Status
	// RestartingAllContainers is whether a RestartAllContainers reset was
	// in progress for the container statuses (apistatus).
	RestartingAllContainers bool
}

// String renders r as a few lines: phase and why, conditions, and one line
// per container status.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n  getPhase: %s\n", r.Phase, r.GetPhase)
	for _, c := range r.Status.Conditions {
		fmt.Fprintf(&b, "  condition %s=%s", c.Type, c.Status)
		if c.Reason != "" {
			fmt.Fprintf(&b, " (%s)", c.Reason)
		}
		b.WriteString("\n")
	}
	lists := []struct {
		kind string
		l    []v1.ContainerStatus
	}{{"init", r.Status.InitContainerStatuses}, {"container", r.Status.ContainerStatuses}, {"ephemeral", r.Status.EphemeralContainerStatuses}}
	for _, list := range lists {
		for _, cs := range list.l {
			fmt.Fprintf(&b, "  %s %s: %s ready=%v started=%s restarts=%d\n", list.kind, cs.Name, describeState(cs.State), cs.Ready, describeBool(cs.Started), cs.RestartCount)
		}
	}
	if len(r.Status.PodIPs) > 0 || r.Status.HostIP != "" {
		var pod, host []string
		for _, ip := range r.Status.PodIPs {
			pod = append(pod, ip.IP)
		}
		for _, ip := range r.Status.HostIPs {
			host = append(host, ip.IP)
		}
		fmt.Fprintf(&b, "  podIPs=%s hostIPs=%s\n", strings.Join(pod, ","), strings.Join(host, ","))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func describeState(s v1.ContainerState) string {
	switch {
	case s.Running != nil:
		return "running"
	case s.Terminated != nil:
		if s.Terminated.Reason == "" {
			return fmt.Sprintf("terminated(exit %d)", s.Terminated.ExitCode)
		}
		return fmt.Sprintf("terminated(exit %d, %s)", s.Terminated.ExitCode, s.Terminated.Reason)
	case s.Waiting != nil:
		if s.Waiting.Reason == "" {
			return "waiting"
		}
		return fmt.Sprintf("waiting(%s)", s.Waiting.Reason)
	}
	return "no state"
}

func describeBool(p *bool) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// Compute returns the pod status the kubelet v1.37.2 generates for pod from
// the runtime state st. It mirrors Kubelet.generateAPIPodStatus (with
// convertStatusToAPIStatus) in pkg/kubelet/kubelet_pods.go, in its order:
//
//  1. pod IPs: the active sandbox's IPs (none when the runtime reports an
//     IP it cannot parse), the first of the node's family then the first of
//     the other (sortPodIPs); podIP is the first. The QoS class.
//  2. container statuses: apistatus.Compute.
//  3. phase: phase.Compute over the statuses of step 2, with
//     podHasInitialized from phase.HasAnyActiveRegularContainerStarted;
//     then phase.Resolve (terminal phases stick, reason and message, the
//     active deadline).
//  4. Started and Ready: the probe manager's UpdatePodStatus (see
//     Options.Probes, ProbeWorkers and ProberStart).
//  5. conditions: conditions.Generate over the statuses of step 4.
//  6. hostIP and hostIPs from Options.HostIPs, and for a host-network pod
//     without pod IPs the host IPs as pod IPs.
//  7. observedGeneration: the pod's generation (gate
//     PodObservedGenerationTracking, or pod.Status already has one), as
//     the status manager's SetPodStatus sets it.
//
// A nil pod gives a zero Result; a nil st is a runtime that reports no
// sandbox and no container. The result shares no memory with the
// arguments (strings aside, which cannot change: a container ID or a
// condition message the cached status holds with the same text is that
// string). Compute ignores a key of opts that matches nothing (a probe
// result keyed by container name instead of instance ID, say): call
// opts.Validate(pod, st) first to have such keys reported.
//
// Allocations: since the status is the caller's to keep and change, every
// pointer, slice and map in it is new memory, and Compute allocates that
// and next to nothing else. Per container: its volume-mount statuses and,
// for a running or exited instance, the resources the kubelet reports (the
// spec's requirements with the runtime's values: maps and quantities, as
// the kubelet builds them). Per pod: one array for the status lists; the
// state objects, container ID texts and Started flags of all statuses, a
// few arrays at a time (no two statuses share one); the conditions list and
// the messages of Initialized, ContainersReady and the readiness gates; the
// pod and host IP lists and the IP text. For a pod of one or two
// containers, the status lists share an allocation with the state objects,
// and the pod IPs one with the Started flags. Neither the pod, the runtime state
// nor the cached status is copied (the steps never write to them). On
// podgen's status cases that is about 11 plus 3 per container (23 for 5
// containers; TestAllocationBudget holds it under 20 plus 8 per container),
// where the kubelet's generateAPIPodStatus makes about 170 for the same
// pods (tooling/differential/bench.sh).
func Compute(pod *v1.Pod, st *runtimestate.Pod, opts Options) Result {
	if pod == nil {
		return Result{}
	}
	if st == nil {
		st = &runtimestate.Pod{}
	}
	// Nothing of pod, st or opts is written to, and every step returns
	// memory of its own (apistatus copies what would point into the
	// previous status; conditions are copied by value, their strings and
	// times being immutable), so nothing is copied up front.
	cached := opts.Cached
	f := opts.Features
	runtimeType := opts.RuntimeType
	if runtimeType == "" {
		runtimeType = apistatus.DefaultRuntimeType
	}

	var r Result
	s := &r.Status

	// 1. Pod IPs and QoS class.
	// The sandbox's IPs (see ips.go), then sorted; both lists in
	// buffers on the stack: only PodIPs is allocated (with the Started
	// flags for most pods).
	var ipBuf [4]string
	var sortedBuf [2]string
	sorted := appendSortedPodIPs(sortedBuf[:0], st.AppendIPs(ipBuf[:0]), opts.NodeIPs)
	var started []bool // room for the Started flags of step 4
	if specs := len(pod.Spec.InitContainers) + len(pod.Spec.Containers); len(sorted) <= 2 && specs <= 2 && len(sorted)+specs > 0 {
		// Most pods: the IPs and the Started flags of step 4 (at most
		// one status a spec container) share one allocation.
		small := new(smallLists)
		s.PodIPs = small.ips[:0:len(sorted)]
		started = small.started[:]
	} else if len(sorted) > 0 {
		s.PodIPs = make([]v1.PodIP, 0, len(sorted))
	}
	for _, ip := range sorted {
		s.PodIPs = append(s.PodIPs, v1.PodIP{IP: ip})
	}
	if len(s.PodIPs) == 0 {
		s.PodIPs = nil // no IPs: no list, as the kubelet's
	}
	if len(s.PodIPs) > 0 {
		s.PodIP = s.PodIPs[0].IP
	}
	s.QOSClass = podQOS(pod, f)
	if f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) {
		s.AllocatedResources = podRequests(pod, f)
	}

	// 2. Container statuses.
	cs := apistatus.Compute(pod, st, apistatus.Options{
		Features:                   f,
		Cached:                     cached,
		StartFailures:              opts.StartFailures,
		RecursiveReadOnlySupported: opts.RecursiveReadOnlySupported,
		RuntimeType:                runtimeType,
	})
	s.InitContainerStatuses = cs.InitContainerStatuses
	s.ContainerStatuses = cs.ContainerStatuses
	s.EphemeralContainerStatuses = cs.EphemeralContainerStatuses
	r.RestartingAllContainers = cs.RestartingAllContainers

	// 3. Phase, over the statuses as they are before the probe step.
	r.GetPhase = phase.Compute(pod, s, phase.Options{
		Features:          f,
		PodIsTerminal:     opts.PodIsTerminal,
		PodHasInitialized: phase.HasAnyActiveRegularContainerStarted(pod, st),
	})
	r.Phase = phase.Resolve(pod, r.GetPhase.Phase, phase.ResolveOptions{Cached: cached, Now: opts.Now})
	s.Phase, s.Reason, s.Message = r.Phase.Phase, r.Phase.Reason, r.Phase.Message

	// 4. Started and Ready.
	p := prober{pod: pod, opts: &opts, runtimeType: runtimeType}
	p.updatePodStatus(s, started)

	// 5. Conditions.
	s.Conditions = conditions.Generate(pod, s, conditions.Options{
		Features:         f,
		Cached:           cached,
		Runtime:          st,
		PodIsTerminal:    opts.PodIsTerminal,
		ResizeConditions: opts.ResizeConditions,
	})

	// 6. Host IPs.
	setHostIPs(pod, s, opts.HostIPs)

	// 7. observedGeneration, as the status manager sets it.
	if pod.Status.ObservedGeneration != 0 || f.Enabled(features.PodObservedGenerationTracking) {
		s.ObservedGeneration = pod.Generation
	}
	return r
}

// smallLists are the pod IPs and the Started flags of a pod of up to two
// IPs and two containers, allocated together.
type smallLists struct {
	ips     [2]v1.PodIP
	started [2]bool
}
