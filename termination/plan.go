package termination

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Options are the inputs of Plan that are not in the pod or the runtime
// state. The zero value kills with no override, hooks that return at once
// and processes that ignore the stop signal.
type Options struct {
	// Features are the kubelet's gates. No gate of v1.37.2 changes a
	// termination decision. The zero value is kubelet v1.37.2's defaults.
	Features features.Set
	// GracePeriodOverride is the override the kubelet's caller passes to
	// KillPod: the pod worker's effective grace (EffectiveGracePeriod) in
	// SyncTerminatingPod, 1 for an orphaned runtime pod, nil when SyncPod
	// kills the pod (each container then gets ContainerGracePeriod with
	// reason Unknown).
	GracePeriodOverride *int64
	// PreStop is, per container name, how long its preStop hook runs.
	// Containers without a preStop hook in the spec ignore it. A hook not
	// listed runs for as long as the kubelet makes it: a sleep hook for its
	// Seconds (the kubelet itself sleeps), any other hook returns at once.
	// List a sleep hook only to model it ending early (the kubelet cancels
	// it when the kill is cancelled).
	PreStop map[string]time.Duration
	// ExitAfter is, per container name, how long its process takes to exit
	// after the stop signal. A container not listed ignores the signal and
	// is killed when the StopContainer timeout runs out.
	ExitAfter map[string]time.Duration
	// StopFails lists, per container name, the containers whose
	// StopContainer call returns an error (other than NotFound) at once:
	// the kill is reported failed and nothing waiting for it is released.
	StopFails map[string]bool
	// StopReturnAfter is how long a StopContainer call takes to return
	// once the process has ended (the runtime handling the task's exit):
	// killContainer returns, and releases the containers waiting for this
	// one (containerTerminated), when the call returns, not when the
	// process ends. Zero makes them one instant. Captured containerd 1.6
	// calls returned 20-40 ms after the exit on a quiet node and 0.17 to
	// 1.2 s after it on a loaded one.
	StopReturnAfter time.Duration
}

// Timeline is what the kubelet does when it kills a pod
// (killPodWithSyncResult): times are offsets from the start of the kill.
type Timeline struct {
	// Ordered is true when sidecar ordering is in force (the pod has a
	// native sidecar).
	Ordered bool
	// Containers are the kills, one per running instance, in the order the
	// runtime lists them (newest first). The kubelet runs them all at once.
	Containers []ContainerStop
	// SandboxStop is when StopPodSandbox is called (after every container
	// kill has returned); Sandboxes are the sandboxes it stops, in order
	// (every sandbox of the pod, ready or not).
	SandboxStop time.Duration
	Sandboxes   []string
}

// ContainerStop is the kill of one container instance.
type ContainerStop struct {
	Name string
	ID   string
	// Error is set when the kubelet cannot kill the instance: its name is
	// not in the pod spec. Nothing else is then set, nothing waiting for it
	// is released, and the instance keeps running.
	Error string
	// Stop holds the grace arithmetic (StopTimeout).
	Stop Stop
	// PreStopEnd is when the kubelet stopped waiting for the preStop hook
	// (0 when it did not run; the hook itself is not interrupted).
	PreStopEnd time.Duration
	// WaitsFor are the containers it waited for (see Ordering), WaitEnd
	// when its turn came or its grace ran out.
	WaitsFor []string
	WaitEnd  time.Duration
	// StopCall is when StopContainer is called, with Stop.Timeout seconds.
	StopCall time.Duration
	// Exit is when the process ended; Killed is true when it was still
	// running when the timeout ran out (SIGKILL at Exit).
	Exit   time.Duration
	Killed bool
	// Return is when StopContainer returned: Exit plus
	// Options.StopReturnAfter (StopCall when the call failed). Those
	// waiting for this container are released then, and the sandbox is
	// stopped after the last Return.
	Return time.Duration
	// StopFailed is true when StopContainer returned an error
	// (Options.StopFails): the kill is reported failed, Exit is when the
	// call returned (StopCall), the process keeps running and nothing
	// waiting for it is released.
	StopFailed bool
}

// Deadline returns when the instance is killed at the latest: the
// StopContainer call plus its timeout. Zero for a kill that failed.
func (c ContainerStop) Deadline() time.Duration {
	if c.Error != "" || c.StopFailed {
		return 0
	}
	return c.StopCall + time.Duration(c.Stop.Timeout)*time.Second
}

