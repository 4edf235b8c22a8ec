package sim

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzSimulate feeds arbitrary JSON as a pod, its script and its actions
// (and a kubelet memory to Sync and Next): no input makes Simulate, Sync or
// Next panic.
func FuzzSimulate(f *testing.F) {
	f.Add([]byte(`{"pod":{"metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"i"}]}},"script":{"containers":{"c":{"runs":[{"exitAfter":"1s","exitCode":1}]}}},"actions":[{"at":"30s","delete":-1}]}`), uint8(3))
	f.Add([]byte(`{"pod":{"metadata":{"name":"a","annotations":{"kubernetes.io/config.source":"api"},"finalizers":["x"]},"spec":{"restartPolicy":"Never","initContainers":[{"name":"s","image":"i","restartPolicy":"Always","startupProbe":{"exec":{"command":["x"]},"periodSeconds":1}}],"containers":[{"name":"c","image":"i","livenessProbe":{"exec":{"command":["x"]}}}]}},"actions":[{"at":"5s","killSandbox":true},{"at":"6s","killContainer":"c"},{"at":"7s","delete":0},{"at":"8s","removeFinalizers":true}]}`), uint8(200))
	f.Add([]byte(`{"pod":{"metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"i"}],"activeDeadlineSeconds":3}},"actions":[{"at":"1s","addEphemeral":{"name":"d","image":"i"}}]}`), uint8(60))
	f.Fuzz(func(t *testing.T, data []byte, minutes uint8) {
		var in PodInput
		if err := json.Unmarshal(data, &in); err != nil || in.Pod == nil {
			return
		}
		cfg := Config{Seed: uint64(minutes), For: Duration(time.Duration(minutes%10+1) * time.Minute), Parallelism: 1}
		tl, err := Simulate(cfg, []PodInput{in})
		if err != nil {
			return
		}
		_ = tl.String()
		_ = tl.Events()
		var mem Memory
		_ = json.Unmarshal(data, &mem)
		_ = Sync(SyncInput{Pod: in.Pod, Now: DefaultStart, Memory: mem})
		_ = Next(in.Pod, nil, NextOptions{}).String()
		_ = Next(in.Pod, nil, NextOptions{Memory: &mem, Now: DefaultStart}).String()
	})
}
