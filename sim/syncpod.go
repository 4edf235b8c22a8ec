package sim

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
	v1 "k8s.io/api/core/v1"
)

// SyncPod: what the pod worker runs while the pod should run
// (kubelet.go SyncPod, kuberuntime_manager.go SyncPod).

func (s *syncer) syncPod() {
	pod, in, m := s.pod, s.in, &s.out.Memory
	f := in.Kubelet.Features

	// Whether a resize is in progress, then the status; a terminal phase
	// ends SyncPod. When the inputs are those of the last SyncPod, which
	// stored nothing, the status is not generated again (statusMemo).
	s.resizeProgress()
	ph, stored := s.memo.unchanged(s)
	if !stored {
		st := s.generate(false)
		n := len(s.out.Statuses)
		stored = s.store(st, "SyncPod")
		s.memo.record(s, stored && len(s.out.Statuses) == n, st.Phase)
		ph = st.Phase
	}
	if ph == v1.PodSucceeded || ph == v1.PodFailed {
		s.out.Result.Terminal = true
		s.out.Requeue = RequeueNow
		msg := fmt.Sprintf("pod reached phase %s: terminating", ph)
		if !stored {
			// SyncPod reads the phase it generated, stored or not.
			msg = fmt.Sprintf("pod reached phase %s in the status SyncPod generated (not stored): terminating", ph)
		}
		s.out.Messages = append(s.out.Messages, msg)
		return
	}

	restartAll := false
	if m.Status != nil {
		for _, c := range m.Status.Conditions {
			if c.Type == "AllContainersRestarting" {
				restartAll = c.Status == v1.ConditionTrue
			}
		}
	}
	// An empty actuated record is filled before computePodActions (see
	// initActuated: the pod cgroup's creation at the pod's first SyncPod,
	// then InitializeActuatedPod on v1.37); the record is then read as
	// the kubelet reads its checkpoint.
	if len(m.Actuated.Containers) == 0 && m.Actuated.Pod == nil && len(m.Actuated.EmptyDirLimits) == 0 {
		m.Actuated = initActuated(pod, in.Runtime, f)
	}
	actuated := m.Actuated
	actuated.Exact = true
	acts := podactions.Compute(pod, in.Runtime, podactions.Options{
		Features:             f,
		Probes:               m.Probes,
		RestartAllContainers: restartAll,
		Actuated:             actuated,
	})
	s.out.Decision = s.memo.decision(acts)

	if acts.KillPod {
		t := s.planKill(termination.Options{
			Features: f,
			PreStop:  s.preStops(),
		})
		s.applyKill(t)
		if !acts.CreateSandbox {
			s.out.Requeue = RequeueSuccess
			return
		}
	} else {
		for _, k := range acts.ContainersToKill {
			c := containerByName(pod, k.Name)
			grace := termination.ContainerGracePeriod(pod, c, k.Reason, f)
			s.stopContainer(k.Name, k.ID, c, grace, nil)
			s.out.Messages = append(s.out.Messages, "kill "+k.Name+": "+k.Message)
		}
		if len(acts.ContainersToReset) > 0 {
			zero := int64(0)
			for _, r := range acts.ContainersToReset {
				if r.Kill {
					s.stopContainer(r.Name, r.ID, containerByName(pod, r.Name), 0, &zero)
				}
				// The reset keeps the container's logs from v1.36 on
				// (D12); v1.35 removes them with the container.
				s.call(Call{Method: "RemoveContainer", Name: r.Name, ID: r.ID, KeepLogs: f.Version().Minor() >= 36}, in.Delays.RemoveContainer.D())
			}
			s.out.ResetAll = true
		}
	}

	if acts.KillPod && acts.CreateSandbox {
		s.purgeInit()
	}
	// Only the newest exited instance of each init container is kept.
	s.pruneInit()

	sandboxID := acts.SandboxID
	if acts.CreateSandbox {
		sandboxID = fmt.Sprintf("%s-sandbox-%d", idPrefix(pod), acts.Attempt)
		s.call(Call{Method: "RunPodSandbox", ID: sandboxID, Attempt: acts.Attempt}, in.Delays.RunPodSandbox.D())
		// A new sandbox leaves the actuated pod-level resources and
		// emptyDir limits as they were: the pod cgroup outlives its
		// sandboxes, and the kubelet takes them when it creates that
		// cgroup, at the pod's first SyncPod (initActuated), and after a
		// resize (resize). A pod-level resize allocated before the sandbox
		// died is done at the next sync.
		// OnPodSandboxReady (v1.36 on, D11): PodReadyToStartContainers
		// becomes True in the cached status right away, before any
		// container starts. v1.35 writes it with the status after the sync.
		if m.Status != nil && f.Version().Minor() >= 36 {
			// Only the conditions change: the rest is shared with the
			// cached status when storeStatus writes none of its times
			// (see patchStatus).
			var ready v1.PodStatus
			if normalized(m.Status) {
				ready = *m.Status
				ready.Conditions = slices.Clone(ready.Conditions)
			} else {
				ready = *m.Status.DeepCopy()
			}
			setCondition(&ready, v1.PodCondition{Type: v1.PodReadyToStartContainers, Status: v1.ConditionTrue})
			s.store(ready, "OnPodSandboxReady")
		}
	}

	cfg, err := restart.NewBackOffConfig(f, in.Kubelet.BackOff)
	if err != nil {
		cfg = restart.BackOffConfig{Initial: restart.DefaultInitialBackOff, Max: restart.DefaultMaxBackOff}
	}
	var backOffUntil time.Time
	startFailed := false
	created := map[string]int{}
	start := func(c *v1.Container, kind string) bool {
		key := s.memo.backOffKey(pod, c)
		d := cfg.Decide(pod, c, in.Runtime, m.BackOff[key], s.now())
		if !d.Start {
			m.StartFailures[c.Name] = vocab.StartFailure{Reason: d.Reason, Message: d.Message}
			s.out.Messages = append(s.out.Messages, s.memo.startFailureLine(c.Name, d.Message))
			if backOffUntil.IsZero() || d.Until.Before(backOffUntil) {
				backOffUntil = d.Until
			}
			return false
		}
		if !d.Entry.IsZero() {
			m.BackOff[key] = d.Entry
		}
		if !s.ensureImage(c) {
			startFailed = true
			return false
		}
		// The restart count follows the newest instance; with none, the
		// newest log file of the container's log directory.
		restartCount := 0
		if prev := in.Runtime.Newest(c.Name); prev != nil {
			restartCount = prev.RestartCount + 1
		} else if n, ok := in.Logs[c.Name]; ok {
			restartCount = n + 1
		}
		instance := in.Created[c.Name] + created[c.Name]
		id := idPrefix(pod) + "-" + c.Name + "-" + strconv.Itoa(instance)
		created[c.Name]++
		s.call(Call{Method: "CreateContainer", Name: c.Name, ID: id, Sandbox: sandboxID, Kind: kind, RestartCount: restartCount, Hash: hashOf(c)}, in.Delays.CreateContainer.D())
		s.call(Call{Method: "StartContainer", Name: c.Name, ID: id}, in.Delays.StartContainer.D())
		delete(m.StartFailures, c.Name)
		if kind != "ephemeral" {
			m.Actuated.Containers[c.Name] = withPodLimits(*c.Resources.DeepCopy(), pod.Spec.Resources, f)
		}
		if !s.postStart(c, id, in.Behaviours[c.Name].run(instance)) {
			startFailed = true
			return false
		}
		return true
	}
	// Step 6 of the runtime's SyncPod: in-place resizes, before any start.
	s.resize(acts)
	for _, r := range acts.EphemeralContainersToStart {
		if r.Index < len(pod.Spec.EphemeralContainers) {
			ec := v1.Container(pod.Spec.EphemeralContainers[r.Index].EphemeralContainerCommon)
			start(&ec, "ephemeral")
		}
	}
	for _, r := range acts.InitContainersToStart {
		if r.Index >= len(pod.Spec.InitContainers) {
			continue
		}
		c := &pod.Spec.InitContainers[r.Index]
		kind := "init"
		if restart.IsSidecar(c) {
			kind = "sidecar"
		}
		if !start(c, kind) && kind == "init" {
			break
		}
	}
	for _, r := range acts.ContainersToStart {
		if r.Index < len(pod.Spec.Containers) {
			start(&pod.Spec.Containers[r.Index], "regular")
		}
	}
	if !backOffUntil.IsZero() {
		s.out.Result.Err = true
		s.out.Requeue = RequeueBackOff
		s.out.BackOffUntil = backOffUntil
		return
	}
	if startFailed {
		// A failed postStart hook is an error without a back-off time.
		s.out.Result.Err = true
		s.out.Requeue = RequeueError
		return
	}
	s.out.Requeue = RequeueSuccess
}