// Plan returns the timeline of the kubelet killing pod: the containers st
// reports running are stopped, then every sandbox of st. It mirrors
// killPodWithSyncResult and killContainersWithSyncResult
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go, kuberuntime_container.go)
// on top of ConvertPodStatusToRunningPod (pkg/kubelet/container/helpers.go):
// only instances in state running are killed, with reason Unknown and
// opts.GracePeriodOverride; each kill (killContainer, see StopTimeout) runs
// its preStop hook, then, when the pod has a native sidecar, waits for its
// turn (NewOrdering), then calls StopContainer. A kill releases the
// containers waiting for it when its process has exited.
//
// A nil pod is an orphaned runtime pod: the kubelet knows only the running
// names (kubecontainer.Pod.ToAPIPod), so no grace period, preStop hook or
// ordering applies; pass a GracePeriodOverride of 1, as
// SyncTerminatingRuntimePod does. A nil st has nothing running.
//
// Plan ignores a name in opts that matches no container, and a PreStop
// for a container without a hook: call opts.Validate(pod, st) first to
// have them reported.
func Plan(pod *v1.Pod, st *runtimestate.Pod, opts Options) Timeline {
	var running []*runtimestate.Container
	var tl Timeline
	if st != nil {
		for i := range st.Containers {
			if st.Containers[i].State == runtimestate.Running {
				running = append(running, &st.Containers[i])
			}
		}
		for _, s := range st.Sandboxes {
			tl.Sandboxes = append(tl.Sandboxes, s.ID)
		}
	}
	if pod == nil {
		pod = &v1.Pod{}
		for _, c := range running {
			pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: c.Name, Image: c.Image})
		}
	}
	names := make([]string, len(running))
	for i, c := range running {
		names[i] = c.Name
	}
	ord := NewOrdering(pod, names, opts.Features)
	tl.Ordered = ord != nil

	// The result is held in out rather than read back from p, so that
	// the bookkeeping of p (its flags and times) does not escape with it
	// and stays on the stack for small pods.
	out := make([]ContainerStop, len(running))
	p := planner{pod: pod, opts: opts, ord: ord, running: running,
		done: make([]bool, len(running)), busy: make([]bool, len(running)),
		out: out}
	if ord != nil {
		p.sigDone = make([]bool, len(ord.Signals))
		p.sigBusy = make([]bool, len(ord.Signals))
		p.sigAt = make([]time.Duration, len(ord.Signals))
	}
	for i := range running {
		p.kill(i)
	}
	tl.Containers = out
	for _, c := range tl.Containers {
		end := c.Return
		if c.Error != "" {
			end = 0
		}
		tl.SandboxStop = max(tl.SandboxStop, end)
	}
	return tl
}

// never stands for a signal that is never given.
const never = time.Duration(-1)

type planner struct {
	pod     *v1.Pod
	opts    Options
	ord     *Ordering
	running []*runtimestate.Container
	out     []ContainerStop
	done    []bool
	busy    []bool
	sigDone []bool
	sigBusy []bool
	sigAt   []time.Duration
}

// signal returns when signal i is given, or never.
func (p *planner) signal(i int) time.Duration {
	if p.sigDone[i] {
		return p.sigAt[i]
	}
	if p.sigBusy[i] {
		// A cycle cannot be built from a pod spec; treat it as never.
		return never
	}
	p.sigBusy[i] = true
	at := never
	if p.ord.Signals[i].Given {
		at = 0
	} else {
		// containerTerminated gives the signal its name currently maps to,
		// the first time an instance of that name has stopped.
		for k, c := range p.running {
			if j, ok := p.ord.SignalOf(c.Name); !ok || j != i {
				continue
			}
			s := p.kill(k)
			if s.Error != "" || s.StopFailed {
				continue
			}
			if at == never || s.Return < at {
				at = s.Return
			}
		}
	}
	p.sigBusy[i], p.sigDone[i], p.sigAt[i] = false, true, at
	return at
}

