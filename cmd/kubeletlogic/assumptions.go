package main

import (
	"fmt"
	"io"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// hookWords names a lifecycle hook's handler.
func hookWords(h *v1.LifecycleHandler) string {
	switch {
	case h.Exec != nil:
		return "exec " + strings.Join(h.Exec.Command, " ")
	case h.HTTPGet != nil:
		return fmt.Sprintf("httpGet %s port %s", orSlash(h.HTTPGet.Path), h.HTTPGet.Port.String())
	case h.Sleep != nil:
		return fmt.Sprintf("sleep %ds", h.Sleep.Seconds)
	case h.TCPSocket != nil:
		return "tcpSocket, which the kubelet cannot run"
	}
	return "no handler"
}

// hookContainers are the containers that may have lifecycle hooks: native
// sidecars and regular containers.
func hookContainers(pod *v1.Pod) []*v1.Container {
	return resizable(pod)
}

// hookAssumptions lists what explain takes for granted about the pod's
// lifecycle hooks, whose length no input gives it: every exec or httpGet
// preStop hook and every postStart hook. (simulate's header lists the
// hooks its script does not time: simHookAssumptions.)
func hookAssumptions(pod *v1.Pod) []string {
	var out []string
	for _, c := range hookContainers(pod) {
		if c.Lifecycle == nil {
			continue
		}
		if h := c.Lifecycle.PreStop; h != nil && h.Sleep == nil && (h.Exec != nil || h.HTTPGet != nil) {
			out = append(out, fmt.Sprintf("%s's preStop hook (%s) is taken to return at once: its length is not known (the kubelet waits for it, up to the grace period, and deducts the whole seconds it ran from the grace)", c.Name, hookWords(h)))
		}
		switch h := c.Lifecycle.PostStart; {
		case h == nil:
		case h.Sleep != nil:
			out = append(out, fmt.Sprintf("%s's postStart hook sleeps %ds: the probe times here do not add it before the next container starts", c.Name, h.Sleep.Seconds))
		default:
			out = append(out, postStartAssumption(c, h))
		}
	}
	return out
}

// simGeneralAssumptions are what every simulation of these pods takes for
// granted beyond the script: what sim does not model that bears on them.
func simGeneralAssumptions(s *simulation) []string {
	var out []string
	hasProbes := false
	for _, lp := range s.pods {
		for _, c := range hookContainers(lp.pod) {
			if c.LivenessProbe != nil || c.ReadinessProbe != nil || c.StartupProbe != nil {
				hasProbes = true
			}
		}
	}
	if hasProbes {
		out = append(out, "a probe answers at once: a scripted failure fails at once, never at the probe's timeout")
	}
	if len(s.pods) > 1 && s.cfg.RuntimeContention < 0 {
		out = append(out, fmt.Sprintf("the %d pods' runtime calls do not slow each other (--runtime-contention off; a real node's do)", len(s.pods)))
	}
	if len(s.pods) > 1 && s.cfg.RuntimeContention >= 0 {
		per, why := sim.DefaultRuntimeContention, "the default, fitted to 13 pods started at once on a 2-core node; --runtime-contention"
		if s.cfg.RuntimeContention > 0 {
			per, why = s.cfg.RuntimeContention.D(), "--runtime-contention"
		}
		out = append(out, fmt.Sprintf("the %d pods share the node's container runtime: a sandbox or container call takes %s longer for each other such call it overlaps (%s)", len(s.pods), per, why))
	}
	return append(out,
		"images are present (no pull time), volumes mount at once, API writes are instant",
		fmt.Sprintf("the kubelet has run for %s (probe workers start without their random delay)", orDur(s.cfg.KubeletUptime, "an hour")))
}

// simAssumptions are all the simulation's assumptions, as its header
// lists them (simulate -o json carries them).
func simAssumptions(s *simulation) []string {
	lines, _ := simHookAssumptions(s)
	return append(lines, simGeneralAssumptions(s)...)
}

func orDur(d sim.Duration, zero string) string {
	if d == 0 {
		return zero
	}
	return d.String()
}

// explainAssumptions are what explain takes for granted: the hooks whose
// length it does not know, and the probe timings' assumptions.
func explainAssumptions(pod *v1.Pod, probes *probesReport) []string {
	out := hookAssumptions(pod)
	out = append(out, probes.assumptions...)
	return out
}

// writeAssumptions renders the ASSUMED section.
func writeAssumptions(w io.Writer, as []string) {
	if len(as) == 0 {
		return
	}
	fmt.Fprintf(w, "\nASSUMED: what these answers take for granted\n")
	for _, a := range as {
		fmt.Fprintf(w, "  - %s\n", a)
	}
}

// postStartAssumption is what explain takes for granted about an exec or
// httpGet postStart hook; a tcpSocket one is no guess: the kubelet's
// handler runner cannot run it and fails it at once (invalid handler).
func postStartAssumption(c *v1.Container, h *v1.LifecycleHandler) string {
	if h.Exec == nil && h.HTTPGet == nil {
		return fmt.Sprintf("%s's postStart hook (%s) fails at once after every start of %s: the kubelet kills %s (FailedPostStartHook); the answers here do not show it", c.Name, hookWords(h), c.Name, c.Name)
	}
	return fmt.Sprintf("%s's postStart hook (%s) is taken to return at once and to succeed: the kubelet starts the next container only once it returns, and kills %s (FailedPostStartHook) when it fails", c.Name, hookWords(h), c.Name)
}
