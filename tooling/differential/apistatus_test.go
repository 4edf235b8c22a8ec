//go:build kubeletlogic_overlay

package differential

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/kubernetes/pkg/kubelet"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// apistatusCases: cases per run, each under its own random gate set.
const apistatusCases = 50000

// quantityEqual compares quantities by value and by how they print, so that
// a copied quantity equals its original and 1000m does not equal 1.
var quantityEqual = cmp.Comparer(func(a, b resource.Quantity) bool {
	return a.Cmp(b) == 0 && a.String() == b.String()
})

func TestDifferentialApistatus(t *testing.T) {
	check(t, apistatusCases, []string{"convertToAPIContainerStatuses"}, func(rt *rapid.T, f features.Set) {
		c := podgen.StatusCases(podgen.CaseOptions{Gates: &f}).Draw(rt, "case")
		ours := map[string]vocab.StartFailure{}
		theirs := map[string]kubelet.KLApistatusStartFailure{}
		for n, sf := range c.StartFailures {
			ours[n] = sf
			theirs[n] = kubelet.KLApistatusStartFailure(sf)
		}
		old := c.Pod.Status
		if c.Previous != nil {
			old = *c.Previous
		}
		wantInit, want, wantEph, wantRestarting := kubelet.KLApistatusConvert(c.Pod.DeepCopy(), kubeletconv.PodStatus(c.State), *old.DeepCopy(), theirs)
		got := apistatus.Compute(c.Pod, c.State, apistatus.Options{Features: f, Cached: c.Previous, StartFailures: ours, RuntimeType: kubeletconv.RuntimeType})
		wantAll := apistatus.Statuses{InitContainerStatuses: wantInit, ContainerStatuses: want, EphemeralContainerStatuses: wantEph, RestartingAllContainers: wantRestarting}
		if d := cmp.Diff(wantAll, got, quantityEqual); d != "" {
			rt.Fatalf("statuses differ from the kubelet's (-kubelet +ours):\n%s\nkubelet:\n%s\nours:\n%s", d, wantAll, got)
		}
		compared(rt, "convertToAPIContainerStatuses")
	})
}
