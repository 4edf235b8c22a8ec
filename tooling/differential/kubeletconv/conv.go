//go:build kubeletlogic_overlay

package kubeletconv

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// RuntimeType is the container-ID scheme used for converted instances: the
// runtime name the fake CRI service reports.
const RuntimeType = "containerd"

// cpuPeriod is the CFS period written for CPU limits (the kubelet's
// default cpuCFSQuotaPeriod, 100 ms, in microseconds).
const cpuPeriod = 100000

// PodStatus returns the kubecontainer.PodStatus that the kubelet's
// GetPodStatus builds when the runtime reports p: p is written as raw CRI
// sandboxes and containers (with the labels and annotations the kubelet
// writes) into a fake CRI runtime service, listed with the kubelet's
// GetPods and read back with its GetPodStatus, which decide the order, the
// active sandbox, the pod IPs and the active containers. nil gives nil.
//
// What the CRI cannot carry and is therefore taken from p as it is: a
// container's MemoryRequest (the kubelet reads it from its actuated-resources
// store, per container name, not from the runtime). What the CRI cannot
// express panics (a test bug, never a library one): a CPU request or limit
// that does not survive the kubelet's shares / quota conversion, a zero
// resource value (the kubelet reads 0 as "not reported"). A zero time is
// written as 0 ns, which the kubelet reads as the Unix epoch.
func PodStatus(p *runtimestate.Pod) *kubecontainer.PodStatus {
	if p == nil {
		return nil
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: p.UID, Name: p.Name, Namespace: p.Namespace}}
	var sandboxes []*apitest.FakePodSandbox
	for i := range p.Sandboxes {
		sandboxes = append(sandboxes, &apitest.FakePodSandbox{PodSandboxStatus: *Sandbox(pod, &p.Sandboxes[i])})
	}
	var containers []*apitest.FakeContainer
	for i := range p.Containers {
		containers = append(containers, criContainer(pod, &p.Containers[i]))
	}
	out, err := kuberuntime.KLGetPodStatus(RuntimeType, p.UID, p.Name, p.Namespace, p.Timestamp, sandboxes, containers)
	if err != nil {
		panic(fmt.Sprintf("kubeletconv: the kubelet's GetPodStatus failed: %v", err))
	}
	byID := map[string]*runtimestate.Container{}
	for i := range p.Containers {
		byID[p.Containers[i].ID] = &p.Containers[i]
	}
	for _, s := range out.ContainerStatuses {
		if c := byID[s.ID.ID]; c != nil {
			addMemoryRequest(s, c)
		}
	}
	return out
}

// addMemoryRequest puts c's memory request, which no CRI response carries,
// on the kubelet's status s.
func addMemoryRequest(s *kubecontainer.Status, c *runtimestate.Container) {
	if c.Resources == nil || c.Resources.MemoryRequest == nil {
		return
	}
	if s.Resources == nil {
		s.Resources = &kubecontainer.ContainerResources{}
	}
	q := c.Resources.MemoryRequest.DeepCopy()
	s.Resources.MemoryRequest = &q
}

// Sandbox converts one sandbox of pod to the CRI status the runtime reports.
func Sandbox(pod *v1.Pod, s *runtimestate.Sandbox) *runtimeapi.PodSandboxStatus {
	st := runtimeapi.PodSandboxState_SANDBOX_NOTREADY
	if s.Ready {
		st = runtimeapi.PodSandboxState_SANDBOX_READY
	}
	out := &runtimeapi.PodSandboxStatus{
		Id:        s.ID,
		State:     st,
		Metadata:  &runtimeapi.PodSandboxMetadata{Name: pod.Name, Uid: string(pod.UID), Namespace: pod.Namespace, Attempt: s.Attempt},
		CreatedAt: nanos(s.CreatedAt),
		Labels:    kuberuntime.KLPodSandboxLabels(pod),
	}
	// A network status with an empty IP is Sandbox.NoIP. A sandbox that
	// leaves IP out without NoIP is the library's friendly default (an IP
	// assumed, none known), which no CRI report can carry: it is sent as an
	// empty IP, which the kubelet reads as NoIP. The generators draw NoIP.
	if !s.NoNetworkStatus {
		out.Network = &runtimeapi.PodSandboxNetworkStatus{Ip: s.IP}
		for _, ip := range s.AdditionalIPs {
			out.Network.AdditionalIps = append(out.Network.AdditionalIps, &runtimeapi.PodIP{Ip: ip})
		}
	}
	if s.NetworkMode != "" {
		out.Linux = &runtimeapi.LinuxPodSandboxStatus{Namespaces: &runtimeapi.Namespace{
			Options: &runtimeapi.NamespaceOption{Network: NamespaceMode(s.NetworkMode)},
		}}
	}
	return out
}

