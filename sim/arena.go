package sim

import "unsafe"

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
