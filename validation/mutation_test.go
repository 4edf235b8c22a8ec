package validation

import (
	"math"
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

// Boundaries gremlins found untested: a zero limit or request is not
// negative; activeDeadlineSeconds may be 1 and 2^31-1; several problems in one
// resource list are reported in the order of the resource names.
func TestResourceAndDeadlineBoundaries(t *testing.T) {
	p := validPod()
	p.Spec.Containers[0].Resources.Limits = resources("cpu", "0", "memory", "0")
	p.Spec.Containers[0].Resources.Requests = resources("cpu", "0", "memory", "0")
	max := int64(math.MaxInt32)
	p.Spec.ActiveDeadlineSeconds = &max
	if err := Pod(p); err != nil {
		t.Errorf("zero limits and requests, deadline 2^31-1: %v", err)
	}
	one := int64(1)
	p.Spec.ActiveDeadlineSeconds = &one
	if err := Pod(p); err != nil {
		t.Errorf("deadline 1: %v", err)
	}
	p.Spec.ActiveDeadlineSeconds = &max
	max++
	if err := Pod(p); err == nil || !strings.Contains(err.Error(), "spec.activeDeadlineSeconds") {
		t.Errorf("deadline 2^31: got %v, want activeDeadlineSeconds refused", err)
	}
	p = validPod()
	p.Spec.Containers[0].Resources.Limits = resources("memory", "-1", "cpu", "-1")
	err := Pod(p)
	if err == nil {
		t.Fatal("negative limits accepted")
	}
	s := err.Error()
	c, m := strings.Index(s, "limits[cpu]"), strings.Index(s, "limits[memory]")
	if c < 0 || m < 0 || c > m {
		t.Errorf("negative cpu and memory limits: want both, cpu first: %v", err)
	}
}
