package sim

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// NextOptions are the inputs of Next besides the pod and the runtime
// state. The zero value is a kubelet v1.37.2 with its default gates and
// settings, at the last moment the inputs show, holding no probe results
// but those the pod's status implies.
type NextOptions struct {
	// Now is when the sync starts. Zero: the latest time the inputs show
	// (the runtime state's Timestamp, its sandboxes' and instances'
	// times, the status's times, the deletion request), as when the
	// kubelet syncs right after the relist that read the state.
	Now time.Time
	// Kubelet is the node's configuration: gates (Kubelet.Features, zero
	// v1.37.2's defaults), crash-loop back-off settings.
	Kubelet Kubelet
	// Probes are the probe results by container instance ID
	// (runtimestate.Container.ID), as podactions and podstatus take them.
	// Nil: for each running instance the pod's status names (by
	// containerID), readiness and startup as that status reports them
	// (ready, started), which is what the kubelet's probe workers held
	// when it wrote the status; no liveness result (the kubelet kills on a
	// liveness Failure only). A container with no status gets no result:
	// a readiness probe then reads not ready, a startup probe not started,
	// as right after the kubelet started. A non-nil map is taken as it is.
	Probes map[string]vocab.ProbeResults
	// Actuated, when not nil, is the kubelet's actuated-resources record
	// (as podstatus.RuntimeFromStatus reads it off the status's
	// resources). Nil: the record the kubelet initialises from the spec
	// (InitializeActuatedPod). Ignored when Memory is given.
	Actuated *podactions.Actuated
	// Memory, when not nil, is the kubelet's remembered state, taken as it
	// is (the faithful reading: a nil Memory.Worker is a pod the worker has
	// never seen, an empty Memory.BackOff no crash-loop records). Nil:
	// filled in as a node in steady state has it (see Next).
	Memory *Memory
	// Containers tell how the running containers react to being stopped,
	// by instance ID (absent: exit at once on SIGTERM; preStop hooks
	// other than sleep return at once).
	Containers map[string]Run
	// Delays are the runtime's call latencies (zero: DefaultDelays).
	Delays RuntimeDelays
}

// NextResult is what Next did: the sync's output and the input it ran on.
type NextResult struct {
	SyncOutput
	// Input is the input of the sync, with the Memory Next filled in.
	Input SyncInput `json:"-"`
}

