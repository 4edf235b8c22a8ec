// Adapter for the kubeletlogic differential tests; written for this project.
//
// What differs between kubelet minors in the kuberuntime package's
// internals that the other adapters use; each kubelet version the suite
// compiles against has its own copy of this file (see tooling/differential/setup.sh).
// This one is for kubelet v1.36.

package kuberuntime

import (
	"context"
	"time"

	cadvisorapi "github.com/google/cadvisor/info/v1"
	noopoteltrace "go.opentelemetry.io/otel/trace/noop"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	internalapi "k8s.io/cri-api/pkg/apis"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	"k8s.io/kubernetes/pkg/kubelet/allocation/state"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	containertest "k8s.io/kubernetes/pkg/kubelet/container/testing"
)

// kubeletlogicNewManager builds a runtime manager over rt the way the
// package's own tests do (newFakeKubeRuntimeManager), on a node with the
// package's fake allocatable memory.
func kubeletlogicNewManager(rt internalapi.RuntimeService) (*kubeGenericRuntimeManager, error) {
	mem := resource.MustParse(fakeNodeAllocatableMemory)
	return newFakeKubeRuntimeManager(context.Background(), rt, apitest.NewFakeImageService(),
		&cadvisorapi.MachineInfo{MemoryCapacity: uint64(mem.Value())}, &containertest.FakeOS{},
		&containertest.FakeRuntimeHelper{}, noopoteltrace.NewTracerProvider().Tracer(""))
}

func klResources(r resourceRequirements) KLResourceRequirements {
	return KLResourceRequirements{
		MemoryLimit:   r.memoryLimit,
		MemoryRequest: r.memoryRequest,
		CPULimit:      r.cpuLimit,
		CPURequest:    r.cpuRequest,
	}
}

// klVolumesToResize returns the volumes to grow and shrink: none, since
// podActions has no such fields before v1.37.
func klVolumesToResize(a podActions) (up, down []v1.Volume) {
	return nil, nil
}

// kubeletlogicNewStateMemory returns an empty in-memory allocation store.
func kubeletlogicNewStateMemory() state.State {
	return state.NewStateMemory(nil)
}

// KLSetActuated records actuated resources in the shared manager's store
// under uid (on top of what it holds): per-container resources, pod-level
// resources (emptyDir limits are ignored: see below).
func KLSetActuated(uid types.UID, containers map[string]v1.ResourceRequirements, pod *v1.ResourceRequirements, emptyDir map[string]resource.Quantity) error {
	klMu.Lock()
	defer klMu.Unlock()
	s := klGetManager().actuatedState
	for name, rr := range containers {
		if err := s.SetContainerResources(uid, name, *rr.DeepCopy()); err != nil {
			return err
		}
	}
	if pod != nil {
		if err := s.SetPodLevelResources(uid, pod.DeepCopy()); err != nil {
			return err
		}
	}
	// This kubelet has no emptyDir volume limits in the store (in-place
	// resize of memory-backed volumes came in v1.37): emptyDir is ignored.
	_ = emptyDir
	return nil
}

// kubeletlogicGetPodStatus is the manager's GetPodStatus of the running pod
// rp as read at readAt: since v1.36 the read time travels on the pod
// (Pod.Timestamp) and becomes the status's TimeStamp.
func kubeletlogicGetPodStatus(ctx context.Context, m *kubeGenericRuntimeManager, rp *kubecontainer.Pod, readAt time.Time) (*kubecontainer.PodStatus, error) {
	rp.Timestamp = readAt
	return m.GetPodStatus(ctx, rp)
}

// KLSharesToMilliCPU and KLQuotaToMilliCPU are how the kubelet reads a CPU
// request back from cgroup shares and a CPU limit from a CFS quota (in the
// cm package since v1.36).
func KLSharesToMilliCPU(shares int64) int64 { return cm.SharesToMilliCPU(shares) }

func KLQuotaToMilliCPU(quota, period int64) int64 { return cm.QuotaToMilliCPU(quota, period) }
