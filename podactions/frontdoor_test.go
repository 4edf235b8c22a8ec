package podactions_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Footguns of issue 10, item 1: a runtime state written by hand carries no
// hash. It must read as "created from the current spec", not "definition
// changed"; the faithful reading of a real report without the annotation
// stays available through HashMissing.
func TestHandWrittenStateWithoutHash(t *testing.T) {
	st, err := runtimestate.FromYAML([]byte(`
sandboxes:
- {id: s1, ready: true, ip: 10.244.1.6}
containers:
- {id: c2, name: app, sandboxID: s1, state: running, restartCount: 1}
- {id: c1, name: app, sandboxID: s1, state: exited, exitCode: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	pod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways, Containers: []v1.Container{{Name: "app", Image: "nginx"}}}}
	if acts := podactions.Compute(pod, st, podactions.Options{Features: features.V1_37()}); len(acts.ContainersToKill) != 0 || len(acts.ContainersToStart) != 0 {
		t.Errorf("hand-written state without hashes: %v, want nothing to do", acts)
	}
	st.Containers[0].HashMissing = true
	acts := podactions.Compute(pod, st, podactions.Options{Features: features.V1_37()})
	if len(acts.ContainersToKill) != 1 || acts.ContainersToKill[0].Cause != podactions.CauseDefinitionChanged {
		t.Errorf("hashMissing: %v, want the instance killed for a changed definition", acts)
	}
	st.Containers[0].Hash = 42
	if err := st.Validate(); err == nil {
		t.Error("hashMissing with a hash accepted by Validate")
	}
}
