package main

import (
	"fmt"
	"io"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/validation"
)

// explainResizeFlag is explain's --resize, repeatable: the values of
// simulate's --resize ([container:]cpu=500m,memory=256Mi; requests.cpu=,
// limits.memory= for one value; cpu= and memory= set the request, the
// limit, or both, whichever the container has: parseResize), where a
// value without a container applies to every container and native
// sidecar.
type explainResizeFlag struct{ specs []string }

func (f *explainResizeFlag) String() string { return strings.Join(f.specs, " ") }

func (f *explainResizeFlag) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("want [container:]cpu=500m,memory=256Mi")
	}
	f.specs = append(f.specs, s)
	return nil
}

// explainResizeSpecs reads the --resize values against pod into the
// resources each container's resize sets (later values win): a value
// without a container is read for every container and native sidecar.
func explainResizeSpecs(specs []string, pod *v1.Pod) (map[string]v1.ResourceRequirements, error) {
	out := map[string]v1.ResourceRequirements{}
	for _, spec := range specs {
		var one []string
		if strings.Contains(spec, ":") {
			one = []string{spec}
		} else {
			for _, c := range resizable(pod) {
				one = append(one, c.Name+":"+spec)
			}
		}
		for _, sp := range one {
			m, err := parseResize([]string{sp}, pod)
			if err != nil {
				if len(one) > 1 || sp != spec {
					// The user wrote spec, not the per-container value
					// parseResize quotes: say what was typed, and how it
					// was read.
					return nil, fmt.Errorf("--resize %q (read for every container and native sidecar): %s", spec, strings.TrimPrefix(err.Error(), fmt.Sprintf("--resize %q: ", sp)))
				}
				return nil, err
			}
			for name, r := range m {
				cur := out[name]
				for _, l := range []struct{ from, to *v1.ResourceList }{{&r.Requests, &cur.Requests}, {&r.Limits, &cur.Limits}} {
					for k, q := range *l.from {
						if *l.to == nil {
							*l.to = v1.ResourceList{}
						}
						(*l.to)[k] = q
					}
				}
				out[name] = cur
			}
		}
	}
	return out, nil
}

// resizeReport is what explain --resize says: per container and resource,
// what the kubelet does with the pod running once it has accepted the
// resize.
type resizeReport struct {
	Asked      string            `json:"asked"`
	Basis      string            `json:"basis"`
	Containers []resizeContainer `json:"containers"`
	// Order is the order in which the kubelet applies the changes
	// (doPodResizeAction).
	Order []string `json:"order,omitempty"`
	// Outside are the decisions taken before computePodActions that this
	// does not model.
	Outside []string `json:"outside"`
	Say     []string `json:"say"`
}

type resizeContainer struct {
	Name      string         `json:"name"`
	Resources []resizeChange `json:"resources"`
}

type resizeChange struct {
	Resource string `json:"resource"`
	// From and To are the request and limit before and after ("-": none).
	From string `json:"from"`
	To   string `json:"to"`
	// Policy is the container's resizePolicy for the resource.
	Policy string `json:"resizePolicy"`
	// Action is one of unchanged, in place, restart, not running.
	Action string `json:"action"`
	Say    string `json:"say"`
}

