package podactions

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Actuated are the resources the kubelet last applied to the pod and its
// containers (its actuated-resources checkpoint), which in-place resize
// compares with the pod spec.
//
// There are two readings of what the record leaves out:
//
//   - The default (Exact false, the friendly reading): a container, the pod
//     level or an emptyDir volume the record leaves out reads as actuated
//     with the pod's spec, so nothing left out is resized. The zero
//     Actuated is thus a running pod whose resources the kubelet applied as
//     the (allocated) spec has them: no pending resize. This is what
//     kubelet v1.37.2 holds when it runs computePodActions on a pod it has
//     no record of: SyncPod first calls InitializeActuatedPod, which writes
//     InitialActuated(pod) (for every container it can resize; v1.37.2
//     resizes every init container, its gate being locked on). Entries given
//     override it one by one. Kubelets before v1.37 write no such record,
//     but they record a container's resources when they start it, and
//     read the record only for running containers (they do not check
//     containers about to start: difference D19), so the default is what
//     they hold too, for a pod they have been running at its spec.
//   - Exact (the faithful reading of computePodActions alone): the record
//     is exactly these entries, and a missing one reads as the kubelet
//     reads a missing record: a container as no resources at all (zeros; a
//     running one is resized up, or restarted by a RestartContainer
//     policy), a nil Pod as zeros, a missing emptyDir limit as an upsize.
//     This is what the differential tests compare with computePodActions,
//     and what sim passes (it records what it starts).
//
// To say that nothing was actuated at the pod level while the default
// reading is on, give an empty non-nil Pod.
type Actuated struct {
	// Containers maps a container name (init or regular) to the resources
	// last applied to it. A missing name reads as the container's spec
	// resources, or with Exact as no resources at all (the kubelet logs the
	// missing record and proceeds with zeros).
	Containers map[string]v1.ResourceRequirements `json:"containers,omitempty"`
	// Pod is the pod-level resources last applied; nil reads as the pod's
	// spec.resources, or with Exact as zeros. It is read only with gate
	// InPlacePodLevelResourcesVerticalScaling.
	Pod *v1.ResourceRequirements `json:"pod,omitempty"`
	// EmptyDirLimits maps a memory-backed emptyDir volume name to the size
	// limit last applied. A missing name reads as the volume's spec size
	// limit, or with Exact makes the kubelet grow the volume (it treats a
	// missing record as an upsize).
	EmptyDirLimits map[string]resource.Quantity `json:"emptyDirLimits,omitempty"`
	// Exact says the record is exactly the entries above, read as
	// computePodActions reads its checkpoint (the faithful reading); false
	// fills what they leave out from the spec (the default, see above).
	Exact bool `json:"exact,omitempty"`
}

// Options are the inputs of Compute besides the pod, the runtime state and
// the gates. The zero value is a kubelet with no probe results, no
// RestartAllContainers mark, and the pod's resources actuated as its spec
// has them (see Actuated).
type Options struct {
	// Features are the kubelet's gates. The zero value is kubelet
	// v1.37.2's defaults (features.V1_37). In JSON it is the Set's text
	// form ("v1.36.3,PodLevelResources=false", see features.Set.MarshalText),
	// left out for the zero value.
	Features features.Set `json:"features,omitzero"`
	// Probes maps a container instance ID (runtimestate.Container.ID) to
	// the probe results held for it. A missing ID has no result.
	Probes map[string]vocab.ProbeResults `json:"probes,omitempty"`
	// RestartAllContainers is the kubelet's mark that the pod is restarting
	// all its containers (the pod's AllContainersRestarting condition, see
	// restart.RestartingAllContainers). It is read only with gate
	// RestartAllContainersOnContainerExits.
	RestartAllContainers bool `json:"restartAllContainers,omitempty"`
	// Actuated are the resources the kubelet last applied (zero: as the
	// spec has them; Actuated.Exact for the kubelet's reading of a missing
	// record).
	Actuated Actuated `json:"actuated,omitempty"`
}

// Ref names one container of the pod spec.
type Ref struct {
	// Index is the container's index in its list of the spec
	// (spec.initContainers for init containers and sidecars,
	// spec.containers, or spec.ephemeralContainers).
	Index int
	Name  string
}

