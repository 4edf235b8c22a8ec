package manifest

import (
	"reflect"
	"strings"
	"testing"
)

// Pods is Read without the sources: for each input, the same pods in the
// same order, or the same error and no pods.
func TestPodsIsReadWithoutSources(t *testing.T) {
	for _, in := range []string{
		workloads,
		"kind: Pod\nmetadata: {name: p}\n",
		"kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: b}\n",
		"apiVersion: v1\nkind: Pod\nspec:\n  restartPolicey: Never\n",
		"metadata: {name: p}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: s}\n",
		"# nothing\n",
		"kind: Pod\nspec: [\n",
	} {
		items, rerr := Read(strings.NewReader(in))
		pods, perr := Pods(strings.NewReader(in))
		if (rerr == nil) != (perr == nil) || rerr != nil && rerr.Error() != perr.Error() {
			t.Errorf("%q: Read error %v, Pods error %v", in, rerr, perr)
			continue
		}
		if perr != nil {
			if pods != nil {
				t.Errorf("%q: Pods returned %d pods with its error %v", in, len(pods), perr)
			}
			continue
		}
		if len(pods) != len(items) {
			t.Errorf("%q: Pods returned %d pods, Read %d", in, len(pods), len(items))
			continue
		}
		for i := range items {
			if !reflect.DeepEqual(pods[i], items[i].Pod) {
				t.Errorf("%q: pod %d is %+v, Read's is %+v", in, i, pods[i], items[i].Pod)
			}
		}
	}
}
