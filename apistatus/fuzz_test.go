package apistatus

import (
	"encoding/json"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// FuzzCompute feeds arbitrary pods, runtime states, previous statuses and
// reason-cache entries (decoded from JSON, so any field may be missing or
// nonsensical) to Compute and String: neither may panic, and Compute must
// leave its arguments untouched.
func FuzzCompute(f *testing.F) {
	f.Add([]byte(`{"pod":{"metadata":{"uid":"u"},"spec":{"initContainers":[{"name":"i"},{"name":"i","restartPolicy":"Always"}],"containers":[{"name":"a","resources":{"limits":{"cpu":"5m"},"requests":{"cpu":"1m"}}}],"ephemeralContainers":[{"name":"d"}]},"status":{"conditions":[{"type":"AllContainersRestarting","status":"True"}],"containerStatuses":[{"name":"a","state":{"running":{}}}]}},"state":{"containers":[{"id":"c","name":"a","state":"bogus"},{"id":"c","name":"a","state":"running","resources":{"cpuLimit":"1"}}]},"failures":{"a":{"Reason":"CrashLoopBackOff"}}}`), uint8(0))
	f.Add([]byte(`{"pod":{"spec":{"containers":[{"name":"a","volumeMounts":[{"name":"v","readOnly":true,"recursiveReadOnly":"Enabled","mountPropagation":"Bidirectional"}]}]}},"prev":{"containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":1}}},{"name":"a"}]}}`), uint8(3))
	f.Add([]byte(`{}`), uint8(255))
	f.Fuzz(func(t *testing.T, data []byte, gates uint8) {
		var in struct {
			Pod      *v1.Pod                       `json:"pod"`
			State    *runtimestate.Pod             `json:"state"`
			Prev     *v1.PodStatus                 `json:"prev"`
			Failures map[string]vocab.StartFailure `json:"failures"`
			RRO      bool                          `json:"rro"`
		}
		if json.Unmarshal(data, &in) != nil {
			return
		}
		fs := features.V1_37()
		for i, g := range features.Gates() {
			if gates&(1<<(i%8)) != 0 {
				fs, _ = fs.With(g, !fs.Enabled(g))
			}
		}
		before, _ := json.Marshal(in)
		s := Compute(in.Pod, in.State, Options{Features: fs, Cached: in.Prev, StartFailures: in.Failures, RecursiveReadOnlySupported: in.RRO})
		_ = s.String()
		if after, _ := json.Marshal(in); string(after) != string(before) {
			t.Fatalf("Compute changed its arguments:\nbefore %s\nafter  %s", before, after)
		}
		if in.Pod != nil && len(s.InitContainerStatuses) > len(in.Pod.Spec.InitContainers) {
			t.Fatalf("%d init statuses for %d init containers", len(s.InitContainerStatuses), len(in.Pod.Spec.InitContainers))
		}
	})
}
