package restart

import (
	"encoding/json"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// FuzzDecisions feeds arbitrary pods, runtime states and previous statuses
// (decoded from JSON, so any field may be missing, empty or nonsensical)
// to every exported function of the package: none may panic.
func FuzzDecisions(f *testing.F) {
	f.Add([]byte(`{"pod":{"spec":{"restartPolicy":"Sometimes","containers":[{"name":"a","restartPolicy":"Never","restartPolicyRules":[{"action":"RestartAllContainers","exitCodes":{"operator":"In","values":[42]}}]}]}},"state":{"containers":[{"id":"c","name":"a","state":"exited","exitCode":42}]}}`), int32(42), uint8(0))
	f.Add([]byte(`{"pod":{"spec":{"initContainers":[{"name":"i","restartPolicy":"Always"}],"containers":[{"name":"i"}]}},"state":{"containers":[{"id":"c","name":"zzz","state":"bogus"}]}}`), int32(-1), uint8(255))
	f.Add([]byte(`{}`), int32(0), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, code int32, gates uint8) {
		var in struct {
			Pod   *v1.Pod           `json:"pod"`
			State *runtimestate.Pod `json:"state"`
			Prev  *v1.PodStatus     `json:"prev"`
			Entry BackOffEntry      `json:"entry"`
			Max   *time.Duration    `json:"max"`
			Phase v1.PodPhase       `json:"phase"`
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
		var containers []*v1.Container
		names := []string{"a", "i", "zzz"}
		if in.Pod != nil {
			for i := range in.Pod.Spec.InitContainers {
				containers = append(containers, &in.Pod.Spec.InitContainers[i])
			}
			for i := range in.Pod.Spec.Containers {
				containers = append(containers, &in.Pod.Spec.Containers[i])
			}
			for _, e := range in.Pod.Spec.EphemeralContainers {
				names = append(names, e.Name)
			}
		}
		containers = append(containers, nil)
		var spec *v1.PodSpec
		if in.Pod != nil {
			spec = &in.Pod.Spec
		}
		cfg, _ := NewBackOffConfig(fs, BackOffSettings{MaxContainerRestartPeriod: in.Max})
		now := time.Unix(int64(code), 0)
		for _, c := range containers {
			ShouldContainerBeRestarted(c, in.Pod, in.State, fs)
			ContainerShouldRestart(c, spec, code, fs)
			MatchRule(c, code)
			IsContainerRestartable(spec, c)
			BackOffKey(in.Pod, c)
			d := cfg.Decide(in.Pod, c, in.State, in.Entry, now)
			if !d.Start && d.Reason != "CrashLoopBackOff" {
				t.Fatalf("refusal without reason: %+v", d)
			}
			if c != nil {
				names = append(names, c.Name)
			}
		}
		for _, n := range names {
			RestartsAfterExit(in.Pod, n, code, "OOMKilled", fs)
			EffectivePolicy(in.Pod, n, fs)
			_, _ = HistoryFrom(in.State, n)
		}
		AllContainersCouldRestart(spec)
		ShouldAllContainersRestart(in.Pod, in.State, in.Prev)
		AllContainersRestartCleanedUp(in.Pod, in.State)
		RestartingAllContainers(in.Pod, in.State, in.Prev, in.Phase, fs)
		for _, c := range in.State.Instances("a") {
			IsInitContainerFailed(c)
		}
		cfg.Replay([]Restart{{FinishedAt: now, At: now}, {FinishedAt: now.Add(-time.Hour), At: now.Add(-time.Hour)}}, now)
		in.Entry.GC(now)
	})
}
