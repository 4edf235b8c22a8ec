package validation

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits on restartPolicyRules, from validateContainerRestartPolicy.
const (
	maxRestartRules   = 20
	maxExitCodeValues = 255
)

var (
	containerRestartPolicies = []v1.ContainerRestartPolicy{
		v1.ContainerRestartPolicyAlways, v1.ContainerRestartPolicyNever, v1.ContainerRestartPolicyOnFailure,
	}
	restartRuleActions = []v1.ContainerRestartRuleAction{
		v1.ContainerRestartRuleActionRestart, v1.ContainerRestartRuleActionRestartAllContainers,
	}
	exitCodeOperators = []v1.ContainerRestartRuleOnExitCodesOperator{
		v1.ContainerRestartRuleOnExitCodesOpIn, v1.ContainerRestartRuleOnExitCodesOpNotIn,
	}
)

// restartPolicyAndRules checks a regular or init container's restartPolicy
// and restartPolicyRules.
//
// With ContainerRestartRules and RestartAllContainersOnContainerExits on (the
// v1.37.2 defaults), the API server applies the same rules to both kinds:
// validateContainers calls validateContainerRestartPolicy directly, and
// validateInitContainerRestartPolicy calls it for every policy, sidecars
// (Always) included. So a regular container may set any of Always,
// OnFailure and Never; an init container may too, and Always makes it a
// sidecar; rules need an explicit restartPolicy and may use either action on
// any kind of container.
func restartPolicyAndRules(policy *v1.ContainerRestartPolicy, rules []v1.ContainerRestartRule, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	pp := path.Child("restartPolicy")
	switch {
	case policy == nil:
		if len(rules) == 0 {
			return nil
		}
		errs = append(errs, field.Required(pp, "must specify restartPolicy when restart rules are used"))
	case !oneOf(*policy, containerRestartPolicies):
		errs = append(errs, field.NotSupported(pp, *policy, containerRestartPolicies))
	}

	rp := path.Child("restartPolicyRules")
	if len(rules) > maxRestartRules {
		errs = append(errs, field.TooMany(rp, len(rules), maxRestartRules))
	}
	for i, r := range rules {
		p := rp.Index(i)
		if !oneOf(r.Action, restartRuleActions) {
			errs = append(errs, field.NotSupported(p.Child("action"), r.Action, restartRuleActions))
		}
		if r.ExitCodes == nil {
			errs = append(errs, field.Required(p.Child("exitCodes"), "must be specified"))
			continue
		}
		ep := p.Child("exitCodes")
		if !oneOf(r.ExitCodes.Operator, exitCodeOperators) {
			errs = append(errs, field.NotSupported(ep.Child("operator"), r.ExitCodes.Operator, exitCodeOperators))
		}
		// Values may be empty, repeated and in any order: the API server
		// checks only their number.
		if n := len(r.ExitCodes.Values); n > maxExitCodeValues {
			errs = append(errs, field.TooMany(ep.Child("values"), n, maxExitCodeValues))
		}
	}
	return errs
}

func oneOf[T comparable](v T, allowed []T) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}
