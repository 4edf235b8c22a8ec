package sim

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// The kubelet's admission of an in-place resize and the resize conditions,
// as modelled (paths under k8s.io/kubernetes/pkg/kubelet/):
//
//   - The pod manager holds the pod the API server answered the resize
//     with (the desired resources); the pod worker syncs the allocated pod
//     (allocation_manager.go UpdatePodFromAllocation): the desired pod with
//     the resources the allocation manager last admitted.
//   - A resize (kubelet.go HandlePodUpdates, recordResizeOperations) that
//     differs from the allocation is queued as pending and every pending
//     resize is retried at once (RetryPendingResizes); one that equals the
//     allocation (a resize reverted) clears PodResizePending.
//   - A retry (allocation_manager.go retryPendingResizes,
//     handlePodResourcesResize, canAdmitPod) admits the resize when the
//     resize handler (handlers.go Admit) and the predicate handler
//     (lifecycle/predicate.go Admit, the scheduler's fitsRequest) let it:
//     the pod's cpu and memory requests must fit in the node's allocatable
//     (Config.Allocatable) minus the requests of the node's other pods
//     (Action.OtherRequests). Admitted: the allocation is the desired
//     resources, PodResizePending is cleared and PodResizeInProgress set
//     afresh for the pod's generation. Refused: PodResizePending with
//     reason Infeasible when the handler said so, Deferred for every other
//     reason (OutOfcpu, OutOfmemory), the handler's message and the pod's
//     generation; a deferred resize stays queued, an infeasible one leaves
//     the queue. A retry syncs the pod when it admitted the resize or the
//     conditions changed (their probe time always does).
//   - Retries also come when the node's other pods release requests
//     (Action.OtherRequests lower than before: another pod reaching a
//     terminal phase or leaving the node, HandlePodReconcile and
//     HandlePodRemoves) and from the allocation manager's ticker
//     (allocation_manager.go Run), 3 minutes after the latest retry.
//   - SyncPod (kubelet.go) first sets PodResizeInProgress (kept with its
//     generation when already there) while an allocated resource of a
//     running container differs from the actuated one
//     (kuberuntime_manager.go IsPodResizeInProgress), and clears it
//     otherwise; a terminal pod clears both conditions
//     (determinePodResizeStatus). After an in-place resize the PLEG
//     inspects the pod again at its next relist (doPodResizeAction's
//     RequestPodReinspect), which syncs the pod (PodSync).
//   - The simulated runtime reports each container's Linux resources (set
//     at creation, changed by UpdateContainerResources), which the kubelet
//     reads back into containerStatuses[].resources
//     (kuberuntime_container_linux.go toKubeContainerResources; the memory
//     request from the actuated record); allocatedResources are the
//     allocated requests (apistatus).
//
// Not modelled: the node's pod count limit, swap, the cpu and memory
// managers' static policies, critical-pod preemption (none applies to a
// resize by default), the other pods' own resizes, and the retries other
// pods' updates cause (they also reset the ticker).

// DefaultAllocatable is the node allocatable a Config without one has: a
// machine of the kind the captures ran on (2 cores, MemTotal 24683548 kB),
// with the kubelet's defaults (no reserved cpu or memory; the hard
// eviction threshold memory.available 100Mi is subtracted from memory).
// The api-resize capture's kubelet reported cpu capacity 2000 (millicores)
// when it deferred a resize.
func DefaultAllocatable() v1.ResourceList {
	return v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("2"),
		v1.ResourceMemory: resource.MustParse("24581148Ki"),
	}
}

// allocatable is the node allocatable the simulation uses.
func (c Config) allocatable() v1.ResourceList {
	if c.Allocatable != nil {
		return c.Allocatable
	}
	return DefaultAllocatable()
}

// ResizeConditions are the resize conditions the kubelet's status manager
// holds for a pod (status/status_manager.go podResizeConditions), written
// into every status the kubelet generates, PodResizePending first. A
// condition is never changed in place: a change makes a new one.
type ResizeConditions struct {
	Pending    *v1.PodCondition `json:"pending,omitempty"`
	InProgress *v1.PodCondition `json:"inProgress,omitempty"`
}

// list is GetPodResizeConditions.
func (r ResizeConditions) list() []v1.PodCondition {
	var out []v1.PodCondition
	if r.Pending != nil {
		out = append(out, *r.Pending)
	}
	if r.InProgress != nil {
		out = append(out, *r.InProgress)
	}
	return out
}

