package conditions

import (
	"math/bits"
	"strconv"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/internal/names"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// The reasons of the conditions the kubelet generates
// (pkg/kubelet/status/generate.go, pkg/kubelet/types/constants.go).
const (
	ReasonUnknownContainerStatuses    = "UnknownContainerStatuses"
	ReasonPodCompleted                = "PodCompleted"
	ReasonPodFailed                   = "PodFailed"
	ReasonContainersNotReady          = "ContainersNotReady"
	ReasonContainersNotInitialized    = "ContainersNotInitialized"
	ReasonReadinessGatesNotReady      = "ReadinessGatesNotReady"
	ReasonRestartAllContainersStarted = "RestartAllContainersStarted"
	ReasonPodSandboxNotReady          = "PodSandboxNotReady"

	// MessageRestartAllContainersStarted is the message of
	// AllContainersRestarting=True.
	MessageRestartAllContainersStarted = "container exited with restart policy rule"
)

// Options are the inputs of Generate besides the pod and the generated
// status.
type Options struct {
	// Features are the kubelet's gates. Generate reads
	// PodReadyToStartContainersCondition, RestartAllContainersOnContainerExits,
	// InPlacePodVerticalScaling and PodObservedGenerationTracking.
	// The zero value is kubelet v1.37.2's defaults (features.V1_37).
	Features features.Set
	// Cached is the status the kubelet's status manager holds for the pod,
	// or nil when it holds none; then the pod's API status (pod.Status)
	// takes its place as the kubelet's oldPodStatus.
	Cached *v1.PodStatus
	// Runtime is what the container runtime reports about the pod; nil is
	// a runtime that knows nothing of it, so PodReadyToStartContainers is
	// False ("no pod sandbox exists") and no reset is in progress. To
	// recompute the conditions from a pod's API status without a runtime
	// state, use podstatus.Recompute, which keeps the status's own
	// runtime-derived conditions.
	Runtime *runtimestate.Pod
	// PodIsTerminal is the kubelet's podIsTerminal; it drops the resize
	// conditions.
	PodIsTerminal bool
	// ResizeConditions are the PodResizePending and PodResizeInProgress
	// conditions the status manager holds, in that order (the allocation
	// manager and SyncPod set them; this package does not compute them).
	ResizeConditions []v1.PodCondition
}

// Generate returns the conditions Kubelet.generateAPIPodStatus
// (pkg/kubelet/kubelet_pods.go) writes for pod, in its order:
//
//  1. every condition of pod.Status whose type the kubelet does not own
//     (readiness-gate conditions, DisruptionTarget, …);
//  2. with gate InPlacePodVerticalScaling and unless opts.PodIsTerminal,
//     opts.ResizeConditions (observedGeneration cleared when the
//     generated one would be 0);
//  3. the DisruptionTarget condition of the previous status (opts.Cached,
//     else pod.Status), replacing the first one of step 1 or appended;
//  4. PodReadyToStartContainers (gate PodReadyToStartContainersCondition),
//     Initialized, Ready (its readiness gates looked up in the list built so
//     far), ContainersReady, PodScheduled (always True);
//  5. AllContainersRestarting, with gate RestartAllContainersOnContainerExits
//     when some container has a RestartAllContainers rule.
//
// status is the status the kubelet has just generated: its Phase and its
// container statuses (init then regular, after the probe manager set Ready
// and Started) are read. LastTransitionTime is left zero, as the kubelet
// leaves it; see KeepTransitionTimes. A nil pod reads as an empty pod, a nil
// status as an empty one.
func Generate(pod *v1.Pod, status *v1.PodStatus, opts Options) []v1.PodCondition {
	if pod == nil {
		pod = &v1.Pod{}
	}
	if status == nil {
		status = &v1.PodStatus{}
	}
	f := opts.Features
	old := &pod.Status
	if opts.Cached != nil {
		old = opts.Cached
	}

	// The list is allocated once with room for exactly what Generate
	// may add (a condition is about 120 bytes, and statuses are generated
	// on every sync): the API's conditions the kubelet does not own, the
	// resize conditions, DisruptionTarget, and the four to six the
	// kubelet generates.
	resize := f.Enabled(features.InPlacePodVerticalScaling) && !opts.PodIsTerminal
	dt := find(old.Conditions, v1.DisruptionTarget)
	prtsc := f.Enabled(features.PodReadyToStartContainersCondition)
	acr := f.Enabled(features.RestartAllContainersOnContainerExits) && restart.AllContainersCouldRestart(&pod.Spec)
	n := 4
	for i := range pod.Status.Conditions {
		if !OwnedByKubelet(pod.Status.Conditions[i].Type, f) {
			n++
		}
	}
	if resize {
		n += len(opts.ResizeConditions)
	}
	if dt != nil {
		n++
	}
	if prtsc {
		n++
	}
	if acr {
		n++
	}
	out := make([]v1.PodCondition, 0, n)
	for i := range pod.Status.Conditions {
		if c := &pod.Status.Conditions[i]; !OwnedByKubelet(c.Type, f) {
			out = append(out, *c)
		}
	}
	if resize {
		for _, c := range opts.ResizeConditions {
			if observedGeneration(old, pod.Generation, c.Type, f) == 0 {
				c.ObservedGeneration = 0
			}
			out = append(out, c)
		}
	}
	if dt != nil {
		if i := index(out, v1.DisruptionTarget); i >= 0 {
			out[i] = *dt
		} else {
			out = append(out, *dt)
		}
	}

	if prtsc {
		out = append(out, PodReadyToStartContainers(pod, old, opts.Runtime, f))
	}
	// The kubelet passes the init then the regular statuses as one list;
	// all searches the two where they are. ContainersReady is computed
	// once: Ready copies it when it is not True.
	all := statusLists{status.InitContainerStatuses, status.ContainerStatuses}
	out = append(out, initialized(pod, old, all, status.Phase, f))
	cr := containersReady(pod, old, all, status.Phase, f)
	out = append(out, ready(pod, old, out, cr, f))
	out = append(out, cr)
	out = append(out, v1.PodCondition{
		Type:               v1.PodScheduled,
		ObservedGeneration: observedGeneration(old, pod.Generation, v1.PodScheduled, f),
		Status:             v1.ConditionTrue,
	})
	if acr {
		out = append(out, AllContainersRestarting(pod, opts.Runtime, old, status.Phase, f))
	}
	return out
}

// OwnedByKubelet reports whether the kubelet owns conditions of type t,
// generating them itself and dropping those of the API status. It mirrors
// PodConditionByKubelet in pkg/kubelet/types/pod_status.go: PodScheduled,
// Ready, Initialized, ContainersReady, PodResizeInProgress,
// PodResizePending, PodReadyToStartContainers (gate
// PodReadyToStartContainersCondition) and AllContainersRestarting (gate
// RestartAllContainersOnContainerExits). DisruptionTarget is shared, not
// owned.
func OwnedByKubelet(t v1.PodConditionType, f features.Set) bool {
	switch t {
	case v1.PodScheduled, v1.PodReady, v1.PodInitialized, v1.ContainersReady,
		v1.PodResizeInProgress, v1.PodResizePending:
		return true
	case v1.PodReadyToStartContainers:
		return f.Enabled(features.PodReadyToStartContainersCondition)
	case v1.AllContainersRestarting:
		return f.Enabled(features.RestartAllContainersOnContainerExits)
	}
	return false
}

// ContainersReady returns the ContainersReady condition. It mirrors
// GenerateContainersReadyCondition in pkg/kubelet/status/generate.go:
//
//  1. statuses nil: False, UnknownContainerStatuses;
//  2. sidecars, then regular containers, in spec order: no status makes
//     the container unknown, Ready false makes it unready;
//  3. phase Succeeded with none unknown: False, PodCompleted; phase Failed:
//     False, PodFailed;
//  4. any unknown or unready: False, ContainersNotReady, with the message
//     "containers with unknown status: [a b]" and/or "containers with
//     unready status: [c]", joined by ", "; otherwise True.
//
// statuses are the init and regular container statuses (the first with a
// container's name counts); prev is the kubelet's oldPodStatus, read for
// observedGeneration only.
func ContainersReady(pod *v1.Pod, prev *v1.PodStatus, statuses []v1.ContainerStatus, phase v1.PodPhase, f features.Set) v1.PodCondition {
	return containersReady(pod, prev, statusLists{statuses}, phase, f)
}

func containersReady(pod *v1.Pod, prev *v1.PodStatus, statuses statusLists, phase v1.PodPhase, f features.Set) v1.PodCondition {
	if pod == nil {
		pod = &v1.Pod{}
	}
	cond := v1.PodCondition{
		Type:               v1.ContainersReady,
		ObservedGeneration: observedGeneration(prev, pod.Generation, v1.ContainersReady, f),
		Status:             v1.ConditionFalse,
	}
	if statuses.isNil() {
		cond.Reason = ReasonUnknownContainerStatuses
		return cond
	}
	// The containers checked, sidecars then regular containers, by
	// position: init container i is i, regular container j is
	// len(InitContainers)+j.
	var unknown, unready posSet
	nInit := len(pod.Spec.InitContainers)
	check := func(pos int, c *v1.Container) {
		if cs := statuses.lookup(c.Name); cs == nil {
			unknown.add(pos)
		} else if !cs.Ready {
			unready.add(pos)
		}
	}
	for i := range pod.Spec.InitContainers {
		if restart.IsSidecar(&pod.Spec.InitContainers[i]) {
			check(i, &pod.Spec.InitContainers[i])
		}
	}
	for i := range pod.Spec.Containers {
		check(nInit+i, &pod.Spec.Containers[i])
	}
	switch {
	case phase == v1.PodSucceeded && unknown.empty():
		cond.Reason = ReasonPodCompleted
		return cond
	case phase == v1.PodFailed:
		cond.Reason = ReasonPodFailed
		return cond
	}
	if !unknown.empty() || !unready.empty() {
		cond.Reason = ReasonContainersNotReady
		cond.Message = namesMessageAs(prevMessage(prev, v1.ContainersReady), &pod.Spec, "containers with unknown status: ", &unknown, "containers with unready status: ", &unready)
		return cond
	}
	cond.Status = v1.ConditionTrue
	return cond
}

// posSet is a set of container positions (init container i is i, regular
// container j is len(InitContainers)+j), added in increasing order: the
// first 64 as bits, any further ones in a list (allocated only for pods of
// more than 64 containers).
type posSet struct {
	bits uint64
	more []int
}

func (s *posSet) add(pos int) {
	if pos < 64 {
		s.bits |= 1 << pos
		return
	}
	s.more = append(s.more, pos)
}

func (s *posSet) empty() bool { return s.bits == 0 && len(s.more) == 0 }

// name is the name of the container at pos.
func name(spec *v1.PodSpec, pos int) string {
	if pos < len(spec.InitContainers) {
		return spec.InitContainers[pos].Name
	}
	return spec.Containers[pos-len(spec.InitContainers)].Name
}

// namesMessage is the kubelet's message for two lists of names, given as
// positions in spec: for each non-empty list, its prefix and the list as
// fmt's %s prints a []string ("[a b]"), the two joined by ", ". It
// allocates once (the message) for a message of up to 512 bytes, twice
// beyond.
func namesMessage(spec *v1.PodSpec, prefix1 string, set1 *posSet, prefix2 string, set2 *posSet) string {
	return namesMessageAs("", spec, prefix1, set1, prefix2, set2)
}

// prevMessage is the message of prev's condition t ("" with none).
func prevMessage(prev *v1.PodStatus, t v1.PodConditionType) string {
	if prev == nil {
		return ""
	}
	if c := find(prev.Conditions, t); c != nil {
		return c.Message
	}
	return ""
}

// namesMessageAs is namesMessage returning same, without an allocation,
// when the message is the same text (the previous status's message: it
// mostly repeats).
func namesMessageAs(same string, spec *v1.PodSpec, prefix1 string, set1 *posSet, prefix2 string, set2 *posSet) string {
	var arr [512]byte
	b := arr[:0]
	if !set1.empty() {
		b = appendNames(append(b, prefix1...), spec, set1)
	}
	if !set2.empty() {
		if !set1.empty() {
			b = append(b, ", "...)
		}
		b = appendNames(append(b, prefix2...), spec, set2)
	}
	if string(b) == same {
		return same
	}
	return string(b)
}

func appendNames(b []byte, spec *v1.PodSpec, set *posSet) []byte {
	b = append(b, '[')
	first := true
	sep := func() {
		if !first {
			b = append(b, ' ')
		}
		first = false
	}
	for w := set.bits; w != 0; w &= w - 1 {
		sep()
		b = append(b, name(spec, bits.TrailingZeros64(w))...)
	}
	for _, pos := range set.more {
		sep()
		b = append(b, name(spec, pos)...)
	}
	return append(b, ']')
}

// Ready returns the Ready condition. It mirrors GeneratePodReadyCondition
// in pkg/kubelet/status/generate.go: when ContainersReady (computed from the
// same inputs) is not True, Ready has its status, reason and message;
// otherwise each of spec.readinessGates, in order, is looked up in conds
// (the first condition of its type): a missing one gives the message
// `corresponding condition of pod readiness gate "T" does not exist.`, one
// that is not True gives `the status of pod readiness gate "T" is not
// "True", but S`; any such message makes Ready False with reason
// ReadinessGatesNotReady and the messages joined by ", ". Otherwise True.
func Ready(pod *v1.Pod, prev *v1.PodStatus, conds []v1.PodCondition, statuses []v1.ContainerStatus, phase v1.PodPhase, f features.Set) v1.PodCondition {
	if pod == nil {
		pod = &v1.Pod{}
	}
	return ready(pod, prev, conds, containersReady(pod, prev, statusLists{statuses}, phase, f), f)
}

// ready is Ready given the ContainersReady condition cr computed from the
// same inputs.
func ready(pod *v1.Pod, prev *v1.PodStatus, conds []v1.PodCondition, cr v1.PodCondition, f features.Set) v1.PodCondition {
	cond := v1.PodCondition{
		Type:               v1.PodReady,
		ObservedGeneration: observedGeneration(prev, pod.Generation, v1.PodReady, f),
	}
	if cr.Status != v1.ConditionTrue {
		cond.Status, cond.Reason, cond.Message = cr.Status, cr.Reason, cr.Message
		return cond
	}
	// The messages of the gates that are not ready, joined by ", ", built
	// in one allocation up to 512 bytes.
	var arr [512]byte
	msg := arr[:0]
	for _, g := range pod.Spec.ReadinessGates {
		c := find(conds, g.ConditionType)
		if c != nil && c.Status == v1.ConditionTrue {
			continue
		}
		if len(msg) > 0 {
			msg = append(msg, ", "...)
		}
		switch {
		case c == nil:
			msg = append(msg, "corresponding condition of pod readiness gate "...)
			msg = strconv.AppendQuote(msg, string(g.ConditionType))
			msg = append(msg, " does not exist."...)
		case c.Status != v1.ConditionTrue:
			msg = append(msg, "the status of pod readiness gate "...)
			msg = strconv.AppendQuote(msg, string(g.ConditionType))
			msg = append(msg, ` is not "True", but `...)
			msg = append(msg, c.Status...)
		}
	}
	if len(msg) > 0 {
		cond.Status = v1.ConditionFalse
		cond.Reason = ReasonReadinessGatesNotReady
		cond.Message = string(msg)
		return cond
	}
	cond.Status = v1.ConditionTrue
	return cond
}

// Initialized returns the Initialized condition. It mirrors
// GeneratePodInitializedCondition in pkg/kubelet/status/generate.go:
//
//  1. statuses nil and the pod has init containers: False,
//     UnknownContainerStatuses;
//  2. init containers in spec order: no status makes one unknown; a
//     sidecar not Started, or a regular init container not Ready, makes it
//     incomplete;
//  3. phase Succeeded with none unknown: True, PodCompleted;
//  4. a regular container whose status is running or terminated: True;
//  5. any unknown or incomplete: with gate
//     RestartAllContainersOnContainerExits, True when prev has
//     Initialized=True (a pod does not become uninitialized during an
//     in-place restart); else False, ContainersNotInitialized, with the
//     message "containers with unknown status: [a]" and/or "containers with
//     incomplete status: [b]", joined by ", ";
//  6. otherwise True.
func Initialized(pod *v1.Pod, prev *v1.PodStatus, statuses []v1.ContainerStatus, phase v1.PodPhase, f features.Set) v1.PodCondition {
	return initialized(pod, prev, statusLists{statuses}, phase, f)
}

func initialized(pod *v1.Pod, prev *v1.PodStatus, statuses statusLists, phase v1.PodPhase, f features.Set) v1.PodCondition {
	if pod == nil {
		pod = &v1.Pod{}
	}
	cond := v1.PodCondition{
		Type:               v1.PodInitialized,
		ObservedGeneration: observedGeneration(prev, pod.Generation, v1.PodInitialized, f),
		Status:             v1.ConditionTrue,
	}
	if statuses.isNil() && len(pod.Spec.InitContainers) > 0 {
		cond.Status, cond.Reason = v1.ConditionFalse, ReasonUnknownContainerStatuses
		return cond
	}
	var unknown, incomplete posSet
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		cs := statuses.lookup(c.Name)
		if cs == nil {
			unknown.add(i)
			continue
		}
		var done bool
		if restart.IsSidecar(c) {
			done = cs.Started != nil && *cs.Started
		} else {
			done = cs.Ready
		}
		if !done {
			incomplete.add(i)
		}
	}
	if phase == v1.PodSucceeded && unknown.empty() {
		cond.Reason = ReasonPodCompleted
		return cond
	}
	if anyRegularContainerStarted(&pod.Spec, statuses) {
		return cond
	}
	if !unknown.empty() || !incomplete.empty() {
		if f.Enabled(features.RestartAllContainersOnContainerExits) && prev != nil {
			for i := range prev.Conditions {
				if c := &prev.Conditions[i]; c.Type == v1.PodInitialized && c.Status == v1.ConditionTrue {
					return cond
				}
			}
		}
		cond.Status = v1.ConditionFalse
		cond.Reason = ReasonContainersNotInitialized
		cond.Message = namesMessageAs(prevMessage(prev, v1.PodInitialized), &pod.Spec, "containers with unknown status: ", &unknown, "containers with incomplete status: ", &incomplete)
	}
	return cond
}

