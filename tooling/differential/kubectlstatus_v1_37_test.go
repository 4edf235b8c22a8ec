//go:build kubeletlogic_overlay

package differential

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	api "k8s.io/kubernetes/pkg/apis/core"
	apiv1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/printers"
	printersinternal "k8s.io/kubernetes/pkg/printers/internalversion"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// printerStatus runs the v1.37.2 server-side pod printer on pod (converted
// to the internal type, as the API server holds it) and returns the STATUS
// cell.
func printerStatus(t testing.TB, tg *printers.HumanReadableGenerator, pod *v1.Pod) string {
	var in api.Pod
	if err := apiv1.Convert_v1_Pod_To_core_Pod(pod.DeepCopy(), &in, nil); err != nil {
		t.Fatalf("convert: %v", err)
	}
	table, err := tg.GenerateTable(&in, printers.GenerateOptions{})
	if err != nil {
		t.Fatalf("print: %v", err)
	}
	if len(table.ColumnDefinitions) < 3 || table.ColumnDefinitions[2].Name != "Status" || len(table.Rows) != 1 {
		t.Fatalf("unexpected table shape: %+v", table.ColumnDefinitions)
	}
	s, ok := table.Rows[0].Cells[2].(string)
	if !ok {
		t.Fatalf("STATUS cell is %T", table.Rows[0].Cells[2])
	}
	return s
}

// kubectlPod draws a pod with a status: half the time an arbitrary status
// (podgen.PodWithStatus), half the time container statuses the kubelet
// would generate (apistatus.Compute on a podgen.StatusCase, which the
// apistatus differential test checks against the kubelet) with a drawn
// phase, reason and conditions.
func kubectlPod(t *rapid.T, f features.Set) *v1.Pod {
	if rapid.Bool().Draw(t, "arbitrary status") {
		return podgen.PodWithStatus(podgen.PodOptions{}).Draw(t, "pod")
	}
	c := podgen.StatusCases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")
	fails := map[string]vocab.StartFailure{}
	for n, sf := range c.StartFailures {
		fails[n] = sf
	}
	s := apistatus.Compute(c.Pod, c.State, apistatus.Options{Features: f, Cached: c.Previous, StartFailures: fails})
	shape := podgen.PodWithStatus(podgen.PodOptions{}).Draw(t, "status shape")
	pod := c.Pod
	pod.Status = shape.Status
	pod.Status.InitContainerStatuses = s.InitContainerStatuses
	pod.Status.ContainerStatuses = s.ContainerStatuses
	pod.Status.EphemeralContainerStatuses = s.EphemeralContainerStatuses
	return pod
}

const kubectlCases = 50000

func TestDifferentialKubectlstatus(t *testing.T) {
	tg := printers.NewTableGenerator().With(printersinternal.AddHandlers)
	// The printer reads no feature gate; the cases draw gates all the same,
	// for the container statuses apistatus.Compute generates.
	check(t, kubectlCases, []string{"printPod"}, func(rt *rapid.T, f features.Set) {
		pod := kubectlPod(rt, f)
		want := printerStatus(t, tg, pod)
		if got := kubectlstatus.Compute(pod); got != want {
			rt.Fatalf("STATUS %q, printer says %q\nstatus: %+v", got, want, pod.Status)
		}
		compared(rt, "printPod")
	})
}
