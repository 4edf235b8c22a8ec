package main

import (
	"fmt"
	"io"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// Lifecycle hooks and in-place resizes in simulate and timeline: the
// script's postStart fields, the --resize flag, and the header lines that
// say what the simulation assumes about them.

// describeHooks says what a run's hooks do, for describeRun.
func describeHooks(r sim.Run) []string {
	switch {
	case r.PostStartFails:
		return []string{"postStart hook fails after " + r.PostStart.String()}
	case r.PostStart > 0:
		return []string{"postStart hook runs " + r.PostStart.String()}
	}
	return nil
}

// resizeFlag is --resize, repeatable: [container:]name=quantity,...
type resizeFlag struct{ specs []string }

func (f *resizeFlag) String() string { return strings.Join(f.specs, " ") }

func (f *resizeFlag) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("want [container:]cpu=500m,memory=256Mi")
	}
	f.specs = append(f.specs, s)
	return nil
}

// parseResize reads the --resize values against the pod: each is
// [container:]item,item... where an item is requests.cpu=Q,
// limits.memory=Q and so on, or cpu=Q / memory=Q, which sets the value
// wherever the container has one (its request, its limit, or both). The
// container may be left out when the pod has one container that can be
// resized (a regular container or a sidecar).
func parseResize(specs []string, pod *v1.Pod) (map[string]v1.ResourceRequirements, error) {
	var names []string
	byName := map[string]*v1.Container{}
	for i := range pod.Spec.InitContainers {
		if c := &pod.Spec.InitContainers[i]; restart.IsSidecar(c) {
			names = append(names, c.Name)
			byName[c.Name] = c
		}
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		names = append(names, c.Name)
		byName[c.Name] = c
	}
	out := map[string]v1.ResourceRequirements{}
	for _, spec := range specs {
		name, items, found := strings.Cut(spec, ":")
		if !found {
			items, name = name, ""
			if len(names) != 1 {
				return nil, fmt.Errorf("--resize %q: name the container, as app:cpu=500m (pod %s has %d that can be resized: %s)", spec, pod.Name, len(names), strings.Join(names, ", "))
			}
			name = names[0]
		}
		c, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("--resize %q: %q is not a container of pod %s that can be resized%s (those: %s)", spec, name, pod.Name, suggest(name, names), strings.Join(names, ", "))
		}
		r := out[name]
		if err := parseResizeItems("--resize", spec, items, &r, c.Resources, "container "+name); err != nil {
			return nil, err
		}
		out[name] = r
	}
	return out, nil
}

// parseResizeItems reads the items of one value of flag (spec as typed)
// into r: requests.cpu=Q, limits.memory=Q and so on, or cpu=Q / memory=Q,
// which sets the value wherever have has one (its request, its limit, or
// both); who names the owner of have in an error ("container app",
// "pod web's spec.resources").
func parseResizeItems(flag, spec, items string, r *v1.ResourceRequirements, have v1.ResourceRequirements, who string) error {
	for _, item := range strings.Split(items, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return fmt.Errorf("%s %q: %q: want name=quantity, as cpu=500m or limits.memory=256Mi", flag, spec, item)
		}
		q, err := resource.ParseQuantity(val)
		if err != nil {
			return fmt.Errorf("%s %q: %s=%s: not a quantity (as 500m, 1, 256Mi)", flag, spec, key, val)
		}
		list, rn, _ := strings.Cut(key, ".")
		if rn == "" {
			list, rn = "", list
		}
		if rn != string(v1.ResourceCPU) && rn != string(v1.ResourceMemory) {
			return fmt.Errorf("%s %q: %q: only cpu and memory can be resized (cpu, memory, requests.cpu, limits.memory, …)", flag, spec, key)
		}
		set := func(l *v1.ResourceList) {
			if *l == nil {
				*l = v1.ResourceList{}
			}
			(*l)[v1.ResourceName(rn)] = q
		}
		switch list {
		case "requests":
			set(&r.Requests)
		case "limits":
			set(&r.Limits)
		case "":
			_, hasReq := have.Requests[v1.ResourceName(rn)]
			_, hasLim := have.Limits[v1.ResourceName(rn)]
			if !hasReq && !hasLim {
				return fmt.Errorf("%s %q: %s has no %s request or limit: say which to set (requests.%s=%s or limits.%s=%s)", flag, spec, who, rn, rn, val, rn, val)
			}
			if hasReq {
				set(&r.Requests)
			}
			if hasLim {
				set(&r.Limits)
			}
		default:
			return fmt.Errorf("%s %q: %q: want requests.%s or limits.%s", flag, spec, key, rn, rn)
		}
	}
	return nil
}

// resizePodFlag is --resize-pod, repeatable: cpu=300m,memory=256Mi for
// the pod-level resources (spec.resources).
type resizePodFlag struct{ specs []string }

func (f *resizePodFlag) String() string { return strings.Join(f.specs, " ") }

