package sim

import (
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim/internal/engine"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// The kubelet's clean-up of dead containers and of pods it no longer has:
// the container deletor, the container garbage collector and housekeeping.

// pruneDead removes the exited instances of container name but the newest;
// every exited instance when name is "".
func (p *podSim) pruneDead(name string, t time.Time) {
	kept := 0
	keep := 1
	if name == "" {
		keep = 0
	}
	for i := len(p.rt.containers) - 1; i >= 0; i-- {
		in := p.rt.containers[i]
		if (name != "" && in.c.Name != name) || in.c.State != runtimestate.Exited {
			continue
		}
		kept++
		if kept > keep {
			at := t.Sub(p.node.start)
			c := Call{Method: "RemoveContainer", Name: in.c.Name, ID: in.c.ID, At: at, Done: at}
			e := p.log(KindCRI, t, c.text(" (container clean-up)"))
			e.Call = p.newCall(c)
			p.rt.remove(in.c.ID, false)
			p.markDirty()
		}
	}
}

// housekeeping is HandlePodCleanups every 2 s: a worker whose pod is no
// longer in the kubelet's configuration is marked deleted (SyncKnownPods,
// removeTerminatedWorker), and forgotten once finished. It is simulated
// only for a removed pod, the only one it changes.
func (p *podSim) scheduleHousekeeping() {
	if p.housekeeping {
		return
	}
	p.housekeeping = true
	p.at(engine.NextAfter(p.node.clocks.Housekeep, 2*time.Second, p.loop.Now), p.housekeep)
}

func (p *podSim) housekeep() {
	if p.mem.Worker == nil {
		p.housekeeping = false
		return
	}
	w := *p.mem.Worker
	w.Deleted = true
	if w.Finished {
		p.mem.Worker = nil
		p.forgotten = true
		p.housekeeping = false
		p.log(KindSync, p.loop.Now, "housekeeping forgets the finished pod worker (the UID may be used again)").Work = "forgotten"
		return
	}
	p.mem.Worker = &w
	p.at(p.loop.Now.Add(2*time.Second), p.housekeep)
}

// containerGC is one pass of the container garbage collector, every
// minute in the node's phase (kubelet.go StartGarbageCollection,
// ContainerGCPeriod; kuberuntime/kuberuntime_gc.go GarbageCollect with the
// default policy: MinAge 0, MaxPerPodContainer 1, MaxContainers -1).
//
//   - evictContainers: the pod's non-running instances, grouped by
//     container name (evictUnit). When the pod's content may be removed
//     (podStateProvider ShouldPodContentBeRemoved: deleted and terminated,
//     or unknown to the pod workers once housekeeping forgot it) every
//     instance goes, otherwise all but the newest of each name
//     (enforceMaxContainersPerEvictUnit, removeOldestN: oldest first).
//   - evictSandboxes, after the removals: a sandbox is active when it is
//     ready or any container instance still refers to it. A removable
//     pod loses every inactive sandbox; another keeps its newest sandbox
//     and loses the older inactive ones (removeOldestNSandboxes). Each
//     removal is StopPodSandbox then RemovePodSandbox (removeSandbox).
//
// The calls follow one another, each taking the script's runtime delay
// (RemovePodSandbox that of RemoveContainer: not captured separately). The
// order of the container names and, for a removable pod, of the instances
// and sandboxes is the kubelet's map order and containerd's list order:
// drawn from the seed (gcOrder). Created and unknown instances are not
// collected: the simulated runtime has none outside a sync.
func (p *podSim) containerGC() {
	if p.gcIdle() {
		// Nothing to evict whether or not the pod's content may be
		// removed: the pass is skipped without asking.
		p.parkGC()
		return
	}
	removable := p.forgotten || termination.Query(p.mem.Worker, true, p.node.cfg.Kubelet.Features).ShouldPodContentBeRemoved
	if !removable && !p.gcHasWork() {
		// The common pass: at most one exited instance per name and one
		// sandbox, so nothing to evict; skipped without allocating.
		p.parkGC()
		return
	}
	// evictContainers: the evict units, each newest first.
	var units [][]*instance
	for i := len(p.rt.containers) - 1; i >= 0; i-- {
		in := p.rt.containers[i]
		if in.c.State != runtimestate.Exited {
			continue
		}
		k := slices.IndexFunc(units, func(u []*instance) bool { return u[0].c.Name == in.c.Name })
		if k < 0 {
			units = append(units, []*instance{in})
		} else {
			units[k] = append(units[k], in)
		}
	}
	for _, u := range units {
		sort.SliceStable(u, func(i, j int) bool { return u[i].c.CreatedAt.After(u[j].c.CreatedAt) })
	}
	var victims []*instance
	if removable {
		p.shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })
		for _, u := range units {
			p.shuffle(len(u), func(i, j int) { u[i], u[j] = u[j], u[i] })
			for i := len(u) - 1; i >= 0; i-- {
				victims = append(victims, u[i])
			}
		}
	} else {
		var more [][]*instance
		for _, u := range units {
			if len(u) > 1 {
				more = append(more, u)
			}
		}
		p.shuffle(len(more), func(i, j int) { more[i], more[j] = more[j], more[i] })
		for _, u := range more {
			for i := len(u) - 1; i >= 1; i-- {
				victims = append(victims, u[i])
			}
		}
	}
	delays := p.script.Runtime
	// The pass decides what to remove from the lists it read at its start
	// (kuberuntime_gc.go GarbageCollect), then makes the calls one after
	// another: each removal takes effect when its call returns (runGC).
	var steps []gcStep
	for _, in := range victims {
		id := in.c.ID
		steps = append(steps, gcStep{Call{Method: "RemoveContainer", Name: in.c.Name, ID: id}, delays.RemoveContainer.D(), func() {
			p.rt.remove(id, false)
			p.markDirty()
		}})
	}
	// evictSandboxes.
	sbs := slices.Clone(p.rt.sandboxes)
	var gone []string
	if removable {
		p.shuffle(len(sbs), func(i, j int) { sbs[i], sbs[j] = sbs[j], sbs[i] })
		for i := len(sbs) - 1; i >= 0; i-- {
			if !p.sandboxActive(sbs[i], victims) {
				gone = append(gone, sbs[i].ID)
			}
		}
	} else if len(sbs) > 1 {
		sort.SliceStable(sbs, func(i, j int) bool { return sbs[i].CreatedAt.After(sbs[j].CreatedAt) })
		for i := len(sbs) - 1; i >= 1; i-- {
			if !p.sandboxActive(sbs[i], victims) {
				gone = append(gone, sbs[i].ID)
			}
		}
	}
	for _, id := range gone {
		steps = append(steps, gcStep{Call{Method: "StopPodSandbox", ID: id}, delays.StopPodSandbox.D(), func() {}},
			gcStep{Call{Method: "RemovePodSandbox", ID: id}, delays.RemoveContainer.D(), func() {
				p.rt.sandboxes = slices.DeleteFunc(p.rt.sandboxes, func(sb runtimestate.Sandbox) bool { return sb.ID == id })
				p.markDirty()
			}})
	}
	p.scheduleGC()
	p.runGC(steps)
}

