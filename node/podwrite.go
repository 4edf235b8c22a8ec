package node

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// This file is the pure part of driving pods: what the kubelet writes to
// the API server, read off the entries of the engine (sim.Node's Report).
// No client, no clock.

// kubeletEvent is one Event the kubelet records about a pod.
type kubeletEvent struct {
	// At is when the kubelet records it (the node's start plus the
	// entry's At).
	At time.Time
	// FieldPath is the involved object's field path: the container's
	// (spec.containers{app}), empty for the pod itself.
	FieldPath string
	Type      string
	Reason    string
	Message   string
}

// podWrites is what the kubelet writes about one pod over one Advance.
type podWrites struct {
	// Status is the last status the status manager wrote (nil: none);
	// StatusAt is when the engine's kubelet wrote it (the node's time
	// zero plus the entry's At): the schedule the API lags behind.
	Status   *v1.PodStatus
	StatusAt time.Time
	// Events are the Events in the order the kubelet records them.
	Events []kubeletEvent
	// Delete: the status manager deletes the API object (grace 0, UID
	// precondition); finalizers may hold it.
	Delete bool
}

// podTrack is what translating a pod's entries remembers from one Advance
// to the next: the message of a kill decided in a sync, until the
// StopContainer call that carries it out is seen.
type podTrack struct {
	killMessage map[string]string
	// killedAtPreStop are the containers (by name/ID) whose Killing event was
	// recorded at their preStop hook, before the StopContainer call.
	killedAtPreStop map[string]bool
	// pullError is, by container name, the error of a pull the sync
	// reported failing, until its PullImage call is seen; pulled marks a
	// container whose image was just pulled (its CreateContainer then
	// records no "already present").
	pullError map[string]string
	pulled    map[string]bool
}

// The kubelet's event reasons (pkg/kubelet/events/event.go) and the
// messages it records with them.
const (
	reasonPulled                = "Pulled"
	reasonPulling               = "Pulling"
	reasonFailed                = "Failed"
	reasonErrImageNeverPull     = "ErrImageNeverPull"
	kubeletSyncMessageStartErr  = ": start error "
	reasonCreated               = "Created"
	reasonStarted               = "Started"
	reasonKilling               = "Killing"
	reasonBackOff               = "BackOff"
	reasonUnhealthy             = "Unhealthy"
	reasonFailedPreStopHook     = "FailedPreStopHook"
	reasonFailedPostStartHook   = "FailedPostStartHook"
	reasonScriptInvalid         = "KubeletlogicScriptInvalid"
	reasonNotSimulated          = "KubeletlogicNotSimulated"
	kubeletSyncMessageKillSep   = "kill "
	kubeletSyncMessageBackOffOf = ": back-off "
)

