package restart

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// ShouldContainerBeRestarted reports whether the kubelet would start a new
// instance of c, judging by the newest instance of c in st (any sandbox).
// It mirrors ShouldContainerBeRestarted in pkg/kubelet/container/helpers.go:
// never for a pod being deleted; always when no instance exists (never ran,
// or garbage-collected) or the newest is created or unknown; never while it
// runs; for an exited instance, by the restart rules and policies
// (ContainerShouldRestart) with gate ContainerRestartRules, by the pod's
// restartPolicy alone without it.
//
// A nil pod or container gives false. A nil st is a runtime that knows no
// instance.
func ShouldContainerBeRestarted(c *v1.Container, pod *v1.Pod, st *runtimestate.Pod, f features.Set) bool {
	if c == nil || pod == nil {
		return false
	}
	if pod.DeletionTimestamp != nil {
		return false
	}
	newest := st.Newest(c.Name)
	if newest == nil {
		return true
	}
	switch newest.State {
	case runtimestate.Running:
		return false
	case runtimestate.Exited:
	default:
		// created, unknown, and any state the runtime mapping reads as
		// unknown.
		return true
	}
	code := int32(newest.ExitCode)
	if f.Enabled(features.ContainerRestartRules) {
		return ContainerShouldRestart(c, &pod.Spec, code, f)
	}
	switch pod.Spec.RestartPolicy {
	case v1.RestartPolicyNever:
		return false
	case v1.RestartPolicyOnFailure:
		return code != 0
	}
	return true
}

// ContainerShouldRestart reports whether an instance of c that exited with
// exitCode is restarted according to c's own restartPolicyRules and
// restartPolicy, falling back to the pod's restartPolicy. It mirrors
// ContainerShouldRestart in pkg/api/v1/pod/util.go.
//
// Rules are read only when c sets restartPolicy. A matching rule with action
// Restart restarts; one with action RestartAllContainers restarts when gate
// RestartAllContainersOnContainerExits is on and otherwise falls through to
// the policies, as does any other action. The container's policy Always,
// OnFailure or Never decides next; an unknown value falls through to the
// pod's policy, where OnFailure restarts a non-zero exit, Never does not
// restart, and Always, "" or any unknown value restarts.
//
// A nil c or spec reads as an empty container or spec.
func ContainerShouldRestart(c *v1.Container, spec *v1.PodSpec, exitCode int32, f features.Set) bool {
	if c == nil {
		c = &v1.Container{}
	}
	if spec == nil {
		spec = &v1.PodSpec{}
	}
	if c.RestartPolicy != nil {
		if rule, ok := MatchRule(c, exitCode); ok {
			switch rule.Action {
			case v1.ContainerRestartRuleActionRestart:
				return true
			case v1.ContainerRestartRuleActionRestartAllContainers:
				if f.Enabled(features.RestartAllContainersOnContainerExits) {
					return true
				}
			}
		}
		switch *c.RestartPolicy {
		case v1.ContainerRestartPolicyAlways:
			return true
		case v1.ContainerRestartPolicyOnFailure:
			return exitCode != 0
		case v1.ContainerRestartPolicyNever:
			return false
		}
	}
	return podPolicyRestarts(spec.RestartPolicy, exitCode)
}

func podPolicyRestarts(p v1.RestartPolicy, exitCode int32) bool {
	switch p {
	case v1.RestartPolicyOnFailure:
		return exitCode != 0
	case v1.RestartPolicyNever:
		return false
	}
	return true
}

// MatchRule returns the first of c's restartPolicyRules that matches
// exitCode, and whether one did. It mirrors FindMatchingContainerRestartRule
// in pkg/api/v1/pod/util.go: a rule without exitCodes never matches; In
// matches a listed code, NotIn an unlisted one; a rule with any other
// operator is skipped. It does not look at c's restartPolicy.
func MatchRule(c *v1.Container, exitCode int32) (v1.ContainerRestartRule, bool) {
	if c == nil {
		return v1.ContainerRestartRule{}, false
	}
	for _, rule := range c.RestartPolicyRules {
		if rule.ExitCodes == nil {
			continue
		}
		listed := false
		for _, v := range rule.ExitCodes.Values {
			if v == exitCode {
				listed = true
				break
			}
		}
		switch rule.ExitCodes.Operator {
		case v1.ContainerRestartRuleOnExitCodesOpIn:
			if listed {
				return rule, true
			}
		case v1.ContainerRestartRuleOnExitCodesOpNotIn:
			if !listed {
				return rule, true
			}
		}
	}
	return v1.ContainerRestartRule{}, false
}

// IsContainerRestartable reports whether c can be restarted at all: when c
// sets restartPolicy, if any of its rules has action Restart or its policy
// is not Never; otherwise if the pod's policy is not Never. It mirrors
// IsContainerRestartable in pkg/api/v1/pod/util.go, which the kubelet uses
// to decide whether a pod is "run once". A nil c or spec reads as empty.
func IsContainerRestartable(spec *v1.PodSpec, c *v1.Container) bool {
	if c == nil {
		c = &v1.Container{}
	}
	if spec == nil {
		spec = &v1.PodSpec{}
	}
	if c.RestartPolicy != nil {
		for _, rule := range c.RestartPolicyRules {
			if rule.Action == v1.ContainerRestartRuleActionRestart {
				return true
			}
		}
		return *c.RestartPolicy != v1.ContainerRestartPolicyNever
	}
	return spec.RestartPolicy != v1.RestartPolicyNever
}

// AllContainersCouldRestart reports whether any init or regular container
// of spec has a rule with action RestartAllContainers, whatever its
// restartPolicy. It mirrors AllContainersCouldRestart in
// pkg/api/v1/pod/util.go; only such pods get the AllContainersRestarting
// condition. A nil spec gives false.
func AllContainersCouldRestart(spec *v1.PodSpec) bool {
	if spec == nil {
		return false
	}
	for _, list := range [][]v1.Container{spec.InitContainers, spec.Containers} {
		for i := range list {
			for _, rule := range list[i].RestartPolicyRules {
				if rule.Action == v1.ContainerRestartRuleActionRestartAllContainers {
					return true
				}
			}
		}
	}
	return false
}

// IsInitContainerFailed reports whether an instance of a regular init
// container counts as failed: its reason is OOMKilled (in any state), it
// exited with a non-zero code, or its state is unknown. It mirrors
// isInitContainerFailed in pkg/kubelet/kuberuntime/helpers.go. A nil
// instance gives false.
func IsInitContainerFailed(c *runtimestate.Container) bool {
	if c == nil {
		return false
	}
	if c.Reason == "OOMKilled" {
		return true
	}
	switch c.State {
	case runtimestate.Exited:
		return c.ExitCode != 0
	case runtimestate.Running, runtimestate.Created:
		return false
	}
	// unknown, and any state the runtime mapping reads as unknown
	return true
}
