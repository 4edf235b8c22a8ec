package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/termination"
	v1 "k8s.io/api/core/v1"
)

// SyncTerminatedPod's WaitForUnmount checks at once, then every 300 ms
// (volume_manager.go podAttachAndMountRetryInterval): a wait for volumes
// unmounted d later lasts d rounded up to a multiple of 300 ms, a whole
// multiple staying as it is.
func TestWaitForUnmountRoundsUpToPolls(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	for _, c := range []struct{ d, want time.Duration }{
		{time.Millisecond, 300 * time.Millisecond},
		{300 * time.Millisecond, 300 * time.Millisecond},
		{300*time.Millisecond - time.Nanosecond, 300 * time.Millisecond},
		{300*time.Millisecond + time.Nanosecond, 600 * time.Millisecond},
		{600 * time.Millisecond, 600 * time.Millisecond},
	} {
		w := &termination.WorkerState{TerminatingAt: t0.Add(-10 * time.Second), TerminatedAt: t0.Add(-time.Second), Deleted: true, GracePeriod: 30}
		out := Sync(SyncInput{Pod: pod, Now: t0, Memory: Memory{Worker: w}, VolumesUnmounted: t0.Add(c.d)})
		want := "SyncTerminatedPod: waited " + c.want.String() + " for the volumes to be unmounted"
		found := false
		for _, m := range out.Messages {
			found = found || strings.HasPrefix(m, want)
		}
		if !found {
			t.Errorf("volumes unmounted %s after the sync: messages %q, want one saying %q", c.d, out.Messages, want)
		}
	}
}
