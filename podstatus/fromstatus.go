package podstatus

import (
	"fmt"
	"strings"

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
// The runtime state is runtimestate.FromStatus's, with its assumptions
// (see there: instance IDs, two instances per container, no hashes, one
// sandbox s1, times). Besides, it assumes:
//
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
	v.State, v.Assumed = runtimestate.FromStatus(pod)
	for _, l := range [][]v1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for i := range l {
			cs := &l[i]
			if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" && w.Reason != "PodInitializing" {
				if v.StartFailures == nil {
					v.StartFailures = map[string]vocab.StartFailure{}
				}
				v.StartFailures[cs.Name] = vocab.StartFailure{Reason: w.Reason, Message: w.Message}
			}
			if cs.State.Running == nil {
				continue
			}
			if p := impliedProbes(pod, cs); p != (vocab.ProbeResults{}) {
				if c := runningInstance(v.State, cs.Name); c != nil {
					if v.Probes == nil {
						v.Probes = map[string]vocab.ProbeResults{}
					}
					v.Probes[c.ID] = p
				}
			}
		}
	}
	v.Actuated = actuatedFromStatus(pod, &v)
	return v
}

// runningInstance is the running instance of the container named name in
// a state read from a status (there is at most one).
func runningInstance(st *runtimestate.Pod, name string) *runtimestate.Container {
	for i := range st.Containers {
		if c := &st.Containers[i]; c.Name == name && c.State == runtimestate.Running {
			return c
		}
	}
	return nil
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
