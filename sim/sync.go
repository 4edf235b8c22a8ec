package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Memory is what the kubelet remembers about one pod between syncs, outside
// the container runtime: the pod worker's state, the crash-loop back-off
// records, the reason cache, the probe results and the status manager's
// cached status. The zero value is a pod the kubelet has never seen.
type Memory struct {
	// Worker is the pod worker's state (nil: the worker does not know the
	// pod yet).
	Worker *termination.WorkerState `json:"worker,omitempty"`
	// BackOff are the crash-loop back-off records by restart.BackOffKey.
	BackOff map[string]restart.BackOffEntry `json:"backOff,omitempty"`
	// StartFailures is the reason cache: the last failed start by
	// container name.
	StartFailures map[string]vocab.StartFailure `json:"startFailures,omitempty"`
	// Probes are the probe results by container instance ID.
	Probes map[string]vocab.ProbeResults `json:"probes,omitempty"`
	// Status is the status manager's cached status (nil: none yet);
	// Version counts the versions it stored.
	Status  *v1.PodStatus `json:"status,omitempty"`
	Version int           `json:"version,omitempty"`
	// Finished is true once TerminatePod stored the final status
	// (podIsFinished): the status manager may then delete the API object.
	Finished bool `json:"finished,omitempty"`
	// Actuated are the resources the kubelet applied when it started each
	// container and created the sandbox (its actuated-resources
	// checkpoint). Sync reads it as the kubelet does (podactions'
	// Actuated.Exact: a container left out has no resources). An empty
	// record is first filled from the pod: on v1.37 with
	// podactions.InitialActuated, as SyncPod's InitializeActuatedPod does;
	// before v1.37, which has no such step, with what the simulated kubelet
	// records when it creates the sandbox and starts containers, for the
	// sandboxes and containers the runtime state already holds (so a
	// hand-written running pod is not resized; a container never started
	// stays unrecorded, as there).
	Actuated podactions.Actuated `json:"actuated,omitzero"`
}

// clone returns a copy of m that shares no memory with it.
func (m Memory) clone() Memory {
	out := m
	if m.Worker != nil {
		w := *m.Worker
		out.Worker = &w
	}
	out.BackOff = make(map[string]restart.BackOffEntry, len(m.BackOff))
	for k, v := range m.BackOff {
		out.BackOff[k] = v
	}
	out.StartFailures = make(map[string]vocab.StartFailure, len(m.StartFailures))
	for k, v := range m.StartFailures {
		out.StartFailures[k] = v
	}
	out.Probes = make(map[string]vocab.ProbeResults, len(m.Probes))
	for k, v := range m.Probes {
		out.Probes[k] = v
	}
	// Stored statuses are never changed in place (see storeStatus).
	out.Status = m.Status
	out.Actuated.Containers = make(map[string]v1.ResourceRequirements, len(m.Actuated.Containers))
	for k, v := range m.Actuated.Containers {
		out.Actuated.Containers[k] = *v.DeepCopy()
	}
	if m.Actuated.Pod != nil {
		out.Actuated.Pod = m.Actuated.Pod.DeepCopy()
	}
	if m.Actuated.EmptyDirLimits != nil {
		out.Actuated.EmptyDirLimits = map[string]resource.Quantity{}
		for k, v := range m.Actuated.EmptyDirLimits {
			out.Actuated.EmptyDirLimits[k] = v.DeepCopy()
		}
	}
	return out
}

// Kubelet is the node's configuration as the simulated kubelet reads it.
// The zero value is a kubelet v1.37.2 with its default gates and settings.
type Kubelet struct {
	// Features are the kubelet's gates (zero: v1.37.2 defaults); in JSON
	// the Set's text form (features.Set.MarshalText).
	Features features.Set `json:"features,omitzero"`
	// BackOff is the crash-loop back-off configuration.
	BackOff restart.BackOffSettings `json:"backOff,omitzero"`
	// SyncFrequency is --sync-frequency (0: 1 min).
	SyncFrequency Duration `json:"syncFrequency,omitempty"`
	// RelistPeriod is the PLEG relist period (0: 1 s).
	RelistPeriod Duration `json:"relistPeriod,omitempty"`
}

