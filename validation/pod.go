package validation

import (
	"errors"
	"fmt"
	"math"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// defaultTerminationGracePeriodSeconds is what the API server writes into
// spec.terminationGracePeriodSeconds when a pod leaves it unset.
const defaultTerminationGracePeriodSeconds = v1.DefaultTerminationGracePeriodSeconds

// Pod reports every problem in pod that the v1.37.2 API server, running with
// its default feature gates, would not let a stored pod have, restricted to
// the fields kubeletlogic's decisions read. The package documentation lists
// the rules.
//
// The result is nil for a valid pod, and otherwise errors.Join of one error
// per problem, in the order the API server reports them. Each joined error is
// a *field.Error (k8s.io/apimachinery/pkg/util/validation/field) whose text
// starts with the field path, for example
//
//	spec.initContainers[1].restartPolicyRules[0].exitCodes.operator: Unsupported value: "Foo": supported values: "In", "NotIn"
//
// A nil pod is an error. Pod never panics and does not modify pod.
func Pod(pod *v1.Pod) error {
	if pod == nil {
		return errors.New("pod: must not be nil")
	}
	var errs field.ErrorList
	errs = append(errs, objectMeta(&pod.ObjectMeta, field.NewPath("metadata"))...)
	errs = append(errs, podSpec(&pod.Spec, field.NewPath("spec"))...)
	return join(errs)
}

// join turns a field.ErrorList into one error, nil when the list is empty.
func join(list field.ErrorList) error {
	if len(list) == 0 {
		return nil
	}
	errs := make([]error, len(list))
	for i, e := range list {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// objectMeta checks the metadata the kubelet reads when it kills a pod.
func objectMeta(m *metav1.ObjectMeta, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	// The API server's graceful-delete path (BeforeDelete in
	// k8s.io/apiserver/pkg/registry/rest/delete.go) replaces a negative
	// grace period by 1 before it stores it.
	if g := m.DeletionGracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(path.Child("deletionGracePeriodSeconds"), *g,
			"must be greater than or equal to 0 (the API server stores 1 in place of a negative value)"))
	}
	return errs
}

// podSpec mirrors the parts of ValidatePodSpec and validatePodMetadataAndSpec
// that concern fields the decisions read, in the same order.
func podSpec(spec *v1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList

	// The grace period that sleep hooks are checked against. An unset or
	// negative value is reported and not used, so that one mistake gives
	// one error.
	var gracePeriod *int64
	switch g := spec.TerminationGracePeriodSeconds; {
	case g == nil:
		errs = append(errs, field.Required(path.Child("terminationGracePeriodSeconds"), fmt.Sprintf(
			"the API server defaults an unset terminationGracePeriodSeconds to %d, so a pod it stores always has one; set it explicitly",
			defaultTerminationGracePeriodSeconds)))
	case *g >= 0:
		gracePeriod = g
	}

	names := map[string]bool{}
	errs = append(errs, containers(spec, gracePeriod, names, path.Child("containers"))...)
	errs = append(errs, initContainers(spec, gracePeriod, names, path.Child("initContainers"))...)
	errs = append(errs, ephemeralContainers(spec, names, path.Child("ephemeralContainers"))...)

	if spec.Resources != nil {
		errs = append(errs, podResources(spec, path)...)
	}

	switch spec.RestartPolicy {
	case v1.RestartPolicyAlways, v1.RestartPolicyOnFailure, v1.RestartPolicyNever:
	case "":
		errs = append(errs, field.Required(path.Child("restartPolicy"),
			`the API server defaults an empty restartPolicy to "Always", so a pod it stores always has one; set it explicitly`))
	default:
		errs = append(errs, field.NotSupported(path.Child("restartPolicy"), spec.RestartPolicy, podRestartPolicies))
	}

	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), *d,
			validation.InclusiveRangeError(1, math.MaxInt32)))
	}

	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(path.Child("terminationGracePeriodSeconds"), *g,
			"must be greater than or equal to 0 (the API server stores 1 in place of a negative value)"))
	}
	return errs
}

var podRestartPolicies = []v1.RestartPolicy{v1.RestartPolicyAlways, v1.RestartPolicyOnFailure, v1.RestartPolicyNever}

// containers mirrors validateContainers. It records every name in names.
func containers(spec *v1.PodSpec, gracePeriod *int64, names map[string]bool, path *field.Path) field.ErrorList {
	if len(spec.Containers) == 0 {
		return field.ErrorList{field.Required(path, "a pod must have at least one container")}
	}
	var errs field.ErrorList
	for i := range spec.Containers {
		c := &spec.Containers[i]
		p := path.Index(i)
		errs = append(errs, containerCommon(c, spec.RestartPolicy, p)...)
		errs = append(errs, uniqueName(c.Name, names, p)...)
		errs = append(errs, lifecycleAndProbes(c, gracePeriod, p)...)
		errs = append(errs, restartPolicyAndRules(c.RestartPolicy, c.RestartPolicyRules, p)...)
	}
	return errs
}

