package podactions

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Compute returns what the kubelet does next for pod, given what the
// runtime reports about it (st), the kubelet's gates f and opts. It mirrors
// computePodActions in pkg/kubelet/kuberuntime/kuberuntime_manager.go of
// kubelet v1.37.2, together with what it decides through:
// PodSandboxChanged (SandboxChanged here), getContainersToReset,
// computeInitContainerActions (kuberuntime_container.go),
// computePodResizeAction, startingResizedContainer,
// computePodLevelResourcesResizeAction and computeVolumeResizeAction.
//
// pod is the allocated pod: the kubelet substitutes the resources it has
// admitted before it calls computePodActions.
//
// st lists sandboxes and instances newest first, as the kubelet sorts them:
// Compute does not check it (runtimestate.Validate does; FromYAML calls it;
// Normalize sorts a Pod that gives creation times). With the zero Options
// the resources are taken as actuated as the spec has them (see Actuated).
//
// A nil pod gives the zero Actions. A nil st is a runtime that reports no
// sandbox and no container of the pod. Compute only reads its arguments.
//
// Compute ignores a key of opts that matches nothing (a probe result keyed
// by container name instead of instance ID, say): call
// opts.Validate(pod, st) first to have such keys reported.
func Compute(pod *v1.Pod, st *runtimestate.Pod, opts Options) Actions {
	if pod == nil {
		return Actions{}
	}
	c := computer{pod: pod, st: st, f: opts.Features, opts: opts}
	c.compute()
	return c.a
}

type computer struct {
	pod  *v1.Pod
	st   *runtimestate.Pod
	f    features.Set
	opts Options
	a    Actions
}

// state reads an instance's state as the kubelet does: anything that is
// not created, running or exited is unknown.
func state(c *runtimestate.Container) runtimestate.State {
	switch c.State {
	case runtimestate.Created, runtimestate.Running, runtimestate.Exited:
		return c.State
	}
	return runtimestate.Unknown
}

// probe returns the result of kind liveness (or startup) for instance id
// and whether there is one.
func (c *computer) probe(id string, liveness bool) (vocab.ProbeResult, bool) {
	p, ok := c.opts.Probes[id]
	if !ok {
		return vocab.ProbeNoResult, false
	}
	r := p.Startup
	if liveness {
		r = p.Liveness
	}
	switch r {
	case vocab.ProbeNoResult:
		return vocab.ProbeNoResult, false
	case vocab.ProbeSuccess, vocab.ProbeFailure:
		return r, true
	}
	return vocab.ProbeUnknown, true
}