// Next answers "what does the kubelet do next for this pod?" over the
// whole of one sync, from what a user holds: a pod (its spec, and its API
// status when at hand) and what the runtime reports about it (nil: nothing,
// a pod just admitted). It fills in what the kubelet remembers as a node
// running the pod in steady state has it, runs Sync and returns its
// output: the decision (computePodActions', for SyncPod), the CRI calls in
// order, the statuses stored, how the worker requeues the pod.
//
// It mirrors one run of the pod worker's sync function
// (pkg/kubelet/pod_workers.go podWorkerLoop) as the worker picks it:
//
//   - SyncPod (pkg/kubelet/kubelet.go) for a pod the worker is syncing:
//     the status first, and no container is touched once that status has
//     a terminal phase (SyncPod returns before computePodActions); else
//     computePodActions (podactions.Compute), kills, RestartAllContainers
//     resets, the sandbox, then starts through the crash-loop back-off;
//   - SyncTerminatingPod for a pod with a deletionTimestamp, or whose API
//     phase is Succeeded or Failed while a container still runs or a
//     sandbox is ready: every running container is stopped
//     (termination.Plan), with the grace period the worker computes;
//   - SyncTerminatedPod for a pod whose API phase is terminal and whose
//     runtime has nothing running: the final status, no runtime call.
//
// The memory a node in steady state holds, when o.Memory is nil:
//
//   - the pod worker's state: termination.UpdatePod of an update carrying
//     the pod, meeting it the way the worker does (syncing unless the pod
//     is deleted or its API phase is terminal; see above);
//   - the status manager's cached status: the pod's status when a kubelet
//     wrote it (podstatus.KubeletWrote), else none (the kubelet then reads
//     the pod's status, as it does);
//   - crash-loop back-off records: from each container's API status when
//     the status gives it (restart.BackOffConfig.EntryFromStatus), else
//     replayed from the runtime's instance history (restart.HistoryFrom,
//     BackOffConfig.Replay), which misses instances the runtime removed;
//     a history whose times are missing gives no record, and a message
//     saying so first in the output's Messages;
//   - the reason cache: the waiting reason and message of each container
//     status that shows a start failure (CrashLoopBackOff, image pull and
//     create errors), as the kubelet wrote them from that cache;
//   - probe results: see NextOptions.Probes;
//   - actuated resources: NextOptions.Actuated over, and else, the record
//     the kubelet writes from the spec (InitializeActuatedPod on v1.37; the
//     resources of what the runtime shows started before);
//   - the grace period of SyncTerminatingPod: the one UpdatePod stores;
//   - the pod's startTime, when its status gives none and the runtime
//     shows a sandbox or an instance: the earliest time the runtime shows
//     (runtimestate.Pod.FirstSeen), for the kubelet set it at the pod's
//     first sync and has held it since (an activeDeadlineSeconds counts
//     from it).
//
// The pod is read as the API server stores it, as Simulate reads it: a
// copy with the API server's defaults filled in (apidefaults.Pod: an
// unset terminationGracePeriodSeconds is 30 s, an empty restartPolicy
// Always, probe periods 10 s) and, for a manifest as written, generation 1
// (apidefaults.Created). A pod read back from the API server (`kubectl get
// pod -o yaml`) is already so and reads the same. A pod the API server
// would reject even then (validation.Pod) is not refused: the answer is
// the kubelet's to a pod it never receives.
//
// A runtime instance whose name is no container of the pod is ignored, as
// the kubelet ignores it, and said first in the output's Messages (a typo
// in a hand-written runtime state is the usual cause).
//
// Next never panics. A nil pod gives an output with Requeue RequeueNever
// and nothing done. The inputs are not modified.
func Next(pod *v1.Pod, st *runtimestate.Pod, o NextOptions) NextResult {
	if pod != nil {
		pod = apidefaults.PodCopy(pod)
		apidefaults.Created(pod)
		if pod.Status.StartTime == nil {
			if t := st.FirstSeen(); !t.IsZero() {
				pod.Status.StartTime = &metav1.Time{Time: t}
			}
		}
	}
	in := SyncInput{Pod: pod, Runtime: st, Now: o.Now, Kubelet: o.Kubelet, Containers: o.Containers, Delays: o.Delays}
	if in.Now.IsZero() {
		in.Now = latestTime(pod, st)
	}
	if pod == nil {
		return NextResult{SyncOutput: Sync(in), Input: in}
	}
	strays := strayNames(pod, st)
	if o.Memory != nil {
		in.Memory = o.Memory.clone()
		if in.Memory.Worker != nil {
			in.Grace = in.Memory.Worker.GracePeriod
		}
	} else {
		var notes []string
		in.Memory, in.Grace, notes = steadyMemory(pod, st, o.Probes, in.Now, in.Kubelet)
		if o.Actuated != nil {
			// What the record leaves out (a container not running, say) is
			// what the kubelet recorded from the spec (see initActuated).
			in.Memory.Actuated = overActuated(initActuated(pod, st, in.Kubelet.Features), *o.Actuated)
		}
		if o.Probes != nil {
			in.Memory.Probes = o.Probes
		}
		out := Sync(in)
		out.Messages = append(append(strays, notes...), out.Messages...)
		return NextResult{SyncOutput: out, Input: in}
	}
	if o.Probes != nil {
		in.Memory.Probes = o.Probes
	}
	out := Sync(in)
	out.Messages = append(strays, out.Messages...)
	return NextResult{SyncOutput: out, Input: in}
}