// resizeCondition is updatedPodResizeCondition: status True, probed now,
// the transition time kept while the reason stays.
func resizeCondition(t v1.PodConditionType, old *v1.PodCondition, reason, message string, gen int64, now time.Time) *v1.PodCondition {
	ts := metav1.NewTime(now)
	ltt := ts
	if old != nil && old.Reason == reason {
		ltt = old.LastTransitionTime
	}
	return &v1.PodCondition{Type: t, Status: v1.ConditionTrue, LastProbeTime: ts, LastTransitionTime: ltt,
		ObservedGeneration: gen, Reason: reason, Message: message}
}

// setPending is SetPodResizePendingCondition: every reason but Infeasible
// becomes Deferred. It reports whether the reason or the generation
// changed (or the condition is new).
func (r *ResizeConditions) setPending(reason, message string, gen int64, now time.Time) bool {
	if reason != v1.PodReasonInfeasible {
		reason = v1.PodReasonDeferred
	}
	prev := r.Pending
	r.Pending = resizeCondition(v1.PodResizePending, prev, reason, message, gen, now)
	return prev == nil || prev.Reason != reason || prev.ObservedGeneration != gen
}

// setInProgress is SetPodResizeInProgressCondition: an existing condition
// keeps its generation, and its reason and message unless new ones are
// given.
func (r *ResizeConditions) setInProgress(reason, message string, gen int64, now time.Time) {
	if c := r.InProgress; c != nil {
		if reason == "" && message == "" {
			reason, message = c.Reason, c.Message
		}
		gen = c.ObservedGeneration
	}
	r.InProgress = resizeCondition(v1.PodResizeInProgress, r.InProgress, reason, message, gen, now)
}

// resizeProgress is SyncPod's first step with gate InPlacePodVerticalScaling:
// PodResizeInProgress set while a resize is in progress, cleared when not.
func (s *syncer) resizeProgress() {
	f := s.in.Kubelet.Features
	if !f.Enabled(features.InPlacePodVerticalScaling) {
		return
	}
	m := &s.out.Memory
	act := m.Actuated
	// An empty record is filled from the pod before the actions are
	// computed (initActuated). For a pod whose sandbox the runtime shows,
	// the kubelet had written that record as it went: it equals what it
	// is compared with, so no resize is in progress. At a pod's first
	// sync the kubelet has nothing recorded yet (the pod cgroup and its
	// record come later in SyncPod): no container runs, no volume limit is
	// recorded, and only v1.35's pod-level check, which takes a missing
	// record as no resources, can find a resize (podLevelInProgress with no record).
	inProgress := false
	if len(act.Containers) > 0 || act.Pod != nil || len(act.EmptyDirLimits) > 0 {
		inProgress = resizeInProgress(s.pod, s.in.Runtime, act, f)
	} else if st := s.in.Runtime; st == nil || len(st.Sandboxes) == 0 {
		inProgress = podLevelInProgress(s.pod, nil, f)
	}
	if inProgress {
		m.Resize.setInProgress("", "", s.pod.Generation, s.now())
	} else {
		m.Resize.InProgress = nil
	}
}

// resizeInProgress is IsPodResizeInProgress (kuberuntime_manager.go) for
// container resources, pod-level resources and memory-backed emptyDir
// limits: a running resizable container (a regular container or a
// sidecar; a regular init container with gate
// InPlacePodVerticalScalingInitContainers) whose allocated cpu or memory
// request or limit differs from the actuated one (with gate
// InPlacePodLevelResourcesVerticalScaling, a limit the container lacks is
// the pod-level one: withPodLimits); with gate
// InPlacePodLevelResourcesVerticalScaling, pod-level resources that differ
// from the actuated ones, whether or not a container runs
// (podLevelInProgress); with gate
// InPlacePodVerticalScalingMemoryBackedVolumes, an emptyDir limit that
// differs from an actuated one.
func resizeInProgress(pod *v1.Pod, st *runtimestate.Pod, act podactions.Actuated, f features.Set) bool {
	check := func(c *v1.Container) bool {
		n := st.Newest(c.Name)
		if n == nil || n.State != runtimestate.Running {
			return false
		}
		a := act.Containers[c.Name]
		want := withPodLimits(c.Resources, pod.Spec.Resources, f)
		for _, rn := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
			if !quantityEqual(want.Requests, a.Requests, rn) || !quantityEqual(want.Limits, a.Limits, rn) {
				return true
			}
		}
		return false
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if (restart.IsSidecar(c) || f.Enabled(features.InPlacePodVerticalScalingInitContainers)) && check(c) {
			return true
		}
	}
	for i := range pod.Spec.Containers {
		if check(&pod.Spec.Containers[i]) {
			return true
		}
	}
	if f.Enabled(features.InPlacePodVerticalScalingMemoryBackedVolumes) {
		for _, v := range pod.Spec.Volumes {
			if v.EmptyDir == nil || v.EmptyDir.Medium != v1.StorageMediumMemory || v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.IsZero() {
				continue
			}
			if a, ok := act.EmptyDirLimits[v.Name]; ok && !v.EmptyDir.SizeLimit.Equal(a) {
				return true
			}
		}
	}
	return podLevelInProgress(pod, act.Pod, f)
}

