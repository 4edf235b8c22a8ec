package conditions

import (
	"encoding/json"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// FuzzConditions feeds arbitrary pods, statuses and runtime states (decoded
// from JSON, so any field may be missing, empty or nonsensical) to every
// exported function of the package: none may panic, and Generate always
// ends with the conditions the kubelet always writes.
func FuzzConditions(f *testing.F) {
	f.Add([]byte(`{"pod":{"spec":{"readinessGates":[{"conditionType":"x"}],"initContainers":[{"name":"i"},{"name":"s","restartPolicy":"Always"}],"containers":[{"name":"a","restartPolicy":"Never","restartPolicyRules":[{"action":"RestartAllContainers","exitCodes":{"operator":"In","values":[42]}}]}]},"status":{"conditions":[{"type":"x","status":"False"},{"type":"Ready","status":"True"}]}},"status":{"phase":"Running","containerStatuses":[{"name":"a","ready":true,"state":{"running":{}}}]},"cached":{"conditions":[{"type":"DisruptionTarget","status":"True"},{"type":"Initialized","status":"True"}]},"state":{"sandboxes":[{"id":"s","ready":true,"ip":"10.0.0.1"}],"containers":[{"id":"c","name":"a","sandboxID":"s","state":"exited","exitCode":42}]}}`), uint8(0), int64(0))
	f.Add([]byte(`{"state":{"sandboxes":[{"id":"s","ready":true,"networkMode":"bogus"},{"id":"t","ready":true}]}}`), uint8(255), int64(-5))
	f.Add([]byte(`{}`), uint8(7), int64(1))
	f.Fuzz(func(t *testing.T, data []byte, flags uint8, now int64) {
		var in struct {
			Pod    *v1.Pod           `json:"pod"`
			Status *v1.PodStatus     `json:"status"`
			Cached *v1.PodStatus     `json:"cached"`
			State  *runtimestate.Pod `json:"state"`
			Resize []v1.PodCondition `json:"resize"`
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
		conds := Generate(in.Pod, in.Status, Options{Features: fs, Cached: in.Cached, Runtime: in.State,
			PodIsTerminal: flags&1 != 0, ResizeConditions: in.Resize})
		if find(conds, v1.PodScheduled) == nil || find(conds, v1.PodReady) == nil ||
			find(conds, v1.ContainersReady) == nil || find(conds, v1.PodInitialized) == nil {
			t.Fatalf("Generate left out a condition the kubelet always writes: %+v", conds)
		}
		kept := KeepTransitionTimes(conds, in.Cached, time.Unix(now, 0))
		if len(kept) != len(conds) {
			t.Fatalf("KeepTransitionTimes returned %d conditions for %d", len(kept), len(conds))
		}
		var statuses []v1.ContainerStatus
		var spec *v1.PodSpec
		if in.Status != nil {
			statuses = append(in.Status.InitContainerStatuses, in.Status.ContainerStatuses...)
		}
		if in.Pod != nil {
			spec = &in.Pod.Spec
		}
		for _, ph := range []v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed, ""} {
			Initialized(in.Pod, in.Cached, statuses, ph, fs)
			ContainersReady(in.Pod, in.Cached, statuses, ph, fs)
			Ready(in.Pod, in.Cached, conds, statuses, ph, fs)
			AllContainersRestarting(in.Pod, in.State, in.Cached, ph, fs)
		}
		PodReadyToStartContainers(in.Pod, in.Cached, in.State, fs)
		HasAnyRegularContainerStarted(spec, statuses)
		OwnedByKubelet(v1.PodConditionType("x"), fs)
	})
}
