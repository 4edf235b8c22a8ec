package kubectlstatus

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// TestAppendAge compares appendAge with duration.HumanDuration: every
// second from -5 s to 9 days and its neighbours a nanosecond away, every
// hour to 10 years, the edges of int64, and a million random durations.
func TestAppendAge(t *testing.T) {
	check := func(d time.Duration) {
		t.Helper()
		if got, want := string(appendAge(nil, d)), duration.HumanDuration(d); got != want {
			t.Fatalf("appendAge(%v) = %q, HumanDuration %q", d, got, want)
		}
	}
	for s := time.Duration(-5); s <= 9*24*3600; s++ {
		d := s * time.Second
		check(d - 1)
		check(d)
		check(d + 1)
	}
	for h := time.Duration(0); h <= 10*365*24; h++ {
		d := h * time.Hour
		check(d - 1)
		check(d)
		check(d + time.Minute)
	}
	for _, d := range []time.Duration{math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1, 0} {
		check(d)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000000 {
		check(time.Duration(r.Int64()))
		check(time.Duration(r.Int64N(int64(20 * 365 * 24 * time.Hour))))
	}
}

// Restarts allocates its cell only.
func TestRestartsAllocations(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app"}}}, Status: v1.PodStatus{
		ContainerStatuses: []v1.ContainerStatus{restarted(v1.ContainerStatus{Name: "app"}, 2, now.Add(-3*time.Minute-7*time.Second))}}}
	if got := Restarts(pod, now); got != "2 (3m7s ago)" {
		t.Fatalf("Restarts = %q", got)
	}
	if n := testing.AllocsPerRun(20, func() { Restarts(pod, now) }); n != 1 {
		t.Errorf("Restarts allocates %v times, want 1", n)
	}
}
