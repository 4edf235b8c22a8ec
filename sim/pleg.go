package sim

import (
	"slices"
	"sort"
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

// relistAt diffs the runtime against the last relist and updates the cache.
func (p *podSim) relistAt(t time.Time) {
	// Two maps take turns as the record, so a relist allocates none.
	cur := p.spare
	if cur == nil {
		cur = map[string]string{}
	}
	clear(cur)
	for _, sb := range p.rt.sandboxes {
		if sb.Ready {
			cur[sb.ID] = "running"
		} else {
			cur[sb.ID] = "exited"
		}
	}
	for _, in := range p.rt.containers {
		cur[in.c.ID] = plegState(in.c)
	}
	events := p.events[:0]
	defer func() { clear(events); p.events = events[:0] }()
	// died are the names of the containers with an instance that died,
	// each once (a buffer of the pod's, as events).
	died := p.died[:0]
	anyDied := false
	ids := p.ids[:0]
	for id := range cur {
		ids = append(ids, id)
	}
	for id := range p.record {
		if _, ok := cur[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		old, now := p.record[id], cur[id]
		if old == now {
			continue
		}
		switch now {
		case "running":
			events = append(events, "ContainerStarted "+id)
		case "exited":
			events = append(events, "ContainerDied "+id)
			anyDied = true
			if in := p.rt.find(id); in != nil {
				if !slices.Contains(died, in.c.Name) {
					died = append(died, in.c.Name)
				}
			}
		case "":
			if old == "running" || old == "unknown" {
				events = append(events, "ContainerDied "+id)
				anyDied = true
			}
			events = append(events, "ContainerRemoved "+id)
		}
	}
	p.ids = ids[:0]
	p.record, p.spare = cur, p.record
	reinspect := p.reinspect
	p.reinspect = false
	if len(events) == 0 && p.seen && !reinspect {
		return
	}
	if len(events) == 0 && reinspect {
		// A full reinspection always syncs the pod (reconcilePodRecord).
		events = append(events, "PodSync")
	}
	p.seen = true
	p.cache = p.rt.snapshot(t)
	p.cacheTime = t
	worthy := false
	for _, e := range events {
		p.log(KindPLEG, t, e)
		if len(e) < 16 || e[:16] != "ContainerRemoved" {
			worthy = true
		}
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
	clear(died)
	p.died = died[:0]
	if worthy {
		p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
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