// podLevelInProgress is isPodLevelResourcesResizeInProgress
// (kuberuntime_manager.go:2421 in v1.37.2, :2224 in v1.36.3, :2140 in
// v1.35.4): with gate InPlacePodLevelResourcesVerticalScaling, a pod with
// spec.resources whose cpu or memory request or limit differs from the
// actuated pod-level record, a running container or not. A missing record
// (actuated nil) is no resize from v1.36 on; v1.35 compares it as no
// resources, so there a pod with pod-level cpu or memory is in progress at
// its first sync, before the pod cgroup and its record exist, and the next
// sync clears it.
func podLevelInProgress(pod *v1.Pod, actuated *v1.ResourceRequirements, f features.Set) bool {
	if !f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) || pod.Spec.Resources == nil {
		return false
	}
	if actuated == nil {
		if f.Version().Minor() >= 36 {
			return false
		}
		actuated = &v1.ResourceRequirements{}
	}
	for _, rn := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		if !quantityEqual(pod.Spec.Resources.Requests, actuated.Requests, rn) || !quantityEqual(pod.Spec.Resources.Limits, actuated.Limits, rn) {
			return true
		}
	}
	return false
}

// quantityEqual compares one resource of two lists (absent: zero), as
// resource.Quantity.Equal does.
func quantityEqual(a, b v1.ResourceList, rn v1.ResourceName) bool {
	x, y := a[rn], b[rn]
	return x.Equal(y)
}

// admitResize is the allocation manager's canAdmitPod for a resize
// (lifecycle.ResizeOperation) of desired over allocated, on a node with
// allocatable where the other pods request other: the resize handler
// (handlers.go Admit: the gates InPlacePodVerticalScaling,
// InPlacePodLevelResourcesVerticalScaling for a pod-level change and
// InPlacePodVerticalScalingMemoryBackedVolumes for an emptyDir limit
// change; each refusal Infeasible), then the predicate handler's resource
// fit (lifecycle/predicate.go Admit, scheduler noderesources
// fitsRequest): cpu first, then memory, the first shortfall as the reason
// (OutOfcpu, OutOfmemory) with the InsufficientResourceError message.
func admitResize(desired, allocated *v1.Pod, other, allocatable v1.ResourceList, f features.Set) (ok bool, reason, message string) {
	if !f.Enabled(features.InPlacePodVerticalScaling) {
		return false, v1.PodReasonInfeasible, "InPlacePodVerticalScaling is disabled"
	}
	if !equality.Semantic.DeepEqual(desired.Spec.Resources, allocated.Spec.Resources) && !f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) {
		return false, v1.PodReasonInfeasible, "InPlacePodLevelResourcesVerticalScaling is disabled"
	}
	if emptyDirLimitChanged(allocated, desired) && !f.Enabled(features.InPlacePodVerticalScalingMemoryBackedVolumes) {
		return false, v1.PodReasonInfeasible, "Memory-backed emptyDir volume resize is disabled"
	}
	req := podstatus.PodRequests(desired, f)
	for _, r := range []struct {
		name   v1.ResourceName
		reason string
		value  func(q resource.Quantity) int64
	}{
		{v1.ResourceCPU, "OutOfcpu", func(q resource.Quantity) int64 { return q.MilliValue() }},
		{v1.ResourceMemory, "OutOfmemory", func(q resource.Quantity) int64 { return q.Value() }},
	} {
		want, used, capacity := r.value(req[r.name]), r.value(other[r.name]), r.value(allocatable[r.name])
		if want > 0 && want > capacity-used {
			return false, r.reason, fmt.Sprintf("Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d", r.name, want, used, capacity)
		}
	}
	return true, "", ""
}

