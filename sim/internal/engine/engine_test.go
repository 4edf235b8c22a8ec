package engine

import (
	"testing"
	"time"
)

// TestLoopOrder: events run in time order, those of one time in the order
// they were scheduled (At and AtCall alike), none after until; a time
// before Now is taken as Now.
func TestLoopOrder(t *testing.T) {
	var l Loop
	t0 := time.Unix(100, 0)
	l.Now = t0
	var got []int64
	rec := func(a int64) { got = append(got, a) }
	l.AtCall(t0.Add(time.Second), rec, 3)
	l.At(t0, func() { rec(1) })
	l.AtCall(t0.Add(-time.Hour), rec, 2) // in the past: at Now, after 1
	l.AtCall(t0.Add(2*time.Second), rec, 5)
	l.At(t0.Add(time.Second), func() { rec(4) })
	if next, ok := l.Next(); !ok || !next.Equal(t0) || l.NextKey() != t0.UnixNano() || l.Len() != 5 {
		t.Fatalf("Next %s %v, NextKey %d, Len %d", next, ok, l.NextKey(), l.Len())
	}
	for l.RunNext(t0.Add(time.Second)) {
	}
	if want := []int64{1, 2, 3, 4}; len(got) != len(want) || got[0] != 1 || got[1] != 2 || got[2] != 3 || got[3] != 4 {
		t.Fatalf("ran %v, want %v", got, want)
	}
	if !l.Now.Equal(t0.Add(time.Second)) || l.Len() != 1 {
		t.Fatalf("Now %s, %d left", l.Now, l.Len())
	}
	l.Clear()
	if _, ok := l.Next(); ok || l.RunNext(t0.Add(time.Hour)) {
		t.Fatal("Clear left events")
	}
}
