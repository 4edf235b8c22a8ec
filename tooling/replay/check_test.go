package replay

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/podstatus"
)

// TestCheckCaptured: podstatus.Check finds nothing to object to in any
// status a real kubelet v1.37.2 wrote: the one its read-only port served at
// each observation, and the API server's copy where there was one.
func TestCheckCaptured(t *testing.T) {
	for _, f := range loadFixtures(t) {
		t.Run(f.Scenario, func(t *testing.T) {
			checked, skipped := 0, 0
			hs := f.harnessStatuses()
			for i, o := range f.Observations {
				// The pod as the kubelet saw it: the fixture's, with the API
				// server's deletion metadata where the step has an API
				// object. The API server raises metadata.generation by one
				// when it sets deletionTimestamp (BeforeDelete in
				// k8s.io/apiserver/pkg/registry/rest/delete.go); the
				// fixture's pod holds the generation before that (a step's
				// own pod, o.Pod, holds the one the kubelet saw).
				base := f.podAt(o).DeepCopy()
				if o.API != nil && !o.API.Gone && o.API.DeletionTimestamp != nil {
					base.DeletionTimestamp, base.DeletionGracePeriodSeconds = o.API.DeletionTimestamp, o.API.DeletionGracePeriodSeconds
					base.Finalizers = o.API.Finalizers
					if o.Pod == nil && base.Generation > 0 {
						base.Generation++
					}
				}
				var statuses []*v1.Pod
				if o.Status != nil {
					pod := base.DeepCopy()
					pod.Status = *o.Status.DeepCopy()
					statuses = append(statuses, pod)
				}
				if o.API != nil && !o.API.Gone {
					pod := base.DeepCopy()
					pod.Status = *o.API.Status.DeepCopy()
					statuses = append(statuses, pod)
				}
				for k, pod := range statuses {
					if !podstatus.KubeletWrote(&pod.Status) {
						continue
					}
					if harnessWrote(hs, &pod.Status) || f.staleGeneration(&pod.Status, pod.Generation) {
						skipped++
						continue
					}
					terminal := pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
					for _, m := range podstatus.Check(pod, podstatus.RecomputeOptions{PodIsTerminal: terminal}) {
						src := "read-only port"
						if k == 1 || o.Status == nil {
							src = "API server"
						}
						f.errorf(t, "step %d (%s, %s): %s", i, o.Time.Format("15:04:05.000"), src, m)
					}
					checked++
				}
			}
			t.Logf("%d statuses checked", checked)
			if skipped > 0 {
				t.Logf("%d statuses not generated for the pod they sit on, not checked: a status with the harness's condition PATCH in it, or written for the generation before the harness's resize or DELETE", skipped)
			}
			if checked == 0 {
				t.Error("no status checked")
			}
		})
	}
}
