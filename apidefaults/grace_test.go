package apidefaults

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// A negative terminationGracePeriodSeconds becomes 1 (SetDefaults_Pod);
// 0 and positive values are kept, and an unset one becomes 30.
func TestNegativeGraceBecomesOne(t *testing.T) {
	for _, tc := range []struct {
		in   *int64
		want int64
	}{
		{ptrTo(int64(-1)), 1}, {ptrTo(int64(-2)), 1}, {ptrTo(int64(-3600)), 1},
		{ptrTo(int64(0)), 0}, {ptrTo(int64(1)), 1}, {ptrTo(int64(45)), 45}, {nil, 30},
	} {
		pod := &v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: tc.in, Containers: []v1.Container{{Name: "c", Image: "i"}}}}
		Pod(pod)
		if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g != tc.want {
			t.Errorf("terminationGracePeriodSeconds %v: defaulted to %v, want %d", tc.in, g, tc.want)
		}
	}
}