func (c *computer) compute() {
	pod, a := c.pod, &c.a
	sb := runtimestate.SandboxChanged(pod, c.st)
	a.KillPod, a.CreateSandbox = sb.Changed, sb.Changed
	a.SandboxID, a.Attempt, a.SandboxMessage = sb.SandboxID, sb.Attempt, sb.Message

	// The pod is marked to restart all its containers: remove every
	// instance, those that triggered it last, and decide nothing else.
	if c.f.Enabled(features.RestartAllContainersOnContainerExits) && c.opts.RestartAllContainers {
		a.ContainersToReset = c.containersToReset()
		return
	}

	if sb.Changed {
		c.sandboxPath(sb)
		return
	}

	// Ephemeral containers that never ran start even before
	// initialization completes; they are never restarted.
	for i := range pod.Spec.EphemeralContainers {
		name := pod.Spec.EphemeralContainers[i].Name
		if c.st.Newest(name) == nil {
			a.EphemeralContainersToStart = appendRef(a.EphemeralContainersToStart, len(pod.Spec.EphemeralContainers), Ref{i, name})
		}
	}

	if initialized := c.initContainerActions(); a.KillPod || !initialized {
		return
	}

	keep := 0
	for idx := range pod.Spec.Containers {
		ctr := &pod.Spec.Containers[idx]
		cs := c.st.Newest(ctr.Name)
		if cs == nil || state(cs) != runtimestate.Running {
			if restart.ShouldContainerBeRestarted(ctr, pod, c.st, c.f) {
				a.ContainersToStart = appendRef(a.ContainersToStart, len(pod.Spec.Containers), Ref{idx, ctr.Name})
				if cs != nil && state(cs) == runtimestate.Unknown {
					c.kill(Kill{ID: cs.ID, Name: cs.Name, Index: idx, Cause: CauseUnknownState, Reason: vocab.ReasonUnknown,
						Message: `Container is in "unknown" state, try killing it before restart`})
				}
			}
			continue
		}

		// Running. A probe failure restarts by the pod's policy, or by the
		// container's own policy (its rules need an exit code, so they are
		// not read); a definition change always restarts.
		restarts := pod.Spec.RestartPolicy != v1.RestartPolicyNever
		if c.f.Enabled(features.ContainerRestartRules) && ctr.RestartPolicy != nil {
			restarts = *ctr.RestartPolicy != v1.ContainerRestartPolicyNever
		}
		k := Kill{ID: cs.ID, Name: cs.Name, Index: idx}
		var what string // the message after the container's name
		if containerhash.InstanceChanged(ctr, cs) {
			k.Cause, what = CauseDefinitionChanged, " definition changed"
			restarts = true
		} else if r, ok := c.probe(cs.ID, true); ok && r == vocab.ProbeFailure {
			k.Cause, k.Reason, what = CauseLivenessProbe, vocab.ReasonLivenessProbe, " failed liveness probe"
		} else if r, ok := c.probe(cs.ID, false); ok && r == vocab.ProbeFailure {
			k.Cause, k.Reason, what = CauseStartupProbe, vocab.ReasonStartupProbe, " failed startup probe"
		} else if !c.resizeAction(idx, false, cs) {
			continue
		} else {
			keep++
			continue
		}
		// The message in one piece (one allocation).
		suffix := ""
		if restarts {
			suffix = ", will be restarted"
			a.ContainersToStart = appendRef(a.ContainersToStart, len(pod.Spec.Containers), Ref{idx, ctr.Name})
		}
		k.Message = "Container " + ctr.Name + what + suffix
		c.kill(k)
	}

	c.volumeResizeAction()

	// Nothing runs and nothing starts: stop the pod, and do not let
	// sidecars keep it alive.
	if keep == 0 && len(a.ContainersToStart) == 0 {
		a.KillPod = true
		a.InitContainersToStart = nil
	}

	a.UpdatePodLevelResources = c.podLevelResizeAction()
	// Before v1.37 a resize made while a container was down did not mark
	// the pod cgroup for resize when it starts again (difference D19).
	if c.f.Version().Minor() >= 37 && !a.UpdatePodLevelResources && !a.UpdatePodResources {
		a.UpdatePodResources = c.startingResized(pod.Spec.Containers, a.ContainersToStart)
	}
}

// sandboxPath decides what follows a sandbox (re)creation: everything
// starts from scratch, unless the pod should not run again.
func (c *computer) sandboxPath(sb runtimestate.SandboxCheck) {
	pod, a := c.pod, &c.a
	// A pod that must not restart and has run containers is only torn
	// down. Attempt is 0 only when there was no sandbox at all.
	if pod.Spec.RestartPolicy == v1.RestartPolicyNever && sb.Attempt != 0 && c.st != nil && len(c.st.Containers) != 0 {
		a.CreateSandbox = false
		return
	}

	// With init containers the regular containers to start are not kept:
	// whether there is one is enough.
	hasInit := len(pod.Spec.InitContainers) != 0
	var toStart []Ref
	anyToStart := false
	for idx := range pod.Spec.Containers {
		ctr := &pod.Spec.Containers[idx]
		runOnce := pod.Spec.RestartPolicy == v1.RestartPolicyOnFailure
		if c.f.Enabled(features.ContainerRestartRules) && ctr.RestartPolicy != nil {
			runOnce = *ctr.RestartPolicy == v1.ContainerRestartPolicyOnFailure
		}
		if runOnce && c.succeeded(ctr) {
			continue
		}
		anyToStart = true
		if hasInit {
			break
		}
		toStart = appendRef(toStart, len(pod.Spec.Containers), Ref{idx, ctr.Name})
	}

	// Initialization is done and nothing is left to run: no new sandbox.
	if !anyToStart && c.anyRegularContainerCreated() {
		a.CreateSandbox = false
		return
	}
	if hasInit {
		a.InitContainersToStart = []Ref{{0, pod.Spec.InitContainers[0].Name}}
		return
	}
	a.ContainersToStart = toStart
}

// succeeded mirrors containerSucceeded: the newest instance exited 0.
func (c *computer) succeeded(ctr *v1.Container) bool {
	cs := c.st.Newest(ctr.Name)
	return cs != nil && state(cs) == runtimestate.Exited && cs.ExitCode == 0
}

