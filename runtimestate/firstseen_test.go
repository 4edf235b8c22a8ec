package runtimestate

import (
	"testing"
	"time"
)

// FirstSeen is the earliest sandbox creation, instance creation or start
// the state shows; zero times are no evidence; nil or empty states show
// none.
func TestFirstSeen(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var nilPod *Pod
	if !nilPod.FirstSeen().IsZero() || !(&Pod{}).FirstSeen().IsZero() {
		t.Error("a nil or empty state shows a time")
	}
	for _, c := range []struct {
		name string
		p    Pod
		want time.Time
	}{
		{"sandbox first", Pod{Sandboxes: []Sandbox{{CreatedAt: t0.Add(time.Second)}, {CreatedAt: t0}},
			Containers: []Container{{CreatedAt: t0.Add(2 * time.Second), StartedAt: t0.Add(3 * time.Second)}}}, t0},
		{"an instance created before its sandbox's record", Pod{Sandboxes: []Sandbox{{CreatedAt: t0.Add(time.Second)}},
			Containers: []Container{{CreatedAt: t0}}}, t0},
		{"only a start known", Pod{Sandboxes: []Sandbox{{}}, Containers: []Container{{StartedAt: t0.Add(time.Minute)}, {StartedAt: t0}}}, t0},
		{"no times", Pod{Sandboxes: []Sandbox{{}}, Containers: []Container{{}}}, time.Time{}},
	} {
		if got := c.p.FirstSeen(); !got.Equal(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
