package replay

import (
	"testing"
	"time"
)

// TestCutAtEnd: both call lists are cut at the capture's end the same way;
// a call one side made just before the end is paired with the other's
// next call, not counted as missing, and nothing past the longer side's
// cut is compared.
func TestCutAtEnd(t *testing.T) {
	k := func(at float64, key string) timedKey {
		return timedKey{at: time.Duration(at * float64(time.Second)), key: key}
	}
	end := 10 * time.Second
	real := []timedKey{k(1, "a"), k(9.8, "b"), k(10.3, "c"), k(40, "d")}
	sim := []timedKey{k(1.1, "a"), k(10.2, "b"), k(10.4, "c"), k(12, "d")}
	r, s := cutAtEnd(real, sim, end)
	if len(r) != 2 || len(s) != 2 || r[1].key != "b" || s[1].key != "b" {
		t.Errorf("real b before the end, simulated b after it: got %v / %v, want a, b on both sides", r, s)
	}
	r, s = cutAtEnd(sim, real, end)
	if len(r) != 2 || len(s) != 2 {
		t.Errorf("the cut is symmetric: got %d / %d calls, want 2 / 2", len(r), len(s))
	}
	// A side with fewer calls in all keeps all it has: the counts differ
	// and the comparison reports it.
	r, s = cutAtEnd([]timedKey{k(1, "a"), k(2, "b")}, []timedKey{k(1, "a")}, end)
	if len(r) != 2 || len(s) != 1 {
		t.Errorf("got %d / %d calls, want 2 / 1", len(r), len(s))
	}
	r, s = cutAtEnd(nil, nil, end)
	if len(r) != 0 || len(s) != 0 {
		t.Errorf("empty lists: got %v / %v", r, s)
	}
}
