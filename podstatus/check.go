package podstatus

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
)

// Mismatch is one field of a pod's status that no kubelet v1.37.2 writes for
// the pod's spec and container statuses.
type Mismatch struct {
	// Field is the field's path, with list entries named by their key:
	// "status.phase", "status.conditions[Ready].reason",
	// "status.containerStatuses[app].ready", or "STATUS" for kubectl's
	// column.
	Field string
	// Status is the value the pod's status holds and Kubelet the value a
	// kubelet would write, each as JSON ("" when the field is absent).
	Status, Kubelet string
	// Why says, in words, which rule of the kubelet the status breaks.
	Why string
}

// String renders m as a diff of the one field, "-" the status's value and
// "+" the kubelet's, under the field's path and the rule.
func (m Mismatch) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", m.Field, m.Why)
	if m.Status != "" {
		fmt.Fprintf(&b, "  - %s\n", m.Status)
	}
	if m.Kubelet != "" {
		fmt.Fprintf(&b, "  + %s\n", m.Kubelet)
	}
	return b.String()
}

// Check reports every field of pod.Status that a kubelet v1.37.2 would not
// write for pod's spec: it answers "could a real kubelet have written this
// status?" for a status from a cluster (`kubectl get pod -o yaml`) or from
// a simulator. An empty answer means consistent.
//
// It compares the status with Recompute (same options): the phase, reason
// and message (getPhase reads two inputs the API status does not show:
// podHasInitialized, which Recompute estimates, and each running sidecar's
// started as it was before the probe step; the phase is accepted when some
// value of them gives it, podHasInitialized being true whenever a regular
// container runs in a ready sandbox, and the rest is compared with what that value
// gives), and the kubelet's conditions (status, reason, message and
// observedGeneration; transition and probe times are the status manager's
// bookkeeping and not compared), then kubectl's STATUS column. It also
// checks the container statuses for what the kubelet's
// convertToAPIContainerStatuses and the probe manager's UpdatePodStatus
// always do (pkg/kubelet/kubelet_pods.go, pkg/kubelet/prober/prober_manager.go):
//
//   - one status per container of the spec, and none for a name the spec
//     lacks: init containers in spec order, regular and ephemeral containers
//     sorted by name;
//   - exactly one of waiting, running and terminated in each state;
//   - started is set on every init and regular container status, and true
//     only while the container runs;
//   - ready only for a running container, or a regular init container that
//     terminated with exit code 0; such an init container is always ready.
//     One exception: a regular init container that completed and waits
//     again (a new sandbox runs the init containers again, and doBackOff
//     or another start failure holds it) keeps ready=true from its
//     completed run, which convertToAPIContainerStatuses took whole, when
//     its instances are gone, and keeps it through a RestartAllContainers
//     reset (last termination RestartingAllContainers); the status manager
//     stores such a status only where the container may leave the
//     terminated state (CheckTransition: restartPolicy Always, or a
//     restart rule).
//
// What Recompute takes from the status as it is (the container states, and
// the PodReadyToStartContainers and AllContainersRestarting conditions when
// present) Check cannot contradict: those need the runtime's view (use
// Compute with a runtime state). Set opts.PodIsTerminal for a status the
// kubelet wrote after it stopped the pod's containers.
//
// A status with no container status at all has not been written by a
// kubelet (the API server and the scheduler write such statuses, and the
// kubelet when it rejects a pod at admission): Check reports nothing for it.
// A nil pod gives nil.
func Check(pod *v1.Pod, opts RecomputeOptions) []Mismatch {
	if pod == nil || !KubeletWrote(&pod.Status) {
		return nil
	}
	var out []Mismatch
	add := func(field string, status, kubelet any, why string) {
		out = append(out, Mismatch{Field: field, Status: jsonOf(status), Kubelet: jsonOf(kubelet), Why: why})
	}

	out = append(out, checkContainerStatuses(pod, opts.Features)...)
	if opts.FromAPI && terminalPhase(pod.Status.Phase) {
		out = append(out, runningInTerminal(&pod.Status)...)
	}

	r, phases := recomputeFor(pod, opts)
	s := &pod.Status
	// The status manager keeps the API's phase, reason and message while
	// the pod worker could have running containers (mergePodStatus): the
	// last instants of every pod that ends.
	held := opts.FromAPI && HeldBack(pod, r)
	if !held && s.Phase != r.Phase.Phase {
		why := "getPhase gives " + string(r.Phase.Phase) + ": " + r.GetPhase.Why
		if len(phases) > 1 {
			why += fmt.Sprintf(" (%s, whatever podHasInitialized and the sidecars' started before the probe step)", strings.Join(phases, " or "))
		}
		add("status.phase", s.Phase, r.Phase.Phase, why)
	}
	if !held {
		if s.Reason != r.Phase.Reason {
			add("status.reason", s.Reason, r.Phase.Reason, "the kubelet's reason for phase "+string(r.Phase.Phase))
		}
		if s.Message != r.Phase.Message {
			add("status.message", s.Message, r.Phase.Message, "the kubelet's message for phase "+string(r.Phase.Phase))
		}
	}

	have := map[v1.PodConditionType]*v1.PodCondition{}
	for i := range s.Conditions {
		if _, dup := have[s.Conditions[i].Type]; !dup {
			have[s.Conditions[i].Type] = &s.Conditions[i]
		}
	}
	for _, want := range r.Conditions {
		if want.Type == v1.PodResizePending || want.Type == v1.PodResizeInProgress {
			continue // kept from the status manager, not computed
		}
		field := "status.conditions[" + string(want.Type) + "]"
		got := have[want.Type]
		if got == nil {
			add(field, nil, want, "the kubelet always writes this condition")
			continue
		}
		if got.Status != want.Status {
			add(field+".status", got.Status, want.Status, conditionRule(want.Type))
		}
		if got.Reason != want.Reason {
			add(field+".reason", got.Reason, want.Reason, conditionRule(want.Type))
		}
		if got.Message != want.Message {
			add(field+".message", got.Message, want.Message, conditionRule(want.Type))
		}
		if got.ObservedGeneration != want.ObservedGeneration {
			add(field+".observedGeneration", got.ObservedGeneration, want.ObservedGeneration, "the pod's metadata.generation (gate PodObservedGenerationTracking)")
		}
	}

	if shown := kubectlstatus.Compute(pod); shown != r.KubectlStatus {
		add("STATUS", shown, r.KubectlStatus, "kubectl get pods shows the first for this status, the second for the kubelet's")
	}
	return out
}

