// Adapter for the kubeletlogic differential tests (podstatus); written for
// this project.
//
// This file lives in tooling/differential/_adapters/ (ignored by the go tool) and is
// added to the vendored k8s.io/kubernetes/pkg/kubelet/prober package only
// through `go test -overlay` (see tooling/differential/setup.sh).

package prober

import (
	"time"

	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// KLPodstatusWorkers names the probe workers of one container.
type KLPodstatusWorkers struct {
	Readiness, Startup bool
}

// KLPodstatusProbeManager returns the package's probe manager holding the
// given readiness and startup results (keyed by ContainerID.String(),
// values "Success", "Failure" or "Unknown"), a worker per entry of workers
// (by container name, for pod's UID; the workers are never run), and start
// as the time the manager started. Only UpdatePodStatus may be called on
// it.
func KLPodstatusProbeManager(pod *v1.Pod, readinessResults, startupResults map[string]string, workers map[string]KLPodstatusWorkers, start time.Time) Manager {
	m := &manager{
		workers:          map[probeKey]*worker{},
		readinessManager: results.NewManager(),
		livenessManager:  results.NewManager(),
		startupManager:   results.NewManager(),
		start:            start,
	}
	set := func(rm results.Manager, in map[string]string) {
		for id, r := range in {
			var cid kubecontainer.ContainerID
			if err := cid.ParseString(id); err != nil {
				panic(err)
			}
			res := map[string]results.Result{"Success": results.Success, "Failure": results.Failure, "Unknown": results.Unknown}[r]
			rm.Set(cid, res, pod)
			// Only the sync loop reads the updates channel; drain it.
			select {
			case <-rm.Updates():
			default:
			}
		}
	}
	set(m.readinessManager, readinessResults)
	set(m.startupManager, startupResults)
	for name, w := range workers {
		if w.Readiness {
			m.workers[probeKey{pod.UID, name, readiness}] = &worker{probeType: readiness, manualTriggerCh: make(chan struct{}, 1)}
		}
		if w.Startup {
			m.workers[probeKey{pod.UID, name, startup}] = &worker{probeType: startup, manualTriggerCh: make(chan struct{}, 1)}
		}
	}
	return m
}
