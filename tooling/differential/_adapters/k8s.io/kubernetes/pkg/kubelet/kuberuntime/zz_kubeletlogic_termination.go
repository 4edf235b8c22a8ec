// Adapter for the kubeletlogic differential tests (termination); written for
// this project. Added to the vendored package only through `go test -overlay`.

package kuberuntime

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
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

// KLTermStop is one StopContainer call seen by the runtime, in the order
// the calls were made.
type KLTermStop struct {
	ID      string
	At      time.Duration // since the kill started
	Timeout int64
	Exit    time.Duration // when the call returned
	Failed  bool          // the call returned an error
}

// KLTermSandboxStop is one StopPodSandbox call.
type KLTermSandboxStop struct {
	ID string
	At time.Duration
}

// KLTermKill is what the runtime saw during killPodWithSyncResult.
type KLTermKill struct {
	Stops        []KLTermStop
	SandboxStops []KLTermSandboxStop
	Execs        map[string]time.Duration // ExecSync (exec hook) start, by container ID
	Errors       []string                 // failed sync results
	Returned     time.Duration            // when killPodWithSyncResult returned
}

// KLTermKillInput is one kill: the pod, the runtime's view of it (turned
// into the running pod by the kubelet's own ConvertPodStatusToRunningPod),
// the override, and how the fake runtime behaves, by container ID.
type KLTermKillInput struct {
	Pod      *v1.Pod
	Status   *kubecontainer.PodStatus
	Override *int64
	// ExecFor is how long an exec hook (ExecSync) runs in each container;
	// absent: it returns at once. Sleep hooks are run by the kubelet's own
	// handler runner.
	ExecFor map[string]time.Duration
	// ExitAfter is how long after StopContainer each process exits; absent
	// (or longer than the timeout): at the timeout.
	ExitAfter map[string]time.Duration
	// StopFails: StopContainer returns an error at once.
	StopFails map[string]bool
	// ReturnAfter: a StopContainer that did not fail returns this long
	// after the process exited (the runtime handling the exit).
	ReturnAfter time.Duration
}

type klTermRuntime struct {
	*apitest.FakeRuntimeService
	in    *KLTermKillInput
	start time.Time
	mu    sync.Mutex
	out   *KLTermKill
}

func (r *klTermRuntime) ExecSync(ctx context.Context, id string, _ []string, _ time.Duration) ([]byte, []byte, error) {
	r.mu.Lock()
	r.out.Execs[id] = time.Since(r.start)
	r.mu.Unlock()
	select {
	case <-time.After(r.in.ExecFor[id]):
	case <-ctx.Done():
	}
	return nil, nil, nil
}

func (r *klTermRuntime) StopContainer(_ context.Context, id string, timeout int64) error {
	r.mu.Lock()
	i := len(r.out.Stops)
	r.out.Stops = append(r.out.Stops, KLTermStop{ID: id, At: time.Since(r.start), Timeout: timeout})
	r.mu.Unlock()
	var err error
	if r.in.StopFails[id] {
		err = fmt.Errorf("kubeletlogic fake runtime: cannot stop %s", id)
	} else {
		d, ok := r.in.ExitAfter[id]
		if limit := time.Duration(timeout) * time.Second; !ok || d > limit {
			d = limit
		}
		time.Sleep(d + r.in.ReturnAfter)
	}
	r.mu.Lock()
	r.out.Stops[i].Exit, r.out.Stops[i].Failed = time.Since(r.start), err != nil
	r.mu.Unlock()
	return err
}

func (r *klTermRuntime) StopPodSandbox(_ context.Context, id string) error {
	r.mu.Lock()
	r.out.SandboxStops = append(r.out.SandboxStops, KLTermSandboxStop{ID: id, At: time.Since(r.start)})
	r.mu.Unlock()
	return nil
}

// KLTerminationKillPod runs killPodWithSyncResult, in real time, on a fake
// runtime manager of its own (so kills may run concurrently) with the
// package's real lifecycle handler runner: exec hooks go to the fake
// runtime's ExecSync, sleep hooks sleep.
func KLTerminationKillPod(in KLTermKillInput) KLTermKill {
	out := &KLTermKill{Execs: map[string]time.Duration{}}
	rt := &klTermRuntime{FakeRuntimeService: apitest.NewFakeRuntimeService(), in: &in, out: out}
	m, err := kubeletlogicNewManager(rt)
	if err != nil {
		panic(fmt.Sprintf("kubeletlogic adapter: newFakeKubeRuntimeManager: %v", err))
	}
	rp := kubecontainer.ConvertPodStatusToRunningPod(m.Type(), in.Status)
	rt.start = time.Now()
	res := m.killPodWithSyncResult(context.Background(), in.Pod, rp, in.Override)
	out.Returned = time.Since(rt.start)
	for _, r := range res.SyncResults {
		if r.Error != nil {
			out.Errors = append(out.Errors, fmt.Sprintf("%v %v: %s", r.Action, r.Target, r.Message))
		}
	}
	return *out
}
