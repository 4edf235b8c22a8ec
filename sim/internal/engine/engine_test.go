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

// TestLoopSameTimeInScheduleOrder: the events of one instant run in the
// order they were scheduled, by At, by AtCall or by both, however many
// there are, so that a simulation is the same run after run. (gremlins runs
// a mutant of this file against this package's tests only: the order is
// pinned here, not only through sim.)
func TestLoopSameTimeInScheduleOrder(t *testing.T) {
	t0 := time.Unix(100, 0)
	for _, c := range []struct {
		name string
		atFn []bool // true: At, false: AtCall
	}{
		{"At", []bool{true, true, true, true}},
		{"AtCall", []bool{false, false, false, false}},
		{"mixed", []bool{true, false, true, false, false, true}},
	} {
		var l Loop
		l.Now = t0
		var got []int64
		rec := func(a int64) { got = append(got, a) }
		for i, at := range c.atFn {
			when := t0.Add(time.Second)
			if i == 0 {
				// An event of a later time scheduled first.
				when = t0.Add(2 * time.Second)
			}
			if at {
				i := int64(i)
				l.At(when, func() { rec(i) })
			} else {
				l.AtCall(when, rec, int64(i))
			}
		}
		for l.RunNext(t0.Add(time.Hour)) {
		}
		if len(got) != len(c.atFn) {
			t.Fatalf("%s: %d events ran, want %d", c.name, len(got), len(c.atFn))
		}
		for i := range got {
			want := int64(i + 1)
			if i == len(got)-1 {
				want = 0
			}
			if got[i] != want {
				t.Fatalf("%s: events ran in the order %v, want 1 to %d, then 0 (the later time)", c.name, got, len(c.atFn)-1)
			}
		}
	}
}

// TestNextAfter: the first tick strictly after t of a loop started at
// base with the given period; base itself for a t before it.
func TestNextAfter(t *testing.T) {
	base := time.Unix(1000, 0)
	for _, c := range []struct {
		t    time.Duration // after base
		want time.Duration
	}{
		{-5 * time.Second, 0},
		{0, 2 * time.Second}, // strictly after: base is not after base
		{time.Second, 2 * time.Second},
		{2 * time.Second, 4 * time.Second},
		{2*time.Second + time.Nanosecond, 4 * time.Second},
		{7 * time.Second, 8 * time.Second},
	} {
		if got := NextAfter(base, 2*time.Second, base.Add(c.t)); !got.Equal(base.Add(c.want)) {
			t.Errorf("NextAfter(base, 2s, base%+v) = base%+v, want base%+v", c.t, got.Sub(base), c.want)
		}
	}
}