// translate reads one pod's entries of a Report (in their order) into what
// the kubelet writes: pod is the API object (for the events' field paths
// and messages), start the node's time zero.
//
//   - a status written (sim.APIStatus): the status manager's PATCH
//     (status/status_manager.go syncPod); only the last one of the Advance
//     is kept, as the status manager coalesces a pod's updates;
//   - the final delete (sim.APIDeleted, sim.APIDeleteHeld):
//     status_manager.go syncPod's Delete with grace 0 and a UID
//     precondition;
//   - CreateContainer: Pulled, "Container image %q already present on
//     machine and can be accessed by the pod" (images/image_manager.go
//     EnsureImageExists, gate KubeletEnsureSecretPulledImages on by
//     default since v1.35) unless the image was just pulled, then
//     Created "Container created" (kuberuntime/kuberuntime_container.go
//     startContainer);
//   - PullImage (an image the script says is missing): Pulling "Pulling
//     image %q" when it starts; when it returns, Pulled "Successfully
//     pulled image %q in <d> (<d> including waiting). Image size: 0
//     bytes." (the engine has no image sizes), or Failed "Failed to pull
//     image %q: <error>" and Failed "Error: ErrImagePull"
//     (EnsureImageExists, startContainer);
//   - a start refused for its image: ErrImageNeverPull with the
//     message, or BackOff "Back-off pulling image %q" (the image
//     back-off), each followed by Failed "Error: <reason>";
//   - StartContainer: Started "Container started" (startContainer);
//   - StopContainer: Killing with the kill's message, "Stopping container
//     <name>" when the kill had none (kuberuntime_container.go
//     killContainer); for a container with an exec preStop hook, at the
//     hook's ExecSync instead, as killContainer records the event before
//     it runs the hook;
//   - a failed exec hook: FailedPostStartHook "PostStartHook failed" or
//     FailedPreStopHook "PreStopHook failed" (startContainer,
//     executePreStopHook);
//   - a start refused by the crash-loop back-off: BackOff "Back-off
//     restarting failed container <name> in pod <name_namespace(uid)>"
//     (kuberuntime/kuberuntime_manager.go doBackOff);
//   - a committed probe failure: Unhealthy "<Kind> probe failed: "
//     (prober/prober.go probe; the engine has no probe output, and it
//     records committed results only, not every failed attempt).
func translate(pod *v1.Pod, entries []sim.Entry, start time.Time, tr *podTrack) podWrites {
	var w podWrites
	if tr.killMessage == nil {
		tr.killMessage = map[string]string{}
	}
	if tr.killedAtPreStop == nil {
		tr.killedAtPreStop = map[string]bool{}
	}
	if tr.pullError == nil {
		tr.pullError, tr.pulled = map[string]string{}, map[string]bool{}
	}
	ev := func(e sim.Entry, container, typ, reason, msg string) {
		w.Events = append(w.Events, kubeletEvent{At: start.Add(e.At), FieldPath: containerFieldPath(pod, container),
			Type: typ, Reason: reason, Message: msg})
	}
	killing := func(e sim.Entry, name string) {
		msg := tr.killMessage[name]
		delete(tr.killMessage, name)
		if msg == "" {
			msg = "Stopping container " + name
		}
		ev(e, name, v1.EventTypeNormal, reasonKilling, msg)
	}
	for _, e := range entries {
		switch e.Kind {
		case sim.KindAPI:
			switch e.API {
			case sim.APIStatus:
				if e.Status != nil {
					st := *e.Status.Status.DeepCopy()
					w.Status, w.StatusAt = &st, start.Add(e.At)
				}
			case sim.APIDeleted, sim.APIDeleteHeld:
				w.Delete = true
			}
		case sim.KindCRI:
			if e.Call == nil || strings.HasSuffix(e.Message, "(container clean-up)") {
				continue
			}
			c := e.Call
			switch c.Method {
			case "CreateContainer":
				if !tr.pulled[c.Name] {
					ev(e, c.Name, v1.EventTypeNormal, reasonPulled,
						fmt.Sprintf("Container image %q already present on machine and can be accessed by the pod", containerImage(pod, c.Name)))
				}
				delete(tr.pulled, c.Name)
				ev(e, c.Name, v1.EventTypeNormal, reasonCreated, "Container created")
			case "PullImage":
				ev(e, c.Name, v1.EventTypeNormal, reasonPulling, fmt.Sprintf("Pulling image %q", c.Image))
				done := e
				done.At = c.Done
				if c.PullFailed {
					msg := tr.pullError[c.Name]
					delete(tr.pullError, c.Name)
					ev(done, c.Name, v1.EventTypeWarning, reasonFailed, fmt.Sprintf("Failed to pull image %q: %s", c.Image, msg))
					ev(done, c.Name, v1.EventTypeWarning, reasonFailed, "Error: ErrImagePull")
					continue
				}
				took := (c.Done - c.At).Truncate(time.Millisecond)
				ev(done, c.Name, v1.EventTypeNormal, reasonPulled,
					fmt.Sprintf("Successfully pulled image %q in %v (%v including waiting). Image size: 0 bytes.", c.Image, took, took))
				tr.pulled[c.Name] = true
			case "StartContainer":
				ev(e, c.Name, v1.EventTypeNormal, reasonStarted, "Container started")
			case "StopContainer":
				if tr.killedAtPreStop[c.Name+"/"+c.ID] {
					delete(tr.killedAtPreStop, c.Name+"/"+c.ID)
					continue
				}
				killing(e, c.Name)
			case "ExecSync":
				if c.Hook == "preStop" {
					// killContainer records Killing before it runs the
					// preStop hook (executePreStopHook), not at the
					// StopContainer that follows the hook.
					killing(e, c.Name)
					tr.killedAtPreStop[c.Name+"/"+c.ID] = true
				}
				if c.HookFailed && c.Hook == "postStart" {
					ev(e, c.Name, v1.EventTypeWarning, reasonFailedPostStartHook, "PostStartHook failed")
				}
				if c.HookFailed && c.Hook == "preStop" {
					ev(e, c.Name, v1.EventTypeWarning, reasonFailedPreStopHook, "PreStopHook failed")
				}
			}
		case sim.KindSync:
			if e.Work != "" {
				continue
			}
			// The sync's decisions (sim/syncpod.go): "kill <name>:
			// <message>" and "<name>: back-off <d> restarting failed
			// container=...". TestTranslateEngineMessages pins these
			// forms on the engine itself.
			if rest, ok := strings.CutPrefix(e.Message, kubeletSyncMessageKillSep); ok {
				if name, msg, ok := strings.Cut(rest, ": "); ok && containerSpec(pod, name) {
					tr.killMessage[name] = msg
				}
				continue
			}
			// "<name>: start error <reason>: <message>" (sim/images.go).
			if name, rest, ok := strings.Cut(e.Message, kubeletSyncMessageStartErr); ok && containerSpec(pod, name) {
				reason, msg, _ := strings.Cut(rest, ": ")
				switch reason {
				case "ErrImagePull":
					// Recorded when its PullImage call returns.
					tr.pullError[name] = msg
				case "ErrImageNeverPull":
					ev(e, name, v1.EventTypeWarning, reasonErrImageNeverPull, msg)
					ev(e, name, v1.EventTypeWarning, reasonFailed, "Error: ErrImageNeverPull")
				case "ImagePullBackOff":
					// The message goes on with the last pull's error.
					if i := strings.Index(msg, "\": "); i >= 0 {
						msg = msg[:i+1]
					}
					ev(e, name, v1.EventTypeNormal, reasonBackOff, msg)
					ev(e, name, v1.EventTypeWarning, reasonFailed, "Error: ImagePullBackOff")
				}
				continue
			}
			if name, _, ok := strings.Cut(e.Message, kubeletSyncMessageBackOffOf); ok && containerSpec(pod, name) {
				ev(e, name, v1.EventTypeWarning, reasonBackOff,
					fmt.Sprintf("Back-off restarting failed container %s in pod %s", name, formatPod(pod)))
			}
		case sim.KindProbe:
			if p := e.Probe; p != nil && !p.Initial && string(p.Result) == "Failure" {
				kind := p.Probe
				if kind != "" {
					kind = strings.ToUpper(kind[:1]) + kind[1:]
				}
				ev(e, p.Container, v1.EventTypeWarning, reasonUnhealthy, kind+" probe failed: ")
			}
		}
	}
	return w
}

