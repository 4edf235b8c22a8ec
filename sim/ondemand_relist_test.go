package sim_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// From v1.36 the kubelet relists a pod right after a SyncPod that acted on
// the runtime (SyncPod's postSync, RequestPodRelist, kubelet.go:2270 in
// v1.36.3, gate PLEGOnDemandRelist), so the sync that sees the started
// container, and the status Running, follow StartContainer at once. v1.35.4
// has no such relist: the pod's next sync waits for the periodic relist
// (every second after the previous one ended), so Running is written only
// from the first relist at or after 1 s.
func TestOnDemandRelistFromV136(t *testing.T) {
	for _, v := range features.Versions() {
		f, err := features.ForVersion(v)
		if err != nil {
			t.Fatal(err)
		}
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "nginx"}}}}
		tl := run(t, sim.Config{Kubelet: sim.Kubelet{Features: f}, Seed: 1, For: sec(10)}, sim.PodInput{Pod: pod})
		start := calls(tl, "StartContainer", "app")
		if len(start) != 1 {
			t.Fatalf("%s: StartContainer of app %v", v, start)
		}
		var running time.Duration = -1
		for _, e := range tl.Entries {
			if e.Kind == sim.KindAPI && e.Status != nil && e.Status.Status.Phase == v1.PodRunning {
				running = e.At
				break
			}
		}
		if running < 0 {
			t.Fatalf("%s: no API status with phase Running\n%s", v, tl.Events())
		}
		if v.Minor() >= 36 {
			if running > start[0].Done+100*time.Millisecond {
				t.Errorf("%s: Running written at %s, want right after StartContainer returned at %s (on-demand relist)\n%s", v, running, start[0].Done, tl.Events())
			}
		} else if running < time.Second {
			t.Errorf("%s: Running written at %s, before the first periodic relist (1 s): v1.35 has no on-demand relist\n%s", v, running, tl.Events())
		}
	}
}
