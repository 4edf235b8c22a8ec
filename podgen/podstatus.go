package podgen

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// StatusCase is the input of the kubelet's container-status conversion: a
// pod (with volume mounts now and then), a runtime state of it, the status
// the kubelet generated last, its reason-cache entries, and gates.
type StatusCase struct {
	Pod   *v1.Pod
	State *runtimestate.Pod
	// Previous is the status manager's cached status, or nil (the kubelet
	// then reads Pod.Status, which is drawn in that case).
	Previous *v1.PodStatus
	// StartFailures are reason-cache entries by container name.
	StartFailures map[string]vocab.StartFailure
	Features      features.Set
}

// StatusCases returns a generator of StatusCase values: gates, a pod from
// Pod whose containers mount its volumes now and then (read-only, with
// each recursiveReadOnly mode, and now and then a mountPropagation beside
// it, HostToContainer included: API validation rejects that with
// IfPossible or Enabled, and the kubelet's resolveRecursiveReadOnly then
// errs, a path the status conversion mirrors) and now and then have cpu requests and
// limits of a few millicores, a runtime state of that pod (whose reported
// cpu values are now and then a few millicores too), a previous
// status from PreviousStatus (in the status cache about half the time,
// otherwise in Pod.Status with Previous nil), and reason-cache entries from
// StartFailures.
func StatusCases(opts CaseOptions) *rapid.Generator[StatusCase] {
	return rapid.Custom(func(t *rapid.T) StatusCase {
		var c StatusCase
		c.Features = opts.drawGates(t)
		c.Pod = Pod(opts.Pod).Draw(t, "pod")
		psMountVolumes(t, c.Pod)
		psTinyCPU(t, c.Pod)
		c.State = RuntimeState(c.Pod, opts.State).Draw(t, "state")
		psTinyReported(t, c.State)
		prev := PreviousStatus(c.Pod, c.State).Draw(t, "previous status")
		if chance(t, 50, "previous status in the status cache") {
			c.Previous = prev
		} else {
			c.Pod.Status = *prev
		}
		c.StartFailures = StartFailures(c.Pod).Draw(t, "start failures")
		return c
	})
}

