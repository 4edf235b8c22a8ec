package restart

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/internal/names"
)

// Kind is the role a container plays in its pod, which decides how the
// kubelet restarts it.
type Kind int

// The kinds of container.
const (
	// Regular is an entry of spec.containers.
	Regular Kind = iota
	// Init is an entry of spec.initContainers without restartPolicy
	// Always: it runs to completion before the next one starts.
	Init
	// Sidecar is an entry of spec.initContainers with restartPolicy Always
	// (a native sidecar).
	Sidecar
	// Ephemeral is an entry of spec.ephemeralContainers.
	Ephemeral
)

func (k Kind) String() string {
	switch k {
	case Regular:
		return "regular"
	case Init:
		return "init"
	case Sidecar:
		return "sidecar"
	case Ephemeral:
		return "ephemeral"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// KindOf finds the container named name in spec and returns its kind and
// spec. Init containers are searched first, then regular containers, then
// ephemeral ones (names are unique in a valid pod), as the kubelet's
// GetContainerSpec does. ok is false when no container has that name or
// spec is nil. An ephemeral container is returned as a *v1.Container that
// points at its common fields.
func KindOf(spec *v1.PodSpec, name string) (kind Kind, c *v1.Container, ok bool) {
	if spec == nil {
		return 0, nil, false
	}
	for i := range spec.InitContainers {
		if names.Equal(spec.InitContainers[i].Name, name) {
			c := &spec.InitContainers[i]
			if IsSidecar(c) {
				return Sidecar, c, true
			}
			return Init, c, true
		}
	}
	for i := range spec.Containers {
		if names.Equal(spec.Containers[i].Name, name) {
			return Regular, &spec.Containers[i], true
		}
	}
	for i := range spec.EphemeralContainers {
		if e := &spec.EphemeralContainers[i]; names.Equal(e.Name, name) {
			return Ephemeral, (*v1.Container)(&e.EphemeralContainerCommon), true
		}
	}
	return 0, nil, false
}

// IsSidecar reports whether c is a native sidecar: restartPolicy Always.
// It mirrors IsRestartableInitContainer (pkg/api/v1/pod/util.go), which
// does not check that c is an init container either. A nil c gives false.
func IsSidecar(c *v1.Container) bool {
	return c != nil && c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
}

// Effective summarizes how the kubelet restarts one container.
type Effective struct {
	Kind Kind
	// Policy is what applies when no rule matches: Always (restart after
	// any exit), OnFailure (after a failure) or Never.
	Policy v1.ContainerRestartPolicy
	// FromContainer is true when Policy is the container's own
	// restartPolicy, false when it derives from the pod's or from the
	// container's kind.
	FromContainer bool
	// Rules are the restartPolicyRules the kubelet evaluates before Policy;
	// empty when it ignores them (gate ContainerRestartRules off, no
	// container restartPolicy, sidecars, ephemeral containers).
	Rules []v1.ContainerRestartRule
}

// EffectivePolicy returns the restart behaviour the kubelet applies to the
// container named name of pod:
//
//   - a regular container follows its own restartPolicy (with gate
//     ContainerRestartRules, and when it is Always, OnFailure or Never),
//     after its rules; otherwise the pod's (an unknown or empty pod policy
//     reads as Always);
//   - a regular init container never restarts after it succeeded: the
//     pod's Always and OnFailure both read as OnFailure, Never as Never;
//     with gate ContainerRestartRules its own OnFailure or Never policy and
//     its rules take precedence;
//   - a native sidecar is always restarted (Always);
//   - an ephemeral container is never restarted (Never).
//
// The summary leaves out deletion and the exact meaning of "failure" for
// init containers; RestartsAfterExit answers for one exit. ok is false when
// the pod has no such container.
func EffectivePolicy(pod *v1.Pod, name string, f features.Set) (e Effective, ok bool) {
	if pod == nil {
		return Effective{}, false
	}
	kind, c, ok := KindOf(&pod.Spec, name)
	if !ok {
		return Effective{}, false
	}
	e.Kind = kind
	switch kind {
	case Sidecar:
		e.Policy = v1.ContainerRestartPolicyAlways
		return e, true
	case Ephemeral:
		e.Policy = v1.ContainerRestartPolicyNever
		return e, true
	}
	if f.Enabled(features.ContainerRestartRules) && c.RestartPolicy != nil {
		e.Rules = c.RestartPolicyRules
		switch p := *c.RestartPolicy; p {
		case v1.ContainerRestartPolicyAlways, v1.ContainerRestartPolicyOnFailure, v1.ContainerRestartPolicyNever:
			e.Policy, e.FromContainer = p, true
		}
	}
	if !e.FromContainer {
		switch pod.Spec.RestartPolicy {
		case v1.RestartPolicyNever:
			e.Policy = v1.ContainerRestartPolicyNever
		case v1.RestartPolicyOnFailure:
			e.Policy = v1.ContainerRestartPolicyOnFailure
		default:
			e.Policy = v1.ContainerRestartPolicyAlways
		}
	}
	if kind == Init && e.Policy == v1.ContainerRestartPolicyAlways {
		e.Policy = v1.ContainerRestartPolicyOnFailure
	}
	return e, true
}

// RestartsAfterExit reports whether the kubelet starts the container named
// name again when its newest instance exited with exitCode and reason (the
// runtime's reason, such as "OOMKilled" or "Error"), for each kind:
//
//   - regular: ShouldContainerBeRestarted for an exited instance;
//   - regular init: as computeInitContainerActions in
//     pkg/kubelet/kuberuntime/kuberuntime_container.go decides. A succeeded
//     instance (IsInitContainerFailed false) is never restarted; the pod
//     moves on. A failed one is restarted, with gate ContainerRestartRules,
//     if ShouldContainerBeRestarted says so (so never once the pod is being
//     deleted), and without the gate if the pod's restartPolicy is not
//     Never. When a failed init container is not restarted, the kubelet
//     kills the pod.
//   - sidecar: always, even while the pod is being deleted (until the pod
//     is killed);
//   - ephemeral: never.
//
// ok is false when the pod has no such container.
func RestartsAfterExit(pod *v1.Pod, name string, exitCode int32, reason string, f features.Set) (restart bool, kind Kind, ok bool) {
	if pod == nil {
		return false, 0, false
	}
	kind, c, ok := KindOf(&pod.Spec, name)
	if !ok {
		return false, 0, false
	}
	switch kind {
	case Sidecar:
		return true, kind, true
	case Ephemeral:
		return false, kind, true
	case Init:
		if reason != "OOMKilled" && exitCode == 0 {
			return false, kind, true
		}
		if !f.Enabled(features.ContainerRestartRules) {
			return pod.Spec.RestartPolicy != v1.RestartPolicyNever, kind, true
		}
	}
	if pod.DeletionTimestamp != nil {
		return false, kind, true
	}
	if f.Enabled(features.ContainerRestartRules) {
		return ContainerShouldRestart(c, &pod.Spec, exitCode, f), kind, true
	}
	return podPolicyRestarts(pod.Spec.RestartPolicy, exitCode), kind, true
}
