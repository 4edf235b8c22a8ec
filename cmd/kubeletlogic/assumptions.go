package main

import (
	"fmt"
	"io"
	"reflect"
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
		return "tcpSocket (deprecated: the kubelet does nothing)"
	}
	return "no handler"
}

// hookContainers are the containers that may have lifecycle hooks: native
// sidecars and regular containers.
func hookContainers(pod *v1.Pod) []*v1.Container {
	return resizable(pod)
}

// hookAssumptions lists what an answer takes for granted about the pod's
// lifecycle hooks whose length no input gives: an exec or httpGet preStop
// hook and every postStart hook. scripted, for a simulation, says for a
// container and a Run field ("PreStop", "PostStart") in how many of its
// scripted runs the script gives that length, out of how many runs, and
// whether sim scripts that hook at all; nil (explain): no input gives any.
func hookAssumptions(pod *v1.Pod, scripted func(name, field string) (given, total int, modelled bool)) []string {
	var out []string
	for _, c := range hookContainers(pod) {
		if c.Lifecycle == nil {
			continue
		}
		given, total, modelled := 0, 0, true
		if h := c.Lifecycle.PreStop; h != nil && h.Sleep == nil && (h.Exec != nil || h.HTTPGet != nil) {
			if scripted != nil {
				given, total, modelled = scripted(c.Name, "PreStop")
			}
			switch {
			case !modelled:
				out = append(out, fmt.Sprintf("%s's preStop hook (%s) is not simulated: taken to return at once", c.Name, hookWords(h)))
			case given == 0:
				out = append(out, fmt.Sprintf("%s's preStop hook (%s) is taken to return at once: its length is not known (the kubelet waits for it, up to the grace period, and deducts the whole seconds it ran from the grace)", c.Name, hookWords(h)))
			case given < total:
				out = append(out, fmt.Sprintf("%s's preStop hook (%s) is taken to return at once in the %d of its %d scripted runs that give no preStop length (the last run repeats)", c.Name, hookWords(h), total-given, total))
			}
		}
		if h := c.Lifecycle.PostStart; h != nil && h.Sleep == nil {
			given, total, modelled = 0, 0, true
			if scripted != nil {
				given, total, modelled = scripted(c.Name, "PostStart")
			}
			then := fmt.Sprintf(": the kubelet starts the next container only once it returns, and kills %s (FailedPostStartHook) when it fails", c.Name)
			switch {
			case !modelled:
				out = append(out, fmt.Sprintf("%s's postStart hook (%s) is not simulated: taken to return at once and to succeed%s", c.Name, hookWords(h), then))
			case given == 0:
				out = append(out, fmt.Sprintf("%s's postStart hook (%s) is taken to return at once and to succeed%s", c.Name, hookWords(h), then))
			case given < total:
				out = append(out, fmt.Sprintf("%s's postStart hook (%s) is taken to return at once in the %d of its %d scripted runs that give no postStart length (the last run repeats)", c.Name, hookWords(h), total-given, total))
			}
		} else if h != nil && scripted == nil {
			out = append(out, fmt.Sprintf("%s's postStart hook sleeps %ds: the times here do not add it before the next container starts", c.Name, h.Sleep.Seconds))
		} else if h != nil {
			if _, _, modelled := scripted(c.Name, "PostStart"); !modelled {
				out = append(out, fmt.Sprintf("%s's postStart hook (sleep %ds) is not simulated: taken to return at once", c.Name, h.Sleep.Seconds))
			}
		}
	}
	return out
}

// runDuration reads a duration field of a sim.Run by name, and whether
// sim.Run has it (a script field sim adds later is read once it exists).
func runDuration(r sim.Run, field string) (sim.Duration, bool) {
	v := reflect.ValueOf(r).FieldByName(field)
	if !v.IsValid() || v.Kind() != reflect.Int64 {
		return 0, false
	}
	return sim.Duration(v.Int()), true
}

// simAssumptions are what a simulation takes for granted: the hooks whose
// length the script does not give, and what sim does not model that bears
// on this pod.
func simAssumptions(s *simulation) []string {
	var out []string
	hasProbes := false
	for _, lp := range s.pods {
		out = append(out, hookAssumptions(lp.pod, func(name, field string) (int, int, bool) {
			_, modelled := runDuration(sim.Run{}, field)
			b, ok := s.script.Containers[name]
			if !ok || !modelled {
				return 0, 0, modelled
			}
			given := 0
			for _, r := range b.Runs {
				if d, _ := runDuration(r, field); d > 0 {
					given++
				}
			}
			return given, len(b.Runs), true
		})...)
		for _, c := range hookContainers(lp.pod) {
			if c.LivenessProbe != nil || c.ReadinessProbe != nil || c.StartupProbe != nil {
				hasProbes = true
			}
		}
	}
	if hasProbes {
		out = append(out, "a probe answers at once: a scripted failure fails at once, never at the probe's timeout")
	}
	out = append(out,
		"images are present (no pull time), volumes mount at once, API writes are instant",
		fmt.Sprintf("the kubelet has run for %s (probe workers start without their random delay)", orDur(s.cfg.KubeletUptime, "an hour")))
	return out
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
	out := hookAssumptions(pod, nil)
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
