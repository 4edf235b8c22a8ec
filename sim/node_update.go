package sim

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
)

// UpdatePod gives the kubelet a pod's new API object at time at, as its
// watch delivers it, and reads the change as the simulated kubelet models
// it, in this order:
//   - ephemeral containers added at the end of the list: Action.AddEphemeral,
//     one by one;
//   - cpu and memory requests and limits of containers or of the pod
//     (spec.resources) changed: Action.Resize and Action.ResizePod, one
//     action (the resize subresource);
//   - no finalizer left where the pod had some: Action.RemoveFinalizers;
//     finalizers where it had none: they hold the API object from now on;
//   - a deletion timestamp where it had none: Action.Delete with the
//     object's deletionGracePeriodSeconds (missing: the pod's grace);
//   - a condition the kubelet does not own (a readiness gate's) set or
//     changed in the status: Action.SetCondition, before the others.
//
// Any other change of the spec (an image, a toleration, the active
// deadline) is not modelled and is an error that changes nothing; so is a
// pod the node does not simulate. Labels, annotations and the rest of the
// status are not read (the kubelet's own status is the status manager's).
// script, when not nil, replaces the pod's script from then on (containers created
// afterwards follow it, as do the runtime's delays) and must fit the new
// pod as AddPod's does.
func (n *Node) UpdatePod(at time.Time, pod *v1.Pod, script *Script) error {
	if pod == nil {
		return errors.New("sim: UpdatePod: nil pod")
	}
	p, err := n.pod(pod.Namespace, pod.Name)
	if err != nil {
		return err
	}
	acts, finalizers, err := diffPod(p.pod, pod, n.st.cfg)
	if err != nil {
		return fmt.Errorf("sim: pod %s: %w", p.key, err)
	}
	acts = append(acts, conditionActions(p.pod, pod, n.st.cfg.Kubelet)...)
	if script != nil {
		next := apidefaults.PodCopy(pod)
		next.Namespace, next.UID = p.pod.Namespace, p.pod.UID
		in := PodInput{Pod: next, Script: *script}
		for _, check := range []func() error{script.validate, script.checkMeaning,
			func() error { return checkNames(next, in) }, func() error { return script.checkHooks(next) }} {
			if err := check(); err != nil {
				return fmt.Errorf("sim: pod %s: %w", p.key, err)
			}
		}
	}
	n.deliver(at, p, func() {
		gen := p.pod.Generation
		if script != nil {
			p.script = *script
			p.script.Runtime = p.script.Runtime.orDefault()
		}
		for _, a := range acts {
			if a.RemoveFinalizers || a.Delete != nil {
				continue
			}
			p.act(a)
		}
		if finalizers && !p.finalizers {
			p.finalizers = true
		}
		// One update is one change of the spec to the API server
		// (registry/core/pod/strategy.go updatePodGeneration): an update
		// that adds two ephemeral containers, or resizes two containers,
		// bumps metadata.generation once, where the actions above each
		// bumped it.
		if p.pod.Generation > gen+1 {
			cp := *p.pod
			cp.Generation = gen + 1
			p.pod = &cp
		}
		for _, a := range acts {
			if a.RemoveFinalizers || a.Delete != nil {
				p.act(a)
			}
		}
	})
	return nil
}