func (k Kubelet) syncFrequency() time.Duration {
	if k.SyncFrequency > 0 {
		return k.SyncFrequency.D()
	}
	return time.Minute
}

func (k Kubelet) relistPeriod() time.Duration {
	if k.RelistPeriod > 0 {
		return k.RelistPeriod.D()
	}
	return time.Second
}

// SyncInput is everything one sync of one pod reads. Sync ignores a key of
// its maps that matches nothing (a probe result keyed by container name
// instead of instance ID, say): call Validate first to have such keys
// reported.
type SyncInput struct {
	// Pod is the pod as the kubelet's pod manager holds it (API defaults
	// applied).
	Pod *v1.Pod
	// Runtime is the pod cache's runtime state, as the last relist read it.
	Runtime *runtimestate.Pod
	// Now is when the sync starts.
	Now time.Time
	// Memory is the kubelet's remembered state for the pod.
	Memory Memory
	// Kubelet is the node's configuration.
	Kubelet Kubelet
	// Grace is the grace period the pod worker passes to
	// SyncTerminatingPod (read only there; 0: the pod's).
	Grace int64
	// Containers tell how the running containers react to being stopped
	// (read only when the sync stops containers), by instance ID.
	Containers map[string]Run
	// Runtime delays.
	Delays RuntimeDelays
	// Logs is, per container name, the highest restart count with a log
	// file in the container's log directory (absent: no log file); the
	// kubelet reads it for a container the runtime reports no instance of.
	Logs map[string]int
	// Created counts, per container name, the instances created so far;
	// the simulated runtime numbers a container's instances with it.
	Created map[string]int
	// Behaviours are what the containers do, by name (Script.Containers):
	// the sync reads them for the instances it creates (how long their
	// postStart hook runs and whether it fails). A container not listed
	// has hooks that return at once and succeed.
	Behaviours map[string]Behaviour
}

// Call is one CRI call the kubelet makes.
type Call struct {
	// At is when the call is made and Done when it returns. Like every
	// time in sim they count from the start of what holds them: in
	// SyncOutput.Calls from the start of the sync (SyncInput.Now), in a
	// Timeline entry from the start of the simulation (Timeline.Start),
	// like Entry.At, which equals the call's At there.
	At   time.Duration `json:"at"`
	Done time.Duration `json:"done"`
	// Method is the CRI method: RunPodSandbox, StopPodSandbox,
	// CreateContainer, StartContainer, StopContainer, RemoveContainer,
	// ExecSync (an exec postStart or preStop hook; exec probes are not
	// listed), UpdateContainerResources (an in-place resize).
	Method string `json:"method"`
	// Name is the container's name (empty for sandbox calls), ID the
	// instance or sandbox the call acts on (for RunPodSandbox and
	// CreateContainer the one it creates), Sandbox the sandbox a container
	// is created in, Attempt the sandbox attempt number.
	Name    string `json:"name,omitempty"`
	ID      string `json:"id,omitempty"`
	Sandbox string `json:"sandbox,omitempty"`
	Attempt uint32 `json:"attempt,omitempty"`
	// Timeout is StopContainer's timeout in seconds.
	Timeout *int64 `json:"timeout,omitempty"`
	// KeepLogs is set on a RemoveContainer that keeps the container's log
	// file (a RestartAllContainers reset).
	KeepLogs bool `json:"keepLogs,omitempty"`
	// Kind says which list of the spec a created container is in: "init",
	// "sidecar", "regular" or "ephemeral".
	Kind string `json:"kind,omitempty"`
	// RestartCount is the restart count the kubelet gives a created
	// container.
	RestartCount int `json:"restartCount,omitempty"`
	// Hash is the hash the kubelet stores on a created container.
	Hash uint64 `json:"hash,omitempty"`
	// PreStop and Waited are, for StopContainer, how long the kubelet
	// waited for the container's preStop hook and then for its turn
	// (native-sidecar ordering) before the call; the call is made at At,
	// so the hook started at At - Waited - PreStop.
	PreStop time.Duration `json:"preStop,omitempty"`
	Waited  time.Duration `json:"waited,omitempty"`
	// ExitCode and Killed are, for StopContainer, how the process ended:
	// the exit code and whether the runtime had to SIGKILL it.
	ExitCode int32 `json:"exitCode,omitempty"`
	Killed   bool  `json:"killed,omitempty"`
	// Hook is, for ExecSync, the lifecycle hook the call runs: "postStart"
	// or "preStop". The call lasts as long as the hook's command (Done -
	// At); HookFailed says the command failed.
	Hook       string `json:"hook,omitempty"`
	HookFailed bool   `json:"hookFailed,omitempty"`
	// Resources are, for UpdateContainerResources, the values the call
	// sets.
	Resources *ContainerResources `json:"resources,omitempty"`
}

