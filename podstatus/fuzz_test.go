package podstatus

import (
	"encoding/json"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// FuzzCompute feeds arbitrary pods, runtime states and options (decoded
// from JSON, so any field may be missing, empty or nonsensical) to Compute:
// it must not panic, the phase must be one of the API's, every container
// status the probe step visits has Started set, and the result must print.
func FuzzCompute(f *testing.F) {
	f.Add([]byte(`{"pod":{"spec":{"restartPolicy":"Always","hostNetwork":true,"initContainers":[{"name":"i"},{"name":"s","restartPolicy":"Always","startupProbe":{}}],"containers":[{"name":"a","readinessProbe":{}}]},"status":{"conditions":[{"type":"Ready","status":"True"}]}},"state":{"sandboxes":[{"id":"sb","ready":true,"ip":"010.0.0.1","additionalIPs":["fd00::1","x"]}],"containers":[{"id":"c","name":"a","sandboxID":"sb","state":"running","startedAt":"2026-01-01T00:00:00Z"},{"id":"d","name":"s","sandboxID":"sb","state":"running"}]},"opts":{"Probes":{"c":{"readiness":"Failure"},"d":{"startup":"Success"}},"ProberStart":"2026-01-02T00:00:00Z","NodeIPs":["fd00::9"],"HostIPs":["192.168.0.1","fd00::2"]}}`), uint8(0))
	f.Add([]byte(`{"pod":{"spec":{"activeDeadlineSeconds":5,"containers":[{"name":"a"}]},"status":{"phase":"Succeeded","startTime":"2026-01-01T00:00:00Z","qosClass":"Burstable"}},"opts":{"Cached":{"phase":"Failed","containerStatuses":[{"name":"a","state":{"running":{}}}]},"ProbeWorkers":{"a":{"readiness":true}},"RuntimeType":"cri-o"}}`), uint8(5))
	f.Add([]byte(`{}`), uint8(255))
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		var in struct {
			Pod   *v1.Pod           `json:"pod"`
			State *runtimestate.Pod `json:"state"`
			Opts  Options           `json:"opts"`
		}
		if json.Unmarshal(data, &in) != nil {
			return
		}
		fs := features.V1_37()
		for i, g := range features.Gates() {
			if flags&(1<<(i%8)) != 0 {
				fs, _ = fs.With(g, !fs.Enabled(g))
			}
		}
		in.Opts.Features = fs
		in.Opts.PodIsTerminal = flags&1 != 0
		if in.Opts.Now.IsZero() {
			in.Opts.Now = time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
		}
		r := Compute(in.Pod, in.State, in.Opts)
		_ = r.String()
		if in.Pod == nil {
			return
		}
		switch r.Status.Phase {
		case v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed:
		default:
			if r.Status.Phase != in.Pod.Status.Phase {
				t.Fatalf("phase %q", r.Status.Phase)
			}
		}
		for _, cs := range append(append([]v1.ContainerStatus(nil), r.Status.InitContainerStatuses...), r.Status.ContainerStatuses...) {
			if cs.Started == nil {
				t.Fatalf("container status %q without Started", cs.Name)
			}
		}
	})
}
