package conditions_test

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/conditions"
)

// TestGenerateListSizedToFit: Generate's list has room for what it holds
// and at most one condition more (a DisruptionTarget of the API's list that
// the cached one replaces is counted twice), not for the worst case: the
// simulator generates a status on every sync, and a condition is about 120
// bytes (issue 25).
func TestGenerateListSizedToFit(t *testing.T) {
	for i, c := range allocCases(300) {
		got := conditions.Generate(c.pod, c.generated, conditions.Options{Features: c.f, Cached: c.prev, Runtime: c.st})
		if cap(got) > len(got)+1 {
			t.Fatalf("case %d: Generate's list holds %d conditions in room for %d", i, len(got), cap(got))
		}
	}
}

// TestSetTransitionTimesIsKeepInPlace: SetTransitionTimes leaves the list
// KeepTransitionTimes returns, in place and without allocating.
func TestSetTransitionTimesIsKeepInPlace(t *testing.T) {
	now := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	for i, c := range allocCases(300) {
		for _, prev := range []*v1.PodStatus{c.prev, nil, c.generated} {
			want := conditions.KeepTransitionTimes(c.generated.Conditions, prev, now)
			got := append([]v1.PodCondition(nil), c.generated.Conditions...)
			conditions.SetTransitionTimes(got, prev, now)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("case %d: SetTransitionTimes differs from KeepTransitionTimes:\nkeep %+v\nset  %+v", i, want, got)
			}
			if n := testing.AllocsPerRun(3, func() { conditions.SetTransitionTimes(got, prev, now) }); n != 0 {
				t.Fatalf("case %d: SetTransitionTimes allocates %v times", i, n)
			}
		}
	}
}
