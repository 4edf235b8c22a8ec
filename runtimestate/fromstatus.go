package runtimestate

import (
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
)

// FromStatus reads the runtime's view of a pod off its API status (what
// `kubectl get pod -o yaml` shows): the sandbox and the container instances
// the status tells of, newest first, with the assumptions it had to make,
// one sentence each (print them wherever the view is used). It mirrors no
// kubelet function: the kubelet reads the runtime (GetPodStatus) and never
// reads its own status back; this is for a user, or a restarted
// simulator, holding only the status. podstatus.RuntimeFromStatus adds to
// it what the kubelet held besides the runtime (probe results, start
// failures, actuated resources).
//
// A status does not tell everything; what it lacks is assumed:
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
//     current spec (Container.Hash). A spec changed since the instance
//     started is not seen as changed.
//   - The sandbox is one sandbox, ID "s1", attempt 0, created at
//     status.startTime. It is ready when the status's
//     PodReadyToStartContainers condition is True, or, in a status without
//     that condition, when a container runs; otherwise (a finished pod) it
//     is there but not ready when any instance exists, and absent when none
//     does. Its IPs are status.podIPs; a ready sandbox of a pod-network pod
//     whose status shows no IP gets 10.244.0.2 (any address: the kubelet
//     kills a ready sandbox without one), which is listed in the
//     assumptions.
//   - Instances are created when they started (createdAt = startedAt); an
//     instance that was created but never started (CRI state CREATED) looks
//     like no instance in a status (waiting, ContainerCreating) and is not
//     built. Times are the status's, whole seconds.
//   - A running instance's restart count is the status's; the last
//     terminated one's is one less when a newer instance holds the status's
//     count.
//
// A nil pod gives a nil Pod and no assumption.
func FromStatus(pod *v1.Pod) (*Pod, []string) {
	if pod == nil {
		return nil, nil
	}
	st := &Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}
	assumed := []string{
		"every instance runs the container's current spec (no hash in a status)",
		"only the current and the last terminated instance of each container are known",
	}

	readyCond, hasCond := false, false
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodReadyToStartContainers {
			hasCond, readyCond = true, c.Status == v1.ConditionTrue
		}
	}
	running := false
	seen := map[string]bool{}
	made := false
	add := func(c Container) {
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
				add(Container{ID: idOf(t.ContainerID, cs.Name, "last"), Name: cs.Name, State: Exited,
					ExitCode: int(t.ExitCode), Reason: t.Reason, Message: t.Message, RestartCount: n,
					Image: cs.Image, ImageRef: cs.ImageID,
					CreatedAt: t.StartedAt.Time, StartedAt: t.StartedAt.Time, FinishedAt: t.FinishedAt.Time})
			}
			switch {
			case cs.State.Running != nil:
				running = true
				add(Container{ID: idOf(cs.ContainerID, cs.Name, "now"), Name: cs.Name, State: Running,
					RestartCount: int(cs.RestartCount), Image: cs.Image, ImageRef: cs.ImageID,
					CreatedAt: cs.State.Running.StartedAt.Time, StartedAt: cs.State.Running.StartedAt.Time})
			case cs.State.Terminated != nil && !synthetic(cs.State.Terminated):
				t := cs.State.Terminated
				add(Container{ID: idOf(firstNonEmpty(t.ContainerID, cs.ContainerID), cs.Name, "now"), Name: cs.Name, State: Exited,
					ExitCode: int(t.ExitCode), Reason: t.Reason, Message: t.Message, RestartCount: int(cs.RestartCount),
					Image: cs.Image, ImageRef: cs.ImageID,
					CreatedAt: t.StartedAt.Time, StartedAt: t.StartedAt.Time, FinishedAt: t.FinishedAt.Time})
			}
		}
	}
	if made {
		assumed = append(assumed, "instances without a containerID in the status get made-up IDs (<name>-now, <name>-last)")
	}

	ready := readyCond || (!hasCond && running)
	if ready || len(st.Containers) > 0 {
		sb := Sandbox{ID: "s1", Ready: ready}
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
				sb.NetworkMode = NamespaceNode
				sb.IP = "" // the kubelet takes a host-network pod's IPs from the node
			case sb.IP == "":
				sb.IP = "10.244.0.2"
				assumed = append(assumed, "the ready sandbox has IP 10.244.0.2: the status shows none")
			}
			if !pod.Spec.HostNetwork {
				for _, ip := range pod.Status.PodIPs {
					if ip.IP != sb.IP && ip.IP != "" {
						sb.AdditionalIPs = append(sb.AdditionalIPs, ip.IP)
					}
				}
			}
			assumed = append(assumed, "one ready sandbox (s1) created at status.startTime, with the status's pod IPs")
		} else {
			assumed = append(assumed, "one sandbox (s1), not ready: the status shows PodReadyToStartContainers False")
		}
		st.Sandboxes = []Sandbox{sb}
		for i := range st.Containers {
			st.Containers[i].SandboxID = sb.ID
		}
	}
	sortNewestFirst(st.Containers)
	return st, assumed
}

// sortNewestFirst orders instances newest first by creation time; an
// instance of unknown time is put after the others, except that a
// container's current instance always comes before its last terminated one
// (it is newer: it is taken to be created when that one finished).
func sortNewestFirst(cs []Container) {
	type keyed struct {
		c    Container
		at   time.Time
		rank int // status order: the current instance (1) before the last (0)
	}
	ks := make([]keyed, len(cs))
	finished := map[string]time.Time{}
	for i, c := range cs {
		ks[i] = keyed{c: c, at: c.CreatedAt}
		if c.State == Exited && !c.FinishedAt.IsZero() {
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

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
