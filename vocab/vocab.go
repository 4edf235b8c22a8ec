// Package vocab holds the words the kubelet's decisions share, each in one
// place: probe results (ProbeResult, ProbeResults), kill reasons
// (KillReason), the kubelet's fixed sandbox messages (Msg*) and the
// entries of its reason cache (StartFailure). It is the
// ground floor of the library: it imports no other package of it, and every
// package that speaks of these words uses these types and constants as they
// are (there are no aliases or copies elsewhere).
package vocab

// ProbeResult is what one of the kubelet's probe results managers
// (pkg/kubelet/prober/results) holds for a container instance. The empty
// ProbeResult (ProbeNoResult) means the manager holds no entry for the
// instance, which the kubelet reads differently from ProbeUnknown.
type ProbeResult string

// The probe results (results.Success, Failure, Unknown in the kubelet; the
// kubelet's managers hold no entry where this library says ProbeNoResult).
const (
	ProbeNoResult ProbeResult = ""
	ProbeSuccess  ProbeResult = "Success"
	ProbeFailure  ProbeResult = "Failure"
	ProbeUnknown  ProbeResult = "Unknown"
)

// ProbeResults are the results the kubelet's three results managers hold
// for one container instance. One map of them, keyed by container instance
// ID, feeds every package: podactions reads Liveness and Startup (readiness
// never changes what the kubelet does next), podstatus reads Readiness and
// Startup (liveness never reaches the status).
type ProbeResults struct {
	Liveness  ProbeResult `json:"liveness,omitempty"`
	Readiness ProbeResult `json:"readiness,omitempty"`
	Startup   ProbeResult `json:"startup,omitempty"`
}

// KillReason is why the kubelet kills a container (the kubelet's
// containerKillReason, pkg/kubelet/kuberuntime/kuberuntime_manager.go).
// podactions gives one with each kill; termination.ContainerGracePeriod
// takes it. Only ReasonLivenessProbe and ReasonStartupProbe change the
// grace period (a probe's own terminationGracePeriodSeconds).
type KillReason string

// The kill reasons of kubelet v1.37.2.
const (
	// ReasonNone: computePodActions gives no reason for a definition
	// change or a resize; it reads as ReasonUnknown.
	ReasonNone KillReason = ""
	// ReasonStartupProbe: the startup probe failed.
	ReasonStartupProbe KillReason = "StartupProbe"
	// ReasonLivenessProbe: the liveness probe failed.
	ReasonLivenessProbe KillReason = "LivenessProbe"
	// ReasonFailedPostStartHook: the postStart hook failed.
	ReasonFailedPostStartHook KillReason = "FailedPostStartHook"
	// ReasonRestartAllContainers: a RestartAllContainers rule fired (the
	// kubelet passes a grace override of 0, so the container gets the 2 s
	// minimum).
	ReasonRestartAllContainers KillReason = "RestartAllContainers"
	// ReasonUnknown: every other kill, including every container of a pod
	// kill (killContainersWithSyncResult).
	ReasonUnknown KillReason = "Unknown"
)

// The kubelet's texts for why a pod's sandbox must be (re)created
// (PodSandboxNotReadyMsg* in pkg/kubelet/types/constants.go): the Message
// of runtimestate.SandboxChanged, and the message of the
// PodReadyToStartContainers=False condition.
const (
	MsgNoPodSandbox         = "no pod sandbox exists"
	MsgMultipleSandboxes    = "multiple pod sandboxes are ready and need to be reconciled"
	MsgSandboxNotReady      = "pod sandbox is not ready"
	MsgNetworkNamespaceMode = "network namespace mode changed and sandbox needs to be recreated"
	MsgNoIPAddress          = "pod sandbox has no IP address"
)

// StartFailure is one entry of the kubelet's reason cache
// (pkg/kubelet/reason_cache.go): the error of the last failed attempt to
// start a container, such as Reason "CrashLoopBackOff" with Message
// "back-off 10s restarting failed container=app pod=web_default(uid)", or
// "ErrImagePull", "ImagePullBackOff", "CreateContainerConfigError",
// "RunContainerError". The kubelet removes the entry when a start
// succeeds. apistatus.Options.StartFailures and podstatus.Options hold
// them by container name; podgen.StartFailures draws them.
type StartFailure struct {
	Reason  string
	Message string
}
