package replay

import (
	"strings"
	"testing"
	"time"
)

// kubeletAddAfter is when the kubelet received the pod (a "SyncLoop ADD"
// log line) first after after: after a restart, when the new process got
// it from its source.
func kubeletAddAfter(t *testing.T, f *fixture, zero time.Time, after time.Duration) time.Duration {
	t.Helper()
	y, m, d := zero.Date()
	for _, l := range f.KubeletLog {
		if !strings.Contains(l, `"SyncLoop ADD"`) {
			continue
		}
		fields := strings.Fields(l)
		if len(fields) < 2 {
			continue
		}
		clock, err := time.Parse("15:04:05.000000", fields[1])
		if err != nil {
			t.Fatalf("%s: ADD log line time: %v", f.Scenario, err)
		}
		at := time.Date(y, m, d, clock.Hour(), clock.Minute(), clock.Second(), clock.Nanosecond(), time.UTC).Sub(zero)
		if at > after {
			return at
		}
	}
	t.Fatalf("%s: no SyncLoop ADD after %s in the kubelet log", f.Scenario, after)
	return 0
}
