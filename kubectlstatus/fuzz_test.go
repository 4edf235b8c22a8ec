package kubectlstatus

import (
	"encoding/json"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// FuzzCompute feeds arbitrary pods (decoded from JSON) to Compute: it may
// not panic, and a pod with a deletionTimestamp that is neither terminal
// nor NodeLost always reads Terminating.
func FuzzCompute(f *testing.F) {
	f.Add([]byte(`{"spec":{"initContainers":[{"name":"s","restartPolicy":"Always"}]},"status":{"phase":"Running","initContainerStatuses":[{"name":"s","started":true},{"name":"x","state":{"terminated":{"signal":9}}}],"containerStatuses":[{"name":"a","state":{"terminated":{"reason":"Completed"}}}]}}`))
	f.Add([]byte(`{"metadata":{"deletionTimestamp":"2025-01-01T00:00:00Z"},"status":{"reason":"NodeLost"}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var pod *v1.Pod
		if json.Unmarshal(data, &pod) != nil {
			return
		}
		got := Compute(pod)
		if pod == nil {
			return
		}
		p := pod.Status.Phase
		if pod.DeletionTimestamp != nil && pod.Status.Reason != NodeLost && p != v1.PodSucceeded && p != v1.PodFailed && got != "Terminating" {
			t.Fatalf("deleted pod in phase %q shows %q", p, got)
		}
	})
}