// HasAnyRegularContainerStarted reports whether some status in statuses
// names a regular container of spec and is running or terminated. It mirrors
// HasAnyRegularContainerStarted in pkg/kubelet/container/helpers.go. A nil
// spec gives false. It reads API statuses; phase.HasAnyActiveRegularContainerStarted
// is the kubelet's other helper, over the runtime state's active sandbox
// (getPhase's podHasInitialized).
func HasAnyRegularContainerStarted(spec *v1.PodSpec, statuses []v1.ContainerStatus) bool {
	return anyRegularContainerStarted(spec, statusLists{statuses})
}

func anyRegularContainerStarted(spec *v1.PodSpec, statuses statusLists) bool {
	if spec == nil {
		return false
	}
	for _, list := range statuses {
		for i := range list {
			if list[i].State.Running == nil && list[i].State.Terminated == nil {
				continue
			}
			if names.ContainerIndex(spec.Containers, list[i].Name) >= 0 {
				return true
			}
		}
	}
	return false
}

// PodReadyToStartContainers returns the PodReadyToStartContainers
// condition. It mirrors GeneratePodReadyToStartContainersCondition in
// pkg/kubelet/status/generate.go: True when the kubelet would keep the
// pod's sandbox (runtimeutil.PodSandboxChanged says no change), otherwise
// False; from v1.37 on, with reason PodSandboxNotReady and the sandbox
// message ("no pod
// sandbox exists", "multiple pod sandboxes are ready and need to be
// reconciled", "pod sandbox is not ready", "network namespace mode changed
// and sandbox needs to be recreated", "pod sandbox has no IP address").
//
// It does not model Kubelet.OnPodSandboxReady, which writes True into the
// status manager's copy as soon as a new sandbox's network is ready. A nil
// st is a runtime with no sandbox.
func PodReadyToStartContainers(pod *v1.Pod, prev *v1.PodStatus, st *runtimestate.Pod, f features.Set) v1.PodCondition {
	if pod == nil {
		pod = &v1.Pod{}
	}
	cond := v1.PodCondition{
		Type:               v1.PodReadyToStartContainers,
		ObservedGeneration: observedGeneration(prev, pod.Generation, v1.PodReadyToStartContainers, f),
		Status:             v1.ConditionTrue,
	}
	if changed, msg := sandboxChanged(pod, st); changed {
		cond.Status = v1.ConditionFalse
		// The reason and message came with v1.37 (D22); before, False
		// had neither.
		if f.Version().Minor() >= 37 {
			cond.Reason, cond.Message = ReasonPodSandboxNotReady, msg
		}
	}
	return cond
}