func (c Call) String() string {
	var b strings.Builder
	b.WriteString(c.Method)
	switch {
	case c.Method == "RunPodSandbox":
		fmt.Fprintf(&b, " attempt %d -> %s", c.Attempt, c.ID)
	case c.Method == "CreateContainer":
		fmt.Fprintf(&b, " %s (restart %d) -> %s", c.Name, c.RestartCount, c.ID)
	case c.Method == "ExecSync" || c.Method == "UpdateContainerResources":
		fmt.Fprintf(&b, " %s %s%s", c.Name, c.ID, c.detail())
	case c.Name != "":
		fmt.Fprintf(&b, " %s %s", c.Name, c.ID)
	default:
		fmt.Fprintf(&b, " %s", c.ID)
	}
	if c.Timeout != nil {
		fmt.Fprintf(&b, " timeout %ds", *c.Timeout)
		if c.Killed {
			b.WriteString(" (SIGKILL)")
		}
	}
	return b.String()
}

// RequeueKind is how the pod worker schedules the pod's next sync
// (completeWork in pkg/kubelet/pod_workers.go).
type RequeueKind string

// The requeue kinds.
const (
	// RequeueSuccess: after J(syncFrequency), [60 s, 90 s) by default.
	RequeueSuccess RequeueKind = "success"
	// RequeueBackOff: a container is in crash-loop back-off: after
	// J(clamp(until - now, 0, syncFrequency)).
	RequeueBackOff RequeueKind = "back-off"
	// RequeueError: any other error, after J(10 s).
	RequeueError RequeueKind = "error"
	// RequeueNow: the pod moved on (terminating, terminated): the worker
	// replays the last update at once.
	RequeueNow RequeueKind = "now"
	// RequeueNever: the worker is finished with the pod.
	RequeueNever RequeueKind = "never"
)

// SyncOutput is what one sync did and decided.
type SyncOutput struct {
	// Work is the sync function that ran.
	Work termination.WorkType `json:"work"`
	// Calls are the CRI calls, in order, their At and Done offsets from
	// the start of the sync (SyncInput.Now).
	Calls []Call `json:"calls,omitempty"`
	// Statuses are the statuses the sync stored in the status manager, in
	// order, with their offsets from the start of the sync.
	Statuses []StoredStatus `json:"statuses,omitempty"`
	// Decision is computePodActions' answer in words (SyncPod only).
	Decision string `json:"decision,omitempty"`
	// Messages are further decisions in words (back-off waits, start
	// failures, kill outcomes).
	Messages []string `json:"messages,omitempty"`
	// Duration is how long the sync ran.
	Duration time.Duration `json:"duration"`
	// Requeue is how the worker schedules the next sync, and BackOffUntil
	// the earliest back-off end for RequeueBackOff.
	Requeue      RequeueKind `json:"requeue"`
	BackOffUntil time.Time   `json:"backOffUntil,omitzero"`
	// Result is what the worker is told (error, terminal).
	Result termination.SyncResult `json:"result"`
	// ActedOnRuntime is true when the sync made a runtime call (the
	// kubelet then relists the pod at once).
	ActedOnRuntime bool `json:"actedOnRuntime,omitempty"`
	// ResetAll is true when the sync removed containers for
	// RestartAllContainers (the kubelet then syncs the pod again at once).
	ResetAll bool `json:"resetAll,omitempty"`
	// Memory is the kubelet's remembered state after the sync.
	Memory Memory `json:"memory"`
}