// recomputeFor returns what Recompute gives for the value of getPhase's
// hidden inputs (podHasInitialized, and each running sidecar's Started as
// getPhase read it, before the probe step) that explains the status's phase,
// Recompute's own estimate first; when none does, Recompute's answer. It also
// returns every phase the inputs can give.
func recomputeFor(pod *v1.Pod, opts RecomputeOptions) (Recomputed, []string) {
	est := hadRegularInstance(&pod.Spec, pod.Status.ContainerStatuses)
	first := recompute(pod, opts, est, &pod.Status)
	found := first.Phase.Phase == pod.Status.Phase
	best := first
	phases := []string{string(first.Phase.Phase)}
	seen := map[string]bool{string(first.Phase.Phase): true}
	inits := []bool{est}
	if est && canBeUninitialized(pod) || !est {
		inits = append(inits, !est)
	}
	for _, init := range inits {
		for _, started := range []*bool{nil, ptrTo(true), ptrTo(false)} {
			if init == est && started == nil {
				continue // the first
			}
			before := sidecarsStarted(pod, started)
			r := recompute(pod, opts, init, before)
			if p := string(r.Phase.Phase); !seen[p] {
				seen[p] = true
				phases = append(phases, p)
			}
			if !found && r.Phase.Phase == pod.Status.Phase {
				best, found = r, true
			}
		}
	}
	return best, phases
}