// psMountVolumes gives some containers mounts of the pod's volumes.
func psMountVolumes(t *rapid.T, pod *v1.Pod) {
	if len(pod.Spec.Volumes) == 0 {
		return
	}
	modes := []*v1.RecursiveReadOnlyMode{nil, ptr(v1.RecursiveReadOnlyDisabled), ptr(v1.RecursiveReadOnlyIfPossible), ptr(v1.RecursiveReadOnlyEnabled)}
	add := func(c *v1.Container) {
		if !chance(t, 30, c.Name+" volume mounts") {
			return
		}
		for _, vol := range pod.Spec.Volumes {
			if !chance(t, 60, c.Name+" mounts "+vol.Name) {
				continue
			}
			m := v1.VolumeMount{Name: vol.Name, MountPath: "/mnt/" + vol.Name}
			if chance(t, 50, c.Name+" "+vol.Name+" readOnly") {
				m.ReadOnly = true
				m.RecursiveReadOnly = pick(t, c.Name+" "+vol.Name+" recursiveReadOnly", modes)
				if m.RecursiveReadOnly != nil && chance(t, 20, c.Name+" "+vol.Name+" propagation") {
					m.MountPropagation = ptr(pick(t, c.Name+" "+vol.Name+" propagation value", []v1.MountPropagationMode{v1.MountPropagationNone, v1.MountPropagationHostToContainer}))
				}
			}
			c.VolumeMounts = append(c.VolumeMounts, m)
		}
	}
	for i := range pod.Spec.InitContainers {
		add(&pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		add(&pod.Spec.Containers[i])
	}
}

// psTinyCPU now and then lowers cpu requests and limits to the few
// millicores where the Linux kubelet's minimums (2m shares, 10m quota)
// apply; the runtime state drawn afterwards reports such values too.
func psTinyCPU(t *rapid.T, pod *v1.Pod) {
	tiny := func(c *v1.Container) {
		if !chance(t, 15, c.Name+" tiny cpu") {
			return
		}
		if _, ok := c.Resources.Requests[v1.ResourceCPU]; ok {
			c.Resources.Requests[v1.ResourceCPU] = mustQuantity(pick(t, c.Name+" tiny cpu request", []string{"1m", "2m", "3m"}))
		}
		if _, ok := c.Resources.Limits[v1.ResourceCPU]; ok {
			c.Resources.Limits[v1.ResourceCPU] = mustQuantity(pick(t, c.Name+" tiny cpu limit", []string{"5m", "10m", "11m"}))
		}
	}
	for i := range pod.Spec.InitContainers {
		tiny(&pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		tiny(&pod.Spec.Containers[i])
	}
}

// psTinyReported now and then makes the runtime report cpu values of a
// few millicores for an instance that reports resources, whatever its
// spec says (a runtime rounds, or a resize to such values is under way).
func psTinyReported(t *rapid.T, st *runtimestate.Pod) {
	for i := range st.Containers {
		in := &st.Containers[i]
		if in.Resources == nil || !chance(t, 15, in.ID+" tiny reported cpu") {
			continue
		}
		if in.Resources.CPURequest != nil {
			// Cgroup shares cannot read back as 1m (2 shares, the
			// minimum, read as 2m): a runtime never reports it.
			in.Resources.CPURequest = ptr(mustQuantity(pick(t, in.ID+" tiny reported cpu request", []string{"2m", "3m", "4m"})))
		}
		if in.Resources.CPULimit != nil {
			in.Resources.CPULimit = ptr(mustQuantity(pick(t, in.ID+" tiny reported cpu limit", []string{"5m", "10m", "11m"})))
		}
	}
}

// Waiting and terminated reasons container statuses carry, the kubelet's
// own and the runtime's.
var (
	psWaitingReasons = []string{"", "ContainerCreating", "PodInitializing", "CrashLoopBackOff", "ErrImagePull",
		"ImagePullBackOff", "CreateContainerConfigError", "RestartingAllContainers"}
	psTerminatedReasons = []string{"Completed", "Error", "", "OOMKilled", "ContainerStatusUnknown",
		"RestartingAllContainers", "ContainerCannotRun"}
	psStartFailureReasons = []string{"CrashLoopBackOff", "ErrImagePull", "ImagePullBackOff",
		"CreateContainerConfigError", "RunContainerError", "PostStartHookError"}
)

// psDraw holds what psContainerStatus may use for one container.
type psDraw struct {
	name, image string
	ids         []string // container IDs the status may name
	codes       []int32  // exit codes to favour (the container's rules)
}

func psTerminated(t *rapid.T, l string, d psDraw) *v1.ContainerStateTerminated {
	codes := append([]int32{0, 1, 137, 42, 2, 143}, d.codes...)
	ts := &v1.ContainerStateTerminated{
		ExitCode: pick(t, l+" exit code", codes),
	}
	switch weighted(t, l+" reason", 50, 50) {
	case 0:
		if ts.ExitCode == 0 {
			ts.Reason = "Completed"
		} else {
			ts.Reason = "Error"
		}
	default:
		ts.Reason = pick(t, l+" reason value", psTerminatedReasons)
	}
	if chance(t, 10, l+" signal") {
		ts.Signal = pick(t, l+" signal value", []int32{9, 15})
	}
	if chance(t, 15, l+" message") {
		ts.Message = "terminated"
	}
	start := Epoch.Add(seconds(rapid.IntRange(0, 3600).Draw(t, l+" started")))
	ts.StartedAt = metav1.NewTime(start)
	ts.FinishedAt = metav1.NewTime(start.Add(seconds(rapid.IntRange(0, 600).Draw(t, l+" ran for"))))
	if len(d.ids) > 0 && chance(t, 70, l+" containerID") {
		ts.ContainerID = pick(t, l+" containerID value", d.ids)
	}
	return ts
}

// psContainerStatus draws an API container status for d.
func psContainerStatus(t *rapid.T, l string, d psDraw) v1.ContainerStatus {
	cs := v1.ContainerStatus{Name: d.name, Image: d.image}
	if len(d.ids) > 0 && chance(t, 75, l+" has containerID") {
		cs.ContainerID = pick(t, l+" containerID", d.ids)
		cs.ImageID = d.image + "@sha256:0000"
	}
	switch weighted(t, l+" state", 30, 35, 30, 5) {
	case 0:
		cs.State.Waiting = &v1.ContainerStateWaiting{Reason: pick(t, l+" waiting reason", psWaitingReasons)}
		if chance(t, 20, l+" waiting message") {
			cs.State.Waiting.Message = "back-off 10s restarting failed container"
		}
	case 1:
		cs.State.Running = &v1.ContainerStateRunning{StartedAt: metav1.NewTime(Epoch.Add(seconds(rapid.IntRange(0, 3600).Draw(t, l+" running since"))))}
	case 2:
		cs.State.Terminated = psTerminated(t, l+" terminated", d)
	}
	if chance(t, 40, l+" last state") {
		cs.LastTerminationState.Terminated = psTerminated(t, l+" last", d)
	}
	cs.RestartCount = int32(rapid.IntRange(0, 6).Draw(t, l+" restartCount"))
	cs.Ready = chance(t, 40, l+" ready")
	switch weighted(t, l+" started", 30, 50, 20) {
	case 1:
		cs.Started = ptr(true)
	case 2:
		cs.Started = ptr(false)
	}
	if chance(t, 10, l+" volume mounts") {
		cs.VolumeMounts = []v1.VolumeMountStatus{{Name: "old", MountPath: "/old"}}
	}
	if chance(t, 15, l+" resources") {
		cs.Resources = &v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: mustQuantity(pick(t, l+" old cpu", cpuPool))},
			Limits:   v1.ResourceList{v1.ResourceMemory: mustQuantity(pick(t, l+" old memory", memPool))},
		}
	}
	return cs
}