// StoredStatus is one status stored in the status manager.
type StoredStatus struct {
	At     time.Duration `json:"at"`
	Status v1.PodStatus  `json:"status"`
	// By is the kubelet function that stored it: SyncPod,
	// SyncTerminatingPod, SyncTerminatedPod, OnPodSandboxReady or
	// TerminatePod (the final, forced version).
	By string `json:"by"`
}

// Sync runs one sync of one pod as the kubelet's pod worker runs it:
// SyncPod, SyncTerminatingPod or SyncTerminatedPod (pkg/kubelet/kubelet.go),
// whichever the worker state in in.Memory calls for. It is pure: it reads
// only its input and returns the CRI calls the kubelet would make, the
// statuses it would store, how the worker requeues the pod and the new
// remembered state. Container starts go through the crash-loop back-off
// (doBackOff), kills through the termination timeline (termination.Plan,
// StopTimeout).
//
// PostStart hooks run after StartContainer and the sync waits for them; a
// failed one kills the container (FailedPostStartHook) and is a start
// failure (PostStartHookError). In-place resizes are UpdateContainerResources
// calls (doPodResizeAction), memory before cpu.
//
// Not modelled: image pulls (instant), volumes, the pod-cgroup side of a
// resize (UpdatePodSandboxResources and the cgroup writes) and its
// failures, and start failures other than back-off and postStart hooks.
func Sync(in SyncInput) SyncOutput {
	in.Delays = in.Delays.orDefault()
	if in.Runtime == nil {
		in.Runtime = &runtimestate.Pod{}
	}
	s := &syncer{in: in, out: SyncOutput{Memory: in.Memory.clone()}}
	if in.Pod == nil {
		s.out.Requeue = RequeueNever
		return s.out
	}
	s.pod = in.Pod
	work := termination.SyncPod
	if in.Memory.Worker != nil {
		work = in.Memory.Worker.WorkType()
	}
	s.out.Work = work
	switch work {
	case termination.SyncPod:
		s.syncPod()
	case termination.TerminatingPod:
		s.syncTerminating()
	case termination.TerminatedPod:
		s.syncTerminated()
	}
	// Every sync takes a little time besides its runtime calls (status
	// generation, volume checks), so the pod relist after one sync never
	// counts as newer than the next.
	s.out.Duration = s.clock + syncOverhead
	return s.out
}

// syncOverhead is the time a sync takes besides its runtime calls.
const syncOverhead = time.Millisecond

type syncer struct {
	in    SyncInput
	pod   *v1.Pod
	out   SyncOutput
	clock time.Duration
}

func (s *syncer) now() time.Time { return s.in.Now.Add(s.clock) }

func (s *syncer) call(c Call, d time.Duration) {
	c.At = s.clock
	s.clock += d
	c.Done = s.clock
	s.out.Calls = append(s.out.Calls, c)
	s.out.ActedOnRuntime = true
}

// generate builds the pod status from the cache, as generateAPIPodStatus.
func (s *syncer) generate(podIsTerminal bool) v1.PodStatus {
	m := &s.out.Memory
	r := podstatus.Compute(s.pod, s.in.Runtime, podstatus.Options{
		Features:      s.in.Kubelet.Features,
		Cached:        m.Status,
		PodIsTerminal: podIsTerminal,
		Now:           s.now(),
		StartFailures: m.StartFailures,
		Probes:        m.Probes,
	})
	return r.Status
}

// store stores a status in the status manager (SetPodStatus); by names
// the kubelet function that does.
//
// It reports whether the status manager took the status: it refuses one
// that takes a container out of a terminated state its restart policy
// keeps it in (storeStatus), and the sync's messages then say so.
func (s *syncer) store(st v1.PodStatus, by string) bool {
	final := by == "TerminatePod"
	m := &s.out.Memory
	st, err := storeStatus(s.pod, m.Status, st, s.now(), s.in.Kubelet.Features)
	if err != nil {
		s.out.Messages = append(s.out.Messages, fmt.Sprintf("%s: status update aborted: %v", by, err))
		return false
	}
	if m.Status != nil && equalStatus(*m.Status, st) && !final {
		return true
	}
	m.Status = &st
	m.Version++
	s.out.Statuses = append(s.out.Statuses, StoredStatus{At: s.clock, Status: st, By: by})
	return true
}

