// Adapter for the kubeletlogic differential tests; written for this project.
//
// Overlaid on the vendored k8s.io/kubernetes/pkg/kubelet/kuberuntime package
// by tooling/differential/setup.sh. It lets a test hand raw CRI sandboxes and
// containers to a fake runtime service and read back the
// kubecontainer.PodStatus the kubelet's own GetPods and GetPodStatus build
// from them: the kubelet, not the test, decides the sort order, the active
// sandbox, the pod IPs and which container statuses are active.

package kuberuntime

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	kubetypes "k8s.io/apimachinery/pkg/types"
	internalapi "k8s.io/cri-api/pkg/apis"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// klCRIRuntime is the fake CRI runtime service of the kubelet's tests,
// reporting a runtime name of our choice (a real containerd reports
// "containerd"; the fake reports "fakeRuntime").
type klCRIRuntime struct {
	*apitest.FakeRuntimeService
	name  string
	order map[string]int // sandbox ID -> its index in the seeded list
}

// ListPodSandbox lists the sandboxes in the order they were seeded, as a
// real runtime lists them in an order of its own (the fake's is a map's,
// random on every call). Kubelet v1.35 sorts them by attempt only, so for
// sandboxes of equal attempt the list order is the kubelet's order; later
// kubelets sort on a total order and do not depend on it.
func (r *klCRIRuntime) ListPodSandbox(ctx context.Context, filter *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	out, err := r.FakeRuntimeService.ListPodSandbox(ctx, filter)
	sort.SliceStable(out, func(i, j int) bool { return r.order[out[i].Id] < r.order[out[j].Id] })
	return out, err
}

func (r *klCRIRuntime) Version(ctx context.Context, apiVersion string) (*runtimeapi.VersionResponse, error) {
	v, err := r.FakeRuntimeService.Version(ctx, apiVersion)
	if v != nil {
		v.RuntimeName = r.name
	}
	return v, err
}

var (
	klCRIMu       sync.Mutex
	klCRIManagers = map[string]*kubeGenericRuntimeManager{}
	klCRIServices = map[string]*klCRIRuntime{}
)

// klCRIManager returns (building it once per runtime name) a runtime
// manager of its own over a fake CRI service: its actuated-resources store
// stays empty, so the shared manager of KLComputePodActions is not touched.
func klCRIManager(runtimeName string) (*kubeGenericRuntimeManager, *klCRIRuntime) {
	if m, ok := klCRIManagers[runtimeName]; ok {
		return m, klCRIServices[runtimeName]
	}
	rt := &klCRIRuntime{FakeRuntimeService: apitest.NewFakeRuntimeService(), name: runtimeName}
	var svc internalapi.RuntimeService = rt
	m, err := kubeletlogicNewManager(svc)
	if err != nil {
		panic(fmt.Sprintf("kubeletlogic adapter: newFakeKubeRuntimeManager: %v", err))
	}
	klCRIManagers[runtimeName] = m
	klCRIServices[runtimeName] = rt
	return m, rt
}

// KLPodSandboxLabels returns the labels the kubelet puts on a sandbox of pod
// (newPodLabels).
func KLPodSandboxLabels(pod *v1.Pod) map[string]string { return newPodLabels(pod) }

// KLContainerLabels returns the labels the kubelet puts on a container
// named name of pod (newContainerLabels).
func KLContainerLabels(pod *v1.Pod, name string) map[string]string {
	return newContainerLabels(&v1.Container{Name: name}, pod)
}

// KLContainerAnnotations returns the hash and restart-count annotations
// under the kubelet's own keys, formatted as newContainerAnnotations
// formats them. hash 0 leaves the hash annotation out (an instance created
// without one).
func KLContainerAnnotations(hash uint64, restartCount int) map[string]string {
	a := map[string]string{containerRestartCountLabel: strconv.Itoa(restartCount)}
	if hash != 0 {
		a[containerHashLabel] = strconv.FormatUint(hash, 16)
	}
	return a
}

// KLGetPodStatus seeds a fake CRI runtime service (runtime name
// runtimeName) with exactly sandboxes and containers, lists them with the
// kubelet's GetPods(all) as the PLEG does, and returns what GetPodStatus
// builds for the pod with the given UID. readAt is the time of the listing
// (the kubelet uses the wall clock there). A pod the runtime knows nothing
// about is asked for by uid, name and namespace.
func KLGetPodStatus(runtimeName string, uid kubetypes.UID, name, namespace string, readAt time.Time,
	sandboxes []*apitest.FakePodSandbox, containers []*apitest.FakeContainer) (*kubecontainer.PodStatus, error) {
	klCRIMu.Lock()
	defer klCRIMu.Unlock()
	m, rt := klCRIManager(runtimeName)
	rt.SetFakeSandboxes(sandboxes)
	rt.SetFakeContainers(containers)
	rt.order = make(map[string]int, len(sandboxes))
	for i, sb := range sandboxes {
		rt.order[sb.Id] = i
	}
	defer func() {
		rt.order = nil
		rt.SetFakeSandboxes(nil)
		rt.SetFakeContainers(nil)
		rt.Lock()
		rt.Called = nil
		rt.Unlock()
	}()
	ctx := context.Background()
	pods, err := m.GetPods(ctx, true)
	if err != nil {
		return nil, err
	}
	var rp *kubecontainer.Pod
	for _, p := range pods {
		if p.ID == uid {
			rp = p
		}
	}
	if rp == nil {
		rp = &kubecontainer.Pod{ID: uid, Name: name, Namespace: namespace}
	}
	return kubeletlogicGetPodStatus(ctx, m, rp, readAt)
}

// KLGetContainerStatus seeds the fake runtime with the one container c and
// returns the kubelet's GetContainerStatus of it.
func KLGetContainerStatus(runtimeName string, uid kubetypes.UID, c *apitest.FakeContainer) (*kubecontainer.Status, error) {
	klCRIMu.Lock()
	defer klCRIMu.Unlock()
	m, rt := klCRIManager(runtimeName)
	rt.SetFakeContainers([]*apitest.FakeContainer{c})
	defer func() {
		rt.SetFakeContainers(nil)
		rt.Lock()
		rt.Called = nil
		rt.Unlock()
	}()
	return m.GetContainerStatus(context.Background(), uid, kubecontainer.ContainerID{Type: runtimeName, ID: c.Id})
}
