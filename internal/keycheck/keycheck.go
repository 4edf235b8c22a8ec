// Package keycheck checks the keys of the maps that the library's options
// take (by container name, by container instance ID) against the pod and
// the runtime state, so that a key matching nothing is reported, with the
// name it was most likely meant to be, instead of being ignored.
package keycheck

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/internal/nearest"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Sorted returns the keys of m in sorted order.
func Sorted[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ContainerNames returns the names of pod's containers of every kind: init
// containers (sidecars among them), regular and ephemeral containers, in
// spec order. A nil pod has none.
func ContainerNames(pod *v1.Pod) []string {
	if pod == nil {
		return nil
	}
	var out []string
	for _, c := range pod.Spec.InitContainers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		out = append(out, c.Name)
	}
	return out
}

// Containers returns pod's containers of every kind, in spec order: init
// containers (sidecars among them), regular containers, then ephemeral
// containers as copies of their common part. The init and regular ones
// point into pod. A nil pod has none.
func Containers(pod *v1.Pod) []*v1.Container {
	if pod == nil {
		return nil
	}
	var out []*v1.Container
	for i := range pod.Spec.InitContainers {
		out = append(out, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	for i := range pod.Spec.EphemeralContainers {
		c := v1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon)
		out = append(out, &c)
	}
	return out
}

// PodName is how errors name the pod: namespace/name, or name.
func PodName(pod *v1.Pod) string {
	if pod == nil {
		return "(nil)"
	}
	if pod.Namespace != "" {
		return pod.Namespace + "/" + pod.Name
	}
	return pod.Name
}

// NotAContainer is the error for field[key] where key names no container
// of pod, known being the names it may name.
func NotAContainer(field, key string, pod *v1.Pod, known []string) error {
	return fmt.Errorf("%s[%q]: %s", field, key, NotAContainerText(key, pod, known))
}

// NotAContainerText says that name is not a container of pod, with the
// nearest of known and the whole list.
func NotAContainerText(name string, pod *v1.Pod, known []string) string {
	list := "it has none"
	if len(known) > 0 {
		list = "its containers: " + strings.Join(known, ", ")
	}
	return fmt.Sprintf("%q is not a container of pod %s%s (%s)", name, PodName(pod), nearest.Suggest(name, known), list)
}

// Names returns an error for each key (in order) that is not in known, the
// names of containers of pod.
func Names(field string, keys []string, pod *v1.Pod, known []string) []error {
	set := make(map[string]bool, len(known))
	for _, k := range known {
		set[k] = true
	}
	var errs []error
	for _, k := range keys {
		if !set[k] {
			errs = append(errs, NotAContainer(field, k, pod, known))
		}
	}
	return errs
}

// InstanceKeys checks keys meant to be container instance IDs of st
// (runtimestate.Container.ID). It reports, for each key (in order) that is
// no instance's ID:
//
//   - a container's name (of the pod, or of an instance): "keyed by name",
//     with the ID of the container's newest instance, the one the caller
//     most likely meant;
//   - a container ID with its runtime scheme ("containerd://c-1", as a
//     kubectl status shows it) whose bare ID is an instance's: the bare ID
//     is wanted;
//   - with strict, any other key: no instance has that ID, with the nearest
//     ID. Without strict such keys are accepted (a kubelet holds results
//     for an instance the runtime no longer lists until its probe worker
//     notices).
func InstanceKeys(field string, keys []string, pod *v1.Pod, st *runtimestate.Pod, strict bool) []error {
	if st == nil {
		st = &runtimestate.Pod{}
	}
	ids := map[string]bool{}
	var idList, described []string
	for _, c := range st.Containers {
		ids[c.ID] = true
		idList = append(idList, c.ID)
		described = append(described, fmt.Sprintf("%s (%s)", c.ID, c.Name))
	}
	names := map[string]bool{}
	for _, n := range ContainerNames(pod) {
		names[n] = true
	}
	for _, c := range st.Containers {
		names[c.Name] = true
	}
	var errs []error
	for _, k := range keys {
		if ids[k] {
			continue
		}
		if names[k] {
			if c := st.Newest(k); c != nil {
				errs = append(errs, fmt.Errorf("%s[%q]: keyed by name %q, want instance ID %q (the newest instance of %s); the kubelet holds these per container instance", field, k, k, c.ID, k))
			} else {
				errs = append(errs, fmt.Errorf("%s[%q]: keyed by name %q, want an instance ID, and the runtime state has no instance of %s; the kubelet holds these per container instance", field, k, k, k))
			}
			continue
		}
		if _, bare, ok := strings.Cut(k, "://"); ok && ids[bare] {
			errs = append(errs, fmt.Errorf("%s[%q]: keyed by a container ID with its runtime scheme, want the bare instance ID %q", field, k, bare))
			continue
		}
		if !strict {
			continue
		}
		list := "the runtime state lists no instance"
		if len(described) > 0 {
			list = "its instances: " + strings.Join(described, ", ")
		}
		errs = append(errs, fmt.Errorf("%s[%q]: no container instance in the runtime state has ID %q%s (%s)", field, k, k, nearest.Suggest(k, idList), list))
	}
	return errs
}