// resizedPod returns pod with the --resize values applied, or an error:
// a value parseResize refuses (a container that matches nothing, with the
// nearest name), a resize the API server rejects (validation.Pod), or one
// that changes the QoS class.
func resizedPod(pod *v1.Pod, specs []string, f features.Set) (*v1.Pod, error) {
	sets, err := explainResizeSpecs(specs, pod)
	if err != nil {
		return nil, err
	}
	out := pod.DeepCopy()
	for _, c := range resizable(out) {
		r, ok := sets[c.Name]
		if !ok {
			continue
		}
		for _, l := range []struct{ from, to *v1.ResourceList }{{&r.Requests, &c.Resources.Requests}, {&r.Limits, &c.Resources.Limits}} {
			for k, q := range *l.from {
				if *l.to == nil {
					*l.to = v1.ResourceList{}
				}
				(*l.to)[k] = q
			}
		}
	}
	if err := validation.Pod(out); err != nil {
		return nil, fmt.Errorf("--resize: the API server would reject the resized pod (requests.cpu=, limits.memory= … set one value): %s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if a, b := qosOf(pod, f), qosOf(out, f); a != b {
		return nil, fmt.Errorf("--resize: the QoS class would change from %s to %s, which the API server rejects for a resize (keep requests equal to limits in a Guaranteed pod)", a, b)
	}
	return out, nil
}

func qosOf(pod *v1.Pod, f features.Set) v1.PodQOSClass {
	p := pod.DeepCopy()
	p.Status = v1.PodStatus{}
	return podstatus.Compute(p, nil, podstatus.Options{Features: f}).Status.QOSClass
}

// resizable returns the regular containers and native sidecars of pod:
// the containers a running pod resizes in place.
func resizable(pod *v1.Pod) []*v1.Container {
	var out []*v1.Container
	for i := range pod.Spec.InitContainers {
		if restart.IsSidecar(&pod.Spec.InitContainers[i]) {
			out = append(out, &pod.Spec.InitContainers[i])
		}
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}

// actuatedAs is the kubelet's actuated-resources record of a pod whose
// containers were started with old's resources: an explicit entry for
// every container and for the pod level, and every memory-backed
// emptyDir's size limit.
func actuatedAs(old *v1.Pod) podactions.Actuated {
	a := podactions.Actuated{Containers: map[string]v1.ResourceRequirements{}}
	for _, l := range [][]v1.Container{old.Spec.InitContainers, old.Spec.Containers} {
		for i := range l {
			a.Containers[l[i].Name] = *l[i].Resources.DeepCopy()
		}
	}
	pod := v1.ResourceRequirements{}
	if old.Spec.Resources != nil {
		pod = *old.Spec.Resources.DeepCopy()
	}
	a.Pod = &pod
	for _, v := range old.Spec.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.SizeLimit != nil {
			if a.EmptyDirLimits == nil {
				a.EmptyDirLimits = map[string]resource.Quantity{}
			}
			a.EmptyDirLimits[v.Name] = v.EmptyDir.SizeLimit.DeepCopy()
		}
	}
	return a
}

// explainResize says what the kubelet does with the running pod once it
// has accepted the resize: podactions.Compute with the resized spec as the
// allocated pod and old's resources as the actuated record, on st (the
// pod's containers running when st is nil or shows none running).
func explainResize(old *v1.Pod, st *runtimestate.Pod, specs []string, f features.Set) (*resizeReport, error) {
	pod, err := resizedPod(old, specs, f)
	if err != nil {
		return nil, err
	}
	r := &resizeReport{Asked: strings.Join(specs, " ")}
	r.Basis = "the runtime state: the containers running now"
	if st == nil || len(steadyRunning(st)) == 0 {
		st = steadyState(old)
		r.Basis = "the pod running: its sidecars and containers started with the manifest's resources"
	}
	acts := podactions.Compute(pod, st, podactions.Options{Features: f, Actuated: actuatedAs(old)})

	restarted := map[string]podactions.Kill{}
	for _, k := range acts.ContainersToKill {
		if k.Cause == podactions.CauseResize {
			restarted[k.Name] = k
		}
	}
	updated := map[v1.ResourceName]map[string]podactions.Update{v1.ResourceCPU: {}, v1.ResourceMemory: {}}
	for _, u := range acts.CPUUpdates {
		updated[v1.ResourceCPU][u.Name] = u
	}
	for _, u := range acts.MemoryUpdates {
		updated[v1.ResourceMemory][u.Name] = u
	}

	resizeOn := f.Enabled(features.InPlacePodVerticalScaling)
	for _, c := range resizable(pod) {
		oc := containerSpec(old, c.Name)
		rc := resizeContainer{Name: c.Name}
		in := st.Newest(c.Name)
		for _, res := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
			ch := resizeChange{Resource: string(res), From: reqLim(oc, res), To: reqLim(c, res), Policy: policyFor(c, res)}
			changed := ch.From != ch.To
			switch {
			case !changed:
				ch.Action, ch.Say = "unchanged", "unchanged"
			case !resizeOn:
				ch.Action, ch.Say = "not resized", "gate InPlacePodVerticalScaling is off: the kubelet does not resize running containers (the new values apply when the container is next created)"
			case in == nil || in.State != runtimestate.Running:
				ch.Action, ch.Say = "not running", "not running: the new values apply when it is next created"
			case restarted[c.Name].Name != "":
				ch.Action = "restart"
				why := fmt.Sprintf("its resizePolicy for %s is RestartContainer", res)
				if ch.Policy != string(v1.RestartContainer) {
					why = "another resource's resizePolicy is RestartContainer, so the whole container restarts"
				}
				ch.Say = fmt.Sprintf("%s: the kubelet kills %s (%q) and starts it again in the same sync with the new resources (%s); its restart count goes up, and the pod cgroup is resized first (UpdatePodResources)", why, c.Name, restarted[c.Name].Message, ch.To)
			default:
				u, ok := updated[res][c.Name]
				if !ok {
					ch.Action, ch.Say = "unchanged", "no update decided (the values as the kubelet compares them are equal)"
					break
				}
				ch.Action = "in place"
				ch.Say = inPlaceWords(c.Name, res, u)
			}
			rc.Resources = append(rc.Resources, ch)
		}
		r.Containers = append(r.Containers, rc)
	}
	r.Order = resizeOrder(acts, old, pod)
	r.Outside = []string{
		"before computePodActions the kubelet's allocation manager admits the resize (handlePodResourcesResize, canAdmitPod): Infeasible (more than the node's allocatable; a Guaranteed pod under the static CPU or memory manager policy; a container with swap; a pod that may not be resized) or Deferred (no room now: retried on later syncs) is decided there and shows as the PodResizePending condition; this assumes the resize was accepted",
	}
	r.Say = resizeReportWords(r)
	return r, nil
}