// psDraws lists, for each container of pod (init, regular, ephemeral), what
// a status of it may use; ids are the container IDs of its instances in
// st (as "containerd://<id>") plus one the runtime no longer knows.
func psDraws(pod *v1.Pod, st *runtimestate.Pod) (initDraws, regular, ephemeral []psDraw) {
	mk := func(c *v1.Container) psDraw {
		d := psDraw{name: c.Name, image: c.Image, ids: []string{"containerd://gone-" + c.Name}}
		for _, in := range st.Instances(c.Name) {
			d.ids = append(d.ids, "containerd://"+in.ID)
		}
		for _, r := range c.RestartPolicyRules {
			if r.ExitCodes != nil {
				d.codes = append(d.codes, r.ExitCodes.Values...)
			}
		}
		return d
	}
	for i := range pod.Spec.InitContainers {
		initDraws = append(initDraws, mk(&pod.Spec.InitContainers[i]))
	}
	for i := range pod.Spec.Containers {
		regular = append(regular, mk(&pod.Spec.Containers[i]))
	}
	for i := range pod.Spec.EphemeralContainers {
		ephemeral = append(ephemeral, mk((*v1.Container)(&pod.Spec.EphemeralContainers[i].EphemeralContainerCommon)))
	}
	return initDraws, regular, ephemeral
}

// psStatusList draws statuses for some of ds (each present with
// probability pct), in list order, with now and then a status for a
// container the spec does not have.
func psStatusList(t *rapid.T, l string, ds []psDraw, pct int) []v1.ContainerStatus {
	var out []v1.ContainerStatus
	for _, d := range ds {
		if chance(t, pct, l+" "+d.name+" present") {
			out = append(out, psContainerStatus(t, l+" "+d.name, d))
		}
	}
	if chance(t, 3, l+" stranger") {
		out = append(out, psContainerStatus(t, l+" stranger", psDraw{name: "ghost", image: DefaultImages[0]}))
	}
	return out
}

// PreviousStatus returns a generator of pod statuses the kubelet may have
// generated earlier for pod, given the runtime state st: for each
// container, usually a status naming one of its instances in st (or an
// instance that is gone), waiting (with the kubelet's and the runtime's
// reasons), running or terminated, with or without a last termination
// state, restart counts 0-6, ready, started, old resources and volume
// mounts now and then; sometimes an AllContainersRestarting condition. A
// nil st has no instances. Pod and st are read when PreviousStatus is
// called.
func PreviousStatus(pod *v1.Pod, st *runtimestate.Pod) *rapid.Generator[*v1.PodStatus] {
	if st == nil {
		st = &runtimestate.Pod{}
	}
	initDraws, regular, ephemeral := psDraws(pod, st)
	return rapid.Custom(func(t *rapid.T) *v1.PodStatus {
		s := &v1.PodStatus{}
		switch weighted(t, "AllContainersRestarting", 80, 10, 10) {
		case 1:
			s.Conditions = append(s.Conditions, v1.PodCondition{Type: v1.AllContainersRestarting, Status: v1.ConditionTrue})
		case 2:
			s.Conditions = append(s.Conditions, v1.PodCondition{Type: v1.AllContainersRestarting, Status: v1.ConditionFalse})
		}
		s.Phase = []v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed}[weighted(t, "phase", 40, 40, 10, 10)]
		s.InitContainerStatuses = psStatusList(t, "init", initDraws, 75)
		s.ContainerStatuses = psStatusList(t, "regular", regular, 75)
		s.EphemeralContainerStatuses = psStatusList(t, "ephemeral", ephemeral, 60)
		return s
	})
}

// StartFailures returns a generator of reason-cache entries for the
// containers of pod: each container has one with probability about 1/3,
// with reasons CrashLoopBackOff (most often), ErrImagePull,
// ImagePullBackOff, CreateContainerConfigError, RunContainerError or
// PostStartHookError. Pod is read when StartFailures is called.
func StartFailures(pod *v1.Pod) *rapid.Generator[map[string]vocab.StartFailure] {
	var names []string
	for i := range pod.Spec.InitContainers {
		names = append(names, pod.Spec.InitContainers[i].Name)
	}
	for i := range pod.Spec.Containers {
		names = append(names, pod.Spec.Containers[i].Name)
	}
	for i := range pod.Spec.EphemeralContainers {
		names = append(names, pod.Spec.EphemeralContainers[i].Name)
	}
	return rapid.Custom(func(t *rapid.T) map[string]vocab.StartFailure {
		out := map[string]vocab.StartFailure{}
		for _, n := range names {
			if !chance(t, 33, n+" start failure") {
				continue
			}
			r := psStartFailureReasons[0]
			if !chance(t, 50, n+" crash loop") {
				r = pick(t, n+" start failure reason", psStartFailureReasons)
			}
			out[n] = vocab.StartFailure{Reason: r, Message: fmt.Sprintf("%s restarting failed container=%s pod=%s_%s(%s)", r, n, pod.Name, pod.Namespace, pod.UID)}
		}
		return out
	})
}

