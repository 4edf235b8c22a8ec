package podstatus_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
)

// Recompute on a status the kubelet would write gives back that status's
// phase, conditions and the same STATUS, whenever its estimates hold: the
// regular containers with an instance are those of the active sandbox, and
// no sidecar's Started changed in the probe step (getPhase reads it before).
func TestRecomputeRoundTrip(t *testing.T) {
	checked := 0
	rapid.Check(t, func(rt *rapid.T) {
		c := podgen.Cases(podgen.CaseOptions{}).Draw(rt, "case")
		want := podstatus.Compute(c.Pod, c.State, podstatus.Options{Features: c.Features, Probes: c.Probes})
		if want.GetPhase.Phase != want.Status.Phase {
			return // a rule after getPhase decided; Recompute reads getPhase's inputs only
		}
		pod := c.Pod.DeepCopy()
		pod.Status = *want.Status.DeepCopy()
		got := podstatus.Recompute(pod, podstatus.RecomputeOptions{Features: c.Features})
		if got.PodHasInitialized != phase.HasAnyActiveRegularContainerStarted(c.Pod, c.State) {
			return // the estimate from the API status does not hold here
		}
		// getPhase saw the sidecars' Started before the probe step.
		again := phase.Compute(pod, &pod.Status, phase.Options{Features: c.Features, PodHasInitialized: got.PodHasInitialized})
		if again.Phase != want.GetPhase.Phase {
			return
		}
		if got.Phase.Phase != want.Status.Phase {
			rt.Fatalf("phase %s, the kubelet wrote %s (%s)", got.Phase, want.Status.Phase, want.GetPhase)
		}
		if len(got.Conditions) != len(want.Status.Conditions) {
			rt.Fatalf("conditions %v, the kubelet wrote %v", got.Conditions, want.Status.Conditions)
		}
		for i := range got.Conditions {
			g, w := got.Conditions[i], want.Status.Conditions[i]
			if g.Type != w.Type || g.Status != w.Status || g.Reason != w.Reason || g.Message != w.Message {
				rt.Fatalf("condition %d: %s=%s %s %q, the kubelet wrote %s=%s %s %q", i, g.Type, g.Status, g.Reason, g.Message, w.Type, w.Status, w.Reason, w.Message)
			}
		}
		if got.KubectlStatus == "" {
			rt.Fatal("no STATUS")
		}
		checked++
	})
	if checked < 20 {
		t.Errorf("only %d cases compared", checked)
	}
}
