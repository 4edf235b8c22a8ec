package podstatus

import (
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// kubeletRestartGrace is how long before the probe manager's start a
// container must have started to count as one that ran before a kubelet
// restart (kubeletRestartGracePeriod in prober_manager.go).
const kubeletRestartGrace = 10 * time.Second

// prober stands for the kubelet's probe manager with the inputs of
// Options.
type prober struct {
	pod         *v1.Pod
	opts        *Options
	runtimeType string
}

// result returns the result of one kind for the instance a container
// status names. The kubelet keys results by the container ID as
// ContainerID.ParseString parses it (quotes trimmed, split at "://" into
// type and ID); a ContainerID it cannot parse, or of another runtime type,
// has none.
func (p *prober) result(containerID string, kind func(vocab.ProbeResults) vocab.ProbeResult) (vocab.ProbeResult, bool) {
	// strings.Split into exactly two parts, without the slice.
	typ, id, ok := strings.Cut(strings.Trim(containerID, `"`), "://")
	if !ok || strings.Contains(id, "://") || typ != p.runtimeType {
		return vocab.ProbeNoResult, false
	}
	pr, ok := p.opts.Probes[id]
	if !ok || kind(pr) == vocab.ProbeNoResult {
		return vocab.ProbeNoResult, false
	}
	return kind(pr), true
}

func readiness(p vocab.ProbeResults) vocab.ProbeResult { return p.Readiness }
func startup(p vocab.ProbeResults) vocab.ProbeResult   { return p.Startup }

// worker reports whether the probe manager has a worker of one kind for the
// container named name.
func (p *prober) worker(name string, kind func(ProbeWorkers) bool) bool {
	if p.opts.ProbeWorkers != nil {
		return kind(p.opts.ProbeWorkers[name])
	}
	// AddPod: regular containers, then sidecars.
	for i := range p.pod.Spec.Containers {
		if c := &p.pod.Spec.Containers[i]; c.Name == name {
			return kind(specWorkers(c))
		}
	}
	for i := range p.pod.Spec.InitContainers {
		if c := &p.pod.Spec.InitContainers[i]; c.Name == name && restart.IsSidecar(c) {
			return kind(specWorkers(c))
		}
	}
	return false
}

func specWorkers(c *v1.Container) ProbeWorkers {
	return ProbeWorkers{Readiness: c.ReadinessProbe != nil, Startup: c.StartupProbe != nil}
}

func readinessWorker(w ProbeWorkers) bool { return w.Readiness }
func startupWorker(w ProbeWorkers) bool   { return w.Startup }

// isContainerStarted mirrors the probe manager's isContainerStarted: not
// running is not started; a startup result decides; otherwise (gate
// ChangeContainerStatusOnKubeletRestart off) a previous Started=true keeps
// it started; otherwise a startup worker that has not reported means not
// started; no startup probe means started.
func (p *prober) isContainerStarted(cs *v1.ContainerStatus) bool {
	if cs.State.Running == nil {
		return false
	}
	if r, ok := p.result(cs.ContainerID, startup); ok {
		return r == vocab.ProbeSuccess
	}
	if !p.opts.Features.Enabled(features.ChangeContainerStatusOnKubeletRestart) && cs.Started != nil && *cs.Started {
		return true
	}
	return !p.worker(cs.Name, startupWorker)
}

// ready mirrors the readiness part of UpdatePodStatus for a started
// container (regular or sidecar) with spec c (nil when the spec has no
// regular container of that name).
func (p *prober) ready(cs *v1.ContainerStatus, c *v1.Container) bool {
	if cs.State.Running == nil {
		return false
	}
	if r, ok := p.result(cs.ContainerID, readiness); ok && r == vocab.ProbeSuccess {
		return true
	}
	ready := !p.worker(cs.Name, readinessWorker)
	if !p.opts.Features.Enabled(features.ChangeContainerStatusOnKubeletRestart) && c != nil {
		p.readyOnKubeletRestart(&ready, cs, c)
	}
	return ready
}

// readyOnKubeletRestart mirrors setReadyStateOnKubeletRestart: a container
// running since more than 10 s before the probe manager started is ready
// while no readiness result is recorded, but not when it has a readiness
// probe and the pod's API status does not say Ready=True.
func (p *prober) readyOnKubeletRestart(ready *bool, cs *v1.ContainerStatus, c *v1.Container) {
	var started time.Time
	if cs.State.Running != nil {
		started = cs.State.Running.StartedAt.Time
	}
	if started.IsZero() || !started.Before(p.opts.ProberStart.Add(-kubeletRestartGrace)) {
		return
	}
	if !*ready {
		if _, ok := p.result(cs.ContainerID, readiness); !ok {
			*ready = true
		}
	}
	if c.ReadinessProbe != nil {
		podReady := false
		for i := range p.pod.Status.Conditions {
			if cond := &p.pod.Status.Conditions[i]; cond.Type == v1.PodReady && cond.Status == v1.ConditionTrue {
				podReady = true
				break
			}
		}
		if !podReady {
			*ready = false
		}
	}
}

// updatePodStatus mirrors the probe manager's UpdatePodStatus
// (pkg/kubelet/prober/prober_manager.go): every regular and init container
// status gets Started; a started regular container or sidecar gets Ready
// from its readiness result or worker; a regular init container that
// terminated with exit code 0 gets Ready=true, any other keeps its Ready.
// An init status whose position does not match the spec's is left with
// Started only.
func (p *prober) updatePodStatus(s *v1.PodStatus, room []bool) {
	// Every status gets a Started of its own; they are allocated together
	// (or are in room, when it has room for them: an argument rather than
	// a field of p, which would take p's options to the heap).
	flags := room
	if n := len(s.ContainerStatuses) + len(s.InitContainerStatuses); n <= len(flags) {
		flags = flags[:n:n]
	} else {
		flags = make([]bool, n)
	}
	for i := range s.ContainerStatuses {
		cs := &s.ContainerStatuses[i]
		started := p.isContainerStarted(cs)
		flags[i] = started
		cs.Started = &flags[i]
		if !started {
			continue
		}
		var spec *v1.Container
		for j := range p.pod.Spec.Containers {
			if p.pod.Spec.Containers[j].Name == cs.Name {
				spec = &p.pod.Spec.Containers[j]
				break
			}
		}
		cs.Ready = p.ready(cs, spec)
	}
	for i := range s.InitContainerStatuses {
		cs := &s.InitContainerStatuses[i]
		started := p.isContainerStarted(cs)
		k := len(s.ContainerStatuses) + i
		flags[k] = started
		cs.Started = &flags[k]
		inits := p.pod.Spec.InitContainers
		if i >= len(inits) || inits[i].Name != cs.Name {
			continue
		}
		c := &inits[i]
		if !restart.IsSidecar(c) {
			if cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0 {
				cs.Ready = true
			}
			continue
		}
		if !started {
			continue
		}
		cs.Ready = p.ready(cs, c)
	}
}
