package sim

import (
	"time"

	"github.com/kubeletlogic/kubeletlogic/vocab"
	v1 "k8s.io/api/core/v1"
)

// EntryKind is what an entry of a timeline records.
type EntryKind string

// The entry kinds.
const (
	// KindAction: the outside did something (Action).
	KindAction EntryKind = "action"
	// KindSync: the pod worker ran a sync function.
	KindSync EntryKind = "sync"
	// KindCRI: the kubelet made a CRI call.
	KindCRI EntryKind = "cri"
	// KindExit: a container process ended.
	KindExit EntryKind = "exit"
	// KindPLEG: a relist saw a change.
	KindPLEG EntryKind = "pleg"
	// KindProbe: a probe result was committed.
	KindProbe EntryKind = "probe"
	// KindStatus: the status manager stored a new status.
	KindStatus EntryKind = "status"
	// KindAPI: the API object changed (status written, deleted, gone).
	KindAPI EntryKind = "api"
)

// Entry is one moment of a timeline.
type Entry struct {
	// At is the time since the start of the simulation.
	At  time.Duration `json:"at"`
	Pod string        `json:"pod"`
	// Kind says which of the fields below is set.
	Kind EntryKind `json:"kind"`
	// Message says what happened in words.
	Message string `json:"message,omitempty"`
	// Call is, on a KindCRI entry, the call; its At and Done count from
	// the start of the simulation, as At does (Call.At equals At).
	Call *Call `json:"call,omitempty"`
	// Status is the pod's status and how kubectl shows it.
	Status *StatusEntry `json:"status,omitempty"`
	// Probe is a committed probe result.
	Probe *ProbeEntry `json:"probe,omitempty"`
	// Work is, on a KindSync entry, the sync function that ran: "sync"
	// (SyncPod), "terminating" (SyncTerminatingPod) or "terminated"
	// (SyncTerminatedPod), or "forgotten" when housekeeping drops the
	// finished worker of a pod that left the kubelet's configuration;
	// empty on the decision messages that follow a sync.
	Work string `json:"work,omitempty"`
	// Exit is, on a KindExit entry, the process that ended.
	Exit *ExitEntry `json:"exit,omitempty"`
	// API is, on a KindAPI entry, what happened to the API object.
	API APIEvent `json:"api,omitempty"`
}

// ExitEntry is a container process that ended.
type ExitEntry struct {
	Container string `json:"container"`
	ID        string `json:"id"`
	ExitCode  int32  `json:"exitCode"`
	// Reason is what the runtime reports: Completed for exit code 0,
	// Error otherwise.
	Reason string `json:"reason"`
	// Ended is when the process ended, counted like Entry.At. A stopped
	// container's exit is reported when its StopContainer call returns
	// (the entry's At), RuntimeDelays.StopContainer after it ended.
	Ended time.Duration `json:"ended"`
}

// APIEvent is what happened to a pod's API object.
type APIEvent string

// The API events.
const (
	// APICreated: the pod was created (its status is the API server's).
	APICreated APIEvent = "created"
	// APIStatus: the kubelet wrote a status.
	APIStatus APIEvent = "status"
	// APIDeleteHeld: the kubelet deleted the object (grace 0) but
	// finalizers hold it.
	APIDeleteHeld APIEvent = "delete held by finalizers"
	// APIDeleted: the kubelet deleted the object (grace 0).
	APIDeleted APIEvent = "deleted by the kubelet"
	// APIGone: the object no longer exists.
	APIGone APIEvent = "gone"
)

// StatusEntry is one stored status.
type StatusEntry struct {
	// Ready, Column and Restarts are kubectl get pod's READY and STATUS
	// cells and the number of its RESTARTS cell (kubectlstatus.Ready,
	// Compute and RestartCount); RestartsColumn is the whole RESTARTS cell
	// at the entry's time, "(<age> ago)" included (kubectlstatus.Restarts;
	// empty in timelines written before it was added).
	Ready          string `json:"ready"`
	Column         string `json:"column"`
	Restarts       int32  `json:"restarts"`
	RestartsColumn string `json:"restartsColumn,omitempty"`
	// Status is the stored status itself.
	Status v1.PodStatus `json:"status"`
	// Generation is the pod's metadata.generation when the status was
	// stored (the API server bumps it when it sets the deletion timestamp
	// and when an ephemeral container is added).
	Generation int64 `json:"generation,omitempty"`
	// By is the kubelet function that stored the status (see
	// StoredStatus), or SetContainerReadiness / SetContainerStartup for
	// the status manager's patches after a probe result: those change
	// one container's ready or started field (and, for readiness, the
	// Ready and ContainersReady conditions) and nothing else. Set on
	// KindStatus entries.
	By string `json:"by,omitempty"`
}

// ProbeEntry is one committed probe result.
type ProbeEntry struct {
	Container string            `json:"container"`
	ID        string            `json:"id"`
	Probe     string            `json:"probe"`
	Result    vocab.ProbeResult `json:"result"`
	// Initial is true for the result the worker sets when it first sees a
	// container instance (readiness Failure, liveness Success, startup
	// Unknown), before any probe ran.
	Initial bool `json:"initial,omitempty"`
}

// Timeline is what happened on the simulated node.
type Timeline struct {
	Start time.Time `json:"start"`
	// End is when the last thing happened (the last entry), as a time
	// since Start; the simulation itself runs until Config.For or until
	// every pod is gone.
	End     time.Duration `json:"end"`
	Seed    uint64        `json:"seed"`
	Entries []Entry       `json:"entries"`
	// Syncs counts the syncs run, for benchmarks.
	Syncs int `json:"syncs"`
}
