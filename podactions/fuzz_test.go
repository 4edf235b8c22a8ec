package podactions_test

import (
	"encoding/json"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// fuzzInput is what FuzzCompute decodes from arbitrary JSON.
type fuzzInput struct {
	Pod     *v1.Pod            `json:"pod"`
	State   *runtimestate.Pod  `json:"state"`
	Gates   *features.Set      `json:"gates"`
	Options podactions.Options `json:"options"`
}

// FuzzCompute feeds arbitrary JSON-decoded pods, runtime states, gate sets
// and options to every exported function of the package: none may panic,
// and Compute must not change its inputs.
func FuzzCompute(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"pod":{}}`,
		`{"pod":{"spec":{"restartPolicy":"Never","containers":[{"name":"app-0","image":"x"}]}},"state":{"sandboxes":[{"id":"s1","ready":false,"attempt":3}],"containers":[{"id":"c1","name":"app-0","sandboxID":"s1","state":"exited","exitCode":1}]}}`,
		`{"pod":{"spec":{"hostNetwork":true,"initContainers":[{"name":"i","restartPolicy":"Always","startupProbe":{},"livenessProbe":{}},{"name":"j","restartPolicy":"OnFailure"}],"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}},"resizePolicy":[{"resourceName":"cpu","restartPolicy":"RestartContainer"}]}],"ephemeralContainers":[{"name":"d"}],"volumes":[{"name":"v","emptyDir":{"medium":"Memory","sizeLimit":"1Gi"}}],"resources":{"limits":{"memory":"1Gi"}}}},"state":{"sandboxes":[{"id":"s1","ready":true,"networkMode":"NODE"},{"id":"s0","ready":true}],"containers":[{"id":"c3","name":"a","sandboxID":"s1","state":"running"},{"id":"c2","name":"i","sandboxID":"s1","state":"running"},{"id":"c1","name":"j","sandboxID":"s1","state":"weird"}]},"gates":{"InPlacePodVerticalScaling":true,"InPlacePodLevelResourcesVerticalScaling":true,"InPlacePodVerticalScalingMemoryBackedVolumes":true,"ContainerRestartRules":true,"RestartAllContainersOnContainerExits":true},"options":{"probes":{"c2":{"startup":"Success","liveness":"Failure"},"c3":{"liveness":"odd"}},"actuated":{"containers":{"a":{"limits":{"cpu":"2"}}},"pod":{"limits":{"memory":"2Gi"}},"emptyDirLimits":{"v":"2Gi"}}}}`,
		`{"pod":{"spec":{"initContainers":[{"name":"i"}],"containers":[{"name":"a","restartPolicy":"Never","restartPolicyRules":[{"action":"RestartAllContainers","exitCodes":{"operator":"In","values":[42]}}]}]}},"state":{"sandboxes":[{"id":"s1","ready":true,"ip":"1.2.3.4"}],"containers":[{"id":"c1","name":"a","sandboxID":"s1","state":"exited","exitCode":42},{"id":"c1","name":"i","sandboxID":"s1","state":"running"}]},"options":{"restartAllContainers":true}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in fuzzInput
		if err := json.Unmarshal(data, &in); err != nil {
			return
		}
		gates := features.V1_37()
		if in.Gates != nil {
			gates = *in.Gates
		}
		var podBefore *v1.Pod
		if in.Pod != nil {
			podBefore = in.Pod.DeepCopy()
		}
		stBefore := in.State.DeepCopy()

		in.Options.Features = gates
		a := podactions.Compute(in.Pod, in.State, in.Options)
		_ = a.String()
		_ = runtimestate.SandboxChanged(in.Pod, in.State)

		if in.Pod != nil && !equalJSON(t, podBefore, in.Pod) {
			t.Fatalf("Compute changed the pod")
		}
		if !equalJSON(t, stBefore, in.State) {
			t.Fatalf("Compute changed the runtime state")
		}
	})
}

func equalJSON(t *testing.T, a, b any) bool {
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}
