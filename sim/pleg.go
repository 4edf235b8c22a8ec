package sim

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim/internal/engine"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// ---- PLEG ----

func plegState(c runtimestate.Container) string {
	switch c.State {
	case runtimestate.Running:
		return "running"
	case runtimestate.Exited:
		return "exited"
	}
	return "unknown"
}

// markDirty notes a change of the runtime; the next global relist of the
// pod will see it.
func (p *podSim) markDirty() {
	if p.dirty {
		return
	}
	p.dirty = true
	p.scheduleRelist(engine.NextAfter(p.node.clocks.Relist, p.node.clocks.RelistEvery, p.loop.Now))
}

// scheduleRelist makes the global relist at t visit the pod: relist it if
// its runtime changed, then let its worker run. Relists that would find
// nothing new for a pod with nothing waiting are not simulated.
func (p *podSim) scheduleRelist(t time.Time) {
	if p.down {
		return // the new kubelet's first relist sees it
	}
	key := t.UnixNano()
	if p.relists[key] {
		return
	}
	p.relists[key] = true
	if p.relistTick == nil {
		p.relistTick = p.onRelist
	}
	p.loop.AtCall(t, p.relistTick, key)
}

// onRelist is the global relist scheduled by scheduleRelist, at the time
// key (never before the loop's clock, so the loop's clock then).
func (p *podSim) onRelist(key int64) {
	delete(p.relists, key)
	if p.dirty || !p.seen {
		p.dirty = false
		p.relistAt(p.loop.Now)
	}
	p.tryRun()
}

// relistPod is the on-demand relist of one pod right after a sync that
// acted on the runtime; the kubelet makes it after recording the sync's
// end, so its data counts as newer than that sync.
func (p *podSim) relistPod() {
	p.relistAt(p.loop.Now)
	p.cacheTime = p.loop.Now.Add(time.Nanosecond)
}

// plegItem is a sandbox or instance as a relist sees it: its ID, its state
// ("running", "exited", "unknown") and its state in the record before the
// relist ("": none).
type plegItem struct{ id, state, old string }

// plegEvent is a relist's event: what happened (ContainerStarted, ...) to
// the ID.
type plegEvent struct{ what, id string }

func byPlegID(a, b plegItem) int { return strings.Compare(a.id, b.id) }

// relistAt diffs the runtime against the last relist and updates the cache.
func (p *podSim) relistAt(t time.Time) {
	// What the runtime has now, by ID, in a buffer of the pod's (the sets
	// are a handful of IDs: a sorted list, not a map). Sandboxes come
	// first and the last of one ID counts, so that an instance that has a
	// sandbox's ID wins, as the later write did when the record was made
	// as a map.
	p.initPlegBuffers()
	cur := p.plegCur[:0]
	for _, sb := range p.rt.sandboxes {
		state := "exited"
		if sb.Ready {
			state = "running"
		}
		cur = append(cur, plegItem{id: sb.ID, state: state})
	}
	for _, in := range p.rt.containers {
		cur = append(cur, plegItem{id: in.c.ID, state: plegState(in.c)})
	}
	slices.SortStableFunc(cur, byPlegID)
	n := 0
	for _, it := range cur {
		if n > 0 && cur[n-1].id == it.id {
			cur[n-1] = it
			continue
		}
		cur[n] = it
		n++
	}
	cur = cur[:n]
	known := 0
	for i := range cur {
		old, ok := p.record[cur[i].id]
		cur[i].old = old
		if ok {
			known++
		}
	}
	// gone are the IDs of the record the runtime no longer has.
	gone := p.plegGone[:0]
	if known < len(p.record) {
		for id := range p.record {
			if _, found := slices.BinarySearchFunc(cur, plegItem{id: id}, byPlegID); !found {
				gone = append(gone, id)
			}
		}
		sort.Strings(gone)
	}
	// The events, in the order of their IDs.
	events := p.events[:0]
	// died are the names of the containers with an instance that died,
	// each once (a buffer of the pod's, as events).
	died := p.died[:0]
	anyDied := false
	for i, j := 0, 0; i < len(cur) || j < len(gone); {
		var id, old, now string
		if j == len(gone) || (i < len(cur) && cur[i].id < gone[j]) {
			id, old, now = cur[i].id, cur[i].old, cur[i].state
			i++
		} else {
			id, old = gone[j], p.record[gone[j]]
			j++
		}
		if old == now {
			continue
		}
		switch now {
		case "running":
			events = append(events, plegEvent{"ContainerStarted", id})
		case "exited":
			events = append(events, plegEvent{"ContainerDied", id})
			anyDied = true
			if in := p.rt.find(id); in != nil {
				if !slices.Contains(died, in.c.Name) {
					died = append(died, in.c.Name)
				}
			}
		case "":
			if old == "running" || old == "unknown" {
				events = append(events, plegEvent{"ContainerDied", id})
				anyDied = true
			}
			events = append(events, plegEvent{"ContainerRemoved", id})
		}
	}
	// The record becomes what the runtime has now.
	for _, it := range cur {
		if it.old != it.state {
			p.record[it.id] = it.state
		}
	}
	for _, id := range gone {
		delete(p.record, id)
	}
	clear(cur)
	p.plegCur = cur[:0]
	clear(gone)
	p.plegGone = gone[:0]
	p.relisted(t, events, died, anyDied)
	clear(events)
	p.events = events[:0]
	clear(died)
	p.died = died[:0]
}

