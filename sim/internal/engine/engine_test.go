package engine

import (
	"testing"
	"time"
)

// TestReserve: an event scheduled later with a reserved sequence number
// runs where it would have had it been scheduled at the Reserve: after
// the events of its time scheduled before, before those scheduled after.
func TestReserve(t *testing.T) {
	var l Loop
	t0 := time.Unix(100, 0)
	var got []int64
	rec := func(a int64) { got = append(got, a) }
	l.AtCall(t0, rec, 1)
	seq := l.Reserve(2)
	l.AtCall(t0, rec, 4)
	l.AtCallSeq(t0, rec, 3, seq+1)
	l.AtCallSeq(t0, rec, 2, seq)
	for l.RunNext(t0) {
	}
	want := []int64{1, 2, 3, 4}
	for i := range want {
		if len(got) != len(want) || got[i] != want[i] {
			t.Fatalf("ran %v, want %v", got, want)
		}
	}
}
