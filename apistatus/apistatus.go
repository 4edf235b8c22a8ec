package apistatus

import (
	"sort"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Waiting reasons and termination reasons the kubelet writes itself.
const (
	// ContainerCreating is the default waiting reason of a regular or
	// ephemeral container of a pod without init containers.
	ContainerCreating = "ContainerCreating"
	// PodInitializing is the default waiting reason of every container of
	// a pod with init containers.
	PodInitializing = "PodInitializing"
	// RestartingAllContainers marks containers removed by a
	// RestartAllContainers reset.
	RestartingAllContainers = "RestartingAllContainers"
	// ContainerStatusUnknown marks a container that used to run and that
	// the runtime no longer reports, or reports in an unknown state.
	ContainerStatusUnknown = "ContainerStatusUnknown"
	// Completed is the reason the kubelet assumes for a regular init
	// container whose instances are gone once regular containers exist.
	Completed = "Completed"
)

// Messages the kubelet writes with the reasons above.
const (
	MessageRestartingAllContainers = "The container is removed because RestartAllContainers in place"
	MessageVanishedWhenDeleted     = "The container could not be located when the pod was deleted.  The container used to be Running"
	MessageVanishedWhenTerminated  = "The container could not be located when the pod was terminated"
	MessageInitAssumedCompleted    = "Unable to get init container status from container runtime and pod has been initialized, treat it as exited normally"
)

// DefaultRuntimeType is the container-ID scheme used when
// Options.RuntimeType is empty.
const DefaultRuntimeType = "containerd"

// StartFailure is one entry of the kubelet's reason cache
// (pkg/kubelet/reason_cache.go): the error of the last failed attempt to
// start a container, such as Reason "CrashLoopBackOff" with Message
// "back-off 10s restarting failed container=app pod=web_default(uid)", or
// "ErrImagePull", "ImagePullBackOff", "CreateContainerConfigError",
// "RunContainerError". The kubelet removes the entry when a start
// succeeds.
type StartFailure struct {
	Reason  string
	Message string
}

// Options are the inputs of Compute besides the pod and the runtime state.
// The zero value is a kubelet v1.37.2 with its default gates, no cached
// status, an empty reason cache and a runtime without recursive read-only
// mounts.
type Options struct {
	// Features are the kubelet's feature gates. The decisions read
	// RestartAllContainersOnContainerExits (restart counts and last
	// termination states carried across a reset, the
	// RestartingAllContainers reason), ChangeContainerStatusOnKubeletRestart
	// (when off, a running container keeps the previous Started), and
	// InPlacePodVerticalScaling (Resources and AllocatedResources); and,
	// through restart.ShouldContainerBeRestarted, ContainerRestartRules.
	// The zero value is kubelet v1.37.2's defaults (features.V1_37).
	Features features.Set
	// Previous is the pod status the kubelet generated last (its status
	// manager's cache). nil means the cache has none, and the kubelet then
	// uses pod.Status, as generateAPIPodStatus does.
	Previous *v1.PodStatus
	// StartFailures are the reason cache's entries for the pod, by
	// container name. A container absent from the map has no entry.
	StartFailures map[string]StartFailure
	// RecursiveReadOnlySupported is whether the runtime handler of the
	// pod's runtime class reports support for recursive read-only mounts.
	// false is also what a kubelet without runtime-handler information
	// sees.
	RecursiveReadOnlySupported bool
	// RuntimeType is the scheme of container IDs ("containerd" when
	// empty): ContainerID is "<RuntimeType>://<instance ID>".
	RuntimeType string
}

// Statuses are the container status lists the kubelet generates for a pod.
type Statuses struct {
	// InitContainerStatuses are in the order of spec.initContainers.
	InitContainerStatuses []v1.ContainerStatus
	// ContainerStatuses and EphemeralContainerStatuses are sorted by name.
	ContainerStatuses          []v1.ContainerStatus
	EphemeralContainerStatuses []v1.ContainerStatus
	// RestartingAllContainers is the podRestarting input the kubelet
	// derived: gate RestartAllContainersOnContainerExits on and
	// restart.ShouldAllContainersRestart true for the previous status.
	RestartingAllContainers bool
}

// Compute returns the container statuses the kubelet v1.37.2 generates for
// pod from the runtime state st. It mirrors convertStatusToAPIStatus in
// pkg/kubelet/kubelet_pods.go as far as container statuses go: podRestarting
// from kubecontainer.ShouldAllContainersRestart (gate
// RestartAllContainersOnContainerExits), then convertToAPIContainerStatuses
// for spec.containers, spec.initContainers and spec.ephemeralContainers,
// each against the matching list of the previous status.
//
// For each list, convertToAPIContainerStatuses (and so Compute):
//
//  1. gives every spec container a default status: Waiting with reason
//     PodInitializing when the pod has init containers, ContainerCreating
//     otherwise, the spec image, and volume mounts from the spec. A
//     previous status that is Terminated is reused whole; otherwise its
//     restartCount and lastState are kept.
//  2. for a container the runtime reports no instance of but the previous
//     status knows: during a RestartAllContainers reset (and the previous
//     state not Waiting) it becomes Waiting RestartingAllContainers with a
//     matching last termination (exit 137) and one more restart; otherwise,
//     if it was Running and nothing else was recorded, it gets a last
//     termination ContainerStatusUnknown (exit 137) and, unless the pod is
//     being deleted, one more restart.
//  3. converts the two newest instances of each container (newest by
//     creation time): the newest gives state, containerID, image, imageID
//     and restartCount; the second newest's state becomes lastState.
//     Running, created (Waiting without reason), exited (Terminated with
//     the runtime's exit code, reason and message), unknown after a
//     previous Running (Terminated ContainerStatusUnknown, or
//     RestartingAllContainers during a reset, exit 137, one more restart),
//     anything else Waiting without reason.
//  4. for each container the kubelet will start again
//     (restart.ShouldContainerBeRestarted) and that has a reason-cache
//     entry: Waiting with the cached reason and message, the terminated
//     state (if any) moving to lastState. For init containers, a newest
//     instance that exited 0 is left alone, and a regular init container
//     with no instance at all once a regular container was created is
//     reported Terminated Completed (exit 0).
//
// A nil pod gives zero Statuses. A nil st is a runtime that reports no
// sandbox and no container. Instances are taken newest first by CreatedAt
// (the order runtimestate.Pod keeps); instances created at the same instant
// keep their order in st, where the kubelet's unstable sort leaves them in
// no defined order.
//
// The result shares no memory with the arguments.
func Compute(pod *v1.Pod, st *runtimestate.Pod, opts Options) Statuses {
	if pod == nil {
		return Statuses{}
	}
	if st == nil {
		st = &runtimestate.Pod{}
	}
	prev := opts.Previous
	if prev == nil {
		prev = &pod.Status
	}
	prev = prev.DeepCopy()
	pod = pod.DeepCopy()

	var out Statuses
	if opts.Features.Enabled(features.RestartAllContainersOnContainerExits) {
		out.RestartingAllContainers = restart.ShouldAllContainersRestart(pod, st, prev)
	}
	c := converter{pod: pod, st: st, opts: opts, restarting: out.RestartingAllContainers}
	if c.opts.RuntimeType == "" {
		c.opts.RuntimeType = DefaultRuntimeType
	}
	c.newestFirst = append([]runtimestate.Container(nil), st.Containers...)
	sort.SliceStable(c.newestFirst, func(i, j int) bool {
		return c.newestFirst[j].CreatedAt.Before(c.newestFirst[i].CreatedAt)
	})
	hasInit := len(pod.Spec.InitContainers) > 0

	out.ContainerStatuses = c.convert(prev.ContainerStatuses, pod.Spec.Containers, hasInit, false)
	out.InitContainerStatuses = c.convert(prev.InitContainerStatuses, pod.Spec.InitContainers, hasInit, true)
	var eph []v1.Container
	for i := range pod.Spec.EphemeralContainers {
		eph = append(eph, v1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	out.EphemeralContainerStatuses = c.convert(prev.EphemeralContainerStatuses, eph, hasInit, false)
	return out
}

type converter struct {
	pod         *v1.Pod
	st          *runtimestate.Pod
	opts        Options
	restarting  bool
	newestFirst []runtimestate.Container
}

// state reads a runtime state as the kubelet's CRI mapping does: anything
// but created, running and exited is unknown.
func state(s runtimestate.State) runtimestate.State {
	switch s {
	case runtimestate.Created, runtimestate.Running, runtimestate.Exited:
		return s
	}
	return runtimestate.Unknown
}

func (c *converter) containerID(in *runtimestate.Container) string {
	return c.opts.RuntimeType + "://" + in.ID
}

// convert mirrors one call of convertToAPIContainerStatuses.
func (c *converter) convert(previous []v1.ContainerStatus, containers []v1.Container, hasInit, isInit bool) []v1.ContainerStatus {
	f := c.opts.Features
	old := make(map[string]v1.ContainerStatus, len(previous))
	for _, s := range previous {
		old[s.Name] = s
	}

	defaultReason := ContainerCreating
	if hasInit {
		defaultReason = PodInitializing
	}

	// Pass 1: defaults, and what the previous status carries over.
	statuses := make(map[string]*v1.ContainerStatus, len(containers))
	for i := range containers {
		ct := &containers[i]
		s := &v1.ContainerStatus{
			Name:  ct.Name,
			Image: ct.Image,
			State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: defaultReason}},
		}
		s.VolumeMounts = c.volumeMounts(ct)
		if o, ok := old[ct.Name]; ok {
			if o.State.Terminated != nil {
				s = &o
			} else {
				s.RestartCount = o.RestartCount
				s.LastTerminationState = o.LastTerminationState
			}
		}
		statuses[ct.Name] = s
	}

	// Pass 2: containers the runtime no longer reports at all.
	for i := range containers {
		ct := &containers[i]
		if c.st.Newest(ct.Name) != nil {
			continue
		}
		o, ok := old[ct.Name]
		if !ok {
			continue
		}
		if f.Enabled(features.RestartAllContainersOnContainerExits) && c.restarting && o.State.Waiting == nil {
			s := statuses[ct.Name]
			s.State.Waiting = &v1.ContainerStateWaiting{Reason: RestartingAllContainers, Message: MessageRestartingAllContainers}
			s.State.Terminated = nil
			s.LastTerminationState.Terminated = &v1.ContainerStateTerminated{
				Reason: RestartingAllContainers, Message: MessageRestartingAllContainers, ExitCode: 137,
			}
			s.RestartCount = o.RestartCount + 1
			continue
		}
		if o.State.Terminated != nil || o.State.Running == nil {
			continue
		}
		s := statuses[ct.Name]
		if s.State.Waiting == nil || s.State.Waiting.Reason != defaultReason {
			continue
		}
		if s.LastTerminationState.Terminated != nil {
			continue
		}
		s.LastTerminationState.Terminated = &v1.ContainerStateTerminated{
			Reason: ContainerStatusUnknown, Message: MessageVanishedWhenDeleted, ExitCode: 137,
		}
		if c.pod.DeletionTimestamp == nil {
			s.RestartCount++
		}
	}

	// Pass 3: the two newest instances of each container.
	seen := map[string]int{}
	for i := range c.newestFirst {
		in := &c.newestFirst[i]
		if _, ok := statuses[in.Name]; !ok {
			continue
		}
		if seen[in.Name] >= 2 {
			continue
		}
		var o *v1.ContainerStatus
		if prev, ok := old[in.Name]; ok {
			o = &prev
		}
		s := c.instanceStatus(in, o)
		if !f.Enabled(features.ChangeContainerStatusOnKubeletRestart) && state(in.State) == runtimestate.Running {
			if prev, ok := old[s.Name]; ok && prev.Started != nil {
				s.Started = prev.Started
			}
		}
		if f.Enabled(features.InPlacePodVerticalScaling) {
			if spec := containerSpec(c.pod, in.Name); spec != nil {
				s.Resources = resourcesOf(spec, s, in, old)
				s.AllocatedResources = spec.Resources.Requests
			}
		}
		if seen[in.Name] == 0 {
			statuses[in.Name] = s
		} else {
			statuses[in.Name].LastTerminationState = s.State
		}
		seen[in.Name]++
	}

	// Pass 4: containers that will be started again, with a recorded
	// start failure.
	for i := range containers {
		ct := &containers[i]
		if isInit {
			newest := c.st.Newest(ct.Name)
			if newest != nil && state(newest.State) == runtimestate.Exited && newest.ExitCode == 0 {
				continue
			}
			sidecar := ct.RestartPolicy != nil && *ct.RestartPolicy == v1.ContainerRestartPolicyAlways
			if newest == nil && c.anyRegularContainerCreated() && !sidecar && statuses[ct.Name].State.Waiting != nil {
				statuses[ct.Name].State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
					Reason: Completed, Message: MessageInitAssumedCompleted, ExitCode: 0,
				}}
				continue
			}
		}
		if !restart.ShouldContainerBeRestarted(ct, c.pod, c.st, f) {
			continue
		}
		fail, ok := c.opts.StartFailures[ct.Name]
		if !ok {
			continue
		}
		s := statuses[ct.Name]
		if s.State.Terminated != nil {
			s.LastTerminationState = s.State
		}
		s.State = v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: fail.Reason, Message: fail.Message}}
	}

	var out []v1.ContainerStatus
	if isInit {
		out = []v1.ContainerStatus{}
		for i := range c.pod.Spec.InitContainers {
			if s, ok := statuses[c.pod.Spec.InitContainers[i].Name]; ok {
				out = append(out, *s)
			}
		}
	} else {
		out = make([]v1.ContainerStatus, 0, len(statuses))
		for _, s := range statuses {
			out = append(out, *s)
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	}
	// Statuses may still share pointers with each other (a previous status
	// reused twice) or with the previous status: hand out copies.
	for i := range out {
		out[i] = *out[i].DeepCopy()
	}
	return out
}

