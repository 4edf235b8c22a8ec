package podstatus

import (
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// RecomputeOptions are the inputs of Recompute besides the pod. The zero
// value is a v1.37.2 node at the zero time with a pod that is not terminal.
type RecomputeOptions struct {
	// The zero value is kubelet v1.37.2's defaults (features.V1_37).
	Features features.Set
	// PodIsTerminal is the kubelet's podIsTerminal (see Options).
	PodIsTerminal bool
	// Now is the clock, read for spec.activeDeadlineSeconds.
	Now time.Time
	// FromAPI says the status is the API object's (kubectl get pod -o
	// yaml), which the status manager wrote (status_manager.go syncPod,
	// mergePodStatus), not its cached status (SetPodStatus, the kubelet's
	// /pods endpoint for a static pod). Check then also reports a terminal
	// phase beside a running init or regular container (an ephemeral one
	// can stay running through TerminatePod): mergePodStatus holds a terminal
	// phase back while the pod worker says a container could still run,
	// and SyncTerminatingPod has stopped every container before that
	// changes. The cache holds such a status (SyncPod stores Failed for a
	// pod past its activeDeadlineSeconds while its containers run).
	FromAPI bool
}

// Recomputed is what the kubelet derives from a pod's container statuses.
type Recomputed struct {
	// GetPhase is getPhase's answer; Phase the phase, reason and message
	// after the rules that follow it.
	GetPhase phase.Result
	Phase    phase.Status
	// PodHasInitialized is the estimate of the kubelet's podHasInitialized
	// that GetPhase used (see Recompute).
	PodHasInitialized bool
	// Conditions are the conditions the kubelet writes, transition times
	// kept from the pod's status where the status did not change.
	Conditions []v1.PodCondition
	// Status is the pod status with Phase, Reason, Message and Conditions
	// replaced by the recomputed ones; the container statuses are the
	// pod's own.
	Status v1.PodStatus
	// KubectlStatus is kubectl's STATUS column for that status.
	KubectlStatus string
}

// Recompute takes a pod with its status, as `kubectl get pod -o yaml`
// shows it, and recomputes from its container statuses what the kubelet
// v1.37.2 derives from them: the phase (phase.Compute, then phase.Resolve),
// the conditions (conditions.Generate) and the STATUS column
// (kubectlstatus.Compute). It answers "given these container statuses,
// what phase, conditions and STATUS would a kubelet write?" without a
// runtime state. Where the kubelet reads the runtime, Recompute reads the
// API status instead, and says so:
//
//   - podHasInitialized (getPhase's input) is true when a regular container
//     has a running or terminated state or a last termination: an instance
//     of it existed. The kubelet counts only instances in the active
//     sandbox, which the API does not show.
//   - PodReadyToStartContainers and AllContainersRestarting are taken from
//     the pod's status as they are (the sandbox and the containers being
//     reset are not in the API status), but for PodReadyToStartContainers'
//     reason and message, which follow its status and the version: none
//     with True, or with False before v1.37; from v1.37 on, False has
//     reason PodSandboxNotReady and one of the five sandbox messages (the
//     status's when it is one). When the status has none, they are
//     generated as for a runtime with no sandbox and no instance.
//   - A terminal phase in the pod's status is kept, as the kubelet keeps a
//     terminal phase it wrote.
//
// The container statuses themselves are taken as they are: to compute them,
// use Compute with a runtime state. A nil pod gives the zero Recomputed.
func Recompute(pod *v1.Pod, opts RecomputeOptions) Recomputed {
	if pod == nil {
		return Recomputed{}
	}
	return recompute(pod, opts, hadRegularInstance(&pod.Spec, pod.Status.ContainerStatuses), &pod.Status)
}

// recompute is Recompute with getPhase's two inputs that the API status
// does not show given: podHasInitialized, and the container statuses as
// getPhase reads them (before the probe step sets Started).
func recompute(pod *v1.Pod, opts RecomputeOptions, podHasInitialized bool, beforeProbes *v1.PodStatus) Recomputed {
	var r Recomputed
	r.PodHasInitialized = podHasInitialized
	r.GetPhase = phase.Compute(pod, beforeProbes, phase.Options{Features: opts.Features, PodIsTerminal: opts.PodIsTerminal, PodHasInitialized: r.PodHasInitialized})
	r.Phase = phase.Resolve(pod, r.GetPhase.Phase, phase.ResolveOptions{Now: opts.Now})

	gen := *pod.Status.DeepCopy()
	gen.Phase, gen.Reason, gen.Message = r.Phase.Phase, r.Phase.Reason, r.Phase.Message
	conds := conditions.Generate(pod, &gen, conditions.Options{Features: opts.Features, PodIsTerminal: opts.PodIsTerminal})
	for i := range conds {
		if conds[i].Type != v1.PodReadyToStartContainers && conds[i].Type != v1.AllContainersRestarting {
			continue
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == conds[i].Type {
				conds[i] = *c.DeepCopy()
				if c.Type == v1.PodReadyToStartContainers {
					conds[i].Reason, conds[i].Message = sandboxWords(c, gen.Phase, opts.Features)
				}
				break
			}
		}
	}
	r.Conditions = conditions.KeepTransitionTimes(conds, &pod.Status, opts.Now)
	gen.Conditions = r.Conditions
	r.Status = gen
	shown := pod.DeepCopy()
	shown.Status = gen
	r.KubectlStatus = kubectlstatus.Compute(shown)
	return r
}

// sandboxMessages are the messages of a False PodReadyToStartContainers
// from v1.37 on: the reasons runtimeutil.PodSandboxChanged gives.
var sandboxMessages = []string{vocab.MsgNoPodSandbox, vocab.MsgMultipleSandboxes, vocab.MsgSandboxNotReady, vocab.MsgNetworkNamespaceMode, vocab.MsgNoIPAddress}

// sandboxWords is the reason and message the kubelet writes with a
// PodReadyToStartContainers condition of c's status
// (GeneratePodReadyToStartContainersCondition, generate.go:271 in
// v1.37.2): none with True, and none with False before v1.37; from v1.37
// on, False has reason PodSandboxNotReady and one of sandboxMessages: c's
// when it is one, else the likeliest, "pod sandbox is not ready" for a
// terminal phase (its sandbox stopped) and "no pod sandbox exists" before.
func sandboxWords(c v1.PodCondition, ph v1.PodPhase, f features.Set) (reason, message string) {
	if c.Status != v1.ConditionFalse || f.Version().Minor() < 37 {
		return "", ""
	}
	if slices.Contains(sandboxMessages, c.Message) {
		return conditions.ReasonPodSandboxNotReady, c.Message
	}
	if ph == v1.PodSucceeded || ph == v1.PodFailed {
		return conditions.ReasonPodSandboxNotReady, vocab.MsgSandboxNotReady
	}
	return conditions.ReasonPodSandboxNotReady, vocab.MsgNoPodSandbox
}

// hadRegularInstance: some regular container of spec has a status showing
// that an instance of it existed.
func hadRegularInstance(spec *v1.PodSpec, statuses []v1.ContainerStatus) bool {
	if conditions.HasAnyRegularContainerStarted(spec, statuses) {
		return true
	}
	for i := range statuses {
		if statuses[i].LastTerminationState.Terminated != nil {
			for j := range spec.Containers {
				if spec.Containers[j].Name == statuses[i].Name {
					return true
				}
			}
		}
	}
	return false
}
