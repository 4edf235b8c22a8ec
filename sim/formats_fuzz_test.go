package sim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// FuzzReadScript: no text makes ReadScript, Line, Warnings, PodScript or
// ScriptAction.Action panic, and every error it returns is a *ScriptError.
func FuzzReadScript(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "manifests", "scripts", "*.yaml"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, "actions[0].at")
		}
	}
	f.Add([]byte("containers:\n  proxy:\n    runs:\n    - exitAfter: 30\n      exitCode: 1\nactions:\n- {at: 5s, resize: {app: {requests: {cpu: 1}}}}\n"), "containers.proxy.runs[0].exitCode")
	f.Add([]byte(`{"kind":"Simulation","containers":{"app":{"runs":[{"readiness":[{"at":1,"result":"Failure"}]}]}}}`), "[")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		pods := scriptPods()
		s, err := ReadScript(data, pods)
		if err != nil {
			if _, ok := err.(*ScriptError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			_ = err.Error()
			return
		}
		_ = s.Line(path)
		_ = s.Warnings()
		for _, p := range pods {
			_ = s.PodScript(p)
		}
		for _, a := range s.Actions {
			_ = a.Action().String()
		}
	})
}

// FuzzReadSimulation: no text makes ReadSimulation panic, nor Verify on
// what it accepts.
func FuzzReadSimulation(f *testing.F) {
	pods := []PodInput{{Pod: scriptPods()[1]}}
	cfg := Config{For: Duration(30e9)}
	cfg.Kubelet.Features = features.V1_35()
	tl, err := Simulate(cfg, pods)
	if err != nil {
		f.Fatal(err)
	}
	b, _ := json.Marshal(NewSimulation(cfg, pods, tl))
	f.Add(b)
	f.Add([]byte(`{"apiVersion":"kubeletlogic/v1alpha1","kind":"Simulation","kubeletVersion":"1.36","config":{"kubelet":{"features":"v1.36.3"}},"pods":[{"pod":{"metadata":{"name":"a"}}}],"timeline":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadSimulation(data)
		if err != nil {
			return
		}
		_ = d.Verify()
	})
}