// Pod phases and reasons a pod status carries, as the kubelet, the node
// lifecycle controller and the scheduler write them ("" and Unknown
// included).
var (
	psPhases  = []v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed, "", v1.PodUnknown}
	psReasons = []string{"", "Evicted", "NodeLost", "DeadlineExceeded", "Preempting", "Terminated", "UnexpectedAdmissionError"}
)

// PodWithStatus returns a generator of pods from Pod with a .status as
// an API client reads it: phase (the five phases and ""), reason (Evicted,
// NodeLost, DeadlineExceeded, …, usually none), conditions (PodScheduled,
// now and then False with reason SchedulingGated; Initialized, Ready,
// ContainersReady, readiness-gate conditions, True or False, now and then
// twice), and container statuses as PreviousStatus draws them, for most
// containers, in spec order or shuffled. The pod's deletionTimestamp comes
// from Pod (about a quarter of pods), and readiness gates are added now and
// then.
func PodWithStatus(opts PodOptions) *rapid.Generator[*v1.Pod] {
	return rapid.Custom(func(t *rapid.T) *v1.Pod {
		pod := Pod(opts).Draw(t, "pod")
		initDraws, regular, ephemeral := psDraws(pod, &runtimestate.Pod{})
		for i := range initDraws {
			initDraws[i].ids = append(initDraws[i].ids, fmt.Sprintf("containerd://c%02d", i))
		}
		for i := range regular {
			regular[i].ids = append(regular[i].ids, fmt.Sprintf("containerd://c%02d", 50+i))
		}
		if chance(t, 20, "readiness gates") {
			for i := range rapid.IntRange(1, 2).Draw(t, "readiness gate count") {
				pod.Spec.ReadinessGates = append(pod.Spec.ReadinessGates, v1.PodReadinessGate{ConditionType: v1.PodConditionType(fmt.Sprintf("example.com/gate-%d", i))})
			}
		}
		s := &pod.Status
		s.Phase = psPhases[weighted(t, "phase", 30, 35, 12, 12, 5, 6)]
		if chance(t, 20, "reason") {
			s.Reason = pick(t, "reason value", psReasons)
		}
		condTypes := []v1.PodConditionType{v1.PodScheduled, v1.PodInitialized, v1.ContainersReady, v1.PodReady}
		for _, g := range pod.Spec.ReadinessGates {
			condTypes = append(condTypes, g.ConditionType)
		}
		for _, ct := range condTypes {
			n := weighted(t, string(ct)+" conditions", 20, 75, 5)
			for j := range n {
				l := fmt.Sprintf("%s condition %d", ct, j)
				c := v1.PodCondition{Type: ct, Status: v1.ConditionTrue}
				switch weighted(t, l+" status", 60, 35, 5) {
				case 1:
					c.Status = v1.ConditionFalse
				case 2:
					c.Status = v1.ConditionUnknown
				}
				if ct == v1.PodScheduled && c.Status != v1.ConditionTrue && chance(t, 50, l+" SchedulingGated") {
					c.Reason = v1.PodReasonSchedulingGated
				}
				s.Conditions = append(s.Conditions, c)
			}
		}
		if len(s.Conditions) > 1 && chance(t, 30, "shuffle conditions") {
			s.Conditions = rapid.Permutation(s.Conditions).Draw(t, "condition order")
		}
		s.InitContainerStatuses = psStatusList(t, "init", initDraws, 80)
		s.ContainerStatuses = psStatusList(t, "regular", regular, 85)
		s.EphemeralContainerStatuses = psStatusList(t, "ephemeral", ephemeral, 50)
		if len(s.InitContainerStatuses) > 1 && chance(t, 15, "shuffle init statuses") {
			s.InitContainerStatuses = rapid.Permutation(s.InitContainerStatuses).Draw(t, "init status order")
		}
		if len(s.ContainerStatuses) > 1 && chance(t, 30, "shuffle statuses") {
			s.ContainerStatuses = rapid.Permutation(s.ContainerStatuses).Draw(t, "status order")
		}
		if chance(t, 30, "startTime") {
			st := metav1.NewTime(Epoch.Add(time.Minute))
			s.StartTime = &st
		}
		return pod
	})
}
