package podactions

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// initContainerActions mirrors computeInitContainerActions
// (pkg/kubelet/kuberuntime/kuberuntime_container.go) and reports whether
// the pod has initialized. Init containers are walked from the last to the
// first, looking only at the active sandbox (v1.37; any sandbox before),
// because completed init containers may have been garbage-collected: the
// newest one that ran tells where initialization stands.
func (c *computer) initContainerActions() bool {
	pod, a := c.pod, &c.a
	inits := pod.Spec.InitContainers
	n := len(inits)
	if n == 0 {
		return true
	}

	// A regular container in the active sandbox means initialization
	// completed there. Before v1.37 the kubelet asked instead whether the
	// newest instance of some regular container, in any sandbox, is
	// created or running, and looked init containers up in any sandbox
	// too (differences D17 and D18 of the version notes).
	newer := c.f.Version().Minor() >= 37
	var initialized bool
	if newer {
		initialized = c.anyActiveRegularContainerStarted()
	} else {
		initialized = c.anyRegularContainerCreatedOrRunning()
	}
	previous := initialized // a later init container has started
	restartOnFailure := pod.Spec.RestartPolicy != v1.RestartPolicyNever

	start := func(i int) { a.InitContainersToStart = appendRef(a.InitContainersToStart, n, Ref{i, inits[i].Name}) }
	for i := n - 1; i >= 0; i-- {
		ctr := &inits[i]
		sidecar := restart.IsSidecar(ctr)
		var cs *runtimestate.Container
		if newer {
			cs = c.st.NewestActive(ctr.Name)
		} else {
			cs = c.st.Newest(ctr.Name)
		}
		if cs == nil {
			// Its instance is gone: a sidecar past it must run again.
			if previous && sidecar {
				start(i)
			}
			continue
		}
		if previous && !sidecar {
			continue
		}

		switch state(cs) {
		case runtimestate.Created:
			// Stuck in created: start it again.
			start(i)

		case runtimestate.Running:
			if !sidecar {
				if c.f.Enabled(features.InPlacePodVerticalScalingInitContainers) {
					c.resizeAction(i, true, cs)
				}
				break
			}
			if ctr.StartupProbe != nil {
				r, ok := c.probe(cs.ID, false)
				if !ok {
					break // wait for the first startup result
				}
				if r != vocab.ProbeSuccess {
					if r == vocab.ProbeFailure {
						c.kill(Kill{ID: cs.ID, Name: ctr.Name, Init: true, Index: i, Cause: CauseStartupProbe,
							Reason: vocab.ReasonStartupProbe, Message: "Init container " + ctr.Name + " failed startup probe"})
						start(i)
					}
					break
				}
			}
			// Started: the next init container may go.
			if i == n-1 {
				initialized = true
			} else if !previous {
				start(i + 1)
			}
			if containerhash.InstanceChanged(ctr, cs) {
				c.kill(Kill{ID: cs.ID, Name: ctr.Name, Init: true, Index: i, Cause: CauseDefinitionChanged,
					Message: "Init container " + ctr.Name + " definition changed"})
				start(i)
				break
			}
			if ctr.LivenessProbe != nil {
				r, ok := c.probe(cs.ID, true)
				if !ok {
					break // wait for the first liveness result
				}
				if r == vocab.ProbeFailure {
					c.kill(Kill{ID: cs.ID, Name: ctr.Name, Init: true, Index: i, Cause: CauseLivenessProbe,
						Reason: vocab.ReasonLivenessProbe, Message: "Init container " + ctr.Name + " failed liveness probe"})
					start(i)
					break
				}
			}
			c.resizeAction(i, true, cs)

		case runtimestate.Exited:
			if sidecar {
				start(i)
				break
			}
			if restart.IsInitContainerFailed(cs) {
				again := restartOnFailure
				if c.f.Enabled(features.ContainerRestartRules) {
					again = restart.ShouldContainerBeRestarted(ctr, pod, c.st, c.f)
				}
				if !again {
					a.KillPod = true
					a.InitContainersToStart = nil
					return false
				}
				start(i)
				break
			}
			if i == n-1 {
				initialized = true
			} else {
				start(i + 1)
			}

		default: // unknown
			if !sidecar {
				// No exit code: only the container's own policy counts,
				// not its rules.
				again := restartOnFailure
				if c.f.Enabled(features.ContainerRestartRules) && ctr.RestartPolicy != nil {
					again = *ctr.RestartPolicy != v1.ContainerRestartPolicyNever
				}
				if !again {
					a.KillPod = true
					a.InitContainersToStart = nil
					return false
				}
			}
			c.kill(Kill{ID: cs.ID, Name: ctr.Name, Init: true, Index: i, Cause: CauseUnknownState, Reason: vocab.ReasonUnknown,
				Message: `Init container is in "unknown" state, try killing it before restart`})
			start(i)
		}
		previous = true
	}

	// No init container has run in this sandbox: begin with the first.
	if !previous {
		start(0)
	}
	s := a.InitContainersToStart
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}

	if newer && !a.UpdatePodLevelResources && !a.UpdatePodResources {
		a.UpdatePodResources = c.startingResized(inits, a.InitContainersToStart)
	}
	return initialized
}