// emptyDirLimitChanged is IsMemoryBackedVolumeResizeRequested: a
// memory-backed emptyDir with a size limit in allocated whose limit
// differs in desired (volumes compared by position).
func emptyDirLimitChanged(allocated, desired *v1.Pod) bool {
	if len(allocated.Spec.Volumes) != len(desired.Spec.Volumes) {
		return false
	}
	for i, v := range allocated.Spec.Volumes {
		if v.EmptyDir == nil || v.EmptyDir.Medium != v1.StorageMediumMemory || v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.IsZero() {
			continue
		}
		d := desired.Spec.Volumes[i].EmptyDir
		if d == nil || !equality.Semantic.DeepEqual(v.EmptyDir.SizeLimit, d.SizeLimit) {
			return true
		}
	}
	return false
}

// allocation is the allocation manager's record of one pod: the resources
// of its resizable containers, its pod-level resources and its
// memory-backed emptyDir limits at which it was admitted or last resized
// (ResourceInfoForPod).
type allocation struct {
	containers map[string]v1.ResourceRequirements
	pod        *v1.ResourceRequirements
	emptyDirs  map[string]resource.Quantity
}

// allocationOf is ResourceInfoForPod.
func allocationOf(pod *v1.Pod, f features.Set) *allocation {
	a := &allocation{containers: map[string]v1.ResourceRequirements{}}
	if f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) && pod.Spec.Resources != nil {
		a.pod = pod.Spec.Resources.DeepCopy()
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if restart.IsSidecar(c) || f.Enabled(features.InPlacePodVerticalScalingInitContainers) {
			a.containers[c.Name] = *c.Resources.DeepCopy()
		}
	}
	for i := range pod.Spec.Containers {
		a.containers[pod.Spec.Containers[i].Name] = *pod.Spec.Containers[i].Resources.DeepCopy()
	}
	if f.Enabled(features.InPlacePodVerticalScalingMemoryBackedVolumes) {
		for _, v := range pod.Spec.Volumes {
			if v.EmptyDir != nil && v.EmptyDir.Medium == v1.StorageMediumMemory && v.EmptyDir.SizeLimit != nil && !v.EmptyDir.SizeLimit.IsZero() {
				if a.emptyDirs == nil {
					a.emptyDirs = map[string]resource.Quantity{}
				}
				a.emptyDirs[v.Name] = v.EmptyDir.SizeLimit.DeepCopy()
			}
		}
	}
	return a
}

// apply is UpdatePodFromAllocation: pod with the allocated resources (a
// copy when something differs), and whether something did.
func (a *allocation) apply(pod *v1.Pod) (*v1.Pod, bool) {
	if a == nil {
		return pod, false
	}
	var out *v1.Pod
	own := func() *v1.Pod {
		if out == nil {
			out = pod.DeepCopy()
		}
		return out
	}
	for li, l := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range l {
			r, ok := a.containers[l[i].Name]
			if !ok || requirementsSame(r, l[i].Resources) {
				continue
			}
			if li == 0 {
				own().Spec.InitContainers[i].Resources = *r.DeepCopy()
			} else {
				own().Spec.Containers[i].Resources = *r.DeepCopy()
			}
		}
	}
	if a.pod != nil && !equality.Semantic.DeepEqual(a.pod, pod.Spec.Resources) {
		own().Spec.Resources = a.pod.DeepCopy()
	}
	for i, v := range pod.Spec.Volumes {
		if l, ok := a.emptyDirs[v.Name]; ok && v.EmptyDir != nil && (v.EmptyDir.SizeLimit == nil || !v.EmptyDir.SizeLimit.Equal(l)) {
			l := l.DeepCopy()
			own().Spec.Volumes[i].EmptyDir.SizeLimit = &l
		}
	}
	if out == nil {
		return pod, false
	}
	return out, true
}

// resizeState is the allocation manager's part of one pod's simulation.
type resizeState struct {
	alloc *allocation // nil until the pod is admitted
	// synced caches alloc.apply(p.pod), the pod the worker syncs, for
	// the pod it was made from.
	synced, from *v1.Pod
	pending      bool            // in podsWithPendingResizes
	other        v1.ResourceList // the node's other pods' requests
	tick         time.Time       // the retry ticker's next tick
}

// allocatedPod is the pod the pod worker syncs: the pod manager's with the
// allocated resources.
func (p *podSim) allocatedPod() *v1.Pod {
	rz := &p.rz
	if rz.from != p.pod || rz.synced == nil {
		rz.synced, _ = rz.alloc.apply(p.pod)
		rz.from = p.pod
	}
	return rz.synced
}