// kill computes the kill of running instance k.
func (p *planner) kill(k int) ContainerStop {
	if p.done[k] || p.busy[k] {
		return p.out[k]
	}
	p.busy[k] = true
	defer func() { p.busy[k], p.done[k] = false, true }()
	inst := p.running[k]
	cs := ContainerStop{Name: inst.Name, ID: inst.ID}
	spec := specByName(p.pod, inst.Name)
	if spec == nil {
		cs.Error = fmt.Sprintf("no container %q in the pod spec", inst.Name)
		p.out[k] = cs
		return cs
	}
	grace := ContainerGracePeriod(p.pod, spec, vocab.ReasonUnknown, p.opts.Features)
	hasPreStop := spec.Lifecycle != nil && spec.Lifecycle.PreStop != nil
	preStop, listed := p.opts.PreStop[inst.Name]
	if hasPreStop && !listed && spec.Lifecycle.PreStop.Sleep != nil {
		preStop = time.Duration(spec.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	}

	// The preStop hook does not depend on the ordering: compute it first
	// to know when the wait starts.
	pre := StopTimeout(grace, StopOptions{Features: p.opts.Features, GracePeriodOverride: p.opts.GracePeriodOverride, HasPreStop: hasPreStop, PreStop: preStop})
	turn := time.Duration(0)
	if p.ord != nil {
		cs.WaitsFor = p.ord.WaitNames(inst.Name)
		last := time.Duration(0)
		for _, i := range p.ord.WaitsOf(inst.Name) {
			at := p.signal(i)
			if at == never {
				last = never
				break
			}
			last = max(last, at)
		}
		switch {
		case last == never:
			turn = never
		case last > pre.PreStopElapsed:
			turn = last - pre.PreStopElapsed
		}
	}
	cs.Stop = StopTimeout(grace, StopOptions{Features: p.opts.Features, GracePeriodOverride: p.opts.GracePeriodOverride, HasPreStop: hasPreStop, PreStop: preStop, Ordered: p.ord != nil, TurnAfter: turn})
	cs.PreStopEnd = cs.Stop.PreStopElapsed
	cs.WaitEnd = cs.PreStopEnd + cs.Stop.WaitElapsed
	if !cs.Stop.Waited {
		cs.WaitsFor = nil
	}
	cs.StopCall = cs.WaitEnd
	timeout := time.Duration(cs.Stop.Timeout) * time.Second
	if p.opts.StopFails[inst.Name] {
		cs.StopFailed = true
		cs.Exit = cs.StopCall
	} else if exit, ok := p.opts.ExitAfter[inst.Name]; ok && max(exit, 0) < timeout {
		cs.Exit = cs.StopCall + max(exit, 0)
	} else {
		cs.Exit = cs.StopCall + timeout
		cs.Killed = true
	}
	cs.Return = cs.Exit
	if !cs.StopFailed {
		cs.Return += max(p.opts.StopReturnAfter, 0)
	}
	p.out[k] = cs
	return cs
}

// specByName finds a container by name the way GetContainerSpec does: init
// containers, then regular, then ephemeral ones.
func specByName(pod *v1.Pod, name string) *v1.Container {
	if pod == nil {
		return nil
	}
	_, c, _ := restart.KindOf(&pod.Spec, name)
	return c
}

// String renders the timeline one container a line. Times are offsets from
// the start of the kill. "(4s off the grace)" is what the kubelet deducts
// from the grace for the time the preStop hook (or the wait for other
// containers) took, in whole seconds, truncated; the StopContainer timeout
// is what is left, and never less than 2 s.
func (t Timeline) String() string {
	var b strings.Builder
	if t.Ordered {
		b.WriteString("sidecar ordering in force\n")
	}
	for _, c := range t.Containers {
		if c.Error != "" {
			fmt.Fprintf(&b, "%s (%s): not stopped: %s\n", c.Name, c.ID, c.Error)
			continue
		}
		fmt.Fprintf(&b, "%s (%s): grace %ds", c.Name, c.ID, c.Stop.Grace)
		if c.Stop.PreStopRan {
			fmt.Fprintf(&b, "; preStop 0s-%s (%ds off the grace)", fmtDur(c.PreStopEnd), c.Stop.PreStopDeducted)
		}
		if c.Stop.Waited && (len(c.WaitsFor) > 0 || c.Stop.WaitElapsed > 0) {
			fmt.Fprintf(&b, "; waits %s-%s", fmtDur(c.PreStopEnd), fmtDur(c.WaitEnd))
			if len(c.WaitsFor) > 0 {
				fmt.Fprintf(&b, " for %s", strings.Join(c.WaitsFor, ", "))
			}
			fmt.Fprintf(&b, " (%ds off the grace)", c.Stop.WaitDeducted)
		}
		fmt.Fprintf(&b, "; StopContainer (SIGTERM) at %s, timeout %ds; ", fmtDur(c.StopCall), c.Stop.Timeout)
		if c.StopFailed {
			b.WriteString("the call fails, the process keeps running\n")
		} else {
			if c.Killed {
				fmt.Fprintf(&b, "SIGKILL at %s", fmtDur(c.Exit))
			} else {
				fmt.Fprintf(&b, "exits at %s", fmtDur(c.Exit))
			}
			if c.Return > c.Exit {
				fmt.Fprintf(&b, ", the call returns at %s", fmtDur(c.Return))
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "StopPodSandbox at %s", fmtDur(t.SandboxStop))
	if len(t.Sandboxes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(t.Sandboxes, ", "))
	}
	b.WriteString("\n")
	return b.String()
}

func fmtDur(d time.Duration) string {
	return d.String()
}
