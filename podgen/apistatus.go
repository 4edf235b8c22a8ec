package podgen

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// APIStatusOptions restrict what APIStatus generates. The zero value
// generates everything described on APIStatus.
type APIStatusOptions struct {
	// NoConditions leaves the status without conditions.
	NoConditions bool
	// NoPhase leaves phase, reason, message and start time empty.
	NoPhase bool
	// NoStrangers never adds a status whose name is not in the spec, never
	// repeats a name and never puts a status in the other list.
	NoStrangers bool
}

// Waiting reasons, terminated reasons and condition types APIStatus draws
// from. They include the strings the kubelet's decisions compare with
// (RestartingAllContainers, ContainerStatusUnknown, CrashLoopBackOff,
// Completed) and a few it treats as any other.
var (
	apiWaitingReasons = []string{"", "ContainerCreating", "PodInitializing", "CrashLoopBackOff",
		"RestartingAllContainers", "ErrImagePull", "ImagePullBackOff", "CreateContainerConfigError"}
	apiTerminatedReasons = []string{"Completed", "Error", "OOMKilled", "RestartingAllContainers",
		"ContainerStatusUnknown", "ContainerCannotRun", ""}
	apiConditionTypes = []v1.PodConditionType{v1.PodInitialized, v1.AllContainersRestarting, v1.PodReady,
		v1.ContainersReady, v1.PodReadyToStartContainers, v1.PodScheduled, v1.DisruptionTarget,
		"example.com/gate-0", "example.com/gate-1", v1.PodResizePending, v1.PodResizeInProgress}
	apiPhases = []v1.PodPhase{"", v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed, v1.PodUnknown}
)

// APIStatus returns a generator of API pod statuses of pod (v1.PodStatus),
// the shape the kubelet builds from a runtime state and then reads: the
// statuses getPhase and the condition generators take, and the previous
// (cached or API) status the kubelet carries values over from.
//
//   - init container statuses (spec order) and regular ones (sorted by name,
//     as the kubelet sorts them); each container's status is now and then
//     missing;
//   - each state waiting (reasons such as ContainerCreating,
//     PodInitializing, CrashLoopBackOff, RestartingAllContainers, or none),
//     running, terminated (exit codes 0, 1, 2, 42, 137, 143, 255 and those of
//     the container's rules; reasons Completed, Error, OOMKilled,
//     RestartingAllContainers, ContainerStatusUnknown, …) or no state at all;
//   - a container ID on every running or terminated status, lastTerminationState terminated or empty, restartCount, started nil,
//     false or true, ready false or true (in any combination: the
//     decisions read each field on its own);
//   - unless NoStrangers: now and then a status whose name is not in the
//     spec, a name listed twice, or a status in the other list;
//   - unless NoPhase: a phase (including none and Unknown), reason, message
//     and start time;
//   - unless NoConditions: conditions of kubelet-owned types, readiness-gate
//     types (example.com/gate-N) and DisruptionTarget, True, False or
//     Unknown (0-6 conditions), with a LastTransitionTime and an ObservedGeneration.
//
// A nil pod gives statuses of strangers only. Every time is Epoch plus a
// drawn offset. The pod is only read.
func APIStatus(pod *v1.Pod, opts APIStatusOptions) *rapid.Generator[*v1.PodStatus] {
	if pod == nil {
		pod = &v1.Pod{}
	}
	return rapid.Custom(func(t *rapid.T) *v1.PodStatus {
		return drawAPIStatus(t, pod, opts)
	})
}

