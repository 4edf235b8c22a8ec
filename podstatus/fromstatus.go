package podstatus

import (
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// StatusView is the node's side of a pod as far as its API status (what
// `kubectl get pod -o yaml` shows) tells it: the inputs the other packages
// take besides the pod, rebuilt from the status. RuntimeFromStatus builds
// it; see there for what a status cannot tell and what is assumed instead.
type StatusView struct {
	// State is the runtime state: one sandbox and the container instances
	// the status shows (the current one and the last terminated one of
	// each container), newest first. Nil for a nil pod.
	State *runtimestate.Pod
	// Actuated are the resources each running instance runs with: the
	// status's containerStatuses[].resources when the status gives them,
	// the container's spec resources otherwise; the pod-level record is
	// status.resources, else spec.resources; memory-backed emptyDir limits
	// are the spec's. Pass it as podactions.Options.Actuated.
	Actuated podactions.Actuated
	// Probes are the probe results the status implies, by the instance IDs
	// of State: readiness Success or Failure from a running container's
	// ready flag (for a container with a readiness probe), startup Success
	// when a container with a startup probe shows started. A container not
	// started yet has no startup result (not Failure: podactions would kill
	// it), and no liveness result is ever implied. Pass it as
	// podactions.Options.Probes and Options.Probes.
	Probes map[string]vocab.ProbeResults
	// StartFailures are the reason cache's entries the status shows: the
	// reason and message of each container waiting for a reason other than
	// ContainerCreating or PodInitializing (CrashLoopBackOff,
	// ImagePullBackOff, ...): Options.StartFailures. They hold as long as
	// the status does; to decide whether a back-off has run out since, use
	// restart.BackOffConfig.EntryFromStatus and Decide.
	StartFailures map[string]vocab.StartFailure
	// RuntimeType is the scheme of the status's container IDs
	// ("containerd" when none has one): Options.RuntimeType.
	RuntimeType string
	// HostIPs are status.hostIPs: Options.HostIPs.
	HostIPs []string
	// Assumed says, one sentence each, what this view takes as given that
	// the status does not show. Print it wherever the view is used.
	Assumed []string
}

// RuntimeFromStatus reads what the container runtime reported, and what
// the kubelet held, off a pod's API status: the inverse of Compute, as far
// as a status allows. It mirrors no kubelet function (the kubelet reads the
// runtime; it never reads its own status back): it is what a user holding
// only `kubectl get pod -o yaml` can hand to podactions.Compute,
// Compute, restart.RestartingAllContainers or termination.Plan. The crash-loop
// back-off of a container is read from its status separately
// (restart.BackOffConfig.EntryFromStatus).
//
// A status does not tell everything; what it lacks is assumed, and the
// assumptions are listed in StatusView.Assumed:
//
//   - Instance IDs are the status's containerID (scheme stripped); an
//     instance without one gets a made-up ID, <name>-now or <name>-last. A
//     terminated state with neither a containerID nor a time is one the
//     kubelet made up without an instance (ContainerStatusUnknown,
//     RestartingAllContainers): it gives no instance.
//   - Only two instances per container are known: the current state and
//     the last termination. Older ones, which the runtime may still hold
//     until garbage collection, are unknown.
//   - Hashes are left 0: every instance is taken to run the container's
//     current spec (runtimestate.Container.Hash). A spec changed since the
//     instance started is not seen as changed.
//   - The sandbox is one sandbox, ID "s1", attempt 0, created at
//     status.startTime. It is ready when the status's
//     PodReadyToStartContainers condition is True, or, in a status without
//     that condition, when a container runs; otherwise (a finished pod) it
//     is there but not ready when any instance exists, and absent when none
//     does. Its IPs are status.podIPs; a ready sandbox of a pod-network pod
//     whose status shows no IP gets 10.244.0.2 (any address: the kubelet
//     kills a ready sandbox without one), which is listed in Assumed.
//   - Instances are created when they started (createdAt = startedAt); an
//     instance that was created but never started (CRI state CREATED) looks
//     like no instance in a status (waiting, ContainerCreating) and is not
//     built.
//   - A running instance's restart count is the status's; the last
//     terminated one's is one less when a newer instance holds the status's
//     count.
//   - Actuated resources (see StatusView.Actuated) are what the status
//     shows, which the kubelet reads from the runtime; without them, the
//     spec's: the instance is taken to have started with the resources the
//     spec asks for now, so no resize is seen.
//
// A nil pod gives the zero StatusView.
func RuntimeFromStatus(pod *v1.Pod) StatusView {
	if pod == nil {
		return StatusView{}
	}
	var v StatusView
	v.RuntimeType = statusRuntimeType(&pod.Status)
	for _, ip := range pod.Status.HostIPs {
		if ip.IP != "" {
			v.HostIPs = append(v.HostIPs, ip.IP)
		}
	}
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}
	v.State = st
	v.Assumed = append(v.Assumed,
		"every instance runs the container's current spec (no hash in a status)",
		"only the current and the last terminated instance of each container are known")

	readyCond, hasCond := false, false
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodReadyToStartContainers {
			hasCond, readyCond = true, c.Status == v1.ConditionTrue
		}
	}
	running := false
	seen := map[string]bool{}
	made := false
	add := func(c runtimestate.Container) {
		if seen[c.ID] {
			return
		}
		seen[c.ID] = true
		st.Containers = append(st.Containers, c)
	}
	idOf := func(containerID, name, suffix string) string {
		if _, id, ok := strings.Cut(containerID, "://"); ok && id != "" {
			return id
		}
		if containerID != "" {
			return containerID
		}
		made = true
		return name + "-" + suffix
	}
	for _, l := range [][]v1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for i := range l {
			cs := &l[i]
			if t := cs.LastTerminationState.Terminated; t != nil && !synthetic(t) {
				n := int(cs.RestartCount)
				if cs.State.Running != nil || cs.State.Terminated != nil {
					n = max(0, n-1)
				}
				add(runtimestate.Container{ID: idOf(t.ContainerID, cs.Name, "last"), Name: cs.Name, State: runtimestate.Exited,
					ExitCode: int(t.ExitCode), Reason: t.Reason, Message: t.Message, RestartCount: n,
					Image: cs.Image, ImageRef: cs.ImageID,
					CreatedAt: t.StartedAt.Time, StartedAt: t.StartedAt.Time, FinishedAt: t.FinishedAt.Time})
			}
			if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" && w.Reason != "PodInitializing" {
				if v.StartFailures == nil {
					v.StartFailures = map[string]vocab.StartFailure{}
				}
				v.StartFailures[cs.Name] = vocab.StartFailure{Reason: w.Reason, Message: w.Message}
			}
			switch {
			case cs.State.Running != nil:
				running = true
				id := idOf(cs.ContainerID, cs.Name, "now")
				add(runtimestate.Container{ID: id, Name: cs.Name, State: runtimestate.Running,
					RestartCount: int(cs.RestartCount), Image: cs.Image, ImageRef: cs.ImageID,
					CreatedAt: cs.State.Running.StartedAt.Time, StartedAt: cs.State.Running.StartedAt.Time})
				if p := impliedProbes(pod, cs); p != (vocab.ProbeResults{}) {
					if v.Probes == nil {
						v.Probes = map[string]vocab.ProbeResults{}
					}
					v.Probes[id] = p
				}
			case cs.State.Terminated != nil && !synthetic(cs.State.Terminated):
				t := cs.State.Terminated
				add(runtimestate.Container{ID: idOf(firstNonEmpty(t.ContainerID, cs.ContainerID), cs.Name, "now"), Name: cs.Name, State: runtimestate.Exited,
					ExitCode: int(t.ExitCode), Reason: t.Reason, Message: t.Message, RestartCount: int(cs.RestartCount),
					Image: cs.Image, ImageRef: cs.ImageID,
					CreatedAt: t.StartedAt.Time, StartedAt: t.StartedAt.Time, FinishedAt: t.FinishedAt.Time})
			}
		}
	}
	if made {
		v.Assumed = append(v.Assumed, "instances without a containerID in the status get made-up IDs (<name>-now, <name>-last)")
	}

	ready := readyCond || (!hasCond && running)
	if ready || len(st.Containers) > 0 {
		sb := runtimestate.Sandbox{ID: "s1", Ready: ready}
		if pod.Status.StartTime != nil {
			sb.CreatedAt = pod.Status.StartTime.Time
		}
		if ready {
			sb.IP = pod.Status.PodIP
			if sb.IP == "" && len(pod.Status.PodIPs) > 0 {
				sb.IP = pod.Status.PodIPs[0].IP
			}
			switch {
			case pod.Spec.HostNetwork:
				sb.NetworkMode = runtimestate.NamespaceNode
				sb.IP = "" // the kubelet takes a host-network pod's IPs from the node
			case sb.IP == "":
				sb.IP = "10.244.0.2"
				v.Assumed = append(v.Assumed, "the ready sandbox has IP 10.244.0.2: the status shows none")
			}
			if !pod.Spec.HostNetwork {
				for _, ip := range pod.Status.PodIPs {
					if ip.IP != sb.IP && ip.IP != "" {
						sb.AdditionalIPs = append(sb.AdditionalIPs, ip.IP)
					}
				}
			}
			v.Assumed = append(v.Assumed, "one ready sandbox (s1) created at status.startTime, with the status's pod IPs")
		} else {
			v.Assumed = append(v.Assumed, "one sandbox (s1), not ready: the status shows PodReadyToStartContainers False")
		}
		st.Sandboxes = []runtimestate.Sandbox{sb}
		for i := range st.Containers {
			st.Containers[i].SandboxID = sb.ID
		}
	}
	sortNewestFirst(st.Containers)

	v.Actuated = actuatedFromStatus(pod, &v)
	return v
}

