// Adapter for the kubeletlogic differential tests (podstatus); written for
// this project.
//
// This file lives in tooling/differential/_adapters/ (ignored by the go tool) and is
// added to the vendored k8s.io/kubernetes/pkg/kubelet package only through
// `go test -overlay` (see tooling/differential/setup.sh).

package kubelet

import (
	"errors"
	"net"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientset "k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober"
	"k8s.io/kubernetes/pkg/kubelet/status"
	testingclock "k8s.io/utils/clock/testing"
)

// KLPodstatusInput holds what KLPodstatusGenerateAPIPodStatus gives the
// Kubelet besides the pod and its runtime status.
type KLPodstatusInput struct {
	PodIsTerminal bool
	// Cached is the status manager's cached status (nil: none).
	Cached *v1.PodStatus
	// Resize are the status manager's resize conditions.
	Resize []*v1.PodCondition
	// Now is the active-deadline handler's fake clock.
	Now time.Time
	// Probe is the probe manager (see prober.KLPodstatusProbeManager).
	Probe prober.Manager
	// Failures fill the reason cache by container name.
	Failures map[string]KLApistatusStartFailure
	// NodeIPs are the kubelet's configured node IPs.
	NodeIPs []net.IP
	// NodeAddresses, when not nil, make the Kubelet one with an API client
	// whose node lister holds a Node with these addresses; nil is a
	// Kubelet without an API client.
	NodeAddresses []v1.NodeAddress
}

// KLPodstatusGenerateAPIPodStatus calls generateAPIPodStatus on a Kubelet
// built like KLPhaseGenerateAPIPodStatus's (stub status manager, the
// active-deadline handler, a stub container manager), with in's probe
// manager, reason cache, node IPs and node. With NodeAddresses the
// kubeClient is a typed nil (generateAPIPodStatus only checks it for nil;
// the Node is read from the lister).
func KLPodstatusGenerateAPIPodStatus(pod *v1.Pod, podStatus *kubecontainer.PodStatus, in KLPodstatusInput) v1.PodStatus {
	kl := klPodstatusKubelet(&klPhaseStatusManager{cached: in.Cached, resize: in.Resize}, pod, in)
	return klGenerateAPIPodStatus(kl, pod, podStatus, in.PodIsTerminal)
}

// klPodstatusKubelet builds the Kubelet of KLPodstatusGenerateAPIPodStatus
// around the status manager sm (also the active-deadline handler's status
// provider).
func klPodstatusKubelet(sm status.Manager, pod *v1.Pod, in KLPodstatusInput) *Kubelet {
	kl := &Kubelet{
		statusManager:    sm,
		probeManager:     in.Probe,
		containerManager: cm.NewStubContainerManager(),
		reasonCache:      NewReasonCache(),
		nodeIPs:          in.NodeIPs,
	}
	for name, f := range in.Failures {
		kl.reasonCache.add(pod.UID, name, errors.New(f.Reason), f.Message)
	}
	if in.NodeAddresses != nil {
		var c *clientset.Clientset
		kl.kubeClient = c
		kl.nodeName = types.NodeName("node")
		idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node"}, Status: v1.NodeStatus{Addresses: in.NodeAddresses}}
		if err := idx.Add(node); err != nil {
			panic(err)
		}
		kl.nodeLister = corelisters.NewNodeLister(idx)
	}
	h, err := newActiveDeadlineHandler(sm, &record.FakeRecorder{}, testingclock.NewFakeClock(in.Now))
	if err != nil {
		panic(err)
	}
	kl.AddPodSyncHandler(h)
	return kl
}