// formatPod is the kubelet's format.Pod: name_namespace(uid).
func formatPod(pod *v1.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
}

// containerFieldPath is container/ref.go fieldPath: the container's path in
// the spec, by name, searching regular, init, then ephemeral containers.
func containerFieldPath(pod *v1.Pod, name string) string {
	if name == "" {
		return ""
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return "spec.containers{" + name + "}"
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return "spec.initContainers{" + name + "}"
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return "spec.ephemeralContainers{" + name + "}"
		}
	}
	// GenerateContainerRef's fallback for a container not in the spec.
	return "implicitly required container " + name
}

func containerSpec(pod *v1.Pod, name string) bool {
	return containerFieldPath(pod, name) != "implicitly required container "+name
}

func containerImage(pod *v1.Pod, name string) string {
	for _, l := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range l {
			if c.Name == name {
				return c.Image
			}
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return c.Image
		}
	}
	return ""
}

// kubeletOwned is types.PodConditionByKubelet (pkg/kubelet/types/
// pod_status.go) with the v1.37.2 default gates: PodReadyToStartContainers
// (GA) and AllContainersRestarting are the kubelet's too.
func kubeletOwned(t v1.PodConditionType) bool {
	switch t {
	case v1.PodScheduled, v1.PodReady, v1.PodInitialized, v1.ContainersReady,
		v1.PodResizeInProgress, v1.PodResizePending, v1.PodReadyToStartContainers, v1.AllContainersRestarting:
		return true
	}
	return false
}

