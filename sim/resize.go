package sim

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/validation"
)

// In-place resize, as modelled.
//
// Action.Resize changes the pod's cpu and memory requests and limits as
// `kubectl patch pod --subresource resize` does; the API server refuses
// requests above the node's allocatable and bumps the pod's generation.
// The kubelet's allocation manager admits the resize or defers it
// (allocation.go); SyncPod then decides through podactions.Compute,
// against the resources the kubelet last actuated (Memory.Actuated): a
// container whose resizePolicy says RestartContainer for a changed
// resource is killed and started again; otherwise each changed container
// gets UpdateContainerResources calls, memory first, then cpu
// (doPodResizeAction, updatePodContainerResources), and the actuated
// record follows each call.
//
// Not modelled: UpdatePodSandboxResources and the pod cgroup writes, the
// memory-usage check before a memory limit decrease, and failed resizes.

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
// updates the actuated record. The actuated pod-level resources and
// emptyDir limits follow the spec when Compute resized them.
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
	// One current value per container, shared by its memory and cpu
	// updates, as the kubelet's containerToUpdateInfo is.
	current := map[string]podactions.Resources{}
	for _, step := range []struct {
		memory  bool
		updates []podactions.Update
	}{{true, acts.MemoryUpdates}, {false, acts.CPUUpdates}} {
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
	if acts.UpdatePodLevelResources && s.pod.Spec.Resources != nil {
		m.Actuated.Pod = s.pod.Spec.Resources.DeepCopy()
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
// replaces the container's own; the others are kept. It returns an error
// for what the API server rejects: a name that is no such container, an
// init container that is not a sidecar, a resource other than cpu and
// memory, a change of the pod's QoS class, resources the pod's
// validation rejects, or requests above the node's allocatable (the
// PodResizeValidator admission plugin, plugin/pkg/admission/podresize
// validateRequestsWithinAllocatable).
func resizedPod(pod *v1.Pod, r map[string]v1.ResourceRequirements, f features.Set, allocatable v1.ResourceList) (*v1.Pod, error) {
	out := pod.DeepCopy()
	names := make([]string, 0, len(r))
	for name := range r {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("resize: no container named")
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
		want := r[name]
		if len(want.Claims) > 0 {
			return nil, fmt.Errorf("resize: %s: resource claims cannot be resized", name)
		}
		for _, l := range []struct {
			what string
			from v1.ResourceList
			to   *v1.ResourceList
		}{{"requests", want.Requests, &c.Resources.Requests}, {"limits", want.Limits, &c.Resources.Limits}} {
			for rn, q := range l.from {
				if rn != v1.ResourceCPU && rn != v1.ResourceMemory {
					return nil, fmt.Errorf("resize: %s: %s.%s: only cpu and memory can be resized", name, l.what, rn)
				}
				if *l.to == nil {
					*l.to = v1.ResourceList{}
				}
				(*l.to)[rn] = q.DeepCopy()
			}
		}
	}
	before, after := qos(pod, f), qos(out, f)
	if before != after {
		return nil, fmt.Errorf("resize: the pod's QoS class would change from %s to %s: the API server rejects that (Pod QOS Class may not change as a result of resizing)", before, after)
	}
	if err := validation.Pod(out); err != nil {
		return nil, fmt.Errorf("resize: the API server would reject the resized pod: %w", err)
	}
	if err := withinAllocatable(out, allocatable, f); err != nil {
		return nil, fmt.Errorf("resize: the API server refuses it (PodResizeValidator, NodeCapacity): %w", err)
	}
	return out, nil
}

// withinAllocatable is the PodResizeValidator's
// validateRequestsWithinAllocatable: the pod's cpu and memory requests
// (resourcehelper.PodRequests) must not exceed the node's allocatable.
func withinAllocatable(pod *v1.Pod, allocatable v1.ResourceList, f features.Set) error {
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
		if a.Resize == nil {
			continue
		}
		next, err := resizedPod(cur, a.Resize, f, allocatable)
		if err != nil {
			return fmt.Errorf("action at %s: %w", a.At, err)
		}
		cur = next
	}
	return nil
}

// resize is the API server accepting a resize and the kubelet admitting
// it: the pod manager holds the new resources, and the worker syncs.
func (p *podSim) resize(r map[string]v1.ResourceRequirements) {
	pod, err := resizedPod(p.pod, r, p.node.cfg.Kubelet.Features, p.node.cfg.allocatable())
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

// resizeWords says what a resize sets, container by container.
func resizeWords(r map[string]v1.ResourceRequirements) string {
	names := make([]string, 0, len(r))
	for name := range r {
		names = append(names, name)
	}
	sort.Strings(names)
	var parts []string
	for _, name := range names {
		var vals []string
		for _, l := range []struct {
			what string
			rl   v1.ResourceList
		}{{"requests", r[name].Requests}, {"limits", r[name].Limits}} {
			for _, rn := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
				if q, ok := l.rl[rn]; ok {
					vals = append(vals, fmt.Sprintf("%s.%s=%s", l.what, rn, q.String()))
				}
			}
		}
		parts = append(parts, name+" "+strings.Join(vals, ","))
	}
	return strings.Join(parts, "; ")
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
