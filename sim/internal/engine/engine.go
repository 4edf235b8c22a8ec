// Package engine is the discrete-event core of package sim: a virtual
// clock with the events scheduled on it (Loop), and the phases of the
// kubelet's periodic loops (Clocks, NextAfter). It knows nothing of pods
// or of the kubelet's decisions; nothing in it reads the wall clock.
package engine

import (
	"math"
	"time"
)

// Loop is one event loop: a virtual clock and the events scheduled on it.
// Events run in time order; events at the same time run in the order they
// were scheduled. The zero Loop is empty, at the zero time.
type Loop struct {
	// Now is the loop's clock: the time of the event running, or the time
	// the loop was last run to.
	Now time.Time
	q   []event
	seq uint64
}

type event struct {
	at  time.Time
	key int64 // at in nanoseconds since the Unix epoch, for ordering
	seq uint64
	fn  func()
	// call(arg) runs instead of fn when set (AtCall).
	call func(int64)
	arg  int64
}

func (a *event) less(b *event) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.seq < b.seq
}

// At schedules fn at t; a time before Now is taken as Now.
func (l *Loop) At(t time.Time, fn func()) {
	if t.Before(l.Now) {
		t = l.Now
	}
	l.seq++
	l.q = append(l.q, event{at: t, key: t.UnixNano(), seq: l.seq, fn: fn})
	l.up(len(l.q) - 1)
}

// AtCall schedules call(arg) at t, as At does. A caller that keeps call
// (a method value made once) schedules without allocating a closure.
func (l *Loop) AtCall(t time.Time, call func(int64), arg int64) {
	if t.Before(l.Now) {
		t = l.Now
	}
	l.seq++
	l.q = append(l.q, event{at: t, key: t.UnixNano(), seq: l.seq, call: call, arg: arg})
	l.up(len(l.q) - 1)
}

// Next is the time of the earliest event; false when none is scheduled.
func (l *Loop) Next() (time.Time, bool) {
	if len(l.q) == 0 {
		return time.Time{}, false
	}
	return l.q[0].at, true
}

// NextKey is the time of the earliest event in nanoseconds since the Unix
// epoch, for ordering loops; math.MaxInt64 when none is scheduled.
func (l *Loop) NextKey() int64 {
	if len(l.q) == 0 {
		return math.MaxInt64
	}
	return l.q[0].key
}

// RunNext runs the earliest event if it is due at or before until, with
// Now set to its time, and reports whether it ran one.
func (l *Loop) RunNext(until time.Time) bool {
	if len(l.q) == 0 || l.q[0].key > until.UnixNano() {
		return false
	}
	e := l.q[0]
	last := len(l.q) - 1
	l.q[0] = l.q[last]
	l.q[last] = event{}
	l.q = l.q[:last]
	if last > 0 {
		l.down(0)
	}
	l.Now = e.at
	if e.call != nil {
		e.call(e.arg)
	} else {
		e.fn()
	}
	return true
}

// Len is the number of events scheduled.
func (l *Loop) Len() int { return len(l.q) }

// Times are the times of the events scheduled, in no particular order.
func (l *Loop) Times() []time.Time {
	out := make([]time.Time, len(l.q))
	for i := range l.q {
		out[i] = l.q[i].at
	}
	return out
}

// Clear drops every event scheduled.
func (l *Loop) Clear() { l.q = nil }

func (l *Loop) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !l.q[i].less(&l.q[parent]) {
			return
		}
		l.q[i], l.q[parent] = l.q[parent], l.q[i]
		i = parent
	}
}

func (l *Loop) down(i int) {
	n := len(l.q)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && l.q[r].less(&l.q[c]) {
			c = r
		}
		if !l.q[c].less(&l.q[i]) {
			return
		}
		l.q[i], l.q[c] = l.q[c], l.q[i]
		i = c
	}
}

// Clocks are the phases of the kubelet's periodic loops on one node.
type Clocks struct {
	Relist      time.Time     // a PLEG relist starts then, and every RelistEvery
	RelistEvery time.Duration // the relist period plus the relist's own duration
	Tick        time.Time     // a sync-loop tick, every second
	Housekeep   time.Time     // housekeeping, every 2 s
	GC          time.Time     // container GC, every minute
	StatusSync  time.Time     // the status manager's full sweep, every 10 s
	// The volume manager's desired-state populator and reconciler loops,
	// every 100 ms each.
	VolumePopulator  time.Time
	VolumeReconciler time.Time
}

// NextAfter is the first time strictly after t of a loop that runs at
// base + k·every (k ≥ 0).
func NextAfter(base time.Time, every time.Duration, t time.Time) time.Time {
	if t.Before(base) {
		return base
	}
	k := t.Sub(base)/every + 1
	return base.Add(k * every)
}
