package sim

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestHasMountedVolumes: a volume counts when any kind of container
// mounts it or takes it as a device (util.GetPodVolumeNames visits init,
// regular and ephemeral containers); a volume only declared does not.
func TestHasMountedVolumes(t *testing.T) {
	vols := []v1.Volume{{Name: "v"}}
	mount := []v1.VolumeMount{{Name: "v", MountPath: "/v"}}
	other := []v1.VolumeMount{{Name: "w", MountPath: "/w"}}
	device := []v1.VolumeDevice{{Name: "v", DevicePath: "/dev/v"}}
	cases := []struct {
		name string
		spec v1.PodSpec
		want bool
	}{
		{"no volumes", v1.PodSpec{Containers: []v1.Container{{Name: "a", VolumeMounts: mount}}}, false},
		{"declared only", v1.PodSpec{Volumes: vols, Containers: []v1.Container{{Name: "a"}}}, false},
		{"another name", v1.PodSpec{Volumes: vols, Containers: []v1.Container{{Name: "a", VolumeMounts: other}}}, false},
		{"regular mount", v1.PodSpec{Volumes: vols, Containers: []v1.Container{{Name: "a", VolumeMounts: mount}}}, true},
		{"regular device", v1.PodSpec{Volumes: vols, Containers: []v1.Container{{Name: "a", VolumeDevices: device}}}, true},
		{"init mount", v1.PodSpec{Volumes: vols, InitContainers: []v1.Container{{Name: "i", VolumeMounts: mount}}, Containers: []v1.Container{{Name: "a"}}}, true},
		{"ephemeral mount", v1.PodSpec{Volumes: vols, Containers: []v1.Container{{Name: "a"}},
			EphemeralContainers: []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "e", VolumeMounts: mount}}}}, true},
	}
	for _, c := range cases {
		if got := hasMountedVolumes(&c.spec); got != c.want {
			t.Errorf("%s: hasMountedVolumes = %v, want %v", c.name, got, c.want)
		}
	}
}