// storeStatus applies what the status manager's updateStatusInternal does
// to a status before storing it: first the check that no container leaves
// a terminated state it must stay in (podstatus.CheckTransition; on an
// error the status is not stored and the cache keeps prev), then the start
// time, kept once set, condition transition times, and times cut to whole
// seconds.
//
// It changes st's nested values in place: callers pass a status they own
// (a fresh one). A stored status is never changed afterwards, so stored
// statuses, Memory.Status and the timeline share them.
func storeStatus(pod *v1.Pod, prev *v1.PodStatus, st v1.PodStatus, now time.Time, f features.Set) (v1.PodStatus, error) {
	old := prev
	if old == nil {
		old = &pod.Status
	}
	if err := podstatus.CheckTransition(&pod.Spec, old, &st, f); err != nil {
		return v1.PodStatus{}, err
	}
	switch {
	case prev != nil && prev.StartTime != nil:
		t := *prev.StartTime
		st.StartTime = &t
	case pod.Status.StartTime != nil:
		t := *pod.Status.StartTime
		st.StartTime = &t
	default:
		t := metav1.NewTime(now)
		st.StartTime = &t
	}
	cmp := prev
	if cmp == nil {
		cmp = &pod.Status
	}
	st.Conditions = conditions.KeepTransitionTimes(st.Conditions, cmp, now)
	return normalizeStatus(st), nil
}

// normalizeStatus cuts every time in st to whole seconds, as the status
// manager's normalizeStatus does.
func normalizeStatus(st v1.PodStatus) v1.PodStatus {
	cut := func(t *metav1.Time) {
		if t != nil && !t.IsZero() {
			*t = metav1.NewTime(t.Truncate(time.Second))
		}
	}
	if st.StartTime != nil {
		cut(st.StartTime)
	}
	for i := range st.Conditions {
		cut(&st.Conditions[i].LastProbeTime)
		cut(&st.Conditions[i].LastTransitionTime)
	}
	for _, l := range [][]v1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
		for i := range l {
			for _, cs := range []*v1.ContainerState{&l[i].State, &l[i].LastTerminationState} {
				if cs.Running != nil {
					cut(&cs.Running.StartedAt)
				}
				if cs.Terminated != nil {
					cut(&cs.Terminated.StartedAt)
					cut(&cs.Terminated.FinishedAt)
				}
			}
		}
	}
	return st
}

