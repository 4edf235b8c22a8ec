package termination

import (
	"encoding/json"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// fuzzInput is everything the exported functions read, decoded from
// arbitrary JSON.
type fuzzInput struct {
	Pod       *v1.Pod                  `json:"pod"`
	State     *runtimestate.Pod        `json:"state"`
	Features  features.Set             `json:"features"`
	Override  *int64                   `json:"override"`
	PreStop   map[string]time.Duration `json:"preStop"`
	ExitAfter map[string]time.Duration `json:"exitAfter"`
	Reason    vocab.KillReason         `json:"reason"`
	Previous  int64                    `json:"previous"`
	Running   []string                 `json:"running"`
	Worker    *WorkerState             `json:"worker"`
	Update    Update                   `json:"update"`
	Result    SyncResult               `json:"result"`
	Flag      bool                     `json:"flag"`
	Turn      time.Duration            `json:"turn"`
}

// FuzzTermination feeds every exported function JSON-decoded input: none may
// panic, and Plan's timeline must keep its invariants.
func FuzzTermination(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"pod":{"spec":{"terminationGracePeriodSeconds":20,"initContainers":[{"name":"s","restartPolicy":"Always","lifecycle":{"preStop":{"exec":{"command":["x"]}}}}],"containers":[{"name":"a"}]}},"state":{"sandboxes":[{"id":"s1","ready":true}],"containers":[{"id":"1","name":"a","state":"running"},{"id":"2","name":"s","state":"running"},{"id":"3","name":"ghost","state":"running"}]},"preStop":{"s":10000000000},"exitAfter":{"a":-5}}`))
	f.Add([]byte(`{"pod":{"metadata":{"deletionGracePeriodSeconds":-4},"spec":{"initContainers":[{"name":"a","restartPolicy":"Always"}],"containers":[{"name":"a"}]}},"running":["a","a"],"override":-9223372036854775808}`))
	f.Add([]byte(`{"update":{"Type":"kill","RuntimeOnly":true},"worker":{"GracePeriod":-1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in fuzzInput
		if err := json.Unmarshal(data, &in); err != nil {
			return
		}
		fs := in.Features
		var c *v1.Container
		if in.Pod != nil && len(in.Pod.Spec.Containers) > 0 {
			c = &in.Pod.Spec.Containers[0]
		}
		ContainerGracePeriod(in.Pod, c, in.Reason, fs)
		StopTimeout(in.Previous, StopOptions{Features: fs, GracePeriodOverride: in.Override, HasPreStop: in.Flag, PreStop: in.Turn, Ordered: in.Flag, TurnAfter: in.Turn})
		EffectiveGracePeriod(in.Previous, in.Pod, in.Override, fs)
		EvictionGracePeriod(in.Pod, in.Flag, in.Previous, fs)
		_ = CanBeDeleted(in.Pod, in.State, &WorkerState{Finished: in.Flag}).String()
		_ = CanBeDeleted(in.Pod, in.State, in.Worker).String()
		_ = NewOrdering(in.Pod, in.Running, fs).String()
		tl := Plan(in.Pod, in.State, Options{Features: fs, GracePeriodOverride: in.Override, PreStop: in.PreStop, ExitAfter: in.ExitAfter})
		_ = tl.String()
		for _, k := range tl.Containers {
			if k.Error == "" && (k.Stop.Timeout < MinimumGracePeriodSeconds || k.Exit < k.StopCall || k.Exit > k.Deadline() || k.Exit > tl.SandboxStop) {
				t.Fatalf("broken timeline:\n%s", tl)
			}
		}
		r := UpdatePod(in.Worker, in.Update, time.Unix(0, 0), fs)
		_ = r.State.String()
		_ = Complete(r.State, in.Result, in.Flag, time.Unix(1, 0), fs)
		_ = AcknowledgeTerminating(in.Worker)
		_ = Query(in.Worker, in.Flag, fs)
	})
}
