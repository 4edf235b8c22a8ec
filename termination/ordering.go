package termination

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
)

// Ordering is who waits for whom when the kubelet kills a pod with native
// sidecars: the kubelet's terminationOrdering
// (pkg/kubelet/kuberuntime/kuberuntime_termination_order.go).
//
// The kubelet keeps one "stopped" signal per container name of the spec
// (regular and init containers; ephemeral containers have none). A signal of
// a container that is not running is given at once. Each native sidecar
// waits for the signals of every regular container and of the nearest
// sidecar declared after it; nothing else waits. Regular containers
// therefore stop first, then sidecars in reverse order of declaration.
type Ordering struct {
	// Signals are the signals, in the order the kubelet creates them:
	// regular containers in spec order, then init containers from last to
	// first.
	Signals []Signal
	// WaitsFor maps a sidecar's name to the indexes in Signals it waits for,
	// in the order it waits for them: the regular containers, then the
	// later sidecar. Containers not in the map do not wait.
	WaitsFor map[string][]int
}

// Signal is one container's "stopped" signal.
type Signal struct {
	// Name is the container the signal belongs to.
	Name string
	// Given is true when the signal was given when the ordering was built,
	// because the container was not running.
	Given bool
}

// NewOrdering mirrors newTerminationOrdering
// (pkg/kubelet/kuberuntime/kuberuntime_termination_order.go). running are
// the names of the containers being killed (repeats allowed). The kubelet
// builds an ordering only for a pod with at least one native sidecar
// (types.HasRestartableInitContainer, see HasSidecars); NewOrdering returns
// nil otherwise, and for a nil pod.
func NewOrdering(pod *v1.Pod, running []string, f features.Set) *Ordering {
	_ = f
	if !HasSidecars(pod) {
		return nil
	}
	nSignals := len(pod.Spec.Containers) + len(pod.Spec.InitContainers)
	o := &Ordering{Signals: make([]Signal, 0, nSignals), WaitsFor: map[string][]int{}}
	add := func(name string) {
		o.Signals = append(o.Signals, Signal{Name: name, Given: !contains(running, name)})
	}
	// The regular containers' signals are the first ones.
	nRegular := len(pod.Spec.Containers)
	for i := range pod.Spec.Containers {
		add(pod.Spec.Containers[i].Name)
	}
	later := ""
	for i := len(pod.Spec.InitContainers) - 1; i >= 0; i-- {
		ic := &pod.Spec.InitContainers[i]
		add(ic.Name)
		if !restart.IsSidecar(ic) {
			continue
		}
		waits := o.WaitsFor[ic.Name]
		if waits == nil {
			waits = make([]int, 0, nRegular+1)
		}
		for j := range nRegular {
			waits = append(waits, j)
		}
		if later != "" {
			j, _ := o.SignalOf(later)
			waits = append(waits, j)
		}
		o.WaitsFor[ic.Name] = waits
		later = ic.Name
	}
	return o
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// SignalOf returns the index in Signals that the kubelet gives when the
// container named name has stopped (containerTerminated), and false for a
// name without a signal (ephemeral containers, names not in the spec, a nil
// Ordering).
func (o *Ordering) SignalOf(name string) (int, bool) {
	if o == nil {
		return 0, false
	}
	for i := len(o.Signals) - 1; i >= 0; i-- {
		if o.Signals[i].Name == name {
			return i, true
		}
	}
	return 0, false
}

// WaitNames returns the names of the containers name waits for, in order.
func (o *Ordering) WaitNames(name string) []string {
	if o == nil {
		return nil
	}
	var out []string
	for _, i := range o.WaitsFor[name] {
		out = append(out, o.Signals[i].Name)
	}
	return out
}

// String renders the ordering one waiting container a line, in the order
// the kubelet created their signals.
func (o *Ordering) String() string {
	if o == nil {
		return "no ordering"
	}
	var b strings.Builder
	for _, s := range o.Signals {
		ws, ok := o.WaitsFor[s.Name]
		if !ok {
			continue
		}
		var parts []string
		for _, i := range ws {
			p := o.Signals[i].Name
			if o.Signals[i].Given {
				p += " (not running)"
			}
			parts = append(parts, p)
		}
		fmt.Fprintf(&b, "%s waits for %s\n", s.Name, strings.Join(parts, ", "))
	}
	return b.String()
}

// HasSidecars reports whether pod has a native sidecar (an init container
// with restartPolicy Always): types.HasRestartableInitContainer
// (pkg/kubelet/types/pod_update.go). False for a nil pod.
func HasSidecars(pod *v1.Pod) bool {
	if pod == nil {
		return false
	}
	for i := range pod.Spec.InitContainers {
		if restart.IsSidecar(&pod.Spec.InitContainers[i]) {
			return true
		}
	}
	return false
}
