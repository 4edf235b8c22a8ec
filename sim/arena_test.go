package sim

import (
	"testing"
	"time"
	"unsafe"
)

// arenaTestPod is a pod that already holds had entries and logs logs more
// when run (events on its loop at the zero time plus a second).
func arenaTestPod(had, logs int) (*podSim, time.Time) {
	p := &podSim{entries: make([]Entry, had)}
	t := time.Time{}.Add(time.Second)
	for i := 0; i < logs; i++ {
		p.loop.At(t, func() { p.entries = append(p.entries, Entry{Message: "logged"}) })
	}
	return p, t
}

// TestArenaEntryRoom pins entryArena.runPod's choice of list (arena.go):
// a pod logs into the arena's list while it has room for the pod's
// entries and entrySpare more, and the arena starts a new list, sized for
// the pod, when it has less; either way the pod's entries, the old first,
// are the arena's, side by side with the earlier pods'.
func TestArenaEntryRoom(t *testing.T) {
	for _, c := range []struct {
		name          string
		len, cap      int
		had, logs     int
		keep          bool
		newCapAtLeast int
	}{
		// Room of exactly entrySpare plus the pod's entries: kept.
		{name: "room just enough", len: 10, cap: 10 + entrySpare + 3, had: 3, logs: 2, keep: true},
		// Less room than entrySpare, a pod with no entries yet: new list.
		{name: "room short of entrySpare", len: 900, cap: 1024, logs: 1, newCapAtLeast: 4 * entrySpare},
		// Room for entrySpare but not for the pod's own entries too.
		{name: "room short of the pod's entries", len: 0, cap: 300, had: 200, logs: 1, newCapAtLeast: 200 + entrySpare},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &entryArena{entries: make([]Entry, c.len, c.cap)}
			before := unsafe.SliceData(a.entries)
			p, at := arenaTestPod(c.had, c.logs)
			a.runPod(p, at)
			kept := unsafe.SliceData(a.entries) == before
			if kept != c.keep {
				t.Fatalf("arena list kept: %v, want %v (len %d cap %d, pod had %d)", kept, c.keep, c.len, c.cap, c.had)
			}
			start := 0
			if c.keep {
				start = c.len
			}
			if len(a.entries) != start+c.had+c.logs || len(p.entries) != c.had+c.logs {
				t.Fatalf("arena holds %d entries, pod %d; want %d and %d", len(a.entries), len(p.entries), start+c.had+c.logs, c.had+c.logs)
			}
			if unsafe.SliceData(p.entries) != unsafe.SliceData(a.entries[start:]) || cap(p.entries) != len(p.entries) {
				t.Fatalf("the pod's entries are not the arena's from %d, capped", start)
			}
			if !c.keep && cap(a.entries) < c.newCapAtLeast {
				t.Fatalf("new list of capacity %d, want at least %d", cap(a.entries), c.newCapAtLeast)
			}
		})
	}
}

// TestArenaListForALargePod: a pod with more entries than a new list
// holds (4 × entrySpare, or twice the last list) gets one made for its
// entries plus entrySpare, in one allocation: the copy of its entries
// does not grow the list again.
func TestArenaListForALargePod(t *testing.T) {
	const had = 3000
	old := make([]Entry, had)
	p, at := arenaTestPod(0, 0)
	a := &entryArena{}
	allocs := testing.AllocsPerRun(10, func() {
		a.entries = nil
		p.entries = old
		a.runPod(p, at)
	})
	if allocs != 1 {
		t.Fatalf("%v allocations for the arena list of a pod with %d entries, want 1", allocs, had)
	}
	if got := cap(a.entries) - len(a.entries); got < entrySpare {
		t.Fatalf("room left %d, want at least %d", got, entrySpare)
	}
}
