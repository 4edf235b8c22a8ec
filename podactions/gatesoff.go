package podactions

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// GateOff is a feature of a pod spec that a kubelet does not honour
// because the feature gate behind it is off there: what the pod asks for,
// and what that kubelet does instead.
type GateOff struct {
	Gate features.Gate `json:"gate"`
	// Default is true when the gate is off because that is its default in
	// the kubelet's version, false when it was turned off.
	Default bool `json:"default"`
	// Uses says which part of the spec needs the gate.
	Uses string `json:"uses"`
	// Instead says what the kubelet does without it.
	Instead string `json:"instead"`
	// Version is the kubelet's version.
	Version features.Version `json:"version"`
}

func (g GateOff) String() string {
	how := "turned off"
	if g.Default {
		how = "off by default"
	}
	return fmt.Sprintf("feature gate %s is %s in kubelet %s, and the pod uses it (%s): %s", g.Gate, how, g.Version, g.Uses, g.Instead)
}

// GatesOff lists the features of pod that need a gate which is off in f:
// the container-level restart policy and rules (ContainerRestartRules),
// the RestartAllContainers rule action (RestartAllContainersOnContainerExits,
// off by default in kubelet v1.35), pod-level resources (PodLevelResources)
// and their in-place resize (InPlacePodLevelResourcesVerticalScaling, off by
// default in v1.35), and the in-place resize of running regular init
// containers with resources (InPlacePodVerticalScalingInitContainers, absent
// from v1.35). Each says what the kubelet does instead, as this library's
// decisions model it for that Set. The decisions themselves follow f
// silently; call GatesOff to tell the user. A nil pod gives none.
func GatesOff(pod *v1.Pod, f features.Set) []GateOff {
	if pod == nil {
		return nil
	}
	var out []GateOff
	add := func(g features.Gate, uses, instead string) {
		if f.Enabled(g) {
			return
		}
		out = append(out, GateOff{Gate: g, Default: !f.Version().Default(g), Uses: uses, Instead: instead, Version: f.Version()})
	}
	podPolicy := pod.Spec.RestartPolicy
	if podPolicy == "" {
		podPolicy = v1.RestartPolicyAlways
	}

	// Container restart policy and rules.
	var own, rules, all []string
	var fallThrough []string
	each := func(c *v1.Container, init bool) {
		sidecar := init && c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
		if c.RestartPolicy != nil && !sidecar {
			own = append(own, fmt.Sprintf("%s (restartPolicy %s)", c.Name, *c.RestartPolicy))
		}
		if len(c.RestartPolicyRules) > 0 {
			rules = append(rules, c.Name)
		}
		for _, r := range c.RestartPolicyRules {
			if r.Action == v1.ContainerRestartRuleActionRestartAllContainers {
				all = append(all, c.Name)
				p := "the pod's restartPolicy " + string(podPolicy)
				if c.RestartPolicy != nil {
					p = "its restartPolicy " + string(*c.RestartPolicy)
				}
				fallThrough = append(fallThrough, fmt.Sprintf("%s: %s", c.Name, p))
				break
			}
		}
	}
	for i := range pod.Spec.InitContainers {
		each(&pod.Spec.InitContainers[i], true)
	}
	for i := range pod.Spec.Containers {
		each(&pod.Spec.Containers[i], false)
	}
	if len(own)+len(rules) > 0 {
		var uses []string
		if len(own) > 0 {
			uses = append(uses, "container restartPolicy on "+strings.Join(own, ", "))
		}
		if len(rules) > 0 {
			uses = append(uses, "restartPolicyRules on "+strings.Join(rules, ", "))
		}
		add(features.ContainerRestartRules, strings.Join(uses, " and "),
			fmt.Sprintf("that kubelet ignores them: every container follows the pod's restartPolicy %s (init containers: restarted after a failure unless it is Never)", podPolicy))
	}
	if len(all) > 0 && f.Enabled(features.ContainerRestartRules) {
		add(features.RestartAllContainersOnContainerExits, "a restartPolicyRules action RestartAllContainers on "+strings.Join(all, ", "),
			"a matching exit does not restart the pod's containers in place: the rule is skipped and the container's policy decides ("+strings.Join(fallThrough, "; ")+")")
	}

	// Pod-level resources and resize.
	if r := pod.Spec.Resources; r != nil && (len(r.Requests) > 0 || len(r.Limits) > 0) {
		add(features.PodLevelResources, "pod-level resources (spec.resources)",
			"that kubelet ignores them: the QoS class and the cgroups come from the containers' resources alone")
		if f.Enabled(features.PodLevelResources) && f.Enabled(features.InPlacePodVerticalScaling) {
			add(features.InPlacePodLevelResourcesVerticalScaling, "pod-level resources (spec.resources)",
				"a change of them is not resized in place: the kubelet leaves the pod cgroup as it was started")
		}
	}
	var initRes []string
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		sidecar := c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
		if !sidecar && len(c.Resources.Requests)+len(c.Resources.Limits) > 0 {
			initRes = append(initRes, c.Name)
		}
	}
	if len(initRes) > 0 && f.Enabled(features.InPlacePodVerticalScaling) {
		add(features.InPlacePodVerticalScalingInitContainers, "resources on init containers "+strings.Join(initRes, ", "),
			"a running init container is not resized in place: a resize waits until it has finished")
	}
	return out
}
