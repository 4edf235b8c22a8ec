package validation

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const isNegative = "must be greater than or equal to 0"

// lifecycleAndProbes checks the hooks and probes of a regular container or a
// sidecar, as validateContainers and validateInitContainers do for them.
func lifecycleAndProbes(c *v1.Container, gracePeriod *int64, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if l := c.Lifecycle; l != nil {
		lp := path.Child("lifecycle")
		if l.PostStart != nil {
			errs = append(errs, lifecycleHandler(l.PostStart, gracePeriod, lp.Child("postStart"))...)
		}
		if l.PreStop != nil {
			errs = append(errs, lifecycleHandler(l.PreStop, gracePeriod, lp.Child("preStop"))...)
		}
	}
	// A probe's path is made only for a probe that is set.
	if c.LivenessProbe != nil {
		errs = append(errs, probe(c.LivenessProbe, liveness, path.Child("livenessProbe"))...)
	}
	if c.ReadinessProbe != nil {
		errs = append(errs, probe(c.ReadinessProbe, readiness, path.Child("readinessProbe"))...)
	}
	if c.StartupProbe != nil {
		errs = append(errs, probe(c.StartupProbe, startup, path.Child("startupProbe"))...)
	}
	return errs
}

type probeKind int

const (
	liveness probeKind = iota
	readiness
	startup
)

// probe mirrors validateLivenessProbe, validateReadinessProbe and
// validateStartupProbe with validateProbe, leaving out the checks of the
// handler's own fields (ports, paths, commands).
func probe(p *v1.Probe, kind probeKind, path *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	h := &p.ProbeHandler
	errs := oneHandler(path, []handlerField{
		{"exec", h.Exec != nil},
		{"httpGet", h.HTTPGet != nil},
		{"tcpSocket", h.TCPSocket != nil},
		{"grpc", h.GRPC != nil},
	})
	for _, f := range []struct {
		name  string
		value int32
	}{
		{"initialDelaySeconds", p.InitialDelaySeconds},
		{"timeoutSeconds", p.TimeoutSeconds},
		{"periodSeconds", p.PeriodSeconds},
		{"successThreshold", p.SuccessThreshold},
		{"failureThreshold", p.FailureThreshold},
	} {
		if f.value < 0 {
			errs = append(errs, field.Invalid(path.Child(f.name), int64(f.value), isNegative))
		}
	}
	if g := p.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
		errs = append(errs, field.Invalid(path.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
	}
	switch kind {
	case liveness, startup:
		// The API server defaults 0 to 1 before it validates, so 0 reads as
		// "not defaulted" here; every other value but 1 is rejected.
		if s := p.SuccessThreshold; s != 0 && s != 1 {
			errs = append(errs, field.Invalid(path.Child("successThreshold"), int64(s), "must be 1"))
		}
	case readiness:
		if g := p.TerminationGracePeriodSeconds; g != nil {
			errs = append(errs, field.Invalid(path.Child("terminationGracePeriodSeconds"), *g, "must not be set for readinessProbes"))
		}
	}
	return errs
}

// lifecycleHandler mirrors validateHandler for a postStart or preStop hook,
// leaving out the checks of the handler's own fields except the sleep
// duration, which bounds how long the kubelet waits.
func lifecycleHandler(h *v1.LifecycleHandler, gracePeriod *int64, path *field.Path) field.ErrorList {
	errs := oneHandler(path, []handlerField{
		{"exec", h.Exec != nil},
		{"httpGet", h.HTTPGet != nil},
		{"tcpSocket", h.TCPSocket != nil},
		{"sleep", h.Sleep != nil},
	})
	if h.Sleep != nil && gracePeriod != nil && (h.Sleep.Seconds < 0 || h.Sleep.Seconds > *gracePeriod) {
		errs = append(errs, field.Invalid(path.Child("sleep"), h.Sleep.Seconds,
			fmt.Sprintf("must be from 0 to terminationGracePeriodSeconds (%d)", *gracePeriod)))
	}
	return errs
}

type handlerField struct {
	name string
	set  bool
}

// oneHandler reports a handler with no action, and every action after the
// first one set, as validateHandler does.
func oneHandler(path *field.Path, fields []handlerField) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, f := range fields {
		if !f.set {
			continue
		}
		if n > 0 {
			errs = append(errs, field.Forbidden(path.Child(f.name), "may not specify more than 1 handler type"))
		}
		n++
	}
	if n == 0 {
		errs = append(errs, field.Required(path, "must specify a handler type"))
	}
	return errs
}

// containerResources mirrors the quantity checks of
// ValidateContainerResourceRequirements.
func containerResources(r *v1.ResourceRequirements, path *field.Path) field.ErrorList {
	return requirements(r.Limits, r.Requests, nil, path)
}

// podLevelResourceNames are the resource names spec.resources may hold;
// the last one is a prefix.
var podLevelResourceNames = []string{string(v1.ResourceCPU), string(v1.ResourceHugePagesPrefix), string(v1.ResourceMemory)}