// instanceStatus mirrors convertContainerStatus, the conversion of one
// runtime instance in convertToAPIContainerStatuses.
func (c *converter) instanceStatus(in *runtimestate.Container, o *v1.ContainerStatus) *v1.ContainerStatus {
	f := c.opts.Features
	id := c.containerID(in)
	s := &v1.ContainerStatus{
		Name:         in.Name,
		RestartCount: int32(in.RestartCount),
		Image:        in.Image,
		ImageID:      in.ImageRef,
		ContainerID:  id,
	}
	if o != nil {
		s.VolumeMounts = o.VolumeMounts
		if f.Enabled(features.RestartAllContainersOnContainerExits) {
			if o.RestartCount > s.RestartCount {
				s.RestartCount = o.RestartCount
			}
			if o.ContainerID != s.ContainerID && o.State.Terminated != nil {
				s.LastTerminationState.Terminated = o.State.Terminated
			} else if o.LastTerminationState.Terminated != nil {
				s.LastTerminationState.Terminated = o.LastTerminationState.Terminated
			}
		}
	}
	switch st := state(in.State); {
	case st == runtimestate.Running:
		s.State.Running = &v1.ContainerStateRunning{StartedAt: metav1.NewTime(in.StartedAt)}
		if f.Enabled(features.RestartAllContainersOnContainerExits) && o != nil && o.State.Terminated != nil && o.RestartCount >= int32(in.RestartCount) {
			s.RestartCount = o.RestartCount + 1
		}
	case st == runtimestate.Created:
		s.State.Waiting = &v1.ContainerStateWaiting{}
	case st == runtimestate.Exited:
		s.State.Terminated = &v1.ContainerStateTerminated{
			ExitCode:    int32(in.ExitCode),
			Reason:      in.Reason,
			Message:     in.Message,
			StartedAt:   metav1.NewTime(in.StartedAt),
			FinishedAt:  metav1.NewTime(in.FinishedAt),
			ContainerID: id,
		}
	case st == runtimestate.Unknown && o != nil && o.State.Running != nil:
		reason := ContainerStatusUnknown
		if f.Enabled(features.RestartAllContainersOnContainerExits) && c.restarting {
			reason = RestartingAllContainers
		}
		s.State.Terminated = &v1.ContainerStateTerminated{
			Reason: reason, Message: MessageVanishedWhenTerminated, ExitCode: 137,
		}
		s.RestartCount = o.RestartCount + 1
	default:
		s.State.Waiting = &v1.ContainerStateWaiting{}
	}
	return s
}

