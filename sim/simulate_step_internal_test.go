package sim

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestNextStep pins Simulate's step rule: about stepEntries entries per pod
// per step, within one to ten minutes.
func TestNextStep(t *testing.T) {
	for _, c := range []struct {
		d             time.Duration
		entries, pods int
		want          time.Duration
	}{
		// 1,000 pods logging 2.5 entries a minute each: 16 take 6.4 min.
		{time.Minute, 2500, 1000, 384 * time.Second},
		// The same rate seen over a 6.4-minute step gives the same length.
		{384 * time.Second, 16000, 1000, 384 * time.Second},
		// Exactly stepEntries per pod: the length stays.
		{3 * time.Minute, 16 * 50, 50, 3 * time.Minute},
		// Busy pods (a probe every second): never under a minute.
		{time.Minute, 200 * 10, 10, time.Minute},
		// Quiet pods: never over ten minutes.
		{time.Minute, 1, 1000, 10 * time.Minute},
		// Nothing logged, or no pod left: the longest step.
		{time.Minute, 0, 1000, 10 * time.Minute},
		{time.Minute, 40, 0, 10 * time.Minute},
	} {
		if got := nextStep(c.d, c.entries, c.pods); got != c.want {
			t.Errorf("nextStep(%s, %d entries, %d pods) = %s, want %s", c.d, c.entries, c.pods, got, c.want)
		}
	}
}

// TestObserveStreamsTheTimeline: the entries Simulate streams to
// Config.Observe, one step at a time as they are merged, are the
// timeline it keeps without Observe, in order, with the same syncs and
// end; on random nodes (podgen pods, scripts, actions, both engines) and
// on an hour of the benchmark's mixed pods, whose steps grow past a
// minute.
func TestObserveStreamsTheTimeline(t *testing.T) {
	check := func(t interface {
		Fatalf(string, ...any)
	}, cfg Config, pods []PodInput) {
		want, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatalf("kept: %v", err)
		}
		got := &Timeline{Start: want.Start, Seed: want.Seed}
		cfg.Observe = func(e Entry) { got.Entries = append(got.Entries, e) }
		streamed, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatalf("streamed: %v", err)
		}
		if len(streamed.Entries) != 0 {
			t.Fatalf("streamed: the timeline kept %d entries", len(streamed.Entries))
		}
		got.Syncs, got.End = streamed.Syncs, streamed.End
		if diff := timelineDiff(want, got); diff != "" {
			t.Fatalf("%s", diff)
		}
	}
	check(t, Config{Seed: 5, For: Duration(time.Hour), Parallelism: 1, RuntimeContention: -1}, mixedPods(12))
	rapid.Check(t, func(t *rapid.T) {
		cfg, pods := drawNode(t, 3)
		cfg.RuntimeContention = rapid.SampledFrom([]Duration{0, -1}).Draw(t, "runtime contention")
		check(t, cfg, pods)
	})
}