// admitPod records the allocation of a pod the kubelet admits
// (allocation_manager.go AddPod, SetAllocatedResources).
func (p *podSim) admitPod() {
	if p.rz.alloc == nil {
		p.rz.alloc = allocationOf(p.pod, p.node.cfg.Kubelet.Features)
		p.rz.synced = nil
	}
}

// resized is HandlePodUpdates' resize step for the pod manager's new pod
// (p.pod) after old.
func (p *podSim) resized(old *v1.Pod) {
	f := p.node.cfg.Kubelet.Features
	if !f.Enabled(features.InPlacePodVerticalScaling) || p.rz.alloc == nil || !resourcesDiffer(old, p.pod) {
		return
	}
	if _, differs := p.rz.alloc.apply(p.pod); differs {
		p.rz.pending = true
		// The sync the retry asks for and the update that follows
		// (HandlePodUpdates' UpdatePod) reach the worker together: one
		// sync (pod_workers.go UpdatePod merges them).
		p.retryResizes("pod_updated")
		return
	}
	// A resize reverted before it was admitted.
	p.mem.Resize.Pending = nil
}

// resourcesDiffer is recordResizeOperations: a container's cpu or memory
// request or limit, the pod-level resources or an emptyDir limit changed.
func resourcesDiffer(old, pod *v1.Pod) bool {
	if old == nil {
		return false
	}
	byName := map[string]v1.ResourceRequirements{}
	for _, l := range [][]v1.Container{old.Spec.InitContainers, old.Spec.Containers} {
		for _, c := range l {
			byName[c.Name] = c.Resources
		}
	}
	for _, l := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range l {
			o, ok := byName[c.Name]
			if !ok {
				continue
			}
			for _, rn := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
				if !quantityEqual(o.Requests, c.Resources.Requests, rn) || !quantityEqual(o.Limits, c.Resources.Limits, rn) {
					return true
				}
			}
		}
	}
	return !equality.Semantic.DeepEqual(old.Spec.Resources, pod.Spec.Resources) || emptyDirLimitChanged(old, pod)
}

// retryResizes is retryPendingResizes for this pod; trigger names what
// caused it (logged). The pod sync it asks for (syncPodNow) is an update
// the worker takes at once, unless the trigger is the pod's own update,
// which its caller delivers next.
func (p *podSim) retryResizes(trigger string) {
	if p.retryResizesQuiet(trigger) && trigger != "pod_updated" {
		p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
	}
}

// retryResizesQuiet is retryResizes without the sync; it reports whether
// the pod is to be synced.
func (p *podSim) retryResizesQuiet(trigger string) bool {
	now := p.loop.Now
	p.rz.tick = now.Add(resizeRetryDelay)
	if !p.rz.pending || p.forgotten {
		return false
	}
	p.scheduleResizeTick()
	f := p.node.cfg.Kubelet.Features
	old := p.mem.Resize
	allocated := false
	if _, differs := p.rz.alloc.apply(p.pod); !differs {
		p.mem.Resize.Pending = nil
		p.rz.pending = false
	} else {
		cur, _ := p.rz.alloc.apply(p.pod)
		ok, reason, message := admitResize(p.pod, cur, p.rz.other, p.node.cfg.allocatable(), f)
		if ok {
			p.rz.alloc = allocationOf(p.pod, f)
			p.rz.synced = nil
			p.mem.Resize.Pending = nil
			p.mem.Resize.InProgress = nil
			p.mem.Resize.setInProgress("", "", p.pod.Generation, now)
			p.rz.pending = false
			allocated = true
			p.log(KindAction, now, fmt.Sprintf("resize admitted (%s): generation %d allocated", trigger, p.pod.Generation))
		} else {
			p.mem.Resize.setPending(reason, message, p.pod.Generation, now)
			if p.mem.Resize.Pending.Reason == v1.PodReasonInfeasible {
				p.rz.pending = false
			}
			p.log(KindAction, now, fmt.Sprintf("resize %s (%s): %s: %s", p.mem.Resize.Pending.Reason, trigger, reason, message))
		}
	}
	return allocated || !equality.Semantic.DeepEqual(old.list(), p.mem.Resize.list())
}

// resizeRetryDelay is the allocation manager's ticker period after a retry
// (retryDelay; every retry resets the ticker to it).
const resizeRetryDelay = 3 * time.Minute