// initPlegBuffers starts relistAt's buffers in p.plegBuf, on the first
// relist: room for the usual pod inside the podSim, rather than lists
// allocated and grown through 1, 2, 4 on its first relists.
func (p *podSim) initPlegBuffers() {
	if p.plegCur != nil {
		return
	}
	b := &p.plegBuf
	p.plegCur, p.plegGone, p.events, p.died = b.cur[:0], b.gone[:0], b.events[:0], b.died[:0]
}

// relisted is what a relist at t does with the events it found (and died
// and anyDied, as relistAt made them): log them, update the cache, prune
// the dead, and sync the pod.
func (p *podSim) relisted(t time.Time, events []plegEvent, died []string, anyDied bool) {
	reinspect := p.reinspect
	p.reinspect = false
	if len(events) == 0 && p.seen && !reinspect {
		return
	}
	p.seen = true
	p.cache = p.rt.snapshot(t)
	p.cacheTime = t
	p.logEvents(t, events)
	worthy := false
	for _, e := range events {
		if e.what != "ContainerRemoved" {
			worthy = true
		}
	}
	if len(events) == 0 && reinspect {
		// A full reinspection always syncs the pod (reconcilePodRecord).
		p.log(KindPLEG, t, "PodSync")
		worthy = true
	}
	// The container deletor keeps one exited instance per container
	// name; once the pod's content may be removed (deleted and
	// terminated), it removes every exited instance, on any ContainerDied
	// event: a sandbox's too (kubelet.go cleanUpContainersInPod;
	// pod_container_deletor.go deleteContainersInPod drops the ID filter
	// when it removes all). Without removeAll a sandbox's ID names no
	// container, and the deletor removes nothing.
	if anyDied && (p.forgotten || termination.Query(p.mem.Worker, true, p.node.cfg.Kubelet.Features).ShouldPodContentBeRemoved) {
		p.pruneDead("", t)
	} else {
		sort.Strings(died)
		for _, name := range died {
			p.pruneDead(name, t)
		}
	}
	if worthy {
		p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
	}
}

// logEvents logs the events at t, as "ContainerStarted <id>" and so on.
// Their messages are made as one string and cut: one allocation per
// relist, not one per event.
func (p *podSim) logEvents(t time.Time, events []plegEvent) {
	if len(events) == 0 {
		return
	}
	n := 0
	for _, e := range events {
		n += len(e.what) + 1 + len(e.id)
	}
	var b strings.Builder
	b.Grow(n)
	for _, e := range events {
		b.WriteString(e.what)
		b.WriteByte(' ')
		b.WriteString(e.id)
	}
	all := b.String()
	for _, e := range events {
		n := len(e.what) + 1 + len(e.id)
		p.log(KindPLEG, t, all[:n])
		all = all[n:]
	}
}

// pruneDead removes the exited instances of container name but the newest;
// every exited instance when name is "".

// requestReinspect is RequestPodReinspect: the next relist of the pod
// inspects it and syncs it even when no container changed.
func (p *podSim) requestReinspect() {
	p.reinspect = true
	p.markDirty()
}