func drawAPIStatus(t *rapid.T, pod *v1.Pod, o APIStatusOptions) *v1.PodStatus {
	s := &v1.PodStatus{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if !chance(t, 12, "no status "+c.Name) {
			s.InitContainerStatuses = append(s.InitContainerStatuses, drawContainerStatus(t, c.Name, c))
		}
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if !chance(t, 12, "no status "+c.Name) {
			s.ContainerStatuses = append(s.ContainerStatuses, drawContainerStatus(t, c.Name, c))
		}
	}
	sortStatusesByName(s.ContainerStatuses)
	if !o.NoStrangers {
		if chance(t, 5, "stranger status") {
			s.ContainerStatuses = append(s.ContainerStatuses, drawContainerStatus(t, "stranger", nil))
		}
		if len(s.ContainerStatuses) > 0 && chance(t, 5, "repeated status") {
			i := rapid.IntRange(0, len(s.ContainerStatuses)-1).Draw(t, "repeated index")
			s.ContainerStatuses = append(s.ContainerStatuses, drawContainerStatus(t, s.ContainerStatuses[i].Name, nil))
		}
		if len(s.InitContainerStatuses) > 0 && chance(t, 5, "init status in the regular list") {
			i := rapid.IntRange(0, len(s.InitContainerStatuses)-1).Draw(t, "moved index")
			s.ContainerStatuses = append(s.ContainerStatuses, s.InitContainerStatuses[i])
			s.InitContainerStatuses = append(s.InitContainerStatuses[:i:i], s.InitContainerStatuses[i+1:]...)
		}
	}
	if !o.NoPhase {
		s.Phase = pick(t, "phase", apiPhases)
		if chance(t, 20, "reason") {
			s.Reason = pick(t, "reason value", []string{"Evicted", "DeadlineExceeded", "Terminated", "Preempting", "UnexpectedAdmissionError"})
			s.Message = pick(t, "message value", []string{"", "a message", "another message"})
		}
		if chance(t, 70, "start time") {
			s.StartTime = &metav1.Time{Time: Epoch.Add(seconds(rapid.IntRange(0, 3600).Draw(t, "start offset")))}
		}
	}
	if !o.NoConditions {
		n := rapid.IntRange(0, 6).Draw(t, "conditions")
		for i := 0; i < n; i++ {
			s.Conditions = append(s.Conditions, v1.PodCondition{
				Type:               pick(t, "condition type", apiConditionTypes),
				Status:             pick(t, "condition status", []v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown}),
				Reason:             pick(t, "condition reason", []string{"", "SomeReason", "PodCompleted"}),
				ObservedGeneration: int64(rapid.IntRange(0, 3).Draw(t, "condition generation")),
				LastTransitionTime: metav1.Time{Time: Epoch.Add(seconds(rapid.IntRange(0, 3600).Draw(t, "condition time")))},
			})
		}
	}
	return s
}

// drawContainerStatus draws one container status named name; c (nil for
// a stranger) supplies the exit codes of its rules.
func drawContainerStatus(t *rapid.T, name string, c *v1.Container) v1.ContainerStatus {
	l := "status " + name
	cs := v1.ContainerStatus{Name: name, Image: "busybox:1.36"}
	at := func(label string) metav1.Time {
		return metav1.Time{Time: Epoch.Add(seconds(rapid.IntRange(0, 3600).Draw(t, l+" "+label)))}
	}
	switch weighted(t, l+" state", 30, 30, 30, 10) {
	case 0:
		cs.State.Waiting = &v1.ContainerStateWaiting{Reason: pick(t, l+" waiting reason", apiWaitingReasons)}
	case 1:
		cs.State.Running = &v1.ContainerStateRunning{StartedAt: at("started at")}
	case 2:
		cs.State.Terminated = drawTerminated(t, l, c)
		cs.State.Terminated.FinishedAt = at("finished at")
	case 3:
		// no state at all
	}
	if chance(t, 45, l+" last termination") {
		cs.LastTerminationState.Terminated = drawTerminated(t, l+" last", c)
	}
	cs.RestartCount = int32(rapid.IntRange(0, 5).Draw(t, l+" restart count"))
	switch weighted(t, l+" started", 30, 30, 40) {
	case 1:
		cs.Started = ptr(false)
	case 2:
		cs.Started = ptr(true)
	}
	cs.Ready = chance(t, 50, l+" ready")
	if cs.State.Running != nil || cs.State.Terminated != nil || chance(t, 30, l+" container id") {
		cs.ContainerID = "containerd://c" + name
	}
	return cs
}

func drawTerminated(t *rapid.T, l string, c *v1.Container) *v1.ContainerStateTerminated {
	codes := []int32{0, 0, 1, 2, 42, 137, 143, 255}
	if c != nil {
		for _, r := range c.RestartPolicyRules {
			if r.ExitCodes != nil {
				codes = append(codes, r.ExitCodes.Values...)
			}
		}
	}
	return &v1.ContainerStateTerminated{
		ExitCode: pick(t, l+" exit code", codes),
		Reason:   pick(t, l+" terminated reason", apiTerminatedReasons),
	}
}

// ReadinessGates returns a generator of 0-2 readiness gates of the types
// APIStatus draws conditions of ("example.com/gate-0", "example.com/gate-1"),
// now and then naming a kubelet-owned condition type instead.
func ReadinessGates() *rapid.Generator[[]v1.PodReadinessGate] {
	return rapid.Custom(func(t *rapid.T) []v1.PodReadinessGate {
		var out []v1.PodReadinessGate
		n := rapid.IntRange(0, 2).Draw(t, "readiness gates")
		for i := 0; i < n; i++ {
			ct := pick(t, "readiness gate type", []v1.PodConditionType{"example.com/gate-0", "example.com/gate-1", v1.DisruptionTarget, v1.PodInitialized})
			out = append(out, v1.PodReadinessGate{ConditionType: ct})
		}
		return out
	})
}

func sortStatusesByName(s []v1.ContainerStatus) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Name < s[j-1].Name; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