// AllContainersRestarting returns the AllContainersRestarting condition.
// It mirrors GenerateAllContainersRestartingCondition in
// pkg/kubelet/status/generate.go: phase Succeeded gives False, PodCompleted;
// phase Failed gives False, PodFailed; otherwise True with reason
// RestartAllContainersStarted and the message "container exited with
// restart policy rule" when restart.ShouldAllContainersRestart and not
// restart.AllContainersRestartCleanedUp, False without a reason when not.
// It never sets observedGeneration.
//
// The kubelet function reads no gate and neither does this one: f is
// accepted for uniformity. Generate adds the condition only with gate
// RestartAllContainersOnContainerExits.
func AllContainersRestarting(pod *v1.Pod, st *runtimestate.Pod, prev *v1.PodStatus, phase v1.PodPhase, f features.Set) v1.PodCondition {
	_ = f
	cond := v1.PodCondition{Type: v1.AllContainersRestarting, Status: v1.ConditionFalse}
	switch phase {
	case v1.PodSucceeded:
		cond.Reason = ReasonPodCompleted
		return cond
	case v1.PodFailed:
		cond.Reason = ReasonPodFailed
		return cond
	}
	if !restart.ShouldAllContainersRestart(pod, st, prev) || restart.AllContainersRestartCleanedUp(pod, st) {
		return cond
	}
	cond.Status = v1.ConditionTrue
	cond.Reason = ReasonRestartAllContainersStarted
	cond.Message = MessageRestartAllContainersStarted
	return cond
}