// canBeUninitialized: the kubelet's podHasInitialized can be false although
// the status shows a regular container that ran: when none runs (its
// instances are gone: a new sandbox, a RestartAllContainers reset, garbage
// collection), or when the sandbox is not ready (the status says
// PodReadyToStartContainers=False), since only the ready sandbox's
// instances count.
func canBeUninitialized(pod *v1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodReadyToStartContainers && c.Status == v1.ConditionFalse {
			return true
		}
	}
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		if cs.State.Running == nil {
			continue
		}
		if kind, _, ok := restart.KindOf(&pod.Spec, cs.Name); ok && kind == restart.Regular {
			return false
		}
	}
	return true
}

// sidecarsStarted returns pod's status with every running sidecar's Started
// set to *started (the status itself when started is nil).
func sidecarsStarted(pod *v1.Pod, started *bool) *v1.PodStatus {
	if started == nil {
		return &pod.Status
	}
	s := pod.Status.DeepCopy()
	for i := range s.InitContainerStatuses {
		cs := &s.InitContainerStatuses[i]
		if kind, _, ok := restart.KindOf(&pod.Spec, cs.Name); ok && kind == restart.Sidecar && cs.State.Running != nil {
			cs.Started = ptrTo(*started)
		}
	}
	return s
}

func ptrTo[T any](v T) *T { return &v }

// KubeletWrote reports whether a kubelet has written s: it holds a
// container status. The kubelet writes one for every container of the spec
// from its first sync on; statuses without any come from the API server,
// the scheduler, or the kubelet's admission rejection.
func KubeletWrote(s *v1.PodStatus) bool {
	return s != nil && len(s.InitContainerStatuses)+len(s.ContainerStatuses)+len(s.EphemeralContainerStatuses) > 0
}

func conditionRule(t v1.PodConditionType) string {
	switch t {
	case v1.PodInitialized:
		return "Initialized follows the init container statuses (GenerateInitializedCondition)"
	case v1.ContainersReady:
		return "ContainersReady follows the sidecars' and containers' ready (GenerateContainersReadyCondition)"
	case v1.PodReady:
		return "Ready follows ContainersReady and the readiness gates (GeneratePodReadyCondition)"
	case v1.PodScheduled:
		return "the kubelet writes PodScheduled=True"
	case v1.PodReadyToStartContainers:
		q := make([]string, len(sandboxMessages))
		for i, m := range sandboxMessages {
			q[i] = strconv.Quote(m)
		}
		return "PodReadyToStartContainers' status is taken as given (the sandbox is not in the API status); with False, v1.37 writes reason PodSandboxNotReady and one of the messages " + strings.Join(q, ", ") + ", earlier kubelets neither; with True, neither (GeneratePodReadyToStartContainersCondition)"
	}
	return "the kubelet's " + string(t) + " condition"
}

