package termination

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/internal/names"
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
	// Waits are the sidecars that wait, one entry per sidecar name, in the
	// order the kubelet sets them up (the last sidecar first). Containers
	// without an entry do not wait.
	Waits []Wait
}

// Wait is who one sidecar waits for: the kubelet's entry for it in
// terminationOrdering.prereqs.
type Wait struct {
	// Name is the sidecar's name.
	Name string
	// On are the indexes in Signals it waits for, in the order it waits
	// for them: the regular containers, then the later sidecar. A name
	// declared twice waits for the signals of both declarations, the
	// later one's first, as the kubelet's list of the name grows.
	On []int
}

// Signal is one container's "stopped" signal.
type Signal struct {
	// Name is the container the signal belongs to.
	Name string
	// Given is true when the signal was given when the ordering was built,
	// because the container was not running.
	Given bool
}

// orderingMem and orderingSmall are an Ordering with room for the signals,
// waits and indexes of a pod of up to orderingSignals (orderingSmallSignals)
// containers, orderingWaits (orderingSmallWaits) sidecars and orderingOn
// (orderingSmallOn) indexes in all, so that such a pod's ordering is one
// allocation: the small one (416 bytes) for the common pod, the other (896
// bytes) up to ten containers. Zeroing and scanning the allocation is most of
// NewOrdering's time, so its size matters.
type orderingMem struct {
	o     Ordering
	sig   [orderingSignals]Signal
	waits [orderingWaits]Wait
	on    [orderingOn]int
}

type orderingSmall struct {
	o     Ordering
	sig   [orderingSmallSignals]Signal
	waits [orderingSmallWaits]Wait
	on    [orderingSmallOn]int
}

const (
	orderingSignals      = 10
	orderingWaits        = 6
	orderingOn           = 30
	orderingSmallSignals = 6
	orderingSmallWaits   = 3
	orderingSmallOn      = 12
)

// newOrderingMem returns an empty Ordering whose Signals and Waits, and the
// returned list of indexes, have room for nSignals, nSidecars and nOn
// entries, in one allocation when they fit one of the two sizes.
func newOrderingMem(nSignals, nSidecars, nOn int) (*Ordering, []int) {
	if nSignals <= orderingSmallSignals && nSidecars <= orderingSmallWaits && nOn <= orderingSmallOn {
		m := &orderingSmall{}
		m.o.Signals, m.o.Waits = m.sig[:0], m.waits[:0]
		return &m.o, m.on[:0]
	}
	m := &orderingMem{}
	o := &m.o
	o.Signals = m.sig[:0]
	if nSignals > orderingSignals {
		o.Signals = make([]Signal, 0, nSignals)
	}
	o.Waits = m.waits[:0]
	if nSidecars > orderingWaits {
		o.Waits = make([]Wait, 0, nSidecars)
	}
	on := m.on[:0]
	if nOn > orderingOn {
		on = make([]int, 0, nOn)
	}
	return o, on
}

// NewOrdering mirrors newTerminationOrdering
// (pkg/kubelet/kuberuntime/kuberuntime_termination_order.go). running are
// the names of the containers being killed (repeats allowed). The kubelet
// builds an ordering only for a pod with at least one native sidecar
// (types.HasRestartableInitContainer, see HasSidecars); NewOrdering returns
// nil otherwise, and for a nil pod.
//
// It allocates once for a pod of up to 10 containers with up to 6
// sidecars and 30 waits in all (the kubelet allocates a map, a channel per
// container and a list per sidecar), and at most three times more beyond.
func NewOrdering(pod *v1.Pod, running []string, f features.Set) *Ordering {
	_ = f
	if !HasSidecars(pod) {
		return nil
	}
	spec := &pod.Spec
	nRegular := len(spec.Containers)
	nSignals := nRegular + len(spec.InitContainers)
	nSidecars := 0
	for i := range spec.InitContainers {
		if restart.IsSidecar(&spec.InitContainers[i]) {
			nSidecars++
		}
	}
	nOn := nSidecars * (nRegular + 1)
	o, on := newOrderingMem(nSignals, nSidecars, nOn)
	add := func(name string) {
		o.Signals = append(o.Signals, Signal{Name: name, Given: !contains(running, name)})
	}
	// The regular containers' signals are the first ones.
	for i := range spec.Containers {
		add(spec.Containers[i].Name)
	}
	later := "" // the sidecar declared after, once there is one (by name, as the kubelet keeps it)
	for i := len(spec.InitContainers) - 1; i >= 0; i-- {
		ic := &spec.InitContainers[i]
		add(ic.Name)
		if !restart.IsSidecar(ic) {
			continue
		}
		// The sidecar's indexes are the next ones of on, clipped to their
		// length so that appending to them never writes over another's.
		start := len(on)
		for j := range nRegular {
			on = append(on, j)
		}
		if later != "" {
			// The signal the kubelet's map holds for the later sidecar's
			// name: the newest one of that name.
			j, _ := o.SignalOf(later)
			on = append(on, j)
		}
		group := on[start:len(on):len(on)]
		if w := o.waitIndex(ic.Name); w >= 0 {
			o.Waits[w].On = append(o.Waits[w].On, group...)
		} else {
			o.Waits = append(o.Waits, Wait{Name: ic.Name, On: group})
		}
		later = ic.Name
	}
	return o
}

func contains(list []string, name string) bool {
	for _, n := range list {
		if names.Equal(n, name) {
			return true
		}
	}
	return false
}

func (o *Ordering) waitIndex(name string) int {
	for i := range o.Waits {
		if names.Equal(o.Waits[i].Name, name) {
			return i
		}
	}
	return -1
}

// WaitsOf returns the indexes in Signals that the container named name
// waits for, in order; nil when it does not wait (or o is nil).
func (o *Ordering) WaitsOf(name string) []int {
	if o == nil {
		return nil
	}
	if i := o.waitIndex(name); i >= 0 {
		return o.Waits[i].On
	}
	return nil
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
		if names.Equal(o.Signals[i].Name, name) {
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
	for _, i := range o.WaitsOf(name) {
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
		w := o.waitIndex(s.Name)
		if w < 0 {
			continue
		}
		ws := o.Waits[w].On
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