// gcStep is one CRI call of a container GC pass: the call, how long it
// takes, and its effect on the runtime once it returned.
type gcStep struct {
	c     Call
	d     time.Duration
	apply func()
}

// runGC makes the pass's calls in order, each after the previous one
// returned, so that a relist in between sees the runtime as it is.
func (p *podSim) runGC(steps []gcStep) {
	if len(steps) == 0 {
		return
	}
	t := p.gcCall(steps[0].c, p.loop.Now, steps[0].d)
	p.at(t, func() {
		steps[0].apply()
		p.runGC(steps[1:])
	})
}

// scheduleGC schedules the next pass a minute after this one started
// (kubelet.go StartGarbageCollection, ContainerGCPeriod).
func (p *podSim) scheduleGC() { p.armGC(p.loop.Now.Add(time.Minute)) }

// armGC schedules the pass at t, a tick of the GC clock; a pass scheduled
// before it no longer runs.
func (p *podSim) armGC(t time.Time) {
	if p.gcTick == nil {
		p.gcTick = p.onGCTick // made once per pod
	}
	p.gc.gen++
	p.gc.parked = false
	p.gc.at = t
	p.loop.AtCall(t, p.gcTick, p.gc.gen)
}

// onGCTick runs the pass armed as gen, unless a later one replaced it.
func (p *podSim) onGCTick(gen int64) {
	if gen != p.gc.gen {
		return
	}
	p.containerGC()
}

// gcPark is the GC clock of a pod whose last pass found nothing to do.
// Whether a pass has work (containerGC: the pod's content removable, two
// exited instances of a name, two sandboxes) changes only when something
// happens to the pod: an event on its loop or a delivery (Node.deliver).
// So the passes before the pod's next event would find nothing either, and
// do nothing: the next pass is armed at the first tick at or after that
// event (none, with no event), and a delivery before it arms the first
// tick at or after the delivery (unparkGC). Skipping the empty passes
// saves waking the pod every minute for nothing; no pass that has work is
// missed, and the order of a pass among events at the same instant is
// kept (the events of that instant were all scheduled before the skipped
// ticks, so before the pass, in both ways).
type gcPark struct {
	gen    int64     // the armed pass's number (onGCTick)
	parked bool      // the passes from next on are skipped
	next   time.Time // the first tick skipped
	at     time.Time // the pass armed (zero: none)
}

