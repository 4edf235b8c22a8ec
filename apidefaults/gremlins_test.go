package apidefaults_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
)

// TestConfigMapVolumeDefaultMode kills pod.go:245:55 (gremlins LIVED): a
// configMap volume without defaultMode gets 0644
// (SetDefaults_ConfigMapVolumeSource); one with a mode keeps it.
func TestConfigMapVolumeDefaultMode(t *testing.T) {
	mode := int32(0o400)
	pod := &v1.Pod{Spec: v1.PodSpec{Volumes: []v1.Volume{
		{Name: "a", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}},
		{Name: "b", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{DefaultMode: &mode}}},
	}}}
	apidefaults.Pod(pod)
	for i, want := range []int32{v1.ConfigMapVolumeSourceDefaultMode, 0o400} {
		if got := pod.Spec.Volumes[i].ConfigMap.DefaultMode; got == nil || *got != want {
			t.Errorf("volume %d: defaultMode %v, want %o", i, got, want)
		}
	}
}
