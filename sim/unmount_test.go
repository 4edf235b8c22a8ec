package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/sim"
	v1 "k8s.io/api/core/v1"
)

// TestSyncTerminatedWaitsForUnmount: SyncTerminatedPod waits for the
// volume manager to unmount the pod's volumes before TerminatePod, so the
// kubelet deletes the API object only then (kubelet.go SyncTerminatedPod,
// volume_manager.go WaitForUnmount). The volume manager unmounts them
// within two of its 100 ms loops after SyncTerminatingPod completed;
// WaitForUnmount checks at once, then every 300 ms. So, over many seeds
// (relist, populator and reconciler phases drawn from each), the delete
// comes 0 or 300 ms after SyncTerminatedPod starts for a pod with a
// mounted emptyDir, and some seeds wait (those whose relist came soon
// after SyncTerminatingPod). A pod whose volume no container mounts, and
// a pod with none, never wait.
func TestSyncTerminatedWaitsForUnmount(t *testing.T) {
	del := int64(5)
	withVolume := func(mounted bool) *v1.Pod {
		spec := v1.PodSpec{
			Containers: []v1.Container{{Name: "app", Image: "a"}},
			Volumes:    []v1.Volume{{Name: "scratch", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}},
		}
		if mounted {
			spec.Containers[0].VolumeMounts = []v1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
		}
		return apiPod("vol", spec)
	}
	cases := []struct {
		name string
		pod  *v1.Pod
		wait bool
	}{
		{"mounted emptyDir", withVolume(true), true},
		{"volume no container mounts", withVolume(false), false},
		{"no volume", apiPod("vol", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}}), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			waited := 0
			for seed := uint64(1); seed <= 100; seed++ {
				tl := run(t, sim.Config{Seed: seed, For: sec(30)}, sim.PodInput{Pod: c.pod, Actions: []sim.Action{{At: sec(5), Delete: &del}}})
				var terminatedSync, gone time.Duration = -1, -1
				msg := false
				for _, e := range tl.Entries {
					switch {
					case e.Kind == sim.KindSync && e.Work == "terminated" && terminatedSync < 0:
						terminatedSync = e.At
					case e.Kind == sim.KindSync && strings.Contains(e.Message, "waited") && strings.Contains(e.Message, "unmounted"):
						msg = true
					case e.Kind == sim.KindAPI && e.API == sim.APIDeleted:
						gone = e.At
					}
				}
				if terminatedSync < 0 || gone < 0 {
					t.Fatalf("seed %d: SyncTerminatedPod at %v, deleted at %v\n%s", seed, terminatedSync, gone, tl.Events())
				}
				d := gone - terminatedSync
				switch {
				case d == 0 && !msg:
				case d == 300*time.Millisecond && msg && c.wait:
					waited++
				default:
					t.Fatalf("seed %d: deleted %s after SyncTerminatedPod started (wait message %v): want 0, or 300 ms for a mounted volume\n%s", seed, d, msg, tl.Events())
				}
			}
			if c.wait && waited == 0 {
				t.Errorf("no seed of 100 waited for the unmount: a relist within 200 ms of SyncTerminatingPod's end should find the volumes still mounted")
			}
			t.Logf("%d of 100 seeds waited 300 ms", waited)
		})
	}
}
