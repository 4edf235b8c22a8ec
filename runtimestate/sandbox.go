package runtimestate

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// SandboxCheck is the answer of SandboxChanged.
type SandboxCheck struct {
	// Changed says a new sandbox is needed.
	Changed bool
	// Attempt is the attempt number of the new sandbox when Changed, and
	// that of the latest sandbox otherwise (0 when there is none).
	Attempt uint32
	// SandboxID is the latest sandbox's ID; empty when there is none or its
	// network namespace mode changed.
	SandboxID string
	// Message is one of the vocab.Msg* texts when Changed, empty otherwise.
	Message string
}

// SandboxChanged reports whether the pod needs a new sandbox: the check
// computePodActions starts with and the PodReadyToStartContainers
// condition reads. It mirrors
// PodSandboxChanged in pkg/kubelet/kuberuntime/util/util.go, checking in
// the kubelet's order: no sandbox at all; more than one ready sandbox; the
// latest sandbox not ready; the latest sandbox's network namespace mode
// not NODE for a hostNetwork pod or not POD otherwise (a mode the runtime
// did not report reads as POD, as does one the CRI does not know); the
// latest sandbox of a pod without hostNetwork reporting a network status
// with no IP (Sandbox.NoIP: a sandbox that merely leaves IP out is taken to
// have one, see Sandbox.IP).
//
// A nil st is a runtime with no sandbox. A nil pod reads as a pod without
// hostNetwork.
func SandboxChanged(pod *v1.Pod, st *Pod) SandboxCheck {
	if st == nil || len(st.Sandboxes) == 0 {
		return SandboxCheck{Changed: true, Message: vocab.MsgNoPodSandbox}
	}
	ready := 0
	for i := range st.Sandboxes {
		if st.Sandboxes[i].Ready {
			ready++
		}
	}
	latest := &st.Sandboxes[0]
	next := latest.Attempt + 1
	if ready > 1 {
		return SandboxCheck{Changed: true, Attempt: next, SandboxID: latest.ID, Message: vocab.MsgMultipleSandboxes}
	}
	if !latest.Ready {
		return SandboxCheck{Changed: true, Attempt: next, SandboxID: latest.ID, Message: vocab.MsgSandboxNotReady}
	}
	hostNetwork := pod != nil && pod.Spec.HostNetwork
	want := NamespacePod
	if hostNetwork {
		want = NamespaceNode
	}
	if networkMode(latest.NetworkMode) != want {
		return SandboxCheck{Changed: true, Attempt: next, Message: vocab.MsgNetworkNamespaceMode}
	}
	if !hostNetwork && !latest.NoNetworkStatus && latest.IP == "" && latest.NoIP {
		return SandboxCheck{Changed: true, Attempt: next, SandboxID: latest.ID, Message: vocab.MsgNoIPAddress}
	}
	return SandboxCheck{Attempt: latest.Attempt, SandboxID: latest.ID}
}

// networkMode reads a reported mode as the kubelet reads the CRI enum: an
// absent or unknown mode is POD.
func networkMode(m NamespaceMode) NamespaceMode {
	switch m {
	case NamespaceContainer, NamespaceNode, NamespaceTarget:
		return m
	}
	return NamespacePod
}