func (s *syncer) pruneInit() {
	for _, ic := range s.pod.Spec.InitContainers {
		n := 0
		for _, c := range s.in.Runtime.Containers {
			if c.Name != ic.Name || (c.State != runtimestate.Exited && c.State != runtimestate.Unknown) {
				continue
			}
			n++
			if n > 1 {
				s.call(Call{Method: "RemoveContainer", Name: c.Name, ID: c.ID}, s.in.Delays.RemoveContainer.D())
			}
		}
	}
}

func (s *syncer) purgeInit() {
	for _, ic := range s.pod.Spec.InitContainers {
		for _, c := range s.in.Runtime.Containers {
			if c.Name == ic.Name {
				s.call(Call{Method: "RemoveContainer", Name: c.Name, ID: c.ID}, s.in.Delays.RemoveContainer.D())
			}
		}
	}
}

func setCondition(st *v1.PodStatus, c v1.PodCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			st.Conditions[i].Status = c.Status
			st.Conditions[i].Reason, st.Conditions[i].Message = "", ""
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

func containerByName(pod *v1.Pod, name string) *v1.Container {
	_, c, _ := restart.KindOf(&pod.Spec, name)
	return c
}

// idPrefix starts the IDs the simulated runtime gives a pod's sandboxes
// and containers: the pod's name, with its namespace unless "default".
// Real runtimes use random hex; readable IDs make timelines readable.
func idPrefix(pod *v1.Pod) string {
	if pod.Namespace == "" || pod.Namespace == "default" {
		return pod.Name
	}
	return pod.Namespace + "." + pod.Name
}
