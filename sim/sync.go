package sim

import (
	"fmt"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/features"
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
	// container, created the pod cgroup (the pod-level resources, at the
	// pod's first SyncPod, not at each sandbox) and resized (its
	// actuated-resources checkpoint). Sync reads it as the kubelet does
	// (podactions' Actuated.Exact: a container left out has no resources).
	// An empty record is first filled from the pod (see initActuated): the
	// pod-level resources the pod cgroup's creation records, then on v1.37
	// podactions.InitialActuated when that wrote nothing, as SyncPod's
	// InitializeActuatedPod does; a pod the runtime shows running already
	// gets what the simulated kubelet would have recorded as it went (so a
	// hand-written running pod is not resized; before v1.37 a container
	// never started stays unrecorded, as there).
	Actuated podactions.Actuated `json:"actuated,omitzero"`
	// ImagePulls are the image manager's records of the pod's image
	// pulls (the image back-off), by "<pod UID>_<image>".
	ImagePulls map[string]ImagePullRecord `json:"imagePulls,omitempty"`
	// Resize are the PodResizePending and PodResizeInProgress conditions
	// the status manager holds (see ResizeConditions).
	Resize ResizeConditions `json:"resize,omitzero"`
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
	if m.ImagePulls != nil {
		out.ImagePulls = make(map[string]ImagePullRecord, len(m.ImagePulls))
		for k, v := range m.ImagePulls {
			out.ImagePulls[k] = v
		}
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

// handOver is m ready for runSync to change in place, for a caller that
// takes the output's Memory as its own afterwards: its maps made, the
// probe results copied when SyncTerminatingPod will change them (the
// node's probe workers read them while the sync's calls play out); the back-off
// records, the reason cache and the actuated resources are shared, as
// nothing else reads them until the sync completes; so is the worker state,
// which the sync does not change (the pod worker replaces it, never
// changes it in place).
func (m Memory) handOver() Memory {
	out := m
	if out.BackOff == nil {
		out.BackOff = map[string]restart.BackOffEntry{}
	}
	if out.StartFailures == nil {
		out.StartFailures = map[string]vocab.StartFailure{}
	}
	// Only SyncTerminatingPod changes probe results (those it holds).
	if m.Worker != nil && m.Worker.WorkType() == termination.TerminatingPod && len(m.Probes) > 0 {
		out.Probes = make(map[string]vocab.ProbeResults, len(m.Probes))
		for k, v := range m.Probes {
			out.Probes[k] = v
		}
	}
	if out.Actuated.Containers == nil {
		out.Actuated.Containers = map[string]v1.ResourceRequirements{}
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
	// Images are how the images behave (Script.Images), and ImagePulls
	// the pulls of each image made so far (the simulated runtime counts
	// them): the sync reads them for the images it needs (see Image).
	Images     map[string]Image
	ImagePulls map[string]int
	// Eviction is the status function of an eviction the pod worker
	// holds (read only by SyncTerminatingPod); nil: none.
	Eviction *Eviction
	// VolumesUnmounted is when the volume manager has unmounted the pod's
	// volumes (read only by SyncTerminatedPod, which waits for it); zero:
	// the pod has no mounted volume.
	VolumesUnmounted time.Time
}

// Call is one CRI call the kubelet makes.
type Call struct {
	// At is when the call is made and Done when it returns. Like every
	// time in sim they count from the start of what holds them: in
	// SyncOutput.Calls from the start of the sync (SyncInput.Now), in a
	// Timeline entry from the start of the simulation (Timeline.Start),
	// like Entry.At, which equals the call's At there. On a node whose
	// pods share the runtime (Config.RuntimeContention) a call in flight
	// returns later when other calls start: the entry, logged when the
	// call is made, holds its Call by pointer, which shows the final Done
	// once the call has returned (a Report or Observe that saw the entry
	// earlier saw the Done expected then).
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
	// AfterExit is, for StopContainer, how long the call took to return
	// once the process had ended (RuntimeDelays.StopContainer): the
	// process ended at Done - AfterExit.
	AfterExit time.Duration `json:"afterExit,omitempty"`
	// Error is set on a call the runtime refused when it was made: a
	// CreateContainer in a sandbox the container GC has removed.
	Error string `json:"error,omitempty"`
	// Hook is, for ExecSync, the lifecycle hook the call runs: "postStart"
	// or "preStop". The call lasts as long as the hook's command (Done -
	// At); HookFailed says the command failed.
	Hook       string `json:"hook,omitempty"`
	HookFailed bool   `json:"hookFailed,omitempty"`
	// Resources are, for UpdateContainerResources, the values the call
	// sets.
	Resources *ContainerResources `json:"resources,omitempty"`
	// Image is, for PullImage, the image pulled (for the container Name),
	// and PullFailed says the pull failed.
	Image      string `json:"image,omitempty"`
	PullFailed bool   `json:"pullFailed,omitempty"`
}

func (c Call) String() string { return c.text("") }

// text is String followed by suffix. Built by hand, not with fmt: a line
// per call is written on every sync. The line is built on the stack; only
// the string is allocated.
func (c Call) text(suffix string) string {
	var num [20]byte
	var buf [160]byte
	b := buf[:0]
	b = append(b, c.Method...)
	switch {
	case c.Method == "RunPodSandbox":
		b = append(b, " attempt "...)
		b = append(b, strconv.AppendUint(num[:0], uint64(c.Attempt), 10)...)
		b = append(b, " -> "...)
		b = append(b, c.ID...)
	case c.Method == "CreateContainer":
		b = append(b, ' ')
		b = append(b, c.Name...)
		b = append(b, " (restart "...)
		b = append(b, strconv.AppendInt(num[:0], int64(c.RestartCount), 10)...)
		b = append(b, ") -> "...)
		b = append(b, c.ID...)
	case c.Method == "PullImage":
		b = append(b, pullText(c)...)
	case c.Method == "ExecSync" || c.Method == "UpdateContainerResources":
		b = append(b, ' ')
		b = append(b, c.Name...)
		b = append(b, ' ')
		b = append(b, c.ID...)
		b = append(b, c.detail()...)
	case c.Name != "":
		b = append(b, ' ')
		b = append(b, c.Name...)
		b = append(b, ' ')
		b = append(b, c.ID...)
	default:
		b = append(b, ' ')
		b = append(b, c.ID...)
	}
	if c.Timeout != nil {
		b = append(b, " timeout "...)
		b = append(b, strconv.AppendInt(num[:0], *c.Timeout, 10)...)
		b = append(b, 's')
		if c.Killed {
			b = append(b, " (SIGKILL)"...)
		}
	}
	b = append(b, suffix...)
	return string(b)
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
	// Reinspect is true when the sync resized the pod in place
	// (doPodResizeAction): the kubelet asks the PLEG to inspect the pod
	// again at its next relist, which then syncs it (PodSync).
	Reinspect bool `json:"reinspect,omitempty"`
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
// Image pulls follow SyncInput.Images (see Image). Not modelled: volumes, the pod-cgroup side of a
// resize (UpdatePodSandboxResources and the cgroup writes) and its
// failures, and start failures other than back-off and postStart hooks.
func Sync(in SyncInput) SyncOutput { return runSync(in, in.Memory.clone(), nil) }

// runSync is Sync starting from m, which it changes in place: Sync passes a
// clone of in.Memory, the node its own memory made ready by handOver, and
// the pod's statusMemo (nil: none).
func runSync(in SyncInput, m Memory, memo *statusMemo) SyncOutput {
	in.Delays = in.Delays.orDefault()
	if in.Runtime == nil {
		in.Runtime = &runtimestate.Pod{}
	}
	s := &syncer{in: in, out: SyncOutput{Memory: m}, memo: memo}
	if in.Pod == nil {
		s.out.Requeue = RequeueNever
		return s.out
	}
	s.pod = in.Pod
	if memo != nil {
		// The call and message lists of a sync that has played out, to
		// append to; kept for the next sync when this one adds nothing.
		s.out.Calls, memo.spareCalls = memo.spareCalls, nil
		s.out.Messages, memo.spareMessages = memo.spareMessages, nil
	}
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
	if memo != nil && len(s.out.Calls) == 0 {
		memo.spareCalls, s.out.Calls = s.out.Calls, nil
	}
	if memo != nil && len(s.out.Messages) == 0 {
		memo.spareMessages, s.out.Messages = s.out.Messages, nil
	}
	return s.out
}

// syncOverhead is the time a sync takes besides its runtime calls.
const syncOverhead = time.Millisecond

type syncer struct {
	in    SyncInput
	pod   *v1.Pod
	out   SyncOutput
	clock time.Duration
	// pulled counts the sync's own pulls per image.
	pulled map[string]int
	// memo is the pod's record of SyncPod's last status generation, or nil.
	memo *statusMemo
}

func (s *syncer) now() time.Time { return s.in.Now.Add(s.clock) }

// Ended is, for StopContainer, when the process ended: Done - AfterExit.
func (c Call) Ended() time.Duration { return c.Done - c.AfterExit }

func (s *syncer) call(c Call, d time.Duration) {
	c.At = s.clock
	s.clock += d
	c.Done = s.clock
	s.out.Calls = append(s.out.Calls, c)
	s.out.ActedOnRuntime = true
}

// generate builds the pod status from the cache, as generateAPIPodStatus.
// The resize conditions are the status manager's (determinePodResizeStatus):
// a terminal pod clears them.
func (s *syncer) generate(podIsTerminal bool) v1.PodStatus {
	m := &s.out.Memory
	if podIsTerminal {
		m.Resize = ResizeConditions{}
	}
	r := podstatus.Compute(s.pod, s.in.Runtime, podstatus.Options{
		Features:         s.in.Kubelet.Features,
		Cached:           m.Status,
		PodIsTerminal:    podIsTerminal,
		Now:              s.now(),
		StartFailures:    m.StartFailures,
		Probes:           m.Probes,
		ResizeConditions: m.Resize.list(),
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
	s.out.Statuses = append(s.out.Statuses, StoredStatus{At: s.clock, Status: st, By: by})
	// The cache shares the status the output lists (stored statuses are
	// never changed in place, see storeStatus): no copy of its own.
	m.Status = &s.out.Statuses[len(s.out.Statuses)-1].Status
	m.Version++
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
	case prev != nil && prev.StartTime != nil && wholeSecond(*prev.StartTime):
		// Shared: normalizeStatus leaves a whole second as it is, and a
		// stored status is never changed in place.
		st.StartTime = prev.StartTime
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
	// st is the caller's own (see above): its conditions are updated in
	// place, not copied.
	conditions.SetTransitionTimes(st.Conditions, cmp, now)
	return normalizeStatus(st), nil
}

// wholeSecond reports whether cutting t to whole seconds would leave it
// exactly as it is (normalizeStatus then does not write it).
func wholeSecond(t metav1.Time) bool { return t.Truncate(time.Second) == t.Time }

// normalizeStatus cuts every time in st to whole seconds, as the status
// manager's normalizeStatus does.
func normalizeStatus(st v1.PodStatus) v1.PodStatus {
	statusTimes(&st, func(t *metav1.Time) {
		if t != nil && !t.IsZero() && !wholeSecond(*t) {
			*t = metav1.NewTime(t.Truncate(time.Second))
		}
	})
	return st
}

// normalized reports whether normalizeStatus would leave every time of st
// as it is (it then writes nothing, even through st's pointers).
func normalized(st *v1.PodStatus) bool {
	ok := true
	statusTimes(st, func(t *metav1.Time) {
		if t != nil && !t.IsZero() && !wholeSecond(*t) {
			ok = false
		}
	})
	return ok
}

// statusTimes calls cut with each time of st that normalizeStatus cuts.
func statusTimes(st *v1.PodStatus, cut func(*metav1.Time)) {
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
}