// scheduleResizeTick arranges the periodic retry of a pending resize.
func (p *podSim) scheduleResizeTick() {
	t := p.rz.tick
	p.at(t, func() {
		if !p.rz.pending || !p.rz.tick.Equal(t) {
			return
		}
		p.retryResizes("periodic_retry")
	})
}

// otherRequests is Action.OtherRequests: the node's other pods now request
// r; a fall retries the pending resizes (another pod terminal or gone:
// HandlePodReconcile, HandlePodRemoves).
func (p *podSim) otherRequests(r v1.ResourceList) {
	prev := p.rz.other
	p.rz.other = r.DeepCopy()
	fell := false
	for _, rn := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		a, b := prev[rn], r[rn]
		if b.Cmp(a) < 0 {
			fell = true
		}
	}
	if fell && p.rz.pending {
		p.retryResizes("pods_removed")
	}
}

// resizesAfterRestart is what a new kubelet process does for the pod's
// resize after receiving it again (kubelet.go HandlePodAdditions): the
// status manager takes the resize conditions back from the API status
// (BackfillPodResizeConditions), and a resize still differing from the
// allocation (a checkpoint that survives the restart) is queued and
// retried.
func (p *podSim) resizesAfterRestart() {
	now := p.loop.Now
	if p.api != nil {
		for _, c := range p.api.Conditions {
			switch c.Type {
			case v1.PodResizePending:
				p.mem.Resize.Pending = resizeCondition(c.Type, nil, c.Reason, c.Message, c.ObservedGeneration, now)
			case v1.PodResizeInProgress:
				p.mem.Resize.InProgress = resizeCondition(c.Type, nil, c.Reason, c.Message, c.ObservedGeneration, now)
			}
		}
	}
	if _, differs := p.rz.alloc.apply(p.pod); differs && p.node.cfg.Kubelet.Features.Enabled(features.InPlacePodVerticalScaling) {
		p.rz.pending = true
		p.retryResizes("pods_added")
	}
}

// reportedResources are an instance's Linux resources as the kubelet
// reads them back from the runtime's ContainerStatus
// (kuberuntime_container_linux.go toKubeContainerResources; cm
// SharesToMilliCPU, QuotaToMilliCPU), with the memory request, which the
// runtime does not report, from the actuated record (a zero one left out).
func reportedResources(lr ContainerResources, memoryRequest resource.Quantity) *runtimestate.Resources {
	out := &runtimestate.Resources{}
	if lr.CPUPeriod > 0 {
		if m := lr.CPUQuota * 1000 / lr.CPUPeriod; m > 0 {
			out.CPULimit = resource.NewMilliQuantity(m, resource.DecimalSI)
		}
	}
	if lr.CPUShares >= minShares {
		if m := (lr.CPUShares*1000 + sharesPerCPU - 1) / sharesPerCPU; m > 0 {
			out.CPURequest = resource.NewMilliQuantity(m, resource.DecimalSI)
		}
	}
	if lr.MemoryLimitInBytes > 0 {
		out.MemoryLimit = resource.NewQuantity(lr.MemoryLimitInBytes, resource.BinarySI)
	}
	if !memoryRequest.IsZero() {
		q := memoryRequest.DeepCopy()
		out.MemoryRequest = &q
	}
	return out
}

// memoryRequest is the memory request of container name in pod (zero when
// none).
func memoryRequest(pod *v1.Pod, name string) resource.Quantity {
	if c := containerByName(pod, name); c != nil {
		return c.Resources.Requests[v1.ResourceMemory]
	}
	return resource.Quantity{}
}

// resourceWords says a cpu and memory list: "cpu=1500m,memory=16Mi"
// ("nothing" when empty).
func resourceWords(l v1.ResourceList) string {
	var parts []string
	for _, rn := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		if q, ok := l[rn]; ok {
			parts = append(parts, fmt.Sprintf("%s=%s", rn, q.String()))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ",")
}

// requirementsSame compares two container resource requirements as
// equality.Semantic does, without its allocations (apply runs after
// every status write).
func requirementsSame(a, b v1.ResourceRequirements) bool {
	if len(a.Claims) > 0 || len(b.Claims) > 0 {
		return equality.Semantic.DeepEqual(a, b)
	}
	return listSame(a.Requests, b.Requests) && listSame(a.Limits, b.Limits)
}

func listSame(a, b v1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok || x.Cmp(y) != 0 {
			return false
		}
	}
	return true
}