// strayNames says, for each instance of st whose name is no container of
// pod (init, regular or ephemeral), that the kubelet ignores it: it looks
// up only the spec's containers (computePodActions), so such an instance is
// never started, restarted or counted, and a typo in a hand-written runtime
// state would otherwise go unseen.
func strayNames(pod *v1.Pod, st *runtimestate.Pod) []string {
	if st == nil {
		return nil
	}
	known := keycheck.ContainerNames(pod)
	set := make(map[string]bool, len(known))
	for _, n := range known {
		set[n] = true
	}
	var out []string
	said := map[string]bool{}
	for _, c := range st.Containers {
		if set[c.Name] || said[c.Name] {
			continue
		}
		said[c.Name] = true
		out = append(out, fmt.Sprintf("runtime instance %s: %s: the kubelet ignores an instance of no container of the pod", c.ID, keycheck.NotAContainerText(c.Name, pod, known)))
	}
	return out
}

// steadyMemory is what a kubelet running pod in steady state remembers
// about it (see Next), and the grace period its worker holds.
func steadyMemory(pod *v1.Pod, st *runtimestate.Pod, probes map[string]vocab.ProbeResults, now time.Time, k Kubelet) (Memory, int64, []string) {
	var notes []string
	var m Memory
	u := termination.UpdatePod(nil, termination.Update{Type: termination.UpdateSync, Pod: pod, Cached: st}, now, k.Features)
	m.Worker = u.State
	var grace int64
	if u.GracePeriodOverride != nil {
		grace = *u.GracePeriodOverride
	}

	status := &pod.Status
	if podstatus.KubeletWrote(status) {
		s := *status.DeepCopy()
		m.Status, m.Version = &s, 1
	}

	cfg, err := restart.NewBackOffConfig(k.Features, k.BackOff)
	if err != nil {
		cfg = restart.BackOffConfig{Initial: restart.DefaultInitialBackOff, Max: restart.DefaultMaxBackOff}
	}
	m.BackOff = map[string]restart.BackOffEntry{}
	m.StartFailures = map[string]vocab.StartFailure{}
	for _, c := range specContainers(pod) {
		cs := containerStatusOf(status, c.Name)
		var e restart.BackOffEntry
		if cs != nil && cs.RestartCount > 0 {
			e, _ = cfg.EntryFromStatus(cs)
		} else if h, err := restart.HistoryFrom(st, c.Name); err != nil {
			// No record rather than one replayed from unknown times; said.
			notes = append(notes, "crash-loop back-off of "+c.Name+" taken as none: "+strings.TrimPrefix(err.Error(), "restart: "))
		} else {
			e = cfg.Replay(h, now)
		}
		if !e.IsZero() {
			m.BackOff[restart.BackOffKey(pod, c)] = e
		}
		if cs != nil && cs.State.Waiting != nil && isStartFailure(cs.State.Waiting.Reason) {
			m.StartFailures[c.Name] = vocab.StartFailure{Reason: cs.State.Waiting.Reason, Message: cs.State.Waiting.Message}
		}
	}
	if probes == nil {
		m.Probes = probesFromStatus(status, st)
	}
	return m, grace, notes
}

// isStartFailure reports whether a waiting reason comes from the kubelet's
// reason cache (a failed start) rather than from the status generation
// itself (ContainerCreating, PodInitializing, and the RestartAllContainers
// reset's waiting states).
func isStartFailure(reason string) bool {
	switch reason {
	case "", "ContainerCreating", "PodInitializing":
		return false
	}
	return !strings.HasPrefix(reason, "RestartAllContainers")
}

// probesFromStatus reads the readiness and startup results the kubelet
// held off the container statuses it wrote: for each status whose running
// state names an instance the runtime reports running.
func probesFromStatus(status *v1.PodStatus, st *runtimestate.Pod) map[string]vocab.ProbeResults {
	out := map[string]vocab.ProbeResults{}
	if st == nil {
		return out
	}
	running := map[string]bool{}
	for _, c := range st.Containers {
		if c.State == runtimestate.Running {
			running[c.ID] = true
		}
	}
	for _, l := range [][]v1.ContainerStatus{status.InitContainerStatuses, status.ContainerStatuses} {
		for _, cs := range l {
			id := cs.ContainerID
			if _, after, ok := strings.Cut(id, "://"); ok {
				id = after
			}
			if cs.State.Running == nil || id == "" || !running[id] {
				continue
			}
			r := vocab.ProbeResults{Readiness: vocab.ProbeFailure, Startup: vocab.ProbeNoResult}
			if cs.Ready {
				r.Readiness = vocab.ProbeSuccess
			}
			if cs.Started != nil && *cs.Started {
				r.Startup = vocab.ProbeSuccess
			}
			out[id] = r
		}
	}
	return out
}

