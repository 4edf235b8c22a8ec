package runtimestate

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeletlogic/kubeletlogic/internal/names"
)

// State is the state of one container instance as the kubelet sees it
// (kubecontainer.State). The CRI states CREATED, RUNNING and EXITED map to
// Created, Running and Exited; anything else reads as Unknown.
type State string

// The container states.
const (
	Created State = "created"
	Running State = "running"
	Exited  State = "exited"
	Unknown State = "unknown"
)

// NamespaceMode is the CRI network-namespace mode a sandbox reports. The
// empty value reads as POD, as the kubelet reads a sandbox status without a
// Linux section.
type NamespaceMode string

// The CRI namespace modes.
const (
	NamespacePod       NamespaceMode = "POD"
	NamespaceContainer NamespaceMode = "CONTAINER"
	NamespaceNode      NamespaceMode = "NODE"
	NamespaceTarget    NamespaceMode = "TARGET"
)

// Pod is what the container runtime reports about one pod.
type Pod struct {
	// UID, Name and Namespace identify the pod.
	UID       types.UID `json:"uid,omitempty"`
	Name      string    `json:"name,omitempty"`
	Namespace string    `json:"namespace,omitempty"`
	// Sandboxes are every sandbox of the pod, newest first: by attempt
	// descending, then creation time descending, then ID ascending.
	Sandboxes []Sandbox `json:"sandboxes,omitempty"`
	// Containers are every container instance of the pod, in every sandbox,
	// newest first by creation time. Instances the runtime garbage-collected
	// are simply absent.
	Containers []Container `json:"containers,omitempty"`
	// Timestamp is when the runtime state was read. Decisions in this
	// library do not depend on it.
	Timestamp time.Time `json:"timestamp,omitzero"`
}

// Sandbox is one pod sandbox.
type Sandbox struct {
	ID string `json:"id"`
	// Ready is true when the runtime reports SANDBOX_READY, false for
	// SANDBOX_NOTREADY.
	Ready bool `json:"ready"`
	// Attempt is the sandbox's metadata attempt number.
	Attempt uint32 `json:"attempt"`
	// NetworkMode is the network namespace mode of the sandbox ("" = POD).
	// A hostNetwork pod's sandbox reports NODE.
	NetworkMode NamespaceMode `json:"networkMode,omitempty"`
	// IP is the sandbox's primary IP; AdditionalIPs are the others.
	//
	// A sandbox that leaves IP out (and sets neither NoIP nor
	// NoNetworkStatus) is taken to have a primary IP the writer did not
	// give, as every ready sandbox of a running pod-network pod has: the
	// friendly default of a hand-written state, under which SandboxChanged
	// does not re-create it. IPs still reports no address for it, since
	// none is known: give IP when the pod's IPs matter.
	IP            string   `json:"ip,omitempty"`
	AdditionalIPs []string `json:"additionalIPs,omitempty"`
	// NoIP says the runtime reports a network status whose primary IP is
	// empty: the faithful reading of a real report without an IP (a
	// runtime that does not manage the pod's network, or one that reports
	// only additional IPs). The kubelet kills and re-creates a ready such
	// sandbox of a pod without hostNetwork (vocab.MsgNoIPAddress). IP must be
	// empty with it.
	NoIP bool `json:"noIP,omitempty"`
	// NoNetworkStatus is true when the runtime reported no network section
	// at all. Real runtimes report one, with an empty IP when there is none
	// (NoIP); the kubelet treats the two differently.
	NoNetworkStatus bool `json:"noNetworkStatus,omitempty"`
	// CreatedAt is when the sandbox was created.
	CreatedAt time.Time `json:"createdAt,omitzero"`
}

