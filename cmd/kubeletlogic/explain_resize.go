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
	"github.com/kubeletlogic/kubeletlogic/sim"
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
	Asked string `json:"asked"`
	// AskedPod are the --resize-pod values, a pod-level resize
	// (spec.resources) in the same request as the --resize values.
	AskedPod string `json:"askedPod,omitempty"`
	Basis    string `json:"basis"`
	// PodLevel is, with --resize-pod, what the kubelet does with the
	// pod-level cpu and memory (the pod cgroup).
	PodLevel   []resizeChange    `json:"podLevel,omitempty"`
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
	// Policy is the container's resizePolicy for the resource (none at
	// pod level).
	Policy string `json:"resizePolicy,omitempty"`
	// Action is one of unchanged, in place, restart, not running, not
	// resized; at pod level unchanged, resized, not resized.
	Action string `json:"action"`
	Say    string `json:"say"`
}

// resizedPod returns pod with the --resize and --resize-pod values
// applied, one resize request, or an error: a value parseResize or
// parseResizePod refuses (a container that matches nothing, with the
// nearest name; a pod without pod-level resources), or a resize the API
// server rejects, as sim.ResizedPod says (the gate
// InPlacePodLevelResourcesVerticalScaling for a pod with pod-level
// resources, a static pod, resources the validation rejects, a QoS class
// that changes, pod-level requests below the containers' aggregate; the
// node's allocatable is not checked: explain has no node). A container
// resize alone is first checked as it always was, for its wording.
func resizedPod(pod *v1.Pod, specs, podSpecs []string, f features.Set) (*v1.Pod, error) {
	sets, err := explainResizeSpecs(specs, pod)
	if err != nil {
		return nil, err
	}
	if len(podSpecs) > 0 {
		podLevel, err := parseResizePod(podSpecs, pod)
		if err != nil {
			return nil, err
		}
		return apiResized(pod, sets, podLevel, specs, podSpecs, f)
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
	return apiResized(pod, sets, nil, specs, nil, f)
}

// apiResized is sim.ResizedPod's answer, its error quoting the flags as
// typed.
func apiResized(pod *v1.Pod, sets map[string]v1.ResourceRequirements, podLevel *v1.ResourceRequirements, specs, podSpecs []string, f features.Set) (*v1.Pod, error) {
	out, err := sim.ResizedPod(pod, sets, podLevel, f, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", askedWords(specs, podSpecs), strings.ReplaceAll(strings.TrimPrefix(err.Error(), "resize: "), "\n", "; "))
	}
	return out, nil
}

// askedWords are the resize flags as typed: --resize app:cpu=1 --resize-pod
// cpu=2.
func askedWords(specs, podSpecs []string) string {
	var w []string
	for _, s := range specs {
		w = append(w, "--resize "+s)
	}
	for _, s := range podSpecs {
		w = append(w, "--resize-pod "+s)
	}
	return strings.Join(w, " ")
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
// has accepted the resize (the --resize values specs and the --resize-pod
// values podSpecs, one request): podactions.Compute with the resized spec
// as the allocated pod and old's resources, its pod-level ones included,
// as the actuated record, on st (the pod's containers running when st is
// nil or shows none running).
func explainResize(old *v1.Pod, st *runtimestate.Pod, specs, podSpecs []string, f features.Set) (*resizeReport, error) {
	pod, err := resizedPod(old, specs, podSpecs, f)
	if err != nil {
		return nil, err
	}
	r := &resizeReport{Asked: strings.Join(specs, " "), AskedPod: strings.Join(podSpecs, " ")}
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
	if len(podSpecs) > 0 {
		r.PodLevel = podLevelChanges(old, pod, acts, f)
	}
	for _, c := range resizable(pod) {
		oc := containerSpec(old, c.Name)
		rc := resizeContainer{Name: c.Name}
		in := st.Newest(c.Name)
		for _, res := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
			ch := resizeChange{Resource: string(res), From: reqLimIn(old, oc, res, f), To: reqLimIn(pod, c, res, f), Policy: policyFor(c, res)}
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
			if changed && ch.Action != "unchanged" && followsPodLimit(pod, c, res, f) {
				ch.Say = fmt.Sprintf("%s has no %s limit of its own and follows the pod-level one (GetLimits); ", c.Name, res) + ch.Say
			}
			rc.Resources = append(rc.Resources, ch)
		}
		r.Containers = append(r.Containers, rc)
	}
	r.Order = resizeOrder(acts, old, pod, f)
	r.Outside = []string{
		"before computePodActions the kubelet's allocation manager admits the resize (handlePodResourcesResize, canAdmitPod): Infeasible (more than the node's allocatable; a Guaranteed pod under the static CPU or memory manager policy; a container with swap; a pod that may not be resized) or Deferred (no room now: retried on later syncs) is decided there and shows as the PodResizePending condition; this assumes the resize was accepted",
	}
	if len(podSpecs) > 0 {
		r.Outside = append(r.Outside, "the API server's PodResizeValidator also refuses requests above the node's allocatable, which explain does not know (simulate checks them against its node); the pod cgroup's values are compared as quantities, not as the cpu shares and quota they round to")
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

// reqLimIn is reqLim for container c of pod, a limit c takes from the
// pod-level resources shown as such: "request 100m limit 1 (pod-level)".
func reqLimIn(pod *v1.Pod, c *v1.Container, res v1.ResourceName, f features.Set) string {
	s := reqLim(c, res)
	if c != nil && followsPodLimit(pod, c, res, f) {
		p := pod.Spec.Resources.Limits[res]
		s = strings.TrimSuffix(s, "limit -") + "limit " + p.String() + " (pod-level)"
	}
	return s
}

// followsPodLimit says whether the kubelet gives container c of pod the
// pod-level limit for res: with gate
// InPlacePodLevelResourcesVerticalScaling, a container without a limit of
// its own for res (or a zero one) takes a non-zero pod-level one
// (containerResourcesFromRequirements, GetLimits: pkg/kubelet/util/util.go:78
// v1.37.2), as podactions reads it.
func followsPodLimit(pod *v1.Pod, c *v1.Container, res v1.ResourceName, f features.Set) bool {
	if !f.Enabled(features.InPlacePodLevelResourcesVerticalScaling) || pod.Spec.Resources == nil || len(pod.Spec.Resources.Limits) == 0 {
		return false
	}
	own, p := c.Resources.Limits[res], pod.Spec.Resources.Limits[res]
	return own.IsZero() && !p.IsZero()
}

// podLevelChanges says, per resource, what the kubelet does with a
// pod-level resize (acts.UpdatePodLevelResources, computed by
// computePodLevelResourcesResizeAction, kuberuntime_manager.go:1553
// v1.37.2): it resizes the pod cgroup in doPodResizeAction (see
// resizeOrder) and records the new pod-level values as actuated; a
// container without a limit of its own follows the pod-level limit.
func podLevelChanges(old, pod *v1.Pod, acts podactions.Actions, f features.Set) []resizeChange {
	var out []resizeChange
	for _, res := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		ch := resizeChange{Resource: string(res), From: podReqLim(old, res), To: podReqLim(pod, res)}
		switch {
		case ch.From == ch.To:
			ch.Action, ch.Say = "unchanged", "unchanged"
		case !f.Enabled(features.InPlacePodVerticalScaling):
			ch.Action, ch.Say = "not resized", "gate InPlacePodVerticalScaling is off: the kubelet does not resize a running pod (doPodResizeAction is not called); the new values apply when the pod is next created"
		case !acts.UpdatePodLevelResources:
			ch.Action, ch.Say = "unchanged", "no update decided (the values as the kubelet compares them are equal)"
		default:
			ch.Action = "resized"
			ch.Say = "the kubelet resizes the pod cgroup (below) and records the new pod-level values as actuated"
			if !sim.PodLevelRecorded(old, pod, res, f) {
				ch.Say = fmt.Sprintf("the kubelet runs the pod's resize (below) but does not record the new pod-level %s values as actuated: %s records them only after writing them to the pod cgroup, and this change writes no %s value there, so the PodResizeInProgress condition stays (isPodLevelResourcesResizeInProgress)", res, f.Version(), res)
			}
			ol, nl := old.Spec.Resources.Limits[res], pod.Spec.Resources.Limits[res]
			if ol.Cmp(nl) == 0 {
				if res == v1.ResourceMemory {
					ch.Say += "; only the request changes, and a memory request is written to no cgroup (doPodResizeAction sets the pod's memory limit alone): no container is updated for it"
				} else {
					ch.Say += "; only the request changes, which sets the pod cgroup's cpu shares: no container is updated for it"
				}
				break
			}
			var follow []string
			for _, c := range resizable(pod) {
				if followsPodLimit(pod, c, res, f) {
					follow = append(follow, c.Name)
				}
			}
			if len(follow) == 0 {
				ch.Say += fmt.Sprintf("; every container has a %s limit of its own: none follows the pod-level limit", res)
			} else {
				ch.Say += fmt.Sprintf("; the containers without a %s limit of their own take the pod-level one and are resized with it, in place or by a restart per their resizePolicy (below): %s", res, strings.Join(follow, ", "))
			}
		}
		out = append(out, ch)
	}
	return out
}

// podReqLim is reqLim for the pod-level resources.
func podReqLim(pod *v1.Pod, res v1.ResourceName) string {
	c := &v1.Container{}
	if pod.Spec.Resources != nil {
		c.Resources = *pod.Spec.Resources
	}
	return reqLim(c, res)
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

// resizeOrder is doPodResizeAction's order for acts (kuberuntime_manager.go
// :882 v1.37.2): memory, then cpu; per resource the pod cgroup before the
// containers when its value grows, after when it shrinks; decreases before
// increases among the containers; with a pod-level resize, each resource's
// step runs even when no container changes, and records the pod-level
// values as actuated. SyncPod calls it only with gate
// InPlacePodVerticalScaling (:1801).
func resizeOrder(acts podactions.Actions, old, pod *v1.Pod, f features.Set) []string {
	var out []string
	podLevel := acts.UpdatePodLevelResources
	if !f.Enabled(features.InPlacePodVerticalScaling) || len(acts.MemoryUpdates) == 0 && len(acts.CPUUpdates) == 0 && !acts.UpdatePodResources && !podLevel {
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
	// validatePodResizeAction checks the memory usage only when a
	// container's memory is updated or one restarts (:1159).
	checked := len(acts.MemoryUpdates) > 0 || acts.UpdatePodResources
	if len(acts.MemoryUpdates) > 0 || acts.UpdatePodResources || podLevel {
		w, moved := podCgroupWords(old, pod, v1.ResourceMemory, "limit", f, checked)
		l := step() + "memory: " + w
		if len(acts.MemoryUpdates) > 0 {
			l += "; containers, decreases before increases: " + names(acts.MemoryUpdates, v1.ResourceMemory)
		}
		if podLevel {
			l += podRecordWords(old, pod, v1.ResourceMemory, moved, f)
		}
		out = append(out, l)
	}
	if len(acts.CPUUpdates) > 0 || acts.UpdatePodResources || podLevel {
		lw, lm := podCgroupWords(old, pod, v1.ResourceCPU, "limit", f, checked)
		rw, rm := podCgroupWords(old, pod, v1.ResourceCPU, "request", f, checked)
		l := step() + "cpu: " + lw + "; " + rw
		if len(acts.CPUUpdates) > 0 {
			l += "; containers, decreases before increases: " + names(acts.CPUUpdates, v1.ResourceCPU)
		}
		if podLevel {
			l += podRecordWords(old, pod, v1.ResourceCPU, lm || rm, f)
		}
		out = append(out, l)
	}
	if acts.UpdatePodResources {
		out = append(out, "containers restarted for the resize are killed first, the pod cgroup resized, and they start again with the new values in the same sync")
	}
	if podLevel {
		if f.Version().Minor() >= 36 {
			out = append(out, "each pod cgroup write is preceded by UpdatePodSandboxResources: the runtime is told first, and its refusal fails the resize")
		} else {
			out = append(out, "each pod cgroup write is followed by UpdatePodSandboxResources, best effort (v1.35)")
		}
	}
	stuck := false
	for _, res := range []v1.ResourceName{v1.ResourceMemory, v1.ResourceCPU} {
		if acts.UpdatePodLevelResources && podReqLim(old, res) != podReqLim(pod, res) && !sim.PodLevelRecorded(old, pod, res, f) {
			stuck = true
		}
	}
	if stuck {
		out = append(out, "then the kubelet re-reads the pod (RequestPodReinspect); the resize never completes: the pod-level record keeps the old values, so the PodResizeInProgress condition stays and every later sync finds the resize again")
	} else {
		out = append(out, "then the kubelet re-reads the pod (RequestPodReinspect); the resize is done when the runtime reports the new values, and the PodResizeInProgress condition goes away")
	}
	return out
}

// podRecordWords says when doPodResizeAction records the pod-level values
// of res as actuated ("; ..."): from v1.36 after the resource's step
// (kuberuntime_manager.go:1084 v1.37.2); in v1.35 with each pod cgroup
// write (:903 v1.35.4), so not at all when the pod cgroup's value for res
// stays (moved false): a pod-level value of res that changed is then never
// recorded, and the next syncs find the resize again.
func podRecordWords(old, pod *v1.Pod, res v1.ResourceName, moved bool, f features.Set) string {
	if f.Version().Minor() >= 36 {
		return fmt.Sprintf("; then the kubelet records the pod-level %s as actuated (updateActuatedPodLevelResources)", res)
	}
	if moved {
		return fmt.Sprintf("; the kubelet records the pod-level %s as actuated with the pod cgroup write (v1.35)", res)
	}
	if podReqLim(old, res) == podReqLim(pod, res) {
		return ""
	}
	return fmt.Sprintf("; v1.35 records the pod-level %s as actuated only with a pod cgroup write, and there is none: the record keeps the old %s values, and every later sync finds the pod-level resize again (PodResizeInProgress stays)", res, res)
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
	var asked []string
	if r.Asked != "" {
		asked = append(asked, "--resize "+r.Asked)
	}
	if r.AskedPod != "" {
		asked = append(asked, "--resize-pod "+r.AskedPod)
	}
	out := []string{fmt.Sprintf("%s, on %s:", strings.Join(asked, " "), r.Basis)}
	for _, ch := range r.PodLevel {
		if ch.Action == "unchanged" && ch.Say == "unchanged" {
			out = append(out, fmt.Sprintf("  pod-level %s: unchanged (%s)", ch.Resource, ch.From))
			continue
		}
		out = append(out, fmt.Sprintf("  pod-level %s: %s -> %s", ch.Resource, ch.From, ch.To))
		out = append(out, "    "+ch.Say)
	}
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

// podCgroupValue is the pod cgroup's value for res (ResourceConfigForPod,
// pkg/kubelet/cm/helpers_linux.go:180 v1.37.2): with gate
// PodLevelResources, a non-zero pod-level request or limit (of which) is
// the value (podLevel true); otherwise the containers' podTotal.
func podCgroupValue(pod *v1.Pod, res v1.ResourceName, which string, f features.Set) (q resource.Quantity, ok, podLevel bool) {
	if r := pod.Spec.Resources; f.Enabled(features.PodLevelResources) && r != nil {
		l := r.Requests
		if which == "limit" {
			l = r.Limits
		}
		if v, has := l[res]; has && !v.IsZero() {
			return v, true, true
		}
	}
	q, ok = podTotal(pod, res, which)
	return q, ok, false
}

// podCgroupWords says how the pod cgroup's value for res (of which: its
// limit, or for cpu its request) moves and so whether doPodResizeAction
// sets it before or after the containers; moved says it changes. checked
// says the memory usage is checked before (validatePodResizeAction).
func podCgroupWords(old, pod *v1.Pod, res v1.ResourceName, which string, f features.Set, checked bool) (words string, moved bool) {
	what := map[v1.ResourceName]string{v1.ResourceMemory: "memory limit", v1.ResourceCPU: "cpu quota (from the limits)"}[res]
	if which != "limit" {
		what = "cpu shares (from the requests)"
	}
	a, okA, _ := podCgroupValue(old, res, which, f)
	b, okB, pl := podCgroupValue(pod, res, which, f)
	switch {
	case !okB:
		return "the pod cgroup has no " + what + " (a container has no limit): left as it is", false
	case !okA:
		return fmt.Sprintf("the pod cgroup gets a %s of %s where it had none", what, b.String()), true
	}
	note := ""
	if pl {
		note = " (the pod-level value)"
	} else {
		for i := range pod.Spec.InitContainers {
			if !restart.IsSidecar(&pod.Spec.InitContainers[i]) {
				note = " (the sum over the containers and sidecars; a larger init container would raise it)"
			}
		}
	}
	switch a.Cmp(b) {
	case 0:
		return fmt.Sprintf("the pod cgroup's %s stays %s%s", what, a.String(), note), false
	case -1:
		return fmt.Sprintf("the pod cgroup's %s grows %s -> %s%s: set before the containers", what, a.String(), b.String(), note), true
	}
	s := fmt.Sprintf("the pod cgroup's %s shrinks %s -> %s%s: set after the containers", what, a.String(), b.String(), note)
	if res == v1.ResourceMemory {
		if checked {
			s += ", once the pod's memory usage is checked to be below it"
		} else {
			s += ", with no memory-usage check first (validatePodResizeAction checks it only when a container's memory is updated or a container restarts for the resize)"
		}
	}
	return s, true
}
