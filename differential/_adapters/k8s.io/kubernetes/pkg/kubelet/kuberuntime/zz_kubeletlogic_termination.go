// Adapter for the kubeletlogic differential tests (termination); written for
// this project. Added to the vendored package only through `go test -overlay`.

package kuberuntime

import (
	"context"
	"fmt"
	"sync"
	"time"

	cadvisorapi "github.com/google/cadvisor/lib/model"
	noopoteltrace "go.opentelemetry.io/otel/trace/noop"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/tools/record"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	containertest "k8s.io/kubernetes/pkg/kubelet/container/testing"
)

// KLTerminationSetTerminationGracePeriod calls setTerminationGracePeriod.
func KLTerminationSetTerminationGracePeriod(pod *v1.Pod, c *v1.Container, reason string) int64 {
	return setTerminationGracePeriod(context.Background(), pod, c, c.Name, kubecontainer.ContainerID{Type: "containerd", ID: "x"}, containerKillReason(reason))
}

// KLTermOrdering describes a terminationOrdering right after
// newTerminationOrdering: for each name with prerequisites, the names of
// the containers whose channels it waits on (in order; "?" for a channel no
// name maps to any more), and for each name with a channel whether that
// channel is already closed.
type KLTermOrdering struct {
	WaitsFor map[string][]string
	Closed   map[string]bool
}

// KLTerminationNewOrdering calls newTerminationOrdering and describes it.
func KLTerminationNewOrdering(pod *v1.Pod, running []string) KLTermOrdering {
	o := newTerminationOrdering(pod, running)
	names := map[chan struct{}]string{}
	out := KLTermOrdering{WaitsFor: map[string][]string{}, Closed: map[string]bool{}}
	for n, ch := range o.terminated {
		names[ch] = n
		select {
		case <-ch:
			out.Closed[n] = true
		default:
			out.Closed[n] = false
		}
	}
	for n, chs := range o.prereqs {
		var ws []string
		for _, ch := range chs {
			name, ok := names[ch]
			if !ok {
				name = "?"
			}
			ws = append(ws, name)
		}
		out.WaitsFor[n] = ws
	}
	return out
}

// KLTerminationWaitForTurn builds an ordering for pod with running names,
// signals the containers in terminate after the given delays (from a
// goroutine), and returns what waitForTurn(name, grace) returns.
func KLTerminationWaitForTurn(pod *v1.Pod, running []string, name string, grace int64, terminate map[string]time.Duration) float64 {
	o := newTerminationOrdering(pod, running)
	for n, d := range terminate {
		go func() {
			time.Sleep(d)
			o.containerTerminated(n)
		}()
	}
	return o.waitForTurn(name, grace)
}

// KLTermStop is one StopContainer call seen by the runtime.
type KLTermStop struct {
	ID      string
	At      time.Duration // since the kill started
	Timeout int64
	Exit    time.Duration // when the call returned
}

// KLTermKill is what the runtime saw during killPodWithSyncResult.
type KLTermKill struct {
	Stops       []KLTermStop
	SandboxStop []time.Duration // one per StopPodSandbox call
	Errors      []string        // failed kill results
}

type klTermRuntime struct {
	*apitest.FakeRuntimeService
	start     time.Time
	exitAfter map[string]time.Duration // by container ID
	mu        sync.Mutex
	out       *KLTermKill
}

func (r *klTermRuntime) StopContainer(_ context.Context, id string, timeout int64) error {
	at := time.Since(r.start)
	d, ok := r.exitAfter[id]
	limit := time.Duration(timeout) * time.Second
	if !ok || d > limit {
		d = limit
	}
	time.Sleep(d)
	r.mu.Lock()
	r.out.Stops = append(r.out.Stops, KLTermStop{ID: id, At: at, Timeout: timeout, Exit: time.Since(r.start)})
	r.mu.Unlock()
	return nil
}

func (r *klTermRuntime) StopPodSandbox(_ context.Context, id string) error {
	r.mu.Lock()
	r.out.SandboxStop = append(r.out.SandboxStop, time.Since(r.start))
	r.mu.Unlock()
	return nil
}

type klTermRunner struct{ preStop map[string]time.Duration }

func (h klTermRunner) Run(_ context.Context, _ kubecontainer.ContainerID, _ *v1.Pod, c *v1.Container, _ *v1.LifecycleHandler) (string, error) {
	time.Sleep(h.preStop[c.Name])
	return "", nil
}

// KLTermContainer is one running container handed to the kill.
type KLTermContainer struct{ ID, Name string }

// KLTerminationKillPod runs killPodWithSyncResult, in real time, on a fake
// runtime manager whose preStop hooks sleep preStop[name] and whose
// StopContainer returns after exitAfter[id] or the timeout, whichever is
// shorter.
func KLTerminationKillPod(pod *v1.Pod, running []KLTermContainer, sandboxes []string, override *int64, preStop map[string]time.Duration, exitAfter map[string]time.Duration) KLTermKill {
	mem := resource.MustParse(fakeNodeAllocatableMemory)
	out := &KLTermKill{}
	rt := &klTermRuntime{FakeRuntimeService: apitest.NewFakeRuntimeService(), exitAfter: exitAfter, out: out}
	m, err := newFakeKubeRuntimeManager(context.Background(), rt, apitest.NewFakeImageService(),
		&cadvisorapi.MachineInfo{MemoryCapacity: uint64(mem.Value())}, &containertest.FakeOS{},
		&containertest.FakeRuntimeHelper{}, noopoteltrace.NewTracerProvider().Tracer(""), &record.FakeRecorder{})
	if err != nil {
		panic(fmt.Sprintf("kubeletlogic adapter: newFakeKubeRuntimeManager: %v", err))
	}
	m.runner = klTermRunner{preStop: preStop}
	rp := kubecontainer.Pod{ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}
	for _, c := range running {
		rp.Containers = append(rp.Containers, &kubecontainer.Container{
			ID: kubecontainer.ContainerID{Type: "containerd", ID: c.ID}, Name: c.Name, State: kubecontainer.ContainerStateRunning})
	}
	for _, s := range sandboxes {
		rp.Sandboxes = append(rp.Sandboxes, &kubecontainer.Container{ID: kubecontainer.ContainerID{Type: "containerd", ID: s}})
	}
	rt.start = time.Now()
	res := m.killPodWithSyncResult(context.Background(), pod, rp, override)
	for _, r := range res.SyncResults {
		if r.Error != nil {
			out.Errors = append(out.Errors, fmt.Sprintf("%v %v: %s", r.Action, r.Target, r.Message))
		}
	}
	return *out
}