// initContainers mirrors validateInitContainers.
func initContainers(spec *v1.PodSpec, gracePeriod *int64, names map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		p := path.Index(i)
		errs = append(errs, containerCommon(c, spec.RestartPolicy, p)...)
		errs = append(errs, restartPolicyAndRules(c.RestartPolicy, c.RestartPolicyRules, p)...)
		errs = append(errs, uniqueName(c.Name, names, p)...)

		sidecar := c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
		if sidecar {
			errs = append(errs, lifecycleAndProbes(c, gracePeriod, p)...)
		} else {
			const why = "may not be set for init containers without restartPolicy=Always"
			if c.Lifecycle != nil {
				errs = append(errs, field.Forbidden(p.Child("lifecycle"), why))
			}
			if c.LivenessProbe != nil {
				errs = append(errs, field.Forbidden(p.Child("livenessProbe"), why))
			}
			if c.ReadinessProbe != nil {
				errs = append(errs, field.Forbidden(p.Child("readinessProbe"), why))
			}
			if c.StartupProbe != nil {
				errs = append(errs, field.Forbidden(p.Child("startupProbe"), why))
			}
			for j, rp := range c.ResizePolicy {
				if rp.RestartPolicy == v1.RestartContainer {
					errs = append(errs, field.Invalid(p.Child("resizePolicy").Index(j).Child("restartPolicy"), rp.RestartPolicy,
						"must not be set to 'RestartContainer' for non-sidecar initContainers"))
				}
			}
		}
	}
	return errs
}

// ephemeralContainers mirrors validateEphemeralContainers.
func ephemeralContainers(spec *v1.PodSpec, names map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range spec.EphemeralContainers {
		c := (*v1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon)
		p := path.Index(i)
		errs = append(errs, containerCommon(c, spec.RestartPolicy, p)...)
		errs = append(errs, uniqueName(c.Name, names, p)...)
		if t := spec.EphemeralContainers[i].TargetContainerName; t != "" && !isInitOrRegular(spec, t) {
			errs = append(errs, field.NotFound(p.Child("targetContainerName"), t))
		}

		// The API server allows a fixed list of fields on an ephemeral
		// container and forbids every other field that is not its zero
		// value; these are the forbidden ones.
		forbidden := []struct {
			name string
			set  bool
		}{
			{"ports", c.Ports != nil},
			{"resources", c.Resources.Limits != nil || c.Resources.Requests != nil || c.Resources.Claims != nil},
			{"resizePolicy", c.ResizePolicy != nil},
			{"restartPolicy", c.RestartPolicy != nil},
			{"restartPolicyRules", c.RestartPolicyRules != nil},
			{"livenessProbe", c.LivenessProbe != nil},
			{"readinessProbe", c.ReadinessProbe != nil},
			{"startupProbe", c.StartupProbe != nil},
			{"lifecycle", c.Lifecycle != nil},
		}
		for _, f := range forbidden {
			if f.set {
				errs = append(errs, field.Forbidden(p.Child(f.name), "cannot be set for an Ephemeral Container"))
			}
		}
	}
	return errs
}

// isInitOrRegular reports whether an init or regular container is named
// name: the only containers an ephemeral container may target.
func isInitOrRegular(spec *v1.PodSpec, name string) bool {
	for _, list := range [][]v1.Container{spec.Containers, spec.InitContainers} {
		for i := range list {
			if list[i].Name == name {
				return true
			}
		}
	}
	return false
}

// uniqueName reports name if an earlier container of any kind has it, and
// records it. Containers are visited in the API server's order (regular,
// init, ephemeral), so the duplicate is reported on the same container as
// the API server reports it. An empty name is reported by containerCommon.
func uniqueName(name string, names map[string]bool, path *field.Path) field.ErrorList {
	if name == "" {
		return nil
	}
	if names[name] {
		return field.ErrorList{field.Duplicate(path.Child("name"), name)}
	}
	names[name] = true
	return nil
}

// containerCommon mirrors the parts of validateContainerCommon (and the
// pod-only validateContainerOnlyForPod) that apply to every kind of
// container.
func containerCommon(c *v1.Container, podRestartPolicy v1.RestartPolicy, path *field.Path) field.ErrorList {
	// Field paths are made only for an error, or for a part that is set:
	// a valid pod costs few allocations.
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else if msgs := validation.IsDNS1123Label(c.Name); len(msgs) > 0 {
		np := path.Child("name")
		for _, msg := range msgs {
			errs = append(errs, field.Invalid(np, c.Name, msg))
		}
	}

	switch {
	case c.Image == "":
		errs = append(errs, field.Required(path.Child("image"), ""))
	case len(c.Image) != len(strings.TrimSpace(c.Image)):
		errs = append(errs, field.Invalid(path.Child("image"), c.Image, "must not have leading or trailing whitespace"))
	}

	if len(c.Resources.Limits) > 0 || len(c.Resources.Requests) > 0 {
		errs = append(errs, containerResources(&c.Resources, path.Child("resources"))...)
	}
	if len(c.ResizePolicy) > 0 {
		errs = append(errs, resizePolicy(c.ResizePolicy, podRestartPolicy, path.Child("resizePolicy"))...)
	}
	return errs
}