// statusToWrite is the status the kubelet's status manager sends, from the
// engine's written status st and the API object's current status old:
//
//   - hostIP and hostIPs are the node's InternalIP, and a host-network pod
//     takes them as its pod IPs (kubelet_pods.go generateAPIPodStatus);
//   - podIP and podIPs are the pod's sandbox IP (convertStatusToAPIStatus)
//     once sandboxUp, and stay once written (see Options.PodCIDR);
//   - the merge of status_manager.go mergePodStatus: conditions the kubelet
//     does not own are kept from old, the kubelet's come from st; the
//     resource claim statuses are old's;
//   - PodScheduled keeps old's lastTransitionTime while it stays True: the
//     status manager's updateLastTransitionTime reads the API's status
//     (the scheduler's condition) for a pod it has no status of yet, and
//     the engine starts from an empty one.
func statusToWrite(st, old v1.PodStatus, hostNetwork bool, hostIP, podIP string, sandboxUp bool) v1.PodStatus {
	out := *st.DeepCopy()
	if hostIP != "" {
		out.HostIP = hostIP
		out.HostIPs = []v1.HostIP{{IP: hostIP}}
	}
	switch {
	case hostNetwork && hostIP != "":
		out.PodIP, out.PodIPs = hostIP, []v1.PodIP{{IP: hostIP}}
	case podIP != "" && (sandboxUp || old.PodIP != ""):
		out.PodIP, out.PodIPs = podIP, []v1.PodIP{{IP: podIP}}
	}
	conds := make([]v1.PodCondition, 0, len(old.Conditions)+len(out.Conditions))
	for _, c := range old.Conditions {
		if !kubeletOwned(c.Type) {
			conds = append(conds, c)
		}
	}
	for _, c := range out.Conditions {
		if !kubeletOwned(c.Type) {
			continue
		}
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionTrue {
			for _, o := range old.Conditions {
				if o.Type == v1.PodScheduled && o.Status == v1.ConditionTrue && !o.LastTransitionTime.IsZero() {
					c.LastTransitionTime = o.LastTransitionTime
				}
			}
		}
		conds = append(conds, c)
	}
	out.Conditions = conds
	out.ResourceClaimStatuses = old.ResourceClaimStatuses
	out.ExtendedResourceClaimStatus = old.ExtendedResourceClaimStatus
	out.NodeAllocatableResourceClaimStatuses = old.NodeAllocatableResourceClaimStatuses
	return out
}

// sandboxReady says whether a status shows the pod's sandbox ready
// (PodReadyToStartContainers True, which the engine stores right after
// RunPodSandbox: OnPodSandboxReady).
func sandboxReady(st v1.PodStatus) bool {
	for _, c := range st.Conditions {
		if c.Type == v1.PodReadyToStartContainers {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// statusPatch is pkg/util/pod/pod.go preparePatchBytesForPodStatus: the
// strategic merge patch from old to new, with the pod's UID only in the
// new side so that it is sent as a precondition; unchanged is true when
// the patch carries nothing else.
func statusPatch(uid types.UID, old, new v1.PodStatus) (patch []byte, unchanged bool, err error) {
	oldData, err := json.Marshal(v1.Pod{Status: old})
	if err != nil {
		return nil, false, err
	}
	newData, err := json.Marshal(v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid}, Status: new})
	if err != nil {
		return nil, false, err
	}
	patch, err = strategicpatch.CreateTwoWayMergePatch(oldData, newData, v1.Pod{})
	if err != nil {
		return nil, false, err
	}
	return patch, string(patch) == fmt.Sprintf(`{"metadata":{"uid":%q}}`, uid), nil
}