// sortNewestFirst orders instances newest first by creation time; an
// instance of unknown time is put after the others, except that a
// container's current instance always comes before its last terminated one
// (it is newer: it is taken to be created when that one finished).
func sortNewestFirst(cs []runtimestate.Container) {
	type keyed struct {
		c    runtimestate.Container
		at   time.Time
		rank int // status order: the current instance (1) before the last (0)
	}
	ks := make([]keyed, len(cs))
	finished := map[string]time.Time{}
	for i, c := range cs {
		ks[i] = keyed{c: c, at: c.CreatedAt}
		if c.State == runtimestate.Exited && !c.FinishedAt.IsZero() {
			if f, ok := finished[c.Name]; !ok || c.FinishedAt.Before(f) {
				finished[c.Name] = c.FinishedAt // the last termination comes first in cs
			}
		}
	}
	for i := range ks {
		if i > 0 && cs[i-1].Name == cs[i].Name {
			ks[i].rank = 1
			if f := finished[cs[i].Name]; ks[i].at.Before(f) {
				ks[i].at = f
			}
		}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		if !ks[i].at.Equal(ks[j].at) {
			return ks[i].at.After(ks[j].at)
		}
		return ks[i].rank > ks[j].rank
	})
	for i := range ks {
		cs[i] = ks[i].c
	}
}

