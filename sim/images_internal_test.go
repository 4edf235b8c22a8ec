package sim

import (
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/restart"
)

// The image back-off is client-go's flowcontrol.Backoff (kubelet.go:713 in
// v1.37.2, NewBackOff(10 s, 300 s)): an entry expires once more than twice
// the max, 600 s, passed since its last update (backoff.go:186, a strict
// >): at exactly 600 s it has not, so a failed pull then doubles the
// delay, and one a nanosecond later starts again at 10 s.
func TestImageBackOffExpiryBoundary(t *testing.T) {
	e := restart.BackOffEntry{Delay: 40 * time.Second, LastUpdate: t0}
	if got := imageBackOffNext(e, t0.Add(600*time.Second)); got.Delay != 80*time.Second {
		t.Errorf("a failed pull 600 s after the last: delay %s, want 80s (not expired yet)", got.Delay)
	}
	if got := imageBackOffNext(e, t0.Add(600*time.Second+1)); got.Delay != 10*time.Second {
		t.Errorf("a failed pull just over 600 s after the last: delay %s, want 10s (expired)", got.Delay)
	}
	if got := imageBackOffNext(restart.BackOffEntry{Delay: 200 * time.Second, LastUpdate: t0}, t0.Add(time.Minute)); got.Delay != 300*time.Second || !got.LastUpdate.Equal(t0.Add(time.Minute)) {
		t.Errorf("doubling 200 s: %+v, want 300s (the max) updated now", got)
	}
	for _, c := range []struct {
		since time.Duration
		want  bool
	}{{39 * time.Second, true}, {40 * time.Second, false}, {600 * time.Second, false}} {
		if got := imageInBackOff(e, t0.Add(c.since)); got != c.want {
			t.Errorf("in back-off %s after a 40 s entry: %v, want %v", c.since, got, c.want)
		}
	}
}
