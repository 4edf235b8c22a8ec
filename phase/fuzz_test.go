package phase

import (
	"encoding/json"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// FuzzPhase feeds arbitrary pods, statuses and runtime states (decoded from
// JSON, so any field may be missing, empty or nonsensical) to every exported
// function of the package: none may panic, and the phases returned are
// among the five of the API.
func FuzzPhase(f *testing.F) {
	f.Add([]byte(`{"pod":{"metadata":{"annotations":{"kubernetes.io/config.source":"file"}},"spec":{"restartPolicy":"Never","initContainers":[{"name":"i"},{"name":"s","restartPolicy":"Always"}],"containers":[{"name":"a","restartPolicy":"Never","restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"In","values":[42]}}]}]},"status":{"phase":"Failed"}},"status":{"containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":42}}}],"initContainerStatuses":[{"name":"i","state":{"waiting":{}},"lastState":{"terminated":{"exitCode":1,"reason":"RestartingAllContainers"}}},{"name":"s","state":{"running":{}}}]}}`), uint8(0), int64(10))
	f.Add([]byte(`{"pod":{"spec":{"activeDeadlineSeconds":5},"status":{"startTime":"2026-01-01T00:00:00Z"}},"cached":{"phase":"Succeeded","startTime":"2026-01-01T00:00:00Z"},"state":{"sandboxes":[{"id":"s","ready":true}],"containers":[{"id":"c","name":"a","sandboxID":"s","state":"running"}]}}`), uint8(3), int64(1767225600))
	f.Add([]byte(`{}`), uint8(255), int64(-1))
	f.Fuzz(func(t *testing.T, data []byte, flags uint8, now int64) {
		var in struct {
			Pod    *v1.Pod           `json:"pod"`
			Status *v1.PodStatus     `json:"status"`
			Cached *v1.PodStatus     `json:"cached"`
			State  *runtimestate.Pod `json:"state"`
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
		r := Compute(in.Pod, in.Status, Options{Features: fs, PodIsTerminal: flags&1 != 0,
			PodHasInitialized: HasAnyActiveRegularContainerStarted(in.Pod, in.State)})
		switch r.Phase {
		case v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed:
		default:
			t.Fatalf("Compute returned phase %q", r.Phase)
		}
		_ = r.String()
		clock := time.Unix(now, 0)
		s := Resolve(in.Pod, r.Phase, ResolveOptions{Cached: in.Cached, Now: clock})
		_ = s.String()
		if in.Pod != nil && (in.Pod.Status.Phase == v1.PodSucceeded || in.Pod.Status.Phase == v1.PodFailed) && s.Phase != in.Pod.Status.Phase {
			t.Fatalf("Resolve left the API's terminal phase %s for %s", in.Pod.Status.Phase, s.Phase)
		}
		PastActiveDeadline(in.Pod, in.Cached, clock)
		IsStaticPod(in.Pod)
		for _, k := range []KillKind{KillEviction, KillPreemption, KillNodeShutdown, ""} {
			PodKill{Kind: k, Message: "m", NoDisruptionCondition: flags&2 != 0}.Apply(in.Status, in.Pod, clock, fs)
		}
	})
}