func reqLim(c *v1.Container, res v1.ResourceName) string {
	show := func(l v1.ResourceList) string {
		if q, ok := l[res]; ok {
			return q.String()
		}
		return "-"
	}
	if c == nil {
		return "request - limit -"
	}
	return fmt.Sprintf("request %s limit %s", show(c.Resources.Requests), show(c.Resources.Limits))
}

func policyFor(c *v1.Container, res v1.ResourceName) string {
	for _, p := range c.ResizePolicy {
		if p.ResourceName == res {
			return string(p.RestartPolicy)
		}
	}
	return string(v1.NotRequired) + " (the default)"
}

// inPlaceWords says what UpdateContainerResources carries for one update
// (updatePodContainerResources): a memory update sends the new memory
// request and limit with the cpu last actuated, a cpu update the new cpu
// with the memory last actuated.
func inPlaceWords(name string, res v1.ResourceName, u podactions.Update) string {
	d, c := u.Desired, u.Current
	if res == v1.ResourceCPU {
		s := fmt.Sprintf("in place: UpdateContainerResources(%s) with cpu request %dm limit %s (was %dm, %s), memory as last actuated; no restart", name, d.CPURequest, milli(d.CPULimit), c.CPURequest, milli(c.CPULimit))
		return s
	}
	s := fmt.Sprintf("in place: UpdateContainerResources(%s) with memory request %s limit %s (was %s, %s), cpu as last actuated; no restart", name, bytesQ(d.MemoryRequest), bytesQ(d.MemoryLimit), bytesQ(c.MemoryRequest), bytesQ(c.MemoryLimit))
	if d.MemoryLimit != 0 && (c.MemoryLimit == 0 || d.MemoryLimit < c.MemoryLimit) {
		s += fmt.Sprintf(". A memory limit that shrinks (or appears) is checked first against %s's current memory usage (validateMemoryResizeAction): at or above the new limit, this sync's resize fails (\"cannot decrease memory limits\"), PodResizeInProgress shows the error, and later syncs retry; v1.37 allows the decrease with policy NotRequired, best effort", name)
	}
	return s
}

func milli(v int64) string {
	if v == 0 {
		return "none"
	}
	return fmt.Sprintf("%dm", v)
}

func bytesQ(v int64) string {
	if v == 0 {
		return "none"
	}
	return resource.NewQuantity(v, resource.BinarySI).String()
}

// resizeOrder is doPodResizeAction's order for acts: memory, then cpu;
// per resource the pod cgroup before the containers when its value grows,
// after when it shrinks; decreases before increases among the containers.
func resizeOrder(acts podactions.Actions, old, pod *v1.Pod) []string {
	var out []string
	if len(acts.MemoryUpdates) == 0 && len(acts.CPUUpdates) == 0 && !acts.UpdatePodResources {
		return nil
	}
	// The steps are numbered as listed: a cpu-only resize has no memory
	// step (doPodResizeAction skips it), and a lone "2. cpu" read as if a
	// step were missing.
	n := 0
	step := func() string { n++; return fmt.Sprintf("%d. ", n) }
	names := func(us []podactions.Update, res v1.ResourceName) string {
		var s []string
		for _, u := range us {
			dir := "up"
			if (res == v1.ResourceMemory && less(u.Desired.MemoryLimit, u.Current.MemoryLimit, u.Desired.MemoryRequest, u.Current.MemoryRequest)) ||
				(res == v1.ResourceCPU && less(u.Desired.CPULimit, u.Current.CPULimit, u.Desired.CPURequest, u.Current.CPURequest)) {
				dir = "down"
			}
			s = append(s, u.Name+" ("+dir+")")
		}
		return strings.Join(s, ", ")
	}
	if len(acts.MemoryUpdates) > 0 || acts.UpdatePodResources {
		l := step() + "memory: " + podCgroupWords(old, pod, v1.ResourceMemory, "limit", true)
		if len(acts.MemoryUpdates) > 0 {
			l += "; containers, decreases before increases: " + names(acts.MemoryUpdates, v1.ResourceMemory)
		}
		out = append(out, l)
	}
	if len(acts.CPUUpdates) > 0 || acts.UpdatePodResources {
		l := step() + "cpu: " + podCgroupWords(old, pod, v1.ResourceCPU, "limit", true) + "; " + podCgroupWords(old, pod, v1.ResourceCPU, "request", false)
		if len(acts.CPUUpdates) > 0 {
			l += "; containers, decreases before increases: " + names(acts.CPUUpdates, v1.ResourceCPU)
		}
		out = append(out, l)
	}
	if acts.UpdatePodResources {
		out = append(out, "containers restarted for the resize are killed first, the pod cgroup resized, and they start again with the new values in the same sync")
	}
	out = append(out, "then the kubelet re-reads the pod (RequestPodReinspect); the resize is done when the runtime reports the new values, and the PodResizeInProgress condition goes away")
	return out
}

