package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podgen"
)

// TestPropertiesSandboxLoss runs TestProperties' checks on the draws that
// reach the status manager's transition rule: a pod with a regular init
// container that completes early (podgen draws the pod's restartPolicy), and its
// sandbox killed once or twice, so that a new sandbox runs completed init
// containers again (and doBackOff may hold them). TestProperties' own
// draws reach a refused status rarely (none in 3000 runs).
func TestPropertiesSandboxLoss(t *testing.T) {
	var runs, refused int
	rapid.Check(t, func(t *rapid.T) {
		span := time.Duration(rapid.IntRange(20, 120).Draw(t, "span seconds")) * time.Second
		pod := podgen.Pod(podgen.PodOptions{NoDeletion: true, MaxContainers: 2, MaxInitContainers: 2, MaxSidecars: 1}).Draw(t, "pod")
		pod.Name += "-0"
		pod.Annotations = map[string]string{"kubernetes.io/config.source": "api"}
		if rapid.Bool().Draw(t, "static") {
			pod.Annotations["kubernetes.io/config.source"] = "file"
		}
		pod.Spec.InitContainers = append([]v1.Container{{Name: "first", Image: "busybox",
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: v1.TerminationMessageReadFile, ImagePullPolicy: v1.PullIfNotPresent}}, pod.Spec.InitContainers...)
		pod.Status = v1.PodStatus{}
		in := PodInput{Pod: pod}
		in.Script.Containers = map[string]Behaviour{}
		for _, name := range allNames(pod) {
			var b Behaviour
			n := rapid.IntRange(0, 3).Draw(t, name+" runs")
			for k := 0; k < n; k++ {
				b.Runs = append(b.Runs, drawRun(t, fmt.Sprintf("%s run %d", name, k)))
			}
			in.Script.Containers[name] = b
		}
		// first fails or completes quickly, run after run.
		var first Behaviour
		nFirst := rapid.IntRange(1, 3).Draw(t, "first runs")
		for k := 0; k < nFirst; k++ {
			first.Runs = append(first.Runs, Run{ExitAfter: Duration(time.Duration(rapid.IntRange(1, 2000).Draw(t, fmt.Sprintf("first run %d ms", k))) * time.Millisecond),
				ExitCode: rapid.SampledFrom([]int32{0, 0, 1}).Draw(t, fmt.Sprintf("first run %d code", k))})
		}
		in.Script.Containers["first"] = first
		nKills := rapid.IntRange(1, 2).Draw(t, "sandbox kills")
		for k := 0; k < nKills; k++ {
			in.Actions = append(in.Actions, Action{At: dur(t, fmt.Sprintf("kill %d at", k), 15), KillSandbox: true})
		}
		if rapid.Bool().Draw(t, "deleted") {
			g := rapid.SampledFrom([]int64{0, 1, 5}).Draw(t, "grace")
			in.Actions = append(in.Actions, Action{At: dur(t, "delete at", 20), Delete: &g})
		}
		tl, err := Simulate(Config{Seed: rapid.Uint64().Draw(t, "seed"), For: Duration(span)}, []PodInput{in})
		if err != nil {
			t.Fatalf("Simulate: %v", err)
		}
		runs++
		if _, ok := tl.First(pod.Name, func(e Entry) bool {
			return e.Kind == KindSync && strings.Contains(e.Message, "status update aborted")
		}); ok {
			refused++
		}
		checkPod(t, tl, in, span)
	})
	t.Logf("%d runs, %d with a refused status", runs, refused)
	if runs >= 100 && refused == 0 {
		t.Errorf("no run reached a refused status: the draws miss what this test is for")
	}
}