// Container is one container instance.
type Container struct {
	// ID is the runtime's container ID (without the "containerd://" scheme).
	ID string `json:"id"`
	// Name is the name of the container in the pod spec.
	Name string `json:"name"`
	// SandboxID is the sandbox the instance runs in.
	SandboxID string `json:"sandboxID,omitempty"`
	State     State  `json:"state"`
	// ExitCode, Reason and Message are meaningful when State is Exited. The
	// kubelet appends the termination message to Message.
	ExitCode int    `json:"exitCode,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Message  string `json:"message,omitempty"`
	// Image is the image the container was created from; ImageRef the
	// digested reference the runtime resolved.
	Image    string `json:"image,omitempty"`
	ImageRef string `json:"imageRef,omitempty"`
	// Hash is the container hash the kubelet stored in the
	// io.kubernetes.container.hash annotation (see package containerhash).
	// 0 means not given: the decisions then take the instance to have been
	// created from the container's current spec (its definition has not
	// changed), which is what a hand-written state means. Set Hash only to
	// model an instance created from another definition.
	Hash uint64 `json:"hash,omitempty"`
	// HashMissing models a runtime that reports no hash for the instance
	// (the annotation is missing or 0): the kubelet then reads hash 0, finds
	// the definition changed and replaces a running instance. This is the
	// faithful reading of a real report without the annotation; Hash must
	// be 0 with it.
	HashMissing bool `json:"hashMissing,omitempty"`
	// RestartCount is the io.kubernetes.container.restartCount annotation.
	RestartCount int `json:"restartCount,omitempty"`
	// CreatedAt, StartedAt and FinishedAt are zero when unknown; StartedAt
	// is zero for a Created instance, FinishedAt for one that has not
	// exited.
	CreatedAt  time.Time `json:"createdAt,omitzero"`
	StartedAt  time.Time `json:"startedAt,omitzero"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	// Resources are the cpu and memory settings the runtime reports for the
	// instance, or nil when it reports none.
	Resources *Resources `json:"resources,omitempty"`
}

// Resources are the cpu and memory settings of a container instance
// (kubecontainer.ContainerResources). A nil field was not reported.
type Resources struct {
	CPURequest    *resource.Quantity `json:"cpuRequest,omitempty"`
	CPULimit      *resource.Quantity `json:"cpuLimit,omitempty"`
	MemoryRequest *resource.Quantity `json:"memoryRequest,omitempty"`
	MemoryLimit   *resource.Quantity `json:"memoryLimit,omitempty"`
}