// diffPod is what changed from cur (the pod the kubelet holds) to next, as
// actions; finalizers reports whether next holds finalizers.
func diffPod(cur, next *v1.Pod, cfg Config) ([]Action, bool, error) {
	next = apidefaults.PodCopy(next)
	want := cur.Spec.DeepCopy()
	var acts []Action
	// Ephemeral containers are only ever added.
	if len(next.Spec.EphemeralContainers) < len(want.EphemeralContainers) {
		return nil, false, errors.New("an ephemeral container was removed: the API server refuses that")
	}
	for i, e := range next.Spec.EphemeralContainers {
		if i < len(want.EphemeralContainers) {
			continue
		}
		e := e
		acts = append(acts, Action{AddEphemeral: &e})
		want.EphemeralContainers = append(want.EphemeralContainers, e)
	}
	resize := map[string]v1.ResourceRequirements{}
	for _, l := range []struct{ cur, next []v1.Container }{{want.InitContainers, next.Spec.InitContainers}, {want.Containers, next.Spec.Containers}} {
		if len(l.cur) != len(l.next) {
			return nil, false, errors.New("the containers changed: the API server refuses that")
		}
		for i := range l.cur {
			if l.cur[i].Name != l.next[i].Name || equality.Semantic.DeepEqual(l.cur[i].Resources, l.next[i].Resources) {
				continue
			}
			r, err := resourcesChanged(l.cur[i].Name, l.cur[i].Resources, l.next[i].Resources)
			if err != nil {
				return nil, false, err
			}
			resize[l.cur[i].Name] = r
			l.cur[i].Resources = *l.next[i].Resources.DeepCopy()
		}
	}
	var podLevel *v1.ResourceRequirements
	if !equality.Semantic.DeepEqual(want.Resources, next.Spec.Resources) {
		if want.Resources == nil || next.Spec.Resources == nil {
			return nil, false, errors.New("the pod-level resources (spec.resources) added or removed: not modelled")
		}
		r, err := resourcesChanged("pod-level", *want.Resources, *next.Spec.Resources)
		if err != nil {
			return nil, false, err
		}
		podLevel = &r
		want.Resources = next.Spec.Resources.DeepCopy()
	}
	if !equality.Semantic.DeepEqual(*want, next.Spec) {
		return nil, false, errors.New("a change of the spec other than ephemeral containers and resources: not modelled")
	}
	if len(resize) > 0 || podLevel != nil {
		a := Action{ResizePod: podLevel}
		if len(resize) > 0 {
			a.Resize = resize
		}
		if _, err := resizedPod(cur, a.Resize, a.ResizePod, cfg.Kubelet.Features, cfg.allocatable()); err != nil {
			return nil, false, err
		}
		acts = append(acts, a)
	}
	if len(cur.Finalizers) > 0 && len(next.Finalizers) == 0 {
		acts = append(acts, Action{RemoveFinalizers: true})
	}
	if next.DeletionTimestamp != nil && cur.DeletionTimestamp == nil {
		grace := int64(-1)
		if next.DeletionGracePeriodSeconds != nil {
			grace = *next.DeletionGracePeriodSeconds
		}
		acts = append(acts, Action{Delete: &grace})
	}
	return acts, len(next.Finalizers) > 0, nil
}

// checkAction reports an action that does not fit the pod as the kubelet
// holds it now.
func checkAction(p *podSim, a Action) error {
	names := keycheck.ContainerNames(p.pod)
	has := func(name string) bool {
		for _, n := range names {
			if n == name {
				return true
			}
		}
		return false
	}
	switch {
	case a.KillContainer != "" && !has(a.KillContainer):
		return fmt.Errorf("%s: %s", a, keycheck.NotAContainerText(a.KillContainer, p.pod, names))
	case a.AddEphemeral != nil && has(a.AddEphemeral.Name):
		return fmt.Errorf("%s: the pod already has a container %s: the API server would reject the ephemeral container", a, a.AddEphemeral.Name)
	case a.Resize != nil || a.ResizePod != nil:
		if _, err := resizedPod(p.pod, a.Resize, a.ResizePod, p.node.cfg.Kubelet.Features, p.node.cfg.allocatable()); err != nil {
			return err
		}
	case a.OtherRequests != nil:
		return checkOtherRequests(*a.OtherRequests)
	case a.SetCondition != nil:
		return checkSetCondition(p, *a.SetCondition)
	case a.RestartKubelet != nil && *a.RestartKubelet < 0:
		return fmt.Errorf("%s: a negative downtime", a)
	case a.Evict != nil && a.Evict.GracePeriod != nil && *a.Evict.GracePeriod < 0:
		return fmt.Errorf("%s: a negative grace period", a)
	}
	return nil
}

// resourcesChanged is the resize from cur to next: the requests and limits
// next sets to another value. Removing one is not modelled.
func resourcesChanged(name string, cur, next v1.ResourceRequirements) (v1.ResourceRequirements, error) {
	var out v1.ResourceRequirements
	for _, l := range []struct {
		what      string
		cur, next v1.ResourceList
		to        *v1.ResourceList
	}{{"requests", cur.Requests, next.Requests, &out.Requests}, {"limits", cur.Limits, next.Limits, &out.Limits}} {
		for rn := range l.cur {
			if _, ok := l.next[rn]; !ok {
				return out, fmt.Errorf("resize: %s: %s.%s removed: not modelled", name, l.what, rn)
			}
		}
		for rn, q := range l.next {
			if c, ok := l.cur[rn]; ok && c.Cmp(q) == 0 {
				continue
			}
			if *l.to == nil {
				*l.to = v1.ResourceList{}
			}
			(*l.to)[rn] = q.DeepCopy()
		}
	}
	return out, nil
}