// parkGC follows a pass that found nothing to do: the next pass is a
// minute after it, unless the pod has no event before then (gcPark).
func (p *podSim) parkGC() {
	next := p.loop.Now.Add(time.Minute)
	e, ok := p.loop.Next()
	if ok && !e.After(next) || p.node.cfg.eagerGC {
		p.armGC(next)
		return
	}
	if !ok {
		p.gc.gen++ // nothing armed
		p.gc.parked, p.gc.next, p.gc.at = true, next, time.Time{}
		return
	}
	p.armGC(tickAtOrAfter(next, e))
	p.gc.parked, p.gc.next = true, next
}

// unparkGC is a delivery at the pod's now: a pass skipped from then on is
// armed again (gcPark), the first tick at or after now.
func (p *podSim) unparkGC() {
	if !p.gc.parked {
		return
	}
	t := tickAtOrAfter(p.gc.next, p.loop.Now)
	if !p.gc.at.IsZero() && !t.Before(p.gc.at) {
		return // the armed pass is that tick's
	}
	p.armGC(t)
}

// tickAtOrAfter is the first tick of a clock ticking every minute from
// tick that is at or after t.
func tickAtOrAfter(tick, t time.Time) time.Time {
	if !t.After(tick) {
		return tick
	}
	k := (t.Sub(tick) + time.Minute - 1) / time.Minute
	return tick.Add(k * time.Minute)
}

// gcHasWork reports whether a pass over a pod whose content may not be
// removed would evict anything: two exited instances of one container
// name, or more than one sandbox.
func (p *podSim) gcHasWork() bool {
	if len(p.rt.sandboxes) > 1 {
		return true
	}
	for i, a := range p.rt.containers {
		if a.c.State != runtimestate.Exited {
			continue
		}
		for _, b := range p.rt.containers[i+1:] {
			if b.c.State == runtimestate.Exited && b.c.Name == a.c.Name {
				return true
			}
		}
	}
	return false
}

// gcIdle reports whether a pass would do nothing, whether or not the
// pod's content may be removed: no exited instance (no evict unit), and
// at most one sandbox (nothing to shuffle), active.
func (p *podSim) gcIdle() bool {
	if len(p.rt.sandboxes) > 1 {
		return false
	}
	for _, in := range p.rt.containers {
		if in.c.State == runtimestate.Exited {
			return false
		}
	}
	for _, sb := range p.rt.sandboxes {
		if !p.sandboxActive(sb, nil) {
			return false
		}
	}
	return true
}

// sandboxActive is evictSandboxes' test: the sandbox is ready or a
// container instance refers to it. The kubelet tests it after the pass's
// container removals, so the instances of removed (being removed by this
// pass) do not count.
func (p *podSim) sandboxActive(sb runtimestate.Sandbox, removed []*instance) bool {
	if sb.Ready {
		return true
	}
	return slices.ContainsFunc(p.rt.containers, func(in *instance) bool {
		return in.c.SandboxID == sb.ID && !slices.Contains(removed, in)
	})
}

// gcCall logs a call of the container garbage collector made at t and
// lasting d, and returns when it returned.
func (p *podSim) gcCall(c Call, t time.Time, d time.Duration) time.Time {
	c.At = t.Sub(p.node.start)
	c.Done = c.At + d
	e := p.log(KindCRI, t, c.text(" (container GC)"))
	e.Call = p.newCall(c)
	return t.Add(d)
}

// shuffle puts n things in the order the kubelet's map iteration or the
// runtime's list gives them: random, from the pod's GC stream (its own,
// so that a pass leaves the pod's other draws as they were).
func (p *podSim) shuffle(n int, swap func(i, j int)) {
	if n < 2 {
		return
	}
	if p.gcOrder == nil {
		p.gcOrder = rand.New(rand.NewPCG(p.node.cfg.Seed^0x2545f4914f6cdd1d, uint64(p.index)+1))
	}
	p.gcOrder.Shuffle(n, swap)
}

// leaveForGC is the pod after housekeeping forgot it and its API object
// went (released): the kubelet runs nothing for it any more, but its exited
// containers and stopped sandboxes stay in the runtime until the next
// pass of the container garbage collector removes them (the pod is then
// unknown to the pod workers: ShouldPodContentBeRemoved). Only that pass
// is left on the pod's loop.
func (p *podSim) leaveForGC() {
	p.leftover = true
	p.abandonPlay()
	p.clearLoop()
	p.dirty = false
	clear(p.relists)
	p.armGC(engine.NextAfter(p.node.clocks.GC, time.Minute, p.loop.Now))
}