func podLevelResourceName(name v1.ResourceName) bool {
	return name == v1.ResourceCPU || name == v1.ResourceMemory || strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

// podResources mirrors validatePodResources, without the check that the pod
// requests cover the sum of the container requests. specPath is the path
// of spec.
func podResources(spec *v1.PodSpec, specPath *field.Path) field.ErrorList {
	path := specPath.Child("resources")
	if spec.OS != nil && spec.OS.Name == v1.Windows {
		return field.ErrorList{field.Forbidden(path, "may not be set for a windows pod")}
	}
	r := spec.Resources
	var errs field.ErrorList
	if r.Claims != nil {
		errs = append(errs, field.Forbidden(path.Child("claims"), "claims may not be set for Resources at pod-level"))
	}
	errs = append(errs, requirements(r.Limits, r.Requests, podLevelResourceName, path)...)

	// Each regular container's limit must fit in the pod's limit.
	for i := range spec.Containers {
		limits := spec.Containers[i].Resources.Limits
		for _, name := range sortedNames(limits) {
			podLimit, ok := r.Limits[name]
			if !ok {
				continue
			}
			if l := limits[name]; l.Cmp(podLimit) > 0 {
				p := specPath.Child("containers").Index(i).Child("resources", "limits").Key(string(name))
				errs = append(errs, field.Invalid(p, l.String(),
					fmt.Sprintf("must be less than or equal to pod limits of %s", podLimit.String())))
			}
		}
	}
	return errs
}

// requirements mirrors the quantity checks of validateResourceRequirements:
// no negative quantity, no request above its limit, and requests equal to
// limits for resources that cannot be overcommitted (hugepages and extended
// resources). If nameOK is not nil, it restricts the resource names.
func requirements(limits, requests v1.ResourceList, nameOK func(v1.ResourceName) bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	lp, rp := path.Child("limits"), path.Child("requests")
	for _, name := range sortedNames(limits) {
		p := lp.Key(string(name))
		if nameOK != nil && !nameOK(name) {
			errs = append(errs, field.NotSupported(p, name, podLevelResourceNames))
		}
		if q := limits[name]; q.Sign() < 0 {
			errs = append(errs, field.Invalid(p, q.String(), isNegative))
		}
	}
	for _, name := range sortedNames(requests) {
		p := rp.Key(string(name))
		if nameOK != nil && !nameOK(name) {
			errs = append(errs, field.NotSupported(p, name, podLevelResourceNames))
		}
		q := requests[name]
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(p, q.String(), isNegative))
		}
		limit, ok := limits[name]
		switch {
		case ok && !overcommitAllowed(name) && q.Cmp(limit) != 0:
			errs = append(errs, field.Invalid(p, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, limit.String())))
		case ok && q.Cmp(limit) > 0:
			errs = append(errs, field.Invalid(p, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		case !ok && !overcommitAllowed(name):
			errs = append(errs, field.Required(lp.Key(string(name)), "limit must be set for non overcommitable resources"))
		}
	}
	return errs
}

// overcommitAllowed reports whether a request for name may be below its
// limit: true for the native resources in the kubernetes.io namespace except
// hugepages.
func overcommitAllowed(name v1.ResourceName) bool {
	s := string(name)
	native := !strings.Contains(s, "/") || strings.Contains(s, v1.ResourceDefaultNamespacePrefix)
	return native && !strings.HasPrefix(s, v1.ResourceHugePagesPrefix)
}

func sortedNames(l v1.ResourceList) []v1.ResourceName {
	names := make([]v1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

var (
	resizeResources = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory}
	resizePolicies  = []v1.ResourceResizeRestartPolicy{v1.NotRequired, v1.RestartContainer}
)

// resizePolicy mirrors validateResizePolicy.
func resizePolicy(list []v1.ContainerResizePolicy, podRestartPolicy v1.RestartPolicy, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[v1.ResourceName]bool{}
	for i, p := range list {
		ip := path.Index(i)
		if seen[p.ResourceName] {
			errs = append(errs, field.Duplicate(ip.Child("resourceName"), p.ResourceName))
		}
		seen[p.ResourceName] = true
		switch {
		case p.ResourceName == "":
			errs = append(errs, field.Required(ip.Child("resourceName"), ""))
		case !oneOf(p.ResourceName, resizeResources):
			errs = append(errs, field.NotSupported(ip.Child("resourceName"), p.ResourceName, resizeResources))
		}
		switch {
		case p.RestartPolicy == "":
			errs = append(errs, field.Required(ip.Child("restartPolicy"), ""))
		case !oneOf(p.RestartPolicy, resizePolicies):
			errs = append(errs, field.NotSupported(ip.Child("restartPolicy"), p.RestartPolicy, resizePolicies))
		}
		if podRestartPolicy == v1.RestartPolicyNever && p.RestartPolicy != v1.NotRequired {
			errs = append(errs, field.Invalid(ip.Child("restartPolicy"), p.RestartPolicy,
				"must be 'NotRequired' when pod `restartPolicy` is 'Never'"))
		}
	}
	return errs
}