func specContainers(pod *v1.Pod) []*v1.Container {
	var out []*v1.Container
	for i := range pod.Spec.InitContainers {
		out = append(out, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}

func containerStatusOf(s *v1.PodStatus, name string) *v1.ContainerStatus {
	for _, l := range [][]v1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses} {
		for i := range l {
			if l[i].Name == name {
				return &l[i]
			}
		}
	}
	return nil
}

// latestTime is the latest time pod and st show (zero when none).
func latestTime(pod *v1.Pod, st *runtimestate.Pod) time.Time {
	var last time.Time
	see := func(t time.Time) {
		if t.After(last) {
			last = t
		}
	}
	if st != nil {
		see(st.Timestamp)
		for _, s := range st.Sandboxes {
			see(s.CreatedAt)
		}
		for _, c := range st.Containers {
			see(c.CreatedAt)
			see(c.StartedAt)
			see(c.FinishedAt)
		}
	}
	if pod == nil {
		return last
	}
	if pod.DeletionTimestamp != nil {
		t := pod.DeletionTimestamp.Time
		if g := pod.DeletionGracePeriodSeconds; g != nil {
			t = t.Add(-time.Duration(*g) * time.Second)
		}
		see(t)
	}
	s := &pod.Status
	if s.StartTime != nil {
		see(s.StartTime.Time)
	}
	for _, c := range s.Conditions {
		see(c.LastTransitionTime.Time)
		see(c.LastProbeTime.Time)
	}
	for _, l := range [][]v1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses} {
		for _, cs := range l {
			for _, state := range []v1.ContainerState{cs.State, cs.LastTerminationState} {
				if state.Running != nil {
					see(state.Running.StartedAt.Time)
				}
				if state.Terminated != nil {
					see(state.Terminated.StartedAt.Time)
					see(state.Terminated.FinishedAt.Time)
				}
			}
		}
	}
	return last
}

// Started are the names of the containers the sync creates and starts, in
// order.
func (o SyncOutput) Started() []string { return o.names("StartContainer") }

// Stopped are the names of the containers the sync stops (StopContainer),
// in order.
func (o SyncOutput) Stopped() []string { return o.names("StopContainer") }

// Removed are the names of the containers the sync removes
// (RemoveContainer), in order.
func (o SyncOutput) Removed() []string { return o.names("RemoveContainer") }

func (o SyncOutput) names(method string) []string {
	var out []string
	for _, c := range o.Calls {
		if c.Method == method {
			out = append(out, c.Name)
		}
	}
	return out
}

// String says what the sync does, a line each: the kubelet function that
// ran, computePodActions' decision (SyncPod), the CRI calls, the other
// decisions, and the phase of the last status stored.
func (r NextResult) String() string {
	var b strings.Builder
	fn := map[termination.WorkType]string{termination.SyncPod: "SyncPod", termination.TerminatingPod: "SyncTerminatingPod", termination.TerminatedPod: "SyncTerminatedPod"}[r.Work]
	if r.Input.Pod == nil {
		return "no pod: nothing to do\n"
	}
	b.WriteString(fn + "\n")
	if r.Decision != "" {
		for _, l := range strings.Split(strings.TrimRight(r.Decision, "\n"), "\n") {
			b.WriteString("  " + l + "\n")
		}
	}
	for _, c := range r.Calls {
		b.WriteString("  CRI " + c.String() + "\n")
	}
	if len(r.Calls) == 0 {
		b.WriteString("  no runtime call\n")
	}
	for _, m := range r.Messages {
		b.WriteString("  " + m + "\n")
	}
	if n := len(r.Statuses); n > 0 {
		b.WriteString("  stores status: phase " + string(r.Statuses[n-1].Status.Phase) + "\n")
	}
	return b.String()
}
