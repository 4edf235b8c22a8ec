package sim_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// TestDurationUnits: a Duration is written with the package's units and
// Seconds, without a conversion, reads like a time.Duration, and keeps its
// JSON form (duration text, or a number of seconds).
func TestDurationUnits(t *testing.T) {
	cfg := sim.Config{For: 20 * sim.Minute}
	a := sim.Action{At: 1500 * sim.Millisecond}
	if cfg.For.D() != 20*time.Minute || a.At != sim.Seconds(1.5) || a.At.Seconds() != 1.5 || a.At.Milliseconds() != 1500 {
		t.Errorf("units: For %s, At %s", cfg.For, a.At)
	}
	if got := sim.Seconds(2.25).Round(sim.Second); got != 2*sim.Second {
		t.Errorf("Round: %s", got)
	}
	if got := (90 * sim.Second).Truncate(sim.Minute); got != sim.Minute {
		t.Errorf("Truncate: %s", got)
	}
	b, err := json.Marshal(a.At)
	if err != nil || string(b) != `"1.5s"` {
		t.Errorf("JSON %s %v", b, err)
	}
	var d sim.Duration
	if err := json.Unmarshal([]byte(`2.5`), &d); err != nil || d != sim.Seconds(2.5) {
		t.Errorf("JSON number: %s %v", d, err)
	}
	// Each unit is package time's.
	for _, u := range []struct {
		got  sim.Duration
		want time.Duration
	}{{sim.Nanosecond, time.Nanosecond}, {sim.Microsecond, time.Microsecond}, {sim.Millisecond, time.Millisecond},
		{sim.Second, time.Second}, {sim.Minute, time.Minute}, {sim.Hour, time.Hour}} {
		if u.got.D() != u.want {
			t.Errorf("unit %s is %s", u.want, u.got.D())
		}
	}
}