func (s *syncer) syncPod() {
	pod, in, m := s.pod, s.in, &s.out.Memory
	f := in.Kubelet.Features

	// The status comes first; a terminal phase ends SyncPod.
	st := s.generate(false)
	stored := s.store(st, "SyncPod")
	if st.Phase == v1.PodSucceeded || st.Phase == v1.PodFailed {
		s.out.Result.Terminal = true
		s.out.Requeue = RequeueNow
		msg := fmt.Sprintf("pod reached phase %s: terminating", st.Phase)
		if !stored {
			// SyncPod reads the phase it generated, stored or not.
			msg = fmt.Sprintf("pod reached phase %s in the status SyncPod generated (not stored): terminating", st.Phase)
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
	// initActuated); the record is then read as the kubelet reads its
	// checkpoint.
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
	if d := acts.String(); d != "" {
		s.out.Decision = d
	}

	if acts.KillPod {
		t := termination.Plan(pod, in.Runtime, termination.Options{
			Features:  f,
			PreStop:   s.preStops(),
			ExitAfter: s.exitAfters(),
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
			s.out.Messages = append(s.out.Messages, fmt.Sprintf("kill %s: %s", k.Name, k.Message))
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
		if pod.Spec.Resources != nil {
			m.Actuated.Pod = pod.Spec.Resources.DeepCopy()
		}
		for _, v := range pod.Spec.Volumes {
			if v.EmptyDir != nil && v.EmptyDir.Medium == v1.StorageMediumMemory && v.EmptyDir.SizeLimit != nil {
				if m.Actuated.EmptyDirLimits == nil {
					m.Actuated.EmptyDirLimits = map[string]resource.Quantity{}
				}
				m.Actuated.EmptyDirLimits[v.Name] = v.EmptyDir.SizeLimit.DeepCopy()
			}
		}
		// OnPodSandboxReady (v1.36 on, D11): PodReadyToStartContainers
		// becomes True in the cached status right away, before any
		// container starts. v1.35 writes it with the status after the sync.
		if m.Status != nil && f.Version().Minor() >= 36 {
			ready := *m.Status.DeepCopy()
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
		key := restart.BackOffKey(pod, c)
		d := cfg.Decide(pod, c, in.Runtime, m.BackOff[key], s.now())
		if !d.Start {
			m.StartFailures[c.Name] = vocab.StartFailure{Reason: d.Reason, Message: d.Message}
			s.out.Messages = append(s.out.Messages, fmt.Sprintf("%s: %s", c.Name, d.Message))
			if backOffUntil.IsZero() || d.Until.Before(backOffUntil) {
				backOffUntil = d.Until
			}
			return false
		}
		if !d.Entry.IsZero() {
			m.BackOff[key] = d.Entry
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
		id := fmt.Sprintf("%s-%s-%d", idPrefix(pod), c.Name, instance)
		created[c.Name]++
		s.call(Call{Method: "CreateContainer", Name: c.Name, ID: id, Sandbox: sandboxID, Kind: kind, RestartCount: restartCount, Hash: hashOf(c)}, in.Delays.CreateContainer.D())
		s.call(Call{Method: "StartContainer", Name: c.Name, ID: id}, in.Delays.StartContainer.D())
		delete(m.StartFailures, c.Name)
		if kind != "ephemeral" {
			m.Actuated.Containers[c.Name] = *c.Resources.DeepCopy()
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

func (s *syncer) syncTerminating() {
	pod, in, m := s.pod, s.in, &s.out.Memory
	st := s.generate(false)
	s.store(st, "SyncTerminatingPod")
	grace := in.Grace
	if grace <= 0 {
		grace, _ = termination.EffectiveGracePeriod(0, pod, nil, in.Kubelet.Features)
	}
	killStart := s.now()
	t := termination.Plan(pod, in.Runtime, termination.Options{
		Features:            in.Kubelet.Features,
		GracePeriodOverride: &grace,
		PreStop:             s.preStops(),
		ExitAfter:           s.exitAfters(),
	})
	s.applyKill(t)
	// Liveness and startup results go with their workers.
	for id, r := range m.Probes {
		r.Liveness, r.Startup = vocab.ProbeNoResult, vocab.ProbeNoResult
		m.Probes[id] = r
	}
	// The kubelet re-reads the runtime: every container has stopped now.
	stopped := stoppedView(in.Runtime, t, killStart, in.Containers)
	s.in.Runtime = stopped
	st = s.generate(true)
	s.store(st, "SyncTerminatingPod")
	s.out.Requeue = RequeueNow
}

func (s *syncer) syncTerminated() {
	m := &s.out.Memory
	st := s.generate(true)
	s.store(st, "SyncTerminatedPod")
	// TerminatePod: the final, forced version.
	final := terminatePod(s.pod, *m.Status)
	// A refused TerminatePod leaves podIsFinished unset.
	m.Finished = s.store(final, "TerminatePod")
	s.out.Requeue = RequeueNever
}

// terminatePod mirrors the status manager's TerminatePod: once the pod
// has initialized (read from the pod's own status, pod.Status, as the
// kubelet reads it), regular containers with no terminated state are
// reported as unknown failures; so are the init containers before the
// last that ever tried to start; and a pod that is not static is given a
// terminal phase (a static pod keeps its phase).
func terminatePod(pod *v1.Pod, st v1.PodStatus) v1.PodStatus {
	st = *st.DeepCopy()
	unknown := func() v1.ContainerState {
		return v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
			Reason:   "ContainerStatusUnknown",
			Message:  "The container could not be located when the pod was terminated",
			ExitCode: 137,
		}}
	}
	if podInitialized(pod) {
		for i := range st.ContainerStatuses {
			if st.ContainerStatuses[i].State.Terminated == nil {
				st.ContainerStatuses[i].State = unknown()
			}
		}
	}
	for i := range initializedPrefix(st.InitContainerStatuses) {
		if st.InitContainerStatuses[i].State.Terminated == nil {
			st.InitContainerStatuses[i].State = unknown()
		}
	}
	if !phase.IsStaticPod(pod) && st.Phase != v1.PodSucceeded && st.Phase != v1.PodFailed {
		st.Phase = v1.PodFailed
	}
	return st
}

// initializedPrefix is the status manager's initializedContainers: the
// statuses up to the last one that left the waiting state (or has a last
// termination); the first alone when none did.
func initializedPrefix(l []v1.ContainerStatus) []v1.ContainerStatus {
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].State.Waiting == nil || l[i].LastTerminationState.Terminated != nil {
			return l[:i+1]
		}
	}
	if len(l) > 0 {
		return l[:1]
	}
	return nil
}

// podInitialized is the status manager's hasPodInitialized, which reads
// the pod's own status (pod.Status): no init containers; or a regular
// container that left the waiting state or has a last termination; or the
// last init container's status shows it done (a sidecar running and
// started, a regular init container that exited 0).
func podInitialized(pod *v1.Pod) bool {
	if len(pod.Spec.InitContainers) == 0 {
		return true
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.LastTerminationState.Terminated != nil || cs.State.Waiting == nil {
			return true
		}
	}
	n := len(pod.Status.InitContainerStatuses)
	if n == 0 || n > len(pod.Spec.InitContainers) {
		return false
	}
	c := &pod.Spec.InitContainers[n-1]
	cs := pod.Status.InitContainerStatuses[n-1]
	if restart.IsSidecar(c) {
		return cs.State.Running != nil && cs.Started != nil && *cs.Started
	}
	for _, t := range []*v1.ContainerStateTerminated{cs.LastTerminationState.Terminated, cs.State.Terminated} {
		if t != nil && t.ExitCode == 0 {
			return true
		}
	}
	return false
}

// applyKill turns a termination timeline into calls and advances the
// sync's clock past it.
func (s *syncer) applyKill(t termination.Timeline) {
	base := s.clock
	type timed struct {
		at time.Duration
		c  Call
	}
	var calls []timed
	end := time.Duration(0)
	hooks := s.preStops()
	for _, k := range t.Containers {
		if k.Error != "" {
			s.out.Messages = append(s.out.Messages, fmt.Sprintf("cannot kill %s: %s", k.Name, k.Error))
			continue
		}
		if k.Stop.PreStopRan {
			if hc, ok := s.preStopExec(containerByName(s.pod, k.Name), k.Name, k.ID, base, hooks[k.Name], base+k.Exit); ok {
				calls = append(calls, timed{0, hc})
			}
		}
		timeout := k.Stop.Timeout
		exit := k.Exit
		code := int32(137)
		if r, ok := s.in.Containers[k.ID]; ok && !k.Killed {
			code = r.TermExitCode
		}
		sc := Call{Method: "StopContainer", Name: k.Name, ID: k.ID, Timeout: &timeout, ExitCode: code, Killed: k.Killed}
		if k.Stop.PreStopRan {
			sc.PreStop = k.Stop.PreStopElapsed
		}
		if k.Stop.Waited {
			sc.Waited = k.Stop.WaitElapsed
		}
		calls = append(calls, timed{k.StopCall, sc})
		calls[len(calls)-1].c.Done = base + exit
		if exit > end {
			end = exit
		}
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].at < calls[j].at })
	for _, c := range calls {
		c.c.At = base + c.at
		s.out.Calls = append(s.out.Calls, c.c)
		s.out.ActedOnRuntime = true
	}
	if t.SandboxStop > end {
		end = t.SandboxStop
	}
	s.clock = base + end
	for _, id := range t.Sandboxes {
		s.call(Call{Method: "StopPodSandbox", ID: id}, s.in.Delays.StopPodSandbox.D())
	}
}

// stopContainer is killContainer for one instance, waited for in SyncPod.
func (s *syncer) stopContainer(name, id string, c *v1.Container, grace int64, override *int64) {
	s.stopInstance(name, id, c, grace, override, s.in.Containers[id], false)
}

// stopInstance is killContainer for one instance that behaves as run;
// exited says its process has already ended (StopContainer then returns at
// once, and an exec or httpGet preStop hook fails at once).
func (s *syncer) stopInstance(name, id string, c *v1.Container, grace int64, override *int64, run Run, exited bool) {
	hasPreStop := c != nil && c.Lifecycle != nil && c.Lifecycle.PreStop != nil
	var preStop time.Duration
	if hasPreStop && (!exited || c.Lifecycle.PreStop.Sleep != nil) {
		preStop = hookDuration(c, run)
	}
	st := termination.StopTimeout(grace, termination.StopOptions{Features: s.in.Kubelet.Features, GracePeriodOverride: override, HasPreStop: hasPreStop, PreStop: preStop})
	hookAt := s.clock
	if st.PreStopRan {
		s.clock += st.PreStopElapsed
	}
	timeout := st.Timeout
	exit, killed := exitAfterSignal(run, timeout)
	code := run.TermExitCode
	if killed {
		code = 137
	}
	if exited {
		exit, killed, code = 0, false, run.ExitCode
	}
	if st.PreStopRan {
		s.preStopCall(c, name, id, hookAt, preStop, s.clock+exit)
	}
	c0 := Call{Method: "StopContainer", Name: name, ID: id, Timeout: &timeout, ExitCode: code, Killed: killed}
	if st.PreStopRan {
		c0.PreStop = st.PreStopElapsed
	}
	s.call(c0, exit)
}

// exitAfterSignal is how long after SIGTERM a process with behaviour r
// ends, given the stop timeout, and whether it had to be killed.
func exitAfterSignal(r Run, timeout int64) (time.Duration, bool) {
	limit := time.Duration(timeout) * time.Second
	if r.IgnoreSIGTERM || r.TermAfter.D() >= limit {
		return limit, true
	}
	return r.TermAfter.D(), false
}

func hookDuration(c *v1.Container, r Run) time.Duration {
	if c.Lifecycle.PreStop.Sleep != nil {
		return time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	}
	return r.PreStop.D()
}

func (s *syncer) preStops() map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, c := range s.in.Runtime.Containers {
		spec := containerByName(s.pod, c.Name)
		if spec == nil || spec.Lifecycle == nil || spec.Lifecycle.PreStop == nil || spec.Lifecycle.PreStop.Sleep != nil {
			continue
		}
		if r, ok := s.in.Containers[c.ID]; ok {
			out[c.Name] = r.PreStop.D()
		}
	}
	return out
}

func (s *syncer) exitAfters() map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, c := range s.in.Runtime.Containers {
		if c.State != runtimestate.Running {
			continue
		}
		r, ok := s.in.Containers[c.ID]
		if !ok {
			out[c.Name] = 0
			continue
		}
		if !r.IgnoreSIGTERM {
			out[c.Name] = r.TermAfter.D()
		}
	}
	return out
}

// stoppedView is the runtime state after a kill: every running or created
// instance has exited and every sandbox is not ready.
func stoppedView(st *runtimestate.Pod, t termination.Timeline, start time.Time, runs map[string]Run) *runtimestate.Pod {
	out := st.DeepCopy()
	exits := map[string]termination.ContainerStop{}
	for _, k := range t.Containers {
		exits[k.ID] = k
	}
	for i := range out.Containers {
		c := &out.Containers[i]
		if c.State != runtimestate.Running && c.State != runtimestate.Created {
			continue
		}
		k, ok := exits[c.ID]
		if !ok || k.Error != "" || k.StopFailed {
			continue
		}
		c.State = runtimestate.Exited
		c.FinishedAt = start.Add(k.Exit)
		c.ExitCode = 137
		if !k.Killed {
			if r, ok := runs[c.ID]; ok {
				c.ExitCode = int(r.TermExitCode)
			}
		}
		c.Reason = exitReason(int32(c.ExitCode))
	}
	for i := range out.Sandboxes {
		out.Sandboxes[i].Ready = false
	}
	return out
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
