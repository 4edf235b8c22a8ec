package podgen

import (
	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// ProbeResults returns a generator of probe results for the instances of
// state, keyed by container ID. An instance gets a result of a kind only
// when the container of pod it names has a probe of that kind (the kubelet
// runs probe workers for regular containers and sidecars only); a nil pod
// lets every instance have every kind. Instances with no result at all are
// left out of the map. Failure, Unknown and absent results are frequent,
// so that every branch on them is reached. Pod and state are read when
// ProbeResults is called, not when the generator draws.
func ProbeResults(pod *v1.Pod, state *runtimestate.Pod) *rapid.Generator[map[string]vocab.ProbeResults] {
	// Which results each instance may have is known now; only the values
	// are drawn.
	type slot struct {
		id                           string
		liveness, startup, readiness bool
	}
	var probed map[string]*v1.Container
	if pod != nil {
		probed = map[string]*v1.Container{}
		for i := range pod.Spec.Containers {
			probed[pod.Spec.Containers[i].Name] = &pod.Spec.Containers[i]
		}
		for i := range pod.Spec.InitContainers {
			if c := &pod.Spec.InitContainers[i]; restart.IsSidecar(c) {
				probed[c.Name] = c
			}
		}
	}
	var slots []slot
	if state != nil {
		for _, in := range state.Containers {
			s := slot{id: in.ID, liveness: true, startup: true, readiness: true}
			if pod != nil {
				c := probed[in.Name]
				if c == nil {
					continue
				}
				s.liveness, s.startup, s.readiness = c.LivenessProbe != nil, c.StartupProbe != nil, c.ReadinessProbe != nil
			}
			if s.liveness || s.startup || s.readiness {
				slots = append(slots, s)
			}
		}
	}
	if len(slots) == 0 {
		// rapid wants every generator to draw something.
		return rapid.Map(rapid.Just(0), func(int) map[string]vocab.ProbeResults { return map[string]vocab.ProbeResults{} })
	}
	return rapid.Custom(func(t *rapid.T) map[string]vocab.ProbeResults {
		out := map[string]vocab.ProbeResults{}
		for _, s := range slots {
			var r vocab.ProbeResults
			if s.liveness {
				r.Liveness = drawProbeResult(t, s.id+" liveness")
			}
			if s.startup {
				r.Startup = drawProbeResult(t, s.id+" startup")
			}
			if s.readiness {
				r.Readiness = drawProbeResult(t, s.id+" readiness")
			}
			if r != (vocab.ProbeResults{}) {
				out[s.id] = r
			}
		}
		return out
	})
}

func drawProbeResult(t *rapid.T, l string) vocab.ProbeResult {
	return []vocab.ProbeResult{vocab.ProbeNoResult, vocab.ProbeSuccess, vocab.ProbeFailure, vocab.ProbeUnknown}[weighted(t, l, 25, 40, 20, 15)]
}
