package podgen

import (
	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Case is one input of a kubelet decision: a pod, what the runtime reports
// about it, the probe results for its instances, and the kubelet's gates.
type Case struct {
	Pod      *v1.Pod
	State    *runtimestate.Pod
	Probes   map[string]vocab.ProbeResults
	Features features.Set
}

// CaseOptions bundle the options of the generators Cases draws from.
type CaseOptions struct {
	Pod      PodOptions
	State    StateOptions
	Features FeatureOptions
	// Gates, when not nil, is used as the gate set of every case instead of
	// drawing one.
	Gates *features.Set
}

// drawGates returns o.Gates when set, else a gate set drawn from Features.
func (o CaseOptions) drawGates(t *rapid.T) features.Set {
	if o.Gates != nil {
		return *o.Gates
	}
	return Features(o.Features).Draw(t, "features")
}

// Cases returns a generator of Case values: a pod from Pod, a state of that
// pod from RuntimeState, probe results of that state from ProbeResults,
// and a gate set from Features (or CaseOptions.Gates). The pod does not
// depend on the gates: a kubelet can meet pods its own gates would not have
// let the API server accept. Restrict the pod with PodOptions.ForGates for
// the other view.
func Cases(opts CaseOptions) *rapid.Generator[Case] {
	return rapid.Custom(func(t *rapid.T) Case {
		var c Case
		c.Features = opts.drawGates(t)
		c.Pod = Pod(opts.Pod).Draw(t, "pod")
		c.State = RuntimeState(c.Pod, opts.State).Draw(t, "state")
		c.Probes = ProbeResults(c.Pod, c.State).Draw(t, "probes")
		return c
	})
}