// anyRegularContainerCreated mirrors HasAnyRegularContainerCreated
// (pkg/kubelet/kuberuntime/kuberuntime_container.go): the newest instance
// of some regular container is created, running or exited.
func (c *converter) anyRegularContainerCreated() bool {
	for i := range c.pod.Spec.Containers {
		n := c.st.Newest(c.pod.Spec.Containers[i].Name)
		if n == nil {
			continue
		}
		switch n.State {
		case runtimestate.Created, runtimestate.Running, runtimestate.Exited:
			return true
		}
	}
	return false
}

// containerSpec mirrors kubecontainer.GetContainerSpec: the first
// container named name among init, regular and ephemeral containers.
func containerSpec(pod *v1.Pod, name string) *v1.Container {
	if pod == nil {
		return nil
	}
	_, c, _ := restart.KindOf(&pod.Spec, name)
	return c
}

// volumeMounts mirrors the volume-mount statuses the kubelet derives from
// the spec (gate RecursiveReadOnlyMounts, locked on in v1.37.2).
func (c *converter) volumeMounts(ct *v1.Container) []v1.VolumeMountStatus {
	var out []v1.VolumeMountStatus
	for _, m := range ct.VolumeMounts {
		vs := v1.VolumeMountStatus{Name: m.Name, MountPath: m.MountPath, ReadOnly: m.ReadOnly}
		if m.ReadOnly {
			mode := v1.RecursiveReadOnlyDisabled
			if recursiveReadOnly(m, c.opts.RecursiveReadOnlySupported) {
				mode = v1.RecursiveReadOnlyEnabled
			}
			vs.RecursiveReadOnly = &mode
		}
		out = append(out, vs)
	}
	return out
}