// observedGeneration mirrors CalculatePodConditionObservedGeneration in
// pkg/api/v1/pod/util.go.
func observedGeneration(prev *v1.PodStatus, gen int64, t v1.PodConditionType, f features.Set) int64 {
	if prev == nil {
		return 0
	}
	if f.Enabled(features.PodObservedGenerationTracking) {
		return gen
	}
	for i := range prev.Conditions {
		if c := &prev.Conditions[i]; c.Type == t && c.ObservedGeneration != 0 {
			return gen
		}
	}
	return 0
}

// statusLists are container statuses the kubelet passes as one list (the
// init then the regular statuses), kept as the two lists they are in the
// pod status so that nothing is copied.
type statusLists [2][]v1.ContainerStatus

// isNil reports whether the kubelet's single list would be nil: the first
// list is nil and nothing is appended to it.
func (l statusLists) isNil() bool { return l[0] == nil && len(l[1]) == 0 }

// lookup returns the first status named name, or nil.
func (l statusLists) lookup(name string) *v1.ContainerStatus {
	return names.Lookup(l[0], l[1], name)
}

func index(conds []v1.PodCondition, t v1.PodConditionType) int {
	for i := range conds {
		if conds[i].Type == t {
			return i
		}
	}
	return -1
}

func find(conds []v1.PodCondition, t v1.PodConditionType) *v1.PodCondition {
	if i := index(conds, t); i >= 0 {
		return &conds[i]
	}
	return nil
}