func jsonOf(v any) string {
	if v == nil {
		return ""
	}
	if c, ok := v.(v1.PodCondition); ok {
		b, _ := json.Marshal(struct {
			Type               v1.PodConditionType `json:"type"`
			Status             v1.ConditionStatus  `json:"status"`
			Reason             string              `json:"reason,omitempty"`
			Message            string              `json:"message,omitempty"`
			ObservedGeneration int64               `json:"observedGeneration,omitempty"`
		}{c.Type, c.Status, c.Reason, c.Message, c.ObservedGeneration})
		return string(b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// checkContainerStatuses checks the container status lists against what
// convertToAPIContainerStatuses and UpdatePodStatus always write.
func checkContainerStatuses(pod *v1.Pod, f features.Set) []Mismatch {
	var out []Mismatch
	spec := &pod.Spec
	var inits, regular, ephemeral []string
	for i := range spec.InitContainers {
		inits = append(inits, spec.InitContainers[i].Name)
	}
	for i := range spec.Containers {
		regular = append(regular, spec.Containers[i].Name)
	}
	for i := range spec.EphemeralContainers {
		ephemeral = append(ephemeral, spec.EphemeralContainers[i].Name)
	}
	sort.Strings(regular)
	sortedEphemeral := append([]string(nil), ephemeral...)
	sort.Strings(sortedEphemeral)

	list := func(field string, statuses []v1.ContainerStatus, want []string, order string, all bool) {
		var got []string
		for i := range statuses {
			got = append(got, statuses[i].Name)
		}
		if all {
			if !equalStrings(got, want) {
				out = append(out, Mismatch{Field: field, Status: jsonOf(namesOrEmpty(got)), Kubelet: jsonOf(namesOrEmpty(want)),
					Why: "the kubelet writes one status per container of the spec, " + order})
			}
			return
		}
		// Ephemeral containers: a status only for one of the spec, in
		// order; the kubelet writes one once the container is in the spec.
		known := map[string]bool{}
		for _, n := range want {
			known[n] = true
		}
		var kept []string
		for _, n := range got {
			if known[n] {
				kept = append(kept, n)
			}
		}
		if len(kept) != len(got) || !sort.StringsAreSorted(got) {
			out = append(out, Mismatch{Field: field, Status: jsonOf(namesOrEmpty(got)), Kubelet: jsonOf(namesOrEmpty(want)),
				Why: "the kubelet writes statuses only for containers of the spec, " + order})
		}
	}
	list("status.initContainerStatuses[*].name", pod.Status.InitContainerStatuses, inits, "in spec order", true)
	list("status.containerStatuses[*].name", pod.Status.ContainerStatuses, regular, "sorted by name", true)
	list("status.ephemeralContainerStatuses[*].name", pod.Status.EphemeralContainerStatuses, sortedEphemeral, "sorted by name", false)

	each := func(path string, statuses []v1.ContainerStatus, ephemeral bool) {
		for i := range statuses {
			cs := &statuses[i]
			field := fmt.Sprintf("%s[%s]", path, cs.Name)
			if n := states(cs.State); n != 1 {
				out = append(out, Mismatch{Field: field + ".state", Status: jsonOf(cs.State),
					Why: fmt.Sprintf("the kubelet sets exactly one of waiting, running and terminated (this state has %d)", n)})
			}
			running := cs.State.Running != nil
			if ephemeral {
				continue
			}
			switch {
			case cs.Started == nil:
				out = append(out, Mismatch{Field: field + ".started", Kubelet: jsonOf(running),
					Why: "the probe manager sets started on every init and regular container status"})
			case *cs.Started && !running:
				out = append(out, Mismatch{Field: field + ".started", Status: "true", Kubelet: "false",
					Why: "a container that is not running is not started"})
			}
			kind, c, ok := restart.KindOf(spec, cs.Name)
			if !ok {
				continue
			}
			// During a RestartAllContainers reset the kubelet keeps the
			// previous status of a removed container whole, ready included,
			// and only replaces its state (apistatus step 2); the probe
			// manager sets ready only to true for an init container that
			// exited 0 and leaves it as it is otherwise.
			if w := cs.State.Waiting; w != nil && w.Reason == apistatus.RestartingAllContainers {
				continue
			}
			if kind == restart.Init && c != nil {
				done := cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0
				if cs.Ready != done && !(cs.Ready && keptReady(spec, cs, f)) {
					why := "an init container is ready exactly when it terminated with exit code 0"
					if cs.Ready && cs.State.Waiting != nil && completedBefore(cs) {
						why = "an init container that completed (exit code 0) and now waits keeps ready=true only where the status manager lets it leave the terminated state (checkContainerStateTransition), which this pod's restart policy does not"
					}
					out = append(out, Mismatch{Field: field + ".ready", Status: jsonOf(cs.Ready), Kubelet: jsonOf(done), Why: why})
				}
				continue
			}
			if cs.Ready && !running {
				out = append(out, Mismatch{Field: field + ".ready", Status: "true", Kubelet: "false",
					Why: "a container that is not running is not ready"})
			}
		}
	}
	each("status.initContainerStatuses", pod.Status.InitContainerStatuses, false)
	each("status.containerStatuses", pod.Status.ContainerStatuses, false)
	each("status.ephemeralContainerStatuses", pod.Status.EphemeralContainerStatuses, true)
	return out
}

func states(s v1.ContainerState) int {
	n := 0
	if s.Waiting != nil {
		n++
	}
	if s.Running != nil {
		n++
	}
	if s.Terminated != nil {
		n++
	}
	return n
}

func namesOrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// keptReady: cs, the status of a regular init container, may carry
// ready=true without having terminated with exit code 0. When the runtime
// no longer has any instance of it (a new sandbox purged them),
// convertToAPIContainerStatuses takes the previous status whole if it was
// terminated, ready included, and a start failure in the reason cache
// (CrashLoopBackOff from doBackOff, for one) then makes its state waiting
// and its last termination that previous state; the probe manager's
// UpdatePodStatus leaves ready as it is. The previous status was ready only
// after exit code 0, and the status manager stores the waiting one only if
// the container may leave the terminated state after that exit
// (checkContainerStateTransition).
//
// A RestartAllContainers reset does the same: convertToAPIContainerStatuses
// keeps the previous status of a removed container whole when it was not
// waiting and gives it the reset's own last termination (reason
// RestartingAllContainers, exit 137); a start failure may then replace the
// waiting reason, the last termination staying the reset's.
func keptReady(spec *v1.PodSpec, cs *v1.ContainerStatus, f features.Set) bool {
	if cs.State.Waiting == nil {
		return false
	}
	if t := cs.LastTerminationState.Terminated; t == nil || (t.ExitCode != 0 && t.Reason != apistatus.RestartingAllContainers) {
		return false
	}
	return podMayLeaveTerminated(spec, f) || mayLeaveTerminated(spec, spec.InitContainers, cs.Name, 0, f)
}

// completedBefore: cs's last termination is a run that exited 0.
func completedBefore(cs *v1.ContainerStatus) bool {
	t := cs.LastTerminationState.Terminated
	return t != nil && t.ExitCode == 0
}

// runningInTerminal reports each init or regular container status of a
// terminal API status whose state is running (see
// RecomputeOptions.FromAPI). Ephemeral containers are left out: when the
// status manager refused every status SyncTerminatingPod generated
// (checkContainerStateTransition), TerminatePod writes the cached one
// with the init and regular containers it could not see stop marked
// terminated, but leaves the ephemeral containers' states as they were
// (status_manager.go TerminatePod), running included.
func runningInTerminal(s *v1.PodStatus) []Mismatch {
	var out []Mismatch
	for _, l := range []struct {
		path string
		list []v1.ContainerStatus
	}{{"status.initContainerStatuses", s.InitContainerStatuses}, {"status.containerStatuses", s.ContainerStatuses}} {
		for i := range l.list {
			if cs := &l.list[i]; cs.State.Running != nil {
				out = append(out, Mismatch{Field: fmt.Sprintf("%s[%s].state", l.path, cs.Name), Status: "running", Kubelet: "terminated",
					Why: "a kubelet writes phase " + string(s.Phase) + " to the API only after SyncTerminatingPod stopped every container (mergePodStatus holds a terminal phase while a container could run); the pod garbage collector writes Failed and leaves the container states as they were when the pod's node is gone"})
			}
		}
	}
	return out
}

// HeldBack reports whether pod's API status shows a phase that is not
// terminal where the kubelet computes a terminal one (r, Recompute's or
// Check's answer): the status manager writes the conditions and container
// statuses at once but keeps the API's phase, reason and message while
// the pod worker could have running containers (status_manager.go
// mergePodStatus, PodCouldHaveRunningContainers), that is until
// SyncTerminatingPod has stopped the containers and the sandbox. A pod
// whose containers all exited under restartPolicy Never shows so for
// about a second (captured: api-delete-succeeded, 0.8 s).
func HeldBack(pod *v1.Pod, r Recomputed) bool {
	return pod != nil && terminalPhase(r.Phase.Phase) && !terminalPhase(pod.Status.Phase)
}

func terminalPhase(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }
