package sim

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/validation"
)

// In-place resize, as modelled.
//
// Action.Resize changes the containers' cpu and memory requests and
// limits, Action.ResizePod the pod-level ones (spec.resources), as
// `kubectl patch pod --subresource resize` does; the API server refuses
// what ValidatePodResize and the PodResizeValidator refuse (resizedPod)
// and bumps the pod's generation once per resize.
// The kubelet's allocation manager admits the resize or defers it
// (allocation.go); SyncPod then decides through podactions.Compute,
// against the resources the kubelet last actuated (Memory.Actuated): a
// container whose resizePolicy says RestartContainer for a changed
// resource is killed and started again; otherwise each changed container
// gets UpdateContainerResources calls, memory first, then cpu
// (doPodResizeAction, updatePodContainerResources), and the actuated
// record follows each call. With pod-level resources (gate
// InPlacePodLevelResourcesVerticalScaling), a container without a cpu or
// memory limit of its own takes the pod-level one (GetLimits), so a
// pod-level limit change resizes or restarts it. The actuated pod-level
// record follows the allocated pod-level cpu and memory, per resource, as
// each version writes it (see resize): v1.36 and v1.37 whenever Compute
// resized the pod level; v1.35 only after a pod cgroup write of that
// resource, so a pod-level change that writes nothing (a memory request
// alone) is never recorded and the resize stays in progress.
//
// Not modelled: UpdatePodSandboxResources and the pod cgroup writes as
// calls (for container and pod-level resizes alike: no call in the
// timeline, no pod-level status.resources; their values are computed only
// to decide v1.35's record, podCgroupOf), the memory-usage check before a memory
// limit decrease, failed resizes, adding pod-level resources to a pod
// without them, and the API server's defaulting of pod-level values a
// resize leaves out (PodLevelResourcesFixDefaulting, v1.37).

// ContainerResources are the Linux resources an UpdateContainerResources
// call sets (the CRI's LinuxContainerResources, the fields a resize
// changes), as the kubelet computes them (kuberuntime_container_linux.go
// calculateLinuxResources): cpu shares from the cpu request, the CFS quota
// from the cpu limit over a 100 ms period (0: no limit), the memory limit
// in bytes (0: none).
type ContainerResources struct {
	CPUShares          int64 `json:"cpuShares"`
	CPUQuota           int64 `json:"cpuQuota"`
	CPUPeriod          int64 `json:"cpuPeriod"`
	MemoryLimitInBytes int64 `json:"memoryLimitInBytes"`
}

func (r ContainerResources) String() string {
	mem := "none"
	if r.MemoryLimitInBytes > 0 {
		mem = resource.NewQuantity(r.MemoryLimitInBytes, resource.BinarySI).String()
	}
	quota := "none"
	if r.CPUQuota > 0 {
		quota = fmt.Sprintf("%d/%d", r.CPUQuota, r.CPUPeriod)
	}
	return fmt.Sprintf("cpu shares %d, cpu quota %s, memory limit %s", r.CPUShares, quota, mem)
}

// The kubelet's cgroup constants (pkg/kubelet/cm/helpers_linux.go).
const (
	minShares      = 2
	maxShares      = 262144
	sharesPerCPU   = 1024
	quotaPeriod    = 100000
	minQuotaPeriod = 1000
)

// linuxResources are the values the kubelet sets for cpu request and
// limit in millicores and a memory limit in bytes (MilliCPUToShares,
// MilliCPUToQuota).
func linuxResources(cpuRequest, cpuLimit, memoryLimit int64) ContainerResources {
	shares := cpuRequest * sharesPerCPU / 1000
	if shares < minShares {
		shares = minShares
	}
	if shares > maxShares {
		shares = maxShares
	}
	var quota int64
	if cpuLimit != 0 {
		quota = max(cpuLimit*quotaPeriod/1000, minQuotaPeriod)
	}
	return ContainerResources{CPUShares: shares, CPUQuota: quota, CPUPeriod: quotaPeriod, MemoryLimitInBytes: max(memoryLimit, 0)}
}

// requirements is the container resources updatePodContainerResources
// builds for one call (and the kubelet then records as actuated).
func requirements(r podactions.Resources) v1.ResourceRequirements {
	return v1.ResourceRequirements{
		Limits: v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(r.CPULimit, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(r.MemoryLimit, resource.BinarySI),
		},
		Requests: v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(r.CPURequest, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(r.MemoryRequest, resource.BinarySI),
		},
	}
}

// resize is doPodResizeAction's container part: for memory, then cpu, one
// UpdateContainerResources call per container to update, setting the new
// values of that resource and the current ones of the other; each call
// updates the actuated record. The emptyDir limits follow the spec when
// Compute resized them. The actuated pod-level record gets, per resource
// (recordPodLevel: its request and limit from the allocated pod level),
// what each version writes:
//
//   - v1.36 and v1.37: when Compute resized the pod level (gate
//     InPlacePodLevelResourcesVerticalScaling), memory and cpu, each once
//     its step is done, whether or not the pod cgroup changed (v1.36.3
//     kuberuntime_manager.go:999-1000, v1.37.2 :1084-1085).
//   - v1.35 (gate on): a resource each time the pod cgroup is written for
//     it, whether Compute resized the pod level or only containers
//     (v1.35.4 :902-903, inside setPodCgroupConfig after the write): the
//     memory limit when it changes (no memory request is written: :886,
//     :962), the cpu quota or shares when they change (:918-:943), as
//     ResourceConfigForPod computes them (podCgroupOf) for the allocated
//     pod and for the pod as last actuated (actuatedPod).
func (s *syncer) resize(acts podactions.Actions) {
	m := &s.out.Memory
	volumes := len(acts.VolumesToUpsize)+len(acts.VolumesToDownsize) > 0
	if len(acts.MemoryUpdates)+len(acts.CPUUpdates) == 0 && !acts.UpdatePodResources && !acts.UpdatePodLevelResources && !volumes {
		return
	}
	// doPodResizeAction asks the PLEG to inspect the pod again (its
	// deferred RequestPodReinspect), and its result is a sync result, so
	// the kubelet relists the pod right after the sync.
	s.out.Reinspect = true
	s.out.ActedOnRuntime = true
	f := s.in.Kubelet.Features
	podLevelGate := f.Enabled(features.InPlacePodLevelResourcesVerticalScaling)
	// Before v1.36 the pod-level record follows the pod cgroup writes, so
	// the cgroup as it is (taken from the records: actuatedPod) and as the
	// allocated pod wants it are compared first, as doPodResizeAction reads
	// the cgroup before any step.
	var cgNow, cgWant podCgroup
	writesRecord := podLevelGate && f.Version().Minor() < 36 && s.pod.Spec.Resources != nil
	if writesRecord {
		cgNow, cgWant = podCgroupOf(actuatedPod(s.pod, m.Actuated), f), podCgroupOf(s.pod, f)
	}
	// One current value per container, shared by its memory and cpu
	// updates, as the kubelet's containerToUpdateInfo is.
	current := map[string]podactions.Resources{}
	for _, step := range []struct {
		memory  bool
		updates []podactions.Update
	}{{true, acts.MemoryUpdates}, {false, acts.CPUUpdates}} {
		if len(step.updates) == 0 && !acts.UpdatePodResources && !acts.UpdatePodLevelResources {
			continue
		}
		rn := v1.ResourceCPU
		if step.memory {
			rn = v1.ResourceMemory
		}
		// resizeContainers for rn: the pod cgroup writes around the
		// container updates (only their effect on the record is modelled).
		switch {
		case writesRecord:
			// v1.35: a pod cgroup write of rn records rn (setPodCgroupConfig,
			// v1.35.4 kuberuntime_manager.go:873, records at :902-903 after
			// the write at :891). resizeContainers (:915) writes the limit
			// when it changes (:918, :943) and the request when it changes
			// (:924, :937); for memory it passes no request (:962: 0 and 0)
			// and setPodCgroupConfig writes no memory request (:886). So a
			// pod-level change that leaves rn's cgroup values as they are
			// (a memory request alone, a cpu request within the same
			// shares) is never recorded, and the resize stays in progress.
			if cgroupWrites(cgNow, cgWant, step.memory) {
				recordPodLevel(&m.Actuated, s.pod, rn)
			}
		case podLevelGate && acts.UpdatePodLevelResources && f.Version().Minor() >= 36:
			// v1.36 and v1.37: once rn's step is done, with a pod-level
			// resize to do, rn is recorded whatever was written (v1.36.3
			// kuberuntime_manager.go:999-1000, v1.37.2 :1084-1085, at the
			// end of resizeContainers); both steps run for a pod-level
			// resize (v1.36.3 :1011 and :1022, v1.37.2 :1105 and :1126).
			// The record is the same before or after the container
			// updates of the step, so it is written before them here.
			recordPodLevel(&m.Actuated, s.pod, rn)
		}
		for _, u := range step.updates {
			cur, ok := current[u.Name]
			if !ok {
				cur = u.Current
			}
			if step.memory {
				cur.MemoryLimit, cur.MemoryRequest = u.Desired.MemoryLimit, u.Desired.MemoryRequest
			} else {
				cur.CPULimit, cur.CPURequest = u.Desired.CPULimit, u.Desired.CPURequest
			}
			current[u.Name] = cur
			lr := linuxResources(cur.CPURequest, cur.CPULimit, cur.MemoryLimit)
			s.call(Call{Method: "UpdateContainerResources", Name: u.Name, ID: u.ID, Resources: &lr}, s.in.Delays.UpdateContainerResources.D())
			m.Actuated.Containers[u.Name] = requirements(cur)
		}
	}
	for _, name := range append(append([]string{}, acts.VolumesToUpsize...), acts.VolumesToDownsize...) {
		for _, v := range s.pod.Spec.Volumes {
			if v.Name == name && v.EmptyDir != nil && v.EmptyDir.SizeLimit != nil {
				if m.Actuated.EmptyDirLimits == nil {
					m.Actuated.EmptyDirLimits = map[string]resource.Quantity{}
				}
				m.Actuated.EmptyDirLimits[name] = v.EmptyDir.SizeLimit.DeepCopy()
			}
		}
	}
}

// resizedPod returns pod with the resize applied: for each named container
// (a regular container or a sidecar), each request and limit given
// replaces the container's own; with podLevel, each pod-level request and
// limit given replaces the pod's own (spec.resources); the others are
// kept. It returns an error for what the API server rejects: a name that
// is no such container, an init container that is not a sidecar, a
// resource other than cpu and memory, a pod-level resize of a pod without
// pod-level resources (see podLevelResize), any resize of a pod with
// pod-level resources while gate InPlacePodLevelResourcesVerticalScaling
// is off, a change of the pod's QoS class, resources the pod's validation
// rejects, pod-level requests below the containers' aggregate requests,
// or requests above the node's allocatable (the PodResizeValidator
// admission plugin, plugin/pkg/admission/podresize
// validateRequestsWithinAllocatable).
// cgroupWrites reports whether doPodResizeAction writes the pod cgroup's
// memory (memory) or cpu values going from now to want: a memory limit
// that is set and differs; cpu shares that differ, or a quota that is set
// and differs.
func cgroupWrites(now, want podCgroup, memory bool) bool {
	if memory {
		return want.memorySet && (!now.memorySet || want.memory != now.memory)
	}
	return want.shares != now.shares || want.quotaSet && (!now.quotaSet || want.quota != now.quota)
}

// PodLevelRecorded reports whether the kubelet records rn's (cpu or
// memory) new pod-level values as actuated when it resizes a running pod
// in place from old (the pod as its resources were actuated) to pod (as
// allocated), with gate InPlacePodLevelResourcesVerticalScaling: from
// v1.36 on, always, at the end of rn's step of doPodResizeAction; on v1.35
// only when that step writes rn to the pod cgroup (see resize), so a
// pod-level memory request change alone, or a cpu request change within
// the same cpu shares, is never recorded, and PodResizeInProgress stays
// (podLevelInProgress). False with the gate off, or for a pod without
// pod-level resources.
func PodLevelRecorded(old, pod *v1.Pod, rn v1.ResourceName, f features.Set) bool {
	if old == nil || pod == nil || pod.Spec.Resources == nil || !f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) {
		return false
	}
	if f.Version().Minor() >= 36 {
		return true
	}
	return cgroupWrites(podCgroupOf(old, f), podCgroupOf(pod, f), rn == v1.ResourceMemory)
}

func resizedPod(pod *v1.Pod, r map[string]v1.ResourceRequirements, podLevel *v1.ResourceRequirements, f features.Set, allocatable v1.ResourceList) (*v1.Pod, error) {
	out := pod.DeepCopy()
	names := make([]string, 0, len(r))
	for name := range r {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) == 0 && podLevel == nil {
		return nil, fmt.Errorf("resize: no container named")
	}
	// ValidatePodResize (pkg/apis/core/validation/validation.go:6497,
	// v1.37.2): a static pod's API object, its mirror pod, cannot be
	// resized, and there is no other way to resize a static pod in place.
	if phase.IsStaticPod(pod) {
		return nil, fmt.Errorf("resize: a static pod cannot be resized (the API server forbids resizing its mirror pod); change its manifest instead, which replaces the pod")
	}
	// ValidatePodResize (pkg/apis/core/validation/validation.go:6526,
	// v1.37.2): with the gate off, a pod that has pod-level resources
	// cannot be resized at all, its containers included.
	if podLevelSet(pod.Spec.Resources) && !f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) {
		return nil, fmt.Errorf("resize: the pod has pod-level resources (spec.resources) and gate %s is off (%s): the API server forbids resizing such a pod",
			features.InPlacePodLevelResourcesVerticalScaling, gateWords(f, features.InPlacePodLevelResourcesVerticalScaling))
	}
	var resizable []string
	for _, c := range out.Spec.InitContainers {
		if restart.IsSidecar(&c) {
			resizable = append(resizable, c.Name)
		}
	}
	for _, c := range out.Spec.Containers {
		resizable = append(resizable, c.Name)
	}
	for _, name := range names {
		var c *v1.Container
		for i := range out.Spec.Containers {
			if out.Spec.Containers[i].Name == name {
				c = &out.Spec.Containers[i]
			}
		}
		for i := range out.Spec.InitContainers {
			if out.Spec.InitContainers[i].Name == name {
				c = &out.Spec.InitContainers[i]
				if !restart.IsSidecar(c) {
					return nil, fmt.Errorf("resize: %s is an init container that is not a sidecar: only regular containers and sidecars can be resized (%s)", name, strings.Join(resizable, ", "))
				}
			}
		}
		if c == nil {
			return nil, fmt.Errorf("resize: %s; only regular containers and sidecars can be resized", keycheck.NotAContainerText(name, pod, resizable))
		}
		if err := setRequirements(&c.Resources, r[name], name); err != nil {
			return nil, err
		}
	}
	if podLevel != nil {
		if err := podLevelResize(out, *podLevel, f); err != nil {
			return nil, err
		}
	}
	before, after := qos(pod, f), qos(out, f)
	if before != after {
		return nil, fmt.Errorf("resize: the pod's QoS class would change from %s to %s: the API server rejects that (Pod QOS Class may not change as a result of resizing)", before, after)
	}
	if err := validation.Pod(out); err != nil {
		return nil, fmt.Errorf("resize: the API server would reject the resized pod: %w", err)
	}
	if err := podLevelCoversContainers(out, f); err != nil {
		return nil, fmt.Errorf("resize: the API server would reject the resized pod: %w", err)
	}
	if err := withinAllocatable(out, allocatable, f); err != nil {
		return nil, fmt.Errorf("resize: the API server refuses it (PodResizeValidator, NodeCapacity): %w", err)
	}
	return out, nil
}

// ResizedPod is the API server's answer to one resize request (kubectl
// patch --subresource resize) of pod: the pod with the container values
// of containers and the pod-level values of podLevel (nil: none) applied,
// or why the API server refuses it (see resizedPod for the rules). A nil
// allocatable leaves out the PodResizeValidator's check against the
// node's allocatable, for a caller that models no node.
func ResizedPod(pod *v1.Pod, containers map[string]v1.ResourceRequirements, podLevel *v1.ResourceRequirements, f features.Set, allocatable v1.ResourceList) (*v1.Pod, error) {
	return resizedPod(pod, containers, podLevel, f, allocatable)
}

// setRequirements writes the requests and limits of want over those of
// to; who names the container (or "pod-level") in an error: a resource
// other than cpu and memory, or resource claims.
func setRequirements(to *v1.ResourceRequirements, want v1.ResourceRequirements, who string) error {
	if len(want.Claims) > 0 {
		return fmt.Errorf("resize: %s: resource claims cannot be resized", who)
	}
	for _, l := range []struct {
		what string
		from v1.ResourceList
		to   *v1.ResourceList
	}{{"requests", want.Requests, &to.Requests}, {"limits", want.Limits, &to.Limits}} {
		for _, rn := range resourceNames(l.from) {
			if rn != v1.ResourceCPU && rn != v1.ResourceMemory {
				return fmt.Errorf("resize: %s: %s.%s: only cpu and memory can be resized", who, l.what, rn)
			}
		}
		for rn, q := range l.from {
			if *l.to == nil {
				*l.to = v1.ResourceList{}
			}
			(*l.to)[rn] = q.DeepCopy()
		}
	}
	return nil
}

// resourceNames are the names of l, sorted.
func resourceNames(l v1.ResourceList) []v1.ResourceName {
	out := make([]v1.ResourceName, 0, len(l))
	for rn := range l {
		out = append(out, rn)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// podLevelSet is the validation's isPodLevelResourcesSet: spec.resources
// with some request or limit.
func podLevelSet(r *v1.ResourceRequirements) bool {
	return r != nil && len(r.Requests)+len(r.Limits) > 0
}

// podLevelResize writes a pod-level resize over pod's spec.resources, as
// the resize subresource keeps it (registry/core/pod/strategy.go
// dropNonResizeUpdates keeps spec.resources only with gate
// InPlacePodLevelResourcesVerticalScaling) and validates it
// (validatePodLevelResourcesResize, validation.go:6712): cpu and memory
// only, nothing removed. A pod without pod-level resources is refused
// here: with the gate off the API server drops the change (the resize
// would change nothing), and with it on, adding pod-level resources by a
// resize is not modelled (the API server also defaults the pod-level
// values left out, pkg/api/pod/util.go DefaultPodLevelResources, which
// this library does not do at creation either).
func podLevelResize(pod *v1.Pod, want v1.ResourceRequirements, f features.Set) error {
	if len(want.Requests)+len(want.Limits)+len(want.Claims) == 0 {
		return fmt.Errorf("resize: pod-level: no request or limit given")
	}
	if !podLevelSet(pod.Spec.Resources) {
		if !f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) {
			return fmt.Errorf("resize: pod-level: gate %s is off (%s): the API server drops spec.resources from a resize, which would change nothing",
				features.InPlacePodLevelResourcesVerticalScaling, gateWords(f, features.InPlacePodLevelResourcesVerticalScaling))
		}
		return fmt.Errorf("resize: pod-level: pod %s has no pod-level resources (spec.resources): adding them by a resize is not modelled; resize its containers instead", pod.Name)
	}
	return setRequirements(pod.Spec.Resources, want, "pod-level")
}

// podLevelCoversContainers is the part of validatePodResourceConsistency
// (validation.go:4926) that validation.Pod leaves out: each pod-level
// request must be at least the containers' aggregate request for that
// resource (resourcehelper.AggregateContainerRequests: the regular
// containers and sidecars summed, raised to what the init containers need
// at their peak). The API server checks it on every resize of a pod with
// pod-level requests.
func podLevelCoversContainers(pod *v1.Pod, f features.Set) error {
	r := pod.Spec.Resources
	if r == nil || len(r.Requests) == 0 {
		return nil
	}
	bare := pod.DeepCopy()
	bare.Spec.Resources, bare.Spec.Overhead = nil, nil
	agg := podstatus.PodRequests(bare, f)
	var msg []string
	for _, rn := range resourceNames(r.Requests) {
		podReq := r.Requests[rn]
		if c, ok := agg[rn]; ok && c.Cmp(podReq) > 0 {
			msg = append(msg, fmt.Sprintf("spec.resources.requests[%s]: %s: must be greater than or equal to aggregate container requests of %s", rn, podReq.String(), c.String()))
		}
	}
	if len(msg) > 0 {
		return errors.New(strings.Join(msg, "; "))
	}
	return nil
}

// gateWords says where a gate's value comes from: "the default of
// v1.35.4" or "set off".
func gateWords(f features.Set, g features.Gate) string {
	if f.Enabled(g) == f.Version().Default(g) {
		return "its default in " + f.Version().String()
	}
	return "set off"
}

// withinAllocatable is the PodResizeValidator's
// validateRequestsWithinAllocatable: the pod's cpu and memory requests
// (resourcehelper.PodRequests) must not exceed the node's allocatable
// (nil: no node, nothing checked).
func withinAllocatable(pod *v1.Pod, allocatable v1.ResourceList, f features.Set) error {
	if allocatable == nil {
		return nil
	}
	req := podstatus.PodRequests(pod, f)
	var msg []string
	cpu, mem := req[v1.ResourceCPU], req[v1.ResourceMemory]
	if a := allocatable[v1.ResourceCPU]; cpu.Cmp(a) > 0 {
		msg = append(msg, fmt.Sprintf("cpu, requested: %d, allocatable: %d", cpu.MilliValue(), a.MilliValue()))
	}
	if a := allocatable[v1.ResourceMemory]; mem.Cmp(a) > 0 {
		msg = append(msg, fmt.Sprintf("memory, requested: %d, allocatable: %d", mem.Value(), a.Value()))
	}
	if len(msg) > 0 {
		return fmt.Errorf("node didn't have enough allocatable resources: %s", strings.Join(msg, "; "))
	}
	return nil
}

// qos is the pod's QoS class, as the kubelet's status reports it.
func qos(pod *v1.Pod, f features.Set) v1.PodQOSClass {
	return podstatus.Compute(pod, &runtimestate.Pod{}, podstatus.Options{Features: f}).Status.QOSClass
}

// checkResizes applies the resizes of actions in time order to a copy of
// pod and returns the first error; it also checks OtherRequests (cpu and
// memory only, none negative).
func checkResizes(pod *v1.Pod, actions []Action, f features.Set, allocatable v1.ResourceList) error {
	as := append([]Action{}, actions...)
	sort.SliceStable(as, func(i, j int) bool { return as[i].At < as[j].At })
	cur := pod
	for _, a := range as {
		if a.OtherRequests != nil {
			if err := checkOtherRequests(*a.OtherRequests); err != nil {
				return fmt.Errorf("action at %s: %w", a.At, err)
			}
		}
		if a.Resize == nil && a.ResizePod == nil {
			continue
		}
		next, err := resizedPod(cur, a.Resize, a.ResizePod, f, allocatable)
		if err != nil {
			return fmt.Errorf("action at %s: %w", a.At, err)
		}
		cur = next
	}
	return nil
}

// resize is the API server accepting a resize and the kubelet admitting
// it: the pod manager holds the new resources, and the worker syncs.
func (p *podSim) resize(r map[string]v1.ResourceRequirements, podLevel *v1.ResourceRequirements) {
	pod, err := resizedPod(p.pod, r, podLevel, p.node.cfg.Kubelet.Features, p.node.cfg.allocatable())
	if err != nil {
		// Simulate checked every resize against the pod beforehand.
		p.log(KindAction, p.loop.Now, "resize rejected: "+err.Error())
		return
	}
	pod.Generation++
	old := p.pod
	p.pod = pod
	p.resized(old)
	p.update(termination.Update{Type: termination.UpdateUpdate, Pod: p.pod})
}

// resizeWords says what a resize sets, container by container, then at
// pod level ("pod-level requests.cpu=300m").
func resizeWords(r map[string]v1.ResourceRequirements, podLevel *v1.ResourceRequirements) string {
	names := make([]string, 0, len(r))
	for name := range r {
		names = append(names, name)
	}
	sort.Strings(names)
	var parts []string
	for _, name := range names {
		parts = append(parts, name+" "+requirementWords(r[name]))
	}
	if podLevel != nil {
		parts = append(parts, "pod-level "+requirementWords(*podLevel))
	}
	return strings.Join(parts, "; ")
}

// requirementWords says the cpu and memory requests and limits of r:
// "requests.cpu=300m,limits.cpu=300m".
func requirementWords(r v1.ResourceRequirements) string {
	var vals []string
	for _, l := range []struct {
		what string
		rl   v1.ResourceList
	}{{"requests", r.Requests}, {"limits", r.Limits}} {
		for _, rn := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
			if q, ok := l.rl[rn]; ok {
				vals = append(vals, fmt.Sprintf("%s.%s=%s", l.what, rn, q.String()))
			}
		}
	}
	return strings.Join(vals, ",")
}

// checkOtherRequests: cpu and memory only, none negative.
func checkOtherRequests(l v1.ResourceList) error {
	for rn, q := range l {
		if rn != v1.ResourceCPU && rn != v1.ResourceMemory {
			return fmt.Errorf("otherRequests: %s: only cpu and memory are counted", rn)
		}
		if q.Sign() < 0 {
			return fmt.Errorf("otherRequests: %s: negative (%s)", rn, q.String())
		}
	}
	return nil
}
