package validation

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestSleepAgainstZeroGrace: terminationGracePeriodSeconds 0 is a valid
// grace period, and sleep hooks are checked against it like any other
// (validateSleepAction in pkg/apis/core/validation reads the pod's grace
// period whenever it is set): a 1-second sleep is rejected, a 0-second one
// is not. A check that takes only positive grace periods misses the first.
func TestSleepAgainstZeroGrace(t *testing.T) {
	for _, tc := range []struct {
		sleep int64
		want  string // "" for a valid pod
	}{
		{0, ""},
		{1, "spec.containers[0].lifecycle.preStop.sleep: Invalid value: 1: must be from 0 to terminationGracePeriodSeconds (0)"},
	} {
		p := validPod()
		p.Spec.TerminationGracePeriodSeconds = ptr(int64(0))
		p.Spec.Containers[0].Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: tc.sleep}}}
		err := Pod(p)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("sleep %d with grace 0: %v", tc.sleep, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("sleep %d with grace 0: got %v, want an error with %q", tc.sleep, err, tc.want)
		}
	}
}
