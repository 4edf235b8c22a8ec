package replay

import (
	"encoding/json"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/podactions"
)

// allocatedAt returns pod with the resources of every resize the API server
// accepted before t (the harness's "resize {patch}: PATCH resize 200"
// events): the allocated pod computePodActions reads, taking each accepted
// resize as admitted at once. A resize the kubelet defers (api-resize at
// 75 s) is thereby taken as admitted early; that changes only in-place
// updates, which the replay does not compare with calls.
func (f *fixture) allocatedAt(pod *v1.Pod, t time.Time) *v1.Pod {
	out := pod
	for _, e := range f.Events {
		if !e.Time.Before(t) || !strings.HasPrefix(e.What, "resize ") || !strings.Contains(e.What, ": PATCH resize 200 ") {
			continue
		}
		patch := strings.TrimPrefix(e.What[:strings.Index(e.What, ": PATCH resize ")], "resize ")
		var p struct {
			Spec struct {
				Containers []struct {
					Name      string                  `json:"name"`
					Resources v1.ResourceRequirements `json:"resources"`
				} `json:"containers"`
			} `json:"spec"`
		}
		if err := json.Unmarshal([]byte(patch), &p); err != nil {
			continue
		}
		if out == pod {
			out = pod.DeepCopy()
		}
		for _, c := range p.Spec.Containers {
			for i := range out.Spec.Containers {
				if out.Spec.Containers[i].Name == c.Name {
					out.Spec.Containers[i].Resources = c.Resources
				}
			}
			for i := range out.Spec.InitContainers {
				if out.Spec.InitContainers[i].Name == c.Name {
					out.Spec.InitContainers[i].Resources = c.Resources
				}
			}
		}
	}
	return out
}

// actuatedAt is the kubelet's actuated record as its last status before
// the sync reports it: each container's status resources (what the
// runtime reports for the running instance). A container without them is
// left out, and reads as actuated with the spec (podactions' default).
func actuatedAt(o *observation) podactions.Actuated {
	var a podactions.Actuated
	if o == nil || o.Status == nil {
		return a
	}
	for _, list := range [][]v1.ContainerStatus{o.Status.InitContainerStatuses, o.Status.ContainerStatuses} {
		for _, cs := range list {
			if cs.Resources == nil {
				continue
			}
			if a.Containers == nil {
				a.Containers = map[string]v1.ResourceRequirements{}
			}
			a.Containers[cs.Name] = *cs.Resources.DeepCopy()
		}
	}
	return a
}