func (f *resizePodFlag) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("want cpu=300m,memory=256Mi (the pod-level resources; requests.cpu=, limits.memory= for one value)")
	}
	if name, _, ok := strings.Cut(s, ":"); ok && !strings.Contains(name, "=") {
		return fmt.Errorf("%q: --resize-pod takes no container (it resizes spec.resources): write cpu=300m,memory=256Mi, or --resize %s for container %s", s, s, name)
	}
	f.specs = append(f.specs, s)
	return nil
}

// parseResizePod reads the --resize-pod values against the pod's
// pod-level resources, as parseResize reads a container's: cpu=Q and
// memory=Q set the request, the limit or both, whichever spec.resources
// has; requests.cpu=Q, limits.memory=Q set one. Later values win.
func parseResizePod(specs []string, pod *v1.Pod) (*v1.ResourceRequirements, error) {
	have := pod.Spec.Resources
	if have == nil || len(have.Requests)+len(have.Limits) == 0 {
		return nil, fmt.Errorf("--resize-pod %q: pod %s has no pod-level resources (spec.resources): --resize-pod changes them, and adding them by a resize is not modelled; resize its containers with --resize", strings.Join(specs, " "), pod.Name)
	}
	r := &v1.ResourceRequirements{}
	for _, spec := range specs {
		if err := parseResizeItems("--resize-pod", spec, spec, r, *have, "pod "+pod.Name+"'s spec.resources"); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// writeSimAssumptions prints what the simulation takes as given about
// lifecycle hooks and resizes, so that no reader takes a default for a
// measurement.
func writeSimAssumptions(w io.Writer, s *simulation) {
	lines, execHooks := simHookAssumptions(s)
	lines = append(lines, simGeneralAssumptions(s)...)
	resized, podLevel := false, false
	for _, in := range s.inputs {
		for _, a := range in.Actions {
			if a.Resize != nil || a.ResizePod != nil {
				resized = true
			}
			if a.ResizePod != nil {
				podLevel = true
			}
		}
	}
	if len(lines) > 0 {
		fmt.Fprintln(w, "assumed:")
		for _, l := range lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if execHooks {
		fmt.Fprintln(w, "hooks: exec hooks are ExecSync calls in the CRI list (exec probes are not listed); httpGet and sleep hooks make no CRI call")
	}
	if resized {
		alloc := sim.DefaultAllocatable()
		fmt.Fprintf(w, "resize: the kubelet admits it when the pod's requests fit the node's allocatable (cpu %s, memory\n", alloc.Cpu())
		fmt.Fprintf(w, "  %s; no other pod on the node), else PodResizePending Deferred; PodResizeInProgress while it\n", alloc.Memory())
		fmt.Fprintln(w, "  is actuated (restart per resizePolicy, or UpdateContainerResources: memory, then cpu). Not modelled:")
		fmt.Fprintln(w, "  UpdatePodSandboxResources and the pod cgroup writes, the memory-usage check before a limit decrease,")
		fmt.Fprintln(w, "  failed resizes.")
	}
	if podLevel {
		fmt.Fprintln(w, "resize-pod: the pod-level resources (spec.resources) change; a container without a cpu or memory limit of")
		fmt.Fprintln(w, "  its own follows the pod-level one, so it is updated in place or restarted per its resizePolicy. The")
		fmt.Fprintln(w, "  pod-level status.resources (read from the pod cgroup) are not modelled.")
	}
}

// simHookAssumptions are the lifecycle hooks the script does not time,
// and whether the pods have exec hooks.
func simHookAssumptions(s *simulation) (lines []string, execHooks bool) {
	seen := map[string]bool{}
	scripted := func(name string, f func(sim.Run) bool) bool {
		for _, r := range s.script.Containers[name].Runs {
			if f(r) {
				return true
			}
		}
		return false
	}
	for _, lp := range s.pods {
		for _, c := range keycheck.Containers(lp.pod) {
			if seen[c.Name] || c.Lifecycle == nil {
				continue
			}
			seen[c.Name] = true
			for _, h := range []*v1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
				if h != nil && h.Exec != nil {
					execHooks = true
				}
			}
			if h := c.Lifecycle.PostStart; h != nil && h.Sleep == nil && h.TCPSocket == nil {
				if !scripted(c.Name, func(r sim.Run) bool { return r.PostStart > 0 || r.PostStartFails }) {
					lines = append(lines, fmt.Sprintf("%s: %s postStart hook not scripted: taken to succeed at once (script postStart: and postStartFails:)", c.Name, hookKind(h)))
				}
			}
			if h := c.Lifecycle.PreStop; h != nil && h.Sleep == nil {
				if !scripted(c.Name, func(r sim.Run) bool { return r.PreStop > 0 }) {
					lines = append(lines, fmt.Sprintf("%s: %s preStop hook not scripted: taken to return at once (script preStop:)", c.Name, hookKind(h)))
				}
			}
		}
	}
	return lines, execHooks
}

// hookKind names a lifecycle handler's kind.
func hookKind(h *v1.LifecycleHandler) string {
	switch {
	case h.Exec != nil:
		return "exec"
	case h.HTTPGet != nil:
		return "httpGet"
	case h.TCPSocket != nil:
		return "tcpSocket (fails at once: not supported as a hook)"
	}
	return "sleep"
}
