// Package kubeletconv converts kubeletlogic's inputs into the kubelet's own
// types, so that a differential test can hand the same case to both sides.
// Keep it small and obviously right: a bug here would hide a bug in the
// library.
package kubeletconv

import (
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// RuntimeType is the container-ID scheme used for converted instances.
const RuntimeType = "containerd"

// PodStatus returns the kubecontainer.PodStatus that
// kubeGenericRuntimeManager.GetPodStatus would build from the same runtime
// report. Order is kept as given (runtimestate.Pod is newest first, as the
// kubelet sorts). nil gives nil.
func PodStatus(p *runtimestate.Pod) *kubecontainer.PodStatus {
	if p == nil {
		return nil
	}
	out := &kubecontainer.PodStatus{
		ID:                      p.UID,
		Name:                    p.Name,
		Namespace:               p.Namespace,
		IPs:                     p.IPs(),
		TimeStamp:               p.Timestamp,
		SandboxStatuses:         []*runtimeapi.PodSandboxStatus{},
		ContainerStatuses:       []*kubecontainer.Status{},
		ActiveContainerStatuses: []*kubecontainer.Status{},
	}
	for i := range p.Sandboxes {
		out.SandboxStatuses = append(out.SandboxStatuses, Sandbox(&p.Sandboxes[i]))
	}
	for i := range p.Containers {
		c := Container(&p.Containers[i])
		out.ContainerStatuses = append(out.ContainerStatuses, c)
		if p.IsActive(&p.Containers[i]) {
			// The kubelet builds the active list as separate values with
			// the same content.
			cp := *c
			out.ActiveContainerStatuses = append(out.ActiveContainerStatuses, &cp)
		}
	}
	return out
}

// Sandbox converts one sandbox to the CRI status the runtime reports.
func Sandbox(s *runtimestate.Sandbox) *runtimeapi.PodSandboxStatus {
	st := runtimeapi.PodSandboxState_SANDBOX_NOTREADY
	if s.Ready {
		st = runtimeapi.PodSandboxState_SANDBOX_READY
	}
	out := &runtimeapi.PodSandboxStatus{
		Id:        s.ID,
		State:     st,
		Metadata:  &runtimeapi.PodSandboxMetadata{Attempt: s.Attempt},
		CreatedAt: s.CreatedAt.UnixNano(),
	}
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

// State maps a state name to the kubelet's; anything unknown reads as
// unknown, as the kubelet maps CRI states.
func State(s runtimestate.State) kubecontainer.State {
	switch s {
	case runtimestate.Created:
		return kubecontainer.ContainerStateCreated
	case runtimestate.Running:
		return kubecontainer.ContainerStateRunning
	case runtimestate.Exited:
		return kubecontainer.ContainerStateExited
	}
	return kubecontainer.ContainerStateUnknown
}

// Container converts one container instance.
func Container(c *runtimestate.Container) *kubecontainer.Status {
	out := &kubecontainer.Status{
		ID:           kubecontainer.ContainerID{Type: RuntimeType, ID: c.ID},
		Name:         c.Name,
		State:        State(c.State),
		CreatedAt:    c.CreatedAt,
		StartedAt:    c.StartedAt,
		FinishedAt:   c.FinishedAt,
		ExitCode:     c.ExitCode,
		Image:        c.Image,
		ImageRef:     c.ImageRef,
		Hash:         c.Hash,
		RestartCount: c.RestartCount,
		Reason:       c.Reason,
		Message:      c.Message,
	}
	if r := c.Resources; r != nil {
		out.Resources = &kubecontainer.ContainerResources{
			CPURequest: r.CPURequest, CPULimit: r.CPULimit,
			MemoryRequest: r.MemoryRequest, MemoryLimit: r.MemoryLimit,
		}
	}
	return out
}