// FirstSeen returns the earliest time the state shows: the creation of a
// sandbox or of a container instance, or an instance's start. Zero when it
// shows none (or p is nil). For a pod the runtime runs, it stands for the
// pod's first sync, when the kubelet set status.startTime (just before it
// created the first sandbox).
func (p *Pod) FirstSeen() time.Time {
	var first time.Time
	see := func(t time.Time) {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	if p == nil {
		return first
	}
	for i := range p.Sandboxes {
		see(p.Sandboxes[i].CreatedAt)
	}
	for i := range p.Containers {
		see(p.Containers[i].CreatedAt)
		see(p.Containers[i].StartedAt)
	}
	return first
}

// LatestSandbox returns Sandboxes[0], or nil when there is none.
func (p *Pod) LatestSandbox() *Sandbox {
	if p == nil || len(p.Sandboxes) == 0 {
		return nil
	}
	return &p.Sandboxes[0]
}

// ActiveSandbox returns the sandbox the kubelet treats as active: the
// latest one, when it is ready. It returns nil otherwise.
func (p *Pod) ActiveSandbox() *Sandbox {
	s := p.LatestSandbox()
	if s == nil || !s.Ready {
		return nil
	}
	return s
}

// IsActive reports whether c belongs to the active sandbox.
func (p *Pod) IsActive(c *Container) bool {
	s := p.ActiveSandbox()
	return s != nil && c != nil && c.SandboxID == s.ID
}

// IPs returns the pod IPs the kubelet takes from the runtime
// (determinePodSandboxIPs): those of the latest sandbox, only when it is
// ready and reports a network status. The primary IP comes first unless it
// is empty (a runtime that does not manage the pod's network, or reports
// only additional IPs), then the additional IPs as reported. When any of
// them does not parse, the kubelet reports none. IPs are returned as the
// runtime wrote them; they parse as the kubelet parses them (utilnet's
// ParseIPSloppy: dotted IPv4 parts may carry leading zeros).
func (p *Pod) IPs() []string {
	s := p.ActiveSandbox()
	if s == nil || s.NoNetworkStatus {
		return nil
	}
	n := len(s.AdditionalIPs)
	if s.IP != "" {
		n++
	}
	if n == 0 {
		return nil
	}
	out := p.AppendIPs(make([]string, 0, n))
	if len(out) == 0 {
		return nil
	}
	return out
}

// AppendIPs appends what IPs returns to dst, for a caller with a buffer.
func (p *Pod) AppendIPs(dst []string) []string {
	s := p.ActiveSandbox()
	if s == nil || s.NoNetworkStatus {
		return dst
	}
	start := len(dst)
	if s.IP != "" {
		dst = append(dst, s.IP)
	}
	dst = append(dst, s.AdditionalIPs...)
	for _, ip := range dst[start:] {
		if _, ok := parseAddr(ip); !ok {
			return dst[:start]
		}
	}
	return dst
}

// Newest returns the newest instance named name in any sandbox, or nil
// (the kubelet's FindContainerStatusByName).
func (p *Pod) Newest(name string) *Container {
	if p == nil {
		return nil
	}
	for i := range p.Containers {
		if names.Equal(p.Containers[i].Name, name) {
			return &p.Containers[i]
		}
	}
	return nil
}

// NewestActive returns the newest instance named name in the active
// sandbox, or nil (the kubelet's FindActiveContainerStatusByName).
func (p *Pod) NewestActive(name string) *Container {
	s := p.ActiveSandbox()
	if s == nil {
		return nil
	}
	for i := range p.Containers {
		if c := &p.Containers[i]; names.Equal(c.Name, name) && c.SandboxID == s.ID {
			return c
		}
	}
	return nil
}

// NewestExited returns the newest exited instance named name, or nil.
// The kubelet's crash-loop back-off starts from this instance.
func (p *Pod) NewestExited(name string) *Container {
	if p == nil {
		return nil
	}
	for i := range p.Containers {
		if c := &p.Containers[i]; names.Equal(c.Name, name) && c.State == Exited {
			return c
		}
	}
	return nil
}

// Instances returns every instance named name, newest first.
func (p *Pod) Instances(name string) []*Container {
	if p == nil {
		return nil
	}
	var out []*Container
	for i := range p.Containers {
		if names.Equal(p.Containers[i].Name, name) {
			out = append(out, &p.Containers[i])
		}
	}
	return out
}

// ActiveContainers returns the instances in the active sandbox, newest
// first (the kubelet's ActiveContainerStatuses).
func (p *Pod) ActiveContainers() []*Container {
	s := p.ActiveSandbox()
	if s == nil {
		return nil
	}
	var out []*Container
	for i := range p.Containers {
		if p.Containers[i].SandboxID == s.ID {
			out = append(out, &p.Containers[i])
		}
	}
	return out
}

// DeepCopy returns a copy of p that shares no memory with it.
func (p *Pod) DeepCopy() *Pod {
	if p == nil {
		return nil
	}
	out := *p
	out.Sandboxes = append([]Sandbox(nil), p.Sandboxes...)
	for i := range out.Sandboxes {
		out.Sandboxes[i].AdditionalIPs = append([]string(nil), p.Sandboxes[i].AdditionalIPs...)
	}
	out.Containers = append([]Container(nil), p.Containers...)
	for i := range out.Containers {
		if r := p.Containers[i].Resources; r != nil {
			out.Containers[i].Resources = r.deepCopy()
		}
	}
	return &out
}

func (r *Resources) deepCopy() *Resources {
	cp := func(q *resource.Quantity) *resource.Quantity {
		if q == nil {
			return nil
		}
		c := q.DeepCopy()
		return &c
	}
	return &Resources{
		CPURequest:    cp(r.CPURequest),
		CPULimit:      cp(r.CPULimit),
		MemoryRequest: cp(r.MemoryRequest),
		MemoryLimit:   cp(r.MemoryLimit),
	}
}
