package sim

import (
	"time"
	"unsafe"
)

// entryArena hands out the objects entries point to (Entry.Status, Call,
// Exit, Probe) from arrays allocated a chunk at a time, as apistatus does
// for container states: an entry's object is still its own (no two
// entries share one), the objects merely sit side by side, so an entry
// kept alive keeps its chunk's neighbours alive too. A Node has one per
// worker goroutine (Node.run), lent to the pod the worker runs; a pod run
// outside a worker (adding it, say) allocates its objects one by one.
type entryArena struct {
	status chunks[StatusEntry]
	call   chunks[Call]
	exit   chunks[ExitEntry]
	probe  chunks[ProbeEntry]
	// entries holds the entries of the pods the worker ran in this step,
	// each pod's side by side (runPod): the pods share one list, emptied
	// when the step is reported, rather than each keeping one as long
	// as the entries it logs in a step (of Simulate's, see nextStep), for the
	// whole run.
	entries []Entry
}

// entrySpare is the least room left in an arena's entry list for a pod to
// log into; below it the next pod gets a new list.
const entrySpare = 256

// runPod runs p to t with the arena: its entries, the ones it already
// has first, are logged into a.entries, and the pod's list is the part
// it filled (a pod that outgrows the room left keeps a list of its own).
func (a *entryArena) runPod(p *podSim, t time.Time) {
	if cap(a.entries)-len(a.entries) < entrySpare+len(p.entries) {
		a.entries = make([]Entry, 0, max(4*entrySpare, 2*cap(a.entries), len(p.entries)+entrySpare))
	}
	start := len(a.entries)
	a.entries = append(a.entries, p.entries...)
	p.entries = a.entries[start:]
	p.arena = a
	p.runUntil(t)
	p.arena = nil
	n := len(p.entries)
	switch {
	case n == 0:
		p.entries = nil
		a.entries = a.entries[:start]
	case unsafe.SliceData(p.entries) == unsafe.SliceData(a.entries[start:]):
		a.entries = a.entries[:start+n]
		// Capped: nothing appended later writes into the arena's list.
		p.entries = p.entries[:n:n]
	default:
		a.entries = a.entries[:start]
	}
}

// reported empties the arena's entry list once its entries are merged.
func (a *entryArena) reported() {
	clear(a.entries)
	a.entries = a.entries[:0]
}

// arenaBytes is the size of an array: as many objects as fit in one of
// the allocator's 8 KiB size classes (17 status entries, 34 calls), so
// that little of the block is wasted (16 status entries took 7,424 bytes
// of an 8,192-byte block).
const arenaBytes = 8192

type chunks[T any] struct{ free []T }

// take returns a new zero T: from the arena a when there is one.
func take[T any](a *entryArena, pick func(*entryArena) *chunks[T]) *T {
	if a == nil {
		return new(T)
	}
	c := pick(a)
	if len(c.free) == 0 {
		var zero T
		c.free = make([]T, max(1, arenaBytes/int(unsafe.Sizeof(zero))))
	}
	t := &c.free[0]
	c.free = c.free[1:]
	return t
}

func (p *podSim) newStatusEntry() *StatusEntry {
	return take(p.arena, func(a *entryArena) *chunks[StatusEntry] { return &a.status })
}

func (p *podSim) newCall(c Call) *Call {
	t := take(p.arena, func(a *entryArena) *chunks[Call] { return &a.call })
	*t = c
	return t
}

func (p *podSim) newExit() *ExitEntry {
	return take(p.arena, func(a *entryArena) *chunks[ExitEntry] { return &a.exit })
}

func (p *podSim) newProbe() *ProbeEntry {
	return take(p.arena, func(a *entryArena) *chunks[ProbeEntry] { return &a.probe })
}

// arena is the arena of worker w, made on first use (before the workers
// start).
func (n *Node) arena(w int) *entryArena {
	for len(n.arenas) <= w {
		n.arenas = append(n.arenas, &entryArena{})
	}
	return n.arenas[w]
}
