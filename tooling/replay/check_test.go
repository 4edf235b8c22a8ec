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
			checked, skipped, held := 0, 0, 0
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
					ms := podstatus.Check(pod, podstatus.RecomputeOptions{PodIsTerminal: terminal})
					if heldPhase(f, o, ms) {
						held++
						ms = withoutPhase(ms)
					}
					for _, m := range ms {
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
			if held > 0 {
				t.Logf("%d statuses with a terminal phase held back (phase not compared): the API pod's sandbox was still up", held)
			}
			if checked == 0 {
				t.Error("no status checked")
			}
		})
	}
}

// heldPhase reports whether ms says the phase should be terminal where an
// API pod's status still shows the phase before, while the runtime at o
// still holds a ready sandbox: status_manager.go mergePodStatus holds a
// terminal phase back (with its reason and message) while the pod worker
// says the pod could have running containers (its SyncTerminatingPod has
// not finished: the sandbox is stopped at its end). Seen in
// api-delete-succeeded: phase Running with the app terminated (exit 0,
// restartPolicy Never) for 0.8 s, until StopPodSandbox. A static pod's
// status is not merged that way (the kubelet's read-only port serves the
// status manager's own).
func heldPhase(f *fixture, o observation, ms []podstatus.Mismatch) bool {
	if o.API == nil || o.Runtime == nil {
		return false
	}
	up := false
	for _, sb := range o.Runtime.Sandboxes {
		up = up || sb.Ready
	}
	if !up {
		return false
	}
	for _, m := range ms {
		if m.Field == "status.phase" && (m.Kubelet == `"Succeeded"` || m.Kubelet == `"Failed"`) {
			return true
		}
	}
	return false
}

// withoutPhase drops the phase's mismatches (phase, reason, message).
func withoutPhase(ms []podstatus.Mismatch) []podstatus.Mismatch {
	var out []podstatus.Mismatch
	for _, m := range ms {
		if m.Field != "status.phase" && m.Field != "status.reason" && m.Field != "status.message" {
			out = append(out, m)
		}
	}
	return out
}
