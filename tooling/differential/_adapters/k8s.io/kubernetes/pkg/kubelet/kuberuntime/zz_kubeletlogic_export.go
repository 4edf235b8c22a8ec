// Adapter for the kubeletlogic differential tests; written for this project.
//
// This file lives in tooling/differential/_adapters/ (ignored by the go tool) and is
// added to the vendored k8s.io/kubernetes/pkg/kubelet/kuberuntime package only
// through `go test -overlay` (see tooling/differential/setup.sh). It only exposes thin
// wrappers, prefixed KL, around unexported functions of the package.

package kuberuntime

import (
	"context"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/flowcontrol"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

var (
	klMu      sync.Mutex // serialises every KL* call on the shared manager
	klManager *kubeGenericRuntimeManager
	klInitErr error
	klOnce    sync.Once
)

// klGetManager builds (once) a runtime manager over fake CRI services, the
// same way the package's own tests do, and returns it.
func klGetManager() *kubeGenericRuntimeManager {
	klOnce.Do(func() {
		klManager, klInitErr = kubeletlogicNewManager(apitest.NewFakeRuntimeService())
		if klInitErr == nil {
			// A results manager sends every change on a buffered channel
			// that the kubelet's sync loop reads; nobody reads it here, so
			// drain it or Set blocks after 20 changes.
			for _, mgr := range []proberesults.Manager{klManager.livenessManager, klManager.startupManager, klManager.readinessManager} {
				if mgr != nil {
					go func(ch <-chan proberesults.Update) {
						for range ch {
						}
					}(mgr.Updates())
				}
			}
		}
	})
	if klInitErr != nil {
		panic(fmt.Sprintf("kubeletlogic adapter: newFakeKubeRuntimeManager: %v", klInitErr))
	}
	return klManager
}

// KLContainerToKill mirrors containerToKillInfo.
type KLContainerToKill struct {
	Container *v1.Container // points into the pod passed to KLComputePodActions
	Name      string
	Message   string
	Reason    string
}

// KLResourceRequirements mirrors resourceRequirements (containerResources
// before v1.36).
type KLResourceRequirements struct {
	MemoryLimit   int64
	MemoryRequest int64
	CPULimit      int64 // millicores
	CPURequest    int64 // millicores
}

// KLContainerToUpdate mirrors containerToUpdateInfo.
type KLContainerToUpdate struct {
	Container                 *v1.Container
	ContainerID               string // kubecontainer.ContainerID.String()
	DesiredContainerResources KLResourceRequirements
	CurrentContainerResources *KLResourceRequirements
}

// KLContainerToReset mirrors containerToRemoveInfo.
type KLContainerToReset struct {
	ContainerID string // kubecontainer.ContainerID.String()
	Container   *v1.Container
	Kill        bool
}

// KLPodActions mirrors podActions field by field. Slices and maps keep the
// nil / non-nil distinction of the original.
type KLPodActions struct {
	KillPod                    bool
	CreateSandbox              bool
	SandboxID                  string
	Attempt                    uint32
	InitContainersToStart      []int
	ContainersToStart          []int
	ContainersToKill           map[string]KLContainerToKill // key: kubecontainer.ContainerID.String()
	EphemeralContainersToStart []int
	ContainersToUpdate         map[v1.ResourceName][]KLContainerToUpdate
	VolumesToUpsize            []v1.Volume
	VolumesToDownsize          []v1.Volume
	UpdatePodResources         bool
	ContainersToReset          []KLContainerToReset
	UpdatePodLevelResources    bool
}

func klExportActions(a podActions) KLPodActions {
	out := KLPodActions{
		KillPod:                    a.KillPod,
		CreateSandbox:              a.CreateSandbox,
		SandboxID:                  a.SandboxID,
		Attempt:                    a.Attempt,
		InitContainersToStart:      a.InitContainersToStart,
		ContainersToStart:          a.ContainersToStart,
		EphemeralContainersToStart: a.EphemeralContainersToStart,
		UpdatePodResources:         a.UpdatePodResources,
		UpdatePodLevelResources:    a.UpdatePodLevelResources,
	}
	out.VolumesToUpsize, out.VolumesToDownsize = klVolumesToResize(a)
	if a.ContainersToKill != nil {
		out.ContainersToKill = make(map[string]KLContainerToKill, len(a.ContainersToKill))
		for id, info := range a.ContainersToKill {
			out.ContainersToKill[id.String()] = KLContainerToKill{
				Container: info.container,
				Name:      info.name,
				Message:   info.message,
				Reason:    string(info.reason),
			}
		}
	}
	if a.ContainersToUpdate != nil {
		out.ContainersToUpdate = make(map[v1.ResourceName][]KLContainerToUpdate, len(a.ContainersToUpdate))
		for rn, infos := range a.ContainersToUpdate {
			var list []KLContainerToUpdate
			if infos != nil {
				list = make([]KLContainerToUpdate, 0, len(infos))
			}
			for _, info := range infos {
				u := KLContainerToUpdate{
					Container:                 info.container,
					ContainerID:               info.kubeContainerID.String(),
					DesiredContainerResources: klResources(info.desiredContainerResources),
				}
				if info.currentContainerResources != nil {
					cur := klResources(*info.currentContainerResources)
					u.CurrentContainerResources = &cur
				}
				list = append(list, u)
			}
			out.ContainersToUpdate[rn] = list
		}
	}
	if a.ContainersToReset != nil {
		out.ContainersToReset = make([]KLContainerToReset, 0, len(a.ContainersToReset))
		for _, r := range a.ContainersToReset {
			out.ContainersToReset = append(out.ContainersToReset, KLContainerToReset{
				ContainerID: r.containerID.String(),
				Container:   r.container,
				Kill:        r.kill,
			})
		}
	}
	return out
}

func klProbeResult(s string) proberesults.Result {
	switch s {
	case "Success":
		return proberesults.Success
	case "Failure":
		return proberesults.Failure
	case "Unknown":
		return proberesults.Unknown
	}
	panic(fmt.Sprintf("kubeletlogic adapter: unknown probe result %q (want Success, Failure or Unknown)", s))
}

// klSetProbes stores the given results in mgr and returns a function that
// removes them again. Keys are matched against the IDs in status first, so a
// key always denotes exactly the ContainerID value found there.
func klSetProbes(mgr proberesults.Manager, results map[string]string, pod *v1.Pod, status *kubecontainer.PodStatus) func() {
	known := map[string]kubecontainer.ContainerID{}
	if status != nil {
		for _, cs := range status.ContainerStatuses {
			if cs != nil {
				known[cs.ID.String()] = cs.ID
			}
		}
	}
	var set []kubecontainer.ContainerID
	for idStr, res := range results {
		id, ok := known[idStr]
		if !ok {
			if err := id.ParseString(idStr); err != nil {
				panic(fmt.Sprintf("kubeletlogic adapter: probe result key: %v", err))
			}
		}
		mgr.Set(id, klProbeResult(res), pod)
		set = append(set, id)
	}
	return func() {
		for _, id := range set {
			mgr.Remove(id)
		}
	}
}

// KLComputePodActions calls computePodActions on the shared fake manager.
// liveness and startup map a container ID in kubecontainer.ContainerID.String()
// form ("<type>://<id>") to "Success", "Failure" or "Unknown"; an absent ID
// means "no result". Results are removed again before returning.
func KLComputePodActions(pod *v1.Pod, status *kubecontainer.PodStatus, liveness, startup map[string]string, restartAll bool) KLPodActions {
	klMu.Lock()
	defer klMu.Unlock()
	m := klGetManager()
	defer klSetProbes(m.livenessManager, liveness, pod, status)()
	defer klSetProbes(m.startupManager, startup, pod, status)()
	return klExportActions(m.computePodActions(context.Background(), pod, status, restartAll))
}

// KLDoBackOff calls doBackOff on the shared fake manager with a back-off
// object owned by the caller (e.g. flowcontrol.NewFakeBackOff over a fake clock).
func KLDoBackOff(pod *v1.Pod, container *v1.Container, status *kubecontainer.PodStatus, backOff *flowcontrol.Backoff) (inBackOff bool, message string, err error) {
	klMu.Lock()
	defer klMu.Unlock()
	return klGetManager().doBackOff(context.Background(), pod, container, status, backOff)
}

// KLIsInitContainerFailed calls isInitContainerFailed.
func KLIsInitContainerFailed(status *kubecontainer.Status) bool {
	return isInitContainerFailed(status)
}

// KLResetActuatedState replaces the shared manager's actuated-resources store
// with an empty in-memory one.
func KLResetActuatedState() {
	klMu.Lock()
	defer klMu.Unlock()
	m := klGetManager()
	m.actuatedState = kubeletlogicNewStateMemory()
}