// recursiveReadOnly mirrors resolveRecursiveReadOnly
// (pkg/kubelet/kubelet_pods.go); a request the kubelet rejects with an
// error reads as false, as the kubelet then reports Disabled.
func recursiveReadOnly(m v1.VolumeMount, supported bool) bool {
	if m.RecursiveReadOnly == nil || *m.RecursiveReadOnly == v1.RecursiveReadOnlyDisabled {
		return false
	}
	if !m.ReadOnly {
		return false
	}
	if m.MountPropagation != nil && *m.MountPropagation != v1.MountPropagationNone {
		return false
	}
	switch *m.RecursiveReadOnly {
	case v1.RecursiveReadOnlyIfPossible, v1.RecursiveReadOnlyEnabled:
		return supported
	}
	return false
}

// The Linux kubelet's smallest effective cpu settings
// (pkg/kubelet/cm/helpers_linux.go): MinMilliCPULimit and MinShares.
const (
	minMilliCPULimit = 10
	minShares        = 2
)

// resourcesOf mirrors convertContainerStatusResources: the resources the
// kubelet reports as actuated for one instance.
func resourcesOf(spec *v1.Container, s *v1.ContainerStatus, in *runtimestate.Container, old map[string]v1.ContainerStatus) *v1.ResourceRequirements {
	o, found := old[spec.Name]
	running := state(in.State) == runtimestate.Running
	keepOld := func(name v1.ResourceName, from, to v1.ResourceList) {
		if running && found && o.State.Running != nil && s.ContainerID == o.ContainerID && from != nil {
			if q, ok := from[name]; ok {
				to[name] = q.DeepCopy()
			}
		}
	}
	if !running {
		return spec.Resources.DeepCopy()
	}
	var oldLimits, oldRequests v1.ResourceList
	if o.Resources != nil {
		oldLimits, oldRequests = o.Resources.Limits, o.Resources.Requests
	}
	r := spec.Resources.DeepCopy()
	rep := in.Resources
	if rep == nil {
		rep = &runtimestate.Resources{}
	}
	if r.Limits != nil {
		if rep.CPULimit != nil {
			if rep.CPULimit.MilliValue() > minMilliCPULimit || r.Limits.Cpu().MilliValue() > minMilliCPULimit {
				r.Limits[v1.ResourceCPU] = rep.CPULimit.DeepCopy()
			}
		} else {
			keepOld(v1.ResourceCPU, oldLimits, r.Limits)
		}
		if rep.MemoryLimit != nil {
			r.Limits[v1.ResourceMemory] = rep.MemoryLimit.DeepCopy()
		} else {
			keepOld(v1.ResourceMemory, oldLimits, r.Limits)
		}
	}
	if r.Requests != nil {
		if rep.CPURequest != nil {
			if rep.CPURequest.MilliValue() > minShares || r.Requests.Cpu().MilliValue() > minShares {
				r.Requests[v1.ResourceCPU] = rep.CPURequest.DeepCopy()
			}
		} else {
			keepOld(v1.ResourceCPU, oldRequests, r.Requests)
		}
		if rep.MemoryRequest != nil {
			r.Requests[v1.ResourceMemory] = rep.MemoryRequest.DeepCopy()
		} else {
			keepOld(v1.ResourceMemory, oldRequests, r.Requests)
		}
	}
	return r
}