// Cause says why an instance is killed, in words the kubelet's reason does
// not always carry (it leaves the reason empty for a definition change and
// a resize).
type Cause string

// The causes of a kill.
const (
	CauseUnknownState      Cause = "unknown state"
	CauseLivenessProbe     Cause = "liveness probe failed"
	CauseStartupProbe      Cause = "startup probe failed"
	CauseDefinitionChanged Cause = "definition changed"
	CauseResize            Cause = "resize requires restart"
)

// Kill is one container instance to stop (the kubelet's
// containerToKillInfo, keyed by instance ID).
type Kill struct {
	// ID is the instance (runtimestate.Container.ID).
	ID string
	// Name is the container's name; Init says whether it is in
	// spec.initContainers (an init container or a sidecar) and Index is
	// its index there or in spec.containers.
	Name  string
	Init  bool
	Index int
	// Cause is why, Reason the kubelet's kill reason, Message the kubelet's
	// message text (it ends in ", will be restarted" when a regular
	// container is started again).
	Cause   Cause
	Reason  vocab.KillReason
	Message string
}

// Reset is one container instance to remove for RestartAllContainers (the
// kubelet's containerToRemoveInfo).
type Reset struct {
	ID    string
	Name  string
	Init  bool
	Index int
	// Kill says the instance has not exited and is stopped (with no grace)
	// before it is removed.
	Kill bool
	// Source says the instance exited with a code that matched a
	// RestartAllContainers rule: it triggered the restart and is removed
	// last.
	Source bool
}

// Resources are cpu and memory values as computePodActions compares them:
// memory in bytes, cpu in millicores, each rounded up.
type Resources struct {
	MemoryLimit   int64
	MemoryRequest int64
	CPULimit      int64
	CPURequest    int64
}

// Update is one running container whose cpu or memory the kubelet changes
// in place (the kubelet's containerToUpdateInfo).
type Update struct {
	ID    string
	Name  string
	Init  bool
	Index int
	// Desired are the values of the spec (with pod-level limits inherited
	// under gate InPlacePodLevelResourcesVerticalScaling); Current those
	// last actuated.
	Desired Resources
	Current Resources
}

// Actions is everything computePodActions decides for one sync of a pod
// (the kubelet's podActions). Empty lists are nil.
type Actions struct {
	// KillPod stops every container and the sandbox of the pod.
	KillPod bool
	// CreateSandbox creates a new sandbox with attempt number Attempt (and
	// purges the old init containers).
	CreateSandbox bool
	// SandboxID is the existing sandbox containers are started in, and
	// Attempt the sandbox attempt number (see SandboxChanged).
	SandboxID string
	Attempt   uint32
	// SandboxMessage says why the sandbox must be re-created, as
	// SandboxChanged reports it; empty when it need not be. The kubelet
	// computes it there but does not keep it in podActions.
	SandboxMessage string

	// InitContainersToStart are init containers and sidecars to start, in
	// spec order; ContainersToStart regular containers, in spec order;
	// EphemeralContainersToStart ephemeral containers that never ran.
	InitContainersToStart      []Ref
	ContainersToStart          []Ref
	EphemeralContainersToStart []Ref

	// ContainersToKill are the instances to stop, in the order the kubelet
	// decided them (init containers from the last, then regular ones). The
	// kubelet keeps them in a map; the order carries no meaning there.
	ContainersToKill []Kill

	// ContainersToReset are, when the pod restarts all its containers, the
	// instances to remove, in the kubelet's order: regular containers that
	// did not trigger the restart, init containers that did not, then
	// regular and init containers that did. Nothing else is decided then.
	ContainersToReset []Reset

	// MemoryUpdates and CPUUpdates are the in-place resizes, decreases
	// first (the kubelet's ContainersToUpdate).
	MemoryUpdates []Update
	CPUUpdates    []Update
	// UpdatePodResources says the pod cgroup must be resized before
	// containers start: a container restarts to resize, or a container
	// about to start has resources other than those last actuated.
	UpdatePodResources bool
	// UpdatePodLevelResources says the pod-level resources differ from
	// those last actuated.
	UpdatePodLevelResources bool

	// VolumesToUpsize and VolumesToDownsize name the memory-backed
	// emptyDir volumes whose size limit grows or shrinks.
	VolumesToUpsize   []string
	VolumesToDownsize []string
}