// NamespaceMode maps a mode name to the CRI enum; an unknown name maps to
// POD, as the zero enum value.
func NamespaceMode(m runtimestate.NamespaceMode) runtimeapi.NamespaceMode {
	switch m {
	case runtimestate.NamespaceContainer:
		return runtimeapi.NamespaceMode_CONTAINER
	case runtimestate.NamespaceNode:
		return runtimeapi.NamespaceMode_NODE
	case runtimestate.NamespaceTarget:
		return runtimeapi.NamespaceMode_TARGET
	}
	return runtimeapi.NamespaceMode_POD
}

// CRIState maps a state name to the CRI state a runtime reports; anything
// unknown is CONTAINER_UNKNOWN.
func CRIState(s runtimestate.State) runtimeapi.ContainerState {
	switch s {
	case runtimestate.Created:
		return runtimeapi.ContainerState_CONTAINER_CREATED
	case runtimestate.Running:
		return runtimeapi.ContainerState_CONTAINER_RUNNING
	case runtimestate.Exited:
		return runtimeapi.ContainerState_CONTAINER_EXITED
	}
	return runtimeapi.ContainerState_CONTAINER_UNKNOWN
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// criContainer writes one instance of pod as the runtime reports it.
func criContainer(pod *v1.Pod, c *runtimestate.Container) *apitest.FakeContainer {
	return &apitest.FakeContainer{
		ContainerStatus: runtimeapi.ContainerStatus{
			Id:          c.ID,
			Metadata:    &runtimeapi.ContainerMetadata{Name: c.Name, Attempt: uint32(max(c.RestartCount, 0))},
			State:       CRIState(c.State),
			CreatedAt:   nanos(c.CreatedAt),
			StartedAt:   nanos(c.StartedAt),
			FinishedAt:  nanos(c.FinishedAt),
			ExitCode:    int32(c.ExitCode),
			Image:       &runtimeapi.ImageSpec{Image: c.Image},
			ImageRef:    c.ImageRef,
			Reason:      c.Reason,
			Message:     c.Message,
			Labels:      kuberuntime.KLContainerLabels(pod, c.Name),
			Annotations: kuberuntime.KLContainerAnnotations(c.Hash, c.RestartCount),
			Resources:   criResources(c),
		},
		SandboxID: c.SandboxID,
	}
}

// criResources writes the CPU and memory settings the runtime reports
// (cgroup shares, CFS quota and period, memory limit in bytes).
func criResources(c *runtimestate.Container) *runtimeapi.ContainerResources {
	r := c.Resources
	if r == nil {
		return nil
	}
	lr := &runtimeapi.LinuxContainerResources{}
	if q := r.CPURequest; q != nil {
		m := q.MilliValue()
		shares := cm.MilliCPUToShares(m)
		if q.IsZero() || kuberuntime.KLSharesToMilliCPU(int64(shares)) != m {
			panic(fmt.Sprintf("kubeletconv: %s: cpu request %s cannot be reported through cgroup shares", c.ID, q))
		}
		lr.CpuShares = int64(shares)
	}
	if q := r.CPULimit; q != nil {
		m := q.MilliValue()
		quota := m * cpuPeriod / 1000
		if m <= 0 || kuberuntime.KLQuotaToMilliCPU(quota, cpuPeriod) != m {
			panic(fmt.Sprintf("kubeletconv: %s: cpu limit %s cannot be reported through a CFS quota", c.ID, q))
		}
		lr.CpuQuota, lr.CpuPeriod = quota, cpuPeriod
	}
	if q := r.MemoryLimit; q != nil {
		if q.Value() <= 0 {
			panic(fmt.Sprintf("kubeletconv: %s: memory limit %s cannot be reported", c.ID, q))
		}
		lr.MemoryLimitInBytes = q.Value()
	}
	return &runtimeapi.ContainerResources{Linux: lr}
}

// Container returns the kubelet's GetContainerStatus of one instance, read
// from a fake CRI runtime service that reports it alone.
func Container(c *runtimestate.Container) *kubecontainer.Status {
	s, err := kuberuntime.KLGetContainerStatus(RuntimeType, "", criContainer(&v1.Pod{}, c))
	if err != nil {
		panic(fmt.Sprintf("kubeletconv: the kubelet's GetContainerStatus failed: %v", err))
	}
	addMemoryRequest(s, c)
	return s
}
