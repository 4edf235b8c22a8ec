//go:build kubeletlogic_overlay

package differential

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	api "k8s.io/kubernetes/pkg/apis/core"
	apiv1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/printers"
	printersinternal "k8s.io/kubernetes/pkg/printers/internalversion"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/podgen"
)

// TestDifferentialKubectlColumns compares the whole `kubectl get pods` row
// (NAME, READY, STATUS, RESTARTS, AGE) of kubectlstatus.Columns with the
// v1.37.2 server-side printer on arbitrary pods with a status. The printer
// reads the wall clock (translateTimestampSince); the case takes now just
// before it and puts the drawn last-restart and creation times whole
// seconds before now, so that the printed ages agree to the second; when a
// second begins before the printer reads its clock, the row at that second
// is the one compared.
func TestDifferentialKubectlColumns(t *testing.T) {
	tg := printers.NewTableGenerator().With(printersinternal.AddHandlers)
	checkDefaults(t, kubectlCases, []string{"printPod"}, func(rt *rapid.T, _ features.Set) {
		pod := podgen.PodWithStatus(podgen.PodOptions{}).Draw(rt, "pod")
		now := time.Now().Truncate(time.Second)
		ago := func(label string) metav1.Time {
			return metav1.NewTime(now.Add(-time.Duration(rapid.IntRange(0, 100000).Draw(rt, label)) * time.Second))
		}
		for _, l := range [][]v1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
			for i := range l {
				if lt := l[i].LastTerminationState.Terminated; lt != nil {
					lt.FinishedAt = ago("finished")
				}
			}
		}
		pod.CreationTimestamp = ago("created")
		var in api.Pod
		if err := apiv1.Convert_v1_Pod_To_core_Pod(pod.DeepCopy(), &in, nil); err != nil {
			rt.Fatalf("convert: %v", err)
		}
		table, err := tg.GenerateTable(&in, printers.GenerateOptions{})
		after := time.Now().Truncate(time.Second)
		if err != nil || len(table.Rows) != 1 || len(table.Rows[0].Cells) < 5 {
			rt.Fatalf("print: %v %+v", err, table)
		}
		cell := func(i int) string {
			s, ok := table.Rows[0].Cells[i].(string)
			if !ok {
				rt.Fatalf("cell %d is %T", i, table.Rows[0].Cells[i])
			}
			return s
		}
		want := kubectlstatus.Row{Name: cell(0), Ready: cell(1), Status: cell(2), Restarts: cell(3), Age: cell(4)}
		// A second may begin between now and the printer's own clock read:
		// the printer's ages are then one second more, which Columns at
		// that later second gives.
		if got := kubectlstatus.Columns(pod, now); got != want && (after.Equal(now) || kubectlstatus.Columns(pod, after) != want) {
			rt.Fatalf("row %+v, printer says %+v\nstatus: %+v", got, want, pod.Status)
		}
		compared(rt, "printPod")
	})
}