// synthetic reports whether a terminated state is one the kubelet made up
// without an instance behind it (ContainerStatusUnknown for a container it
// could not find, RestartingAllContainers for the instances a reset
// removed): no container ID and no time.
func synthetic(t *v1.ContainerStateTerminated) bool {
	return t.ContainerID == "" && t.StartedAt.IsZero() && t.FinishedAt.IsZero()
}

// impliedProbes returns the readiness and startup results that a running
// container's ready and started flags imply.
func impliedProbes(pod *v1.Pod, cs *v1.ContainerStatus) vocab.ProbeResults {
	c := specOf(pod, cs.Name)
	if c == nil {
		return vocab.ProbeResults{}
	}
	var p vocab.ProbeResults
	if c.ReadinessProbe != nil {
		p.Readiness = vocab.ProbeFailure
		if cs.Ready {
			p.Readiness = vocab.ProbeSuccess
		}
	}
	if c.StartupProbe != nil && cs.Started != nil && *cs.Started {
		p.Startup = vocab.ProbeSuccess
	}
	return p
}

// actuatedFromStatus fills StatusView.Actuated for the running instances of
// v.State.
func actuatedFromStatus(pod *v1.Pod, v *StatusView) podactions.Actuated {
	var a podactions.Actuated
	fromSpec := []string{}
	for _, l := range [][]v1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for i := range l {
			cs := &l[i]
			if cs.State.Running == nil {
				continue
			}
			c := specOf(pod, cs.Name)
			if c == nil {
				continue
			}
			if a.Containers == nil {
				a.Containers = map[string]v1.ResourceRequirements{}
			}
			if cs.Resources != nil {
				a.Containers[cs.Name] = *cs.Resources.DeepCopy()
				continue
			}
			a.Containers[cs.Name] = *c.Resources.DeepCopy()
			if len(c.Resources.Requests)+len(c.Resources.Limits) > 0 {
				fromSpec = append(fromSpec, cs.Name)
			}
		}
	}
	// The kubelet records pod-level resources only for a pod that sets
	// some (UpdateActuatedPodLevelResources); the status's pod-level
	// resources, read from the pod's cgroup, stand for them then.
	if r := pod.Spec.Resources; r != nil && (r.Requests != nil || r.Limits != nil) {
		a.Pod = r.DeepCopy()
		if s := pod.Status.Resources; s != nil && (len(s.Requests) > 0 || len(s.Limits) > 0) {
			a.Pod = s.DeepCopy()
		}
	}
	for _, vol := range pod.Spec.Volumes {
		if ed := vol.EmptyDir; ed != nil && ed.Medium == v1.StorageMediumMemory && ed.SizeLimit != nil {
			if a.EmptyDirLimits == nil {
				a.EmptyDirLimits = map[string]resource.Quantity{}
			}
			a.EmptyDirLimits[vol.Name] = ed.SizeLimit.DeepCopy()
		}
	}
	if len(fromSpec) > 0 {
		v.Assumed = append(v.Assumed, fmt.Sprintf("%s started with the resources the spec asks for now (the status shows none)", strings.Join(fromSpec, ", ")))
	}
	return a
}

func specOf(pod *v1.Pod, name string) *v1.Container {
	for _, l := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range l {
			if l[i].Name == name {
				return &l[i]
			}
		}
	}
	return nil
}

// statusRuntimeType reads the runtime type off the status's container IDs.
func statusRuntimeType(s *v1.PodStatus) string {
	for _, l := range [][]v1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses} {
		for _, cs := range l {
			if t, _, ok := strings.Cut(cs.ContainerID, "://"); ok && t != "" {
				return t
			}
		}
	}
	return apistatus.DefaultRuntimeType
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