// less says whether a resource's update is a decrease: the limit when it
// changes, else the request.
func less(dl, cl, dr, cr int64) bool {
	if dl != cl {
		return dl < cl
	}
	return dr < cr
}

func resizeReportWords(r *resizeReport) []string {
	out := []string{fmt.Sprintf("--resize %s, on %s:", r.Asked, r.Basis)}
	for _, c := range r.Containers {
		for _, ch := range c.Resources {
			if ch.Action == "unchanged" {
				out = append(out, fmt.Sprintf("  %s %s: unchanged (%s)", c.Name, ch.Resource, ch.From))
				continue
			}
			out = append(out, fmt.Sprintf("  %s %s: %s -> %s, resizePolicy %s", c.Name, ch.Resource, ch.From, ch.To, ch.Policy))
			out = append(out, "    "+ch.Say)
		}
	}
	if len(r.Order) > 0 {
		out = append(out, "  in this order (doPodResizeAction):")
		for _, o := range r.Order {
			out = append(out, "    "+o)
		}
	}
	for _, o := range r.Outside {
		out = append(out, "  (not modelled: "+o+")")
	}
	return out
}

// explainState is the runtime state explain reads: given, read off the
// pod's status, or none.
func explainState(in explainInput) *runtimestate.Pod {
	if in.st != nil {
		return in.st
	}
	if podstatus.KubeletWrote(&in.pod.Status) {
		return podstatus.RuntimeFromStatus(in.pod).State
	}
	return nil
}

// writeResize renders the RESIZE section.
func writeResize(w io.Writer, r *resizeReport) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nRESIZE: what the kubelet does with the running pod after an in-place resize\n")
	for _, l := range r.Say {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// podTotal is the pod cgroup's value for res as the containers set it:
// the sum of their limits (of "limit") or requests over the regular
// containers and native sidecars; for a limit, ok is false when one of
// them has none (the pod cgroup then has no limit). Regular init
// containers, which can raise the pod's value above the sum, are left out.
func podTotal(pod *v1.Pod, res v1.ResourceName, which string) (q resource.Quantity, ok bool) {
	for _, c := range resizable(pod) {
		l := c.Resources.Requests
		if which == "limit" {
			l = c.Resources.Limits
		}
		v, has := l[res]
		if !has && which == "limit" {
			return resource.Quantity{}, false
		}
		q.Add(v)
	}
	return q, true
}

// podCgroupWords says how the pod cgroup's value for res moves and so
// whether doPodResizeAction sets it before or after the containers.
func podCgroupWords(old, pod *v1.Pod, res v1.ResourceName, which string, limit bool) string {
	what := map[v1.ResourceName]string{v1.ResourceMemory: "memory limit", v1.ResourceCPU: "cpu quota (from the limits)"}[res]
	if !limit {
		what = "cpu shares (from the requests)"
	}
	if pod.Spec.Resources != nil && (len(pod.Spec.Resources.Limits) > 0 || len(pod.Spec.Resources.Requests) > 0) {
		return "the pod cgroup's " + what + " follows the pod-level resources: set before the containers if it grows, after them if it shrinks"
	}
	a, okA := podTotal(old, res, which)
	b, okB := podTotal(pod, res, which)
	if !okA || !okB {
		return "the pod cgroup has no " + what + " (a container has no limit): left as it is"
	}
	note := ""
	for i := range pod.Spec.InitContainers {
		if !restart.IsSidecar(&pod.Spec.InitContainers[i]) {
			note = " (the sum over the containers and sidecars; a larger init container would raise it)"
		}
	}
	switch a.Cmp(b) {
	case 0:
		return fmt.Sprintf("the pod cgroup's %s stays %s%s", what, a.String(), note)
	case -1:
		return fmt.Sprintf("the pod cgroup's %s grows %s -> %s%s: set before the containers", what, a.String(), b.String(), note)
	}
	s := fmt.Sprintf("the pod cgroup's %s shrinks %s -> %s%s: set after the containers", what, a.String(), b.String(), note)
	if res == v1.ResourceMemory {
		s += ", once the pod's memory usage is checked to be below it"
	}
	return s
}
