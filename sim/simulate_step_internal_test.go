package sim

import (
	"testing"
	"time"
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