// anyRegularContainerCreated mirrors HasAnyRegularContainerCreated
// (kuberuntime_container.go): the newest instance of some regular
// container was created, is running or exited.
func (c *computer) anyRegularContainerCreated() bool {
	for i := range c.pod.Spec.Containers {
		cs := c.st.Newest(c.pod.Spec.Containers[i].Name)
		if cs != nil && state(cs) != runtimestate.Unknown {
			return true
		}
	}
	return false
}

// anyRegularContainerCreatedOrRunning is the initialization test of
// computeInitContainerActions before v1.37: the newest instance of some
// regular container, in any sandbox, is created or running (an exited one
// may be left over from a sandbox that no longer runs).
func (c *computer) anyRegularContainerCreatedOrRunning() bool {
	for i := range c.pod.Spec.Containers {
		cs := c.st.Newest(c.pod.Spec.Containers[i].Name)
		if cs == nil {
			continue
		}
		if s := state(cs); s == runtimestate.Created || s == runtimestate.Running {
			return true
		}
	}
	return false
}

// anyActiveRegularContainerStarted mirrors
// HasAnyActiveRegularContainerStarted (pkg/kubelet/container/helpers.go):
// the active sandbox holds an instance of a regular container, in any
// state.
func (c *computer) anyActiveRegularContainerStarted() bool {
	s := c.st.ActiveSandbox()
	if s == nil {
		return false
	}
	for i := range c.st.Containers {
		in := &c.st.Containers[i]
		if in.SandboxID != s.ID {
			continue
		}
		for j := range c.pod.Spec.Containers {
			if c.pod.Spec.Containers[j].Name == in.Name {
				return true
			}
		}
	}
	return false
}

// kill records k. The kubelet keys kills by instance ID, so a second kill
// of the same instance replaces the first.
func (c *computer) kill(k Kill) {
	for i := range c.a.ContainersToKill {
		if c.a.ContainersToKill[i].ID == k.ID {
			c.a.ContainersToKill[i] = k
			return
		}
	}
	if c.a.ContainersToKill == nil {
		c.a.ContainersToKill = make([]Kill, 0, 2)
	}
	c.a.ContainersToKill = append(c.a.ContainersToKill, k)
}

// appendRef appends r to s, making room for n refs at the first append.
func appendRef(s []Ref, n int, r Ref) []Ref {
	if s == nil {
		s = make([]Ref, 0, n)
	}
	return append(s, r)
}

// containersToReset mirrors getContainersToReset, called for the init
// containers and for the regular containers: every instance of every
// container of a list, in spec order then newest first; an exited one whose
// exit code matches a RestartAllContainers rule is a source, any other a
// target, killed first unless it exited. It returns the lists in the order
// computePodActions joins them: regular targets, init targets, regular
// sources, init sources.
func (c *computer) containersToReset() []Reset {
	if c.st == nil {
		return nil
	}
	spec := &c.pod.Spec
	// Group of an instance: 0 regular target, 1 init target, 2 regular
	// source, 3 init source. Count the groups, then place each instance.
	var count [4]int
	c.eachReset(spec, func(g int, _ Reset) { count[g]++ })
	n := count[0] + count[1] + count[2] + count[3]
	if n == 0 {
		return nil
	}
	out := make([]Reset, n)
	next := [4]int{0, count[0], count[0] + count[1], count[0] + count[1] + count[2]}
	c.eachReset(spec, func(g int, r Reset) {
		out[next[g]] = r
		next[g]++
	})
	return out
}

// eachReset calls fn for every instance of every init container, then of
// every regular container, in spec order then newest first, with its group
// (see containersToReset).
func (c *computer) eachReset(spec *v1.PodSpec, fn func(group int, r Reset)) {
	for _, init := range [2]bool{true, false} {
		list := spec.Containers
		if init {
			list = spec.InitContainers
		}
		for idx := range list {
			ctr := &list[idx]
			for i := range c.st.Containers {
				cs := &c.st.Containers[i]
				if cs.Name != ctr.Name {
					continue
				}
				r := Reset{ID: cs.ID, Name: ctr.Name, Init: init, Index: idx}
				if state(cs) == runtimestate.Exited {
					rule, ok := restart.MatchRule(ctr, int32(cs.ExitCode))
					r.Source = ok && rule.Action == v1.ContainerRestartRuleActionRestartAllContainers
				} else {
					r.Kill = true
				}
				g := 0
				if r.Source {
					g = 2
				}
				if init {
					g++
				}
				fn(g, r)
			}
		}
	}
}
