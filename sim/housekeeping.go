package sim

import (
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
			e := p.log(KindCRI, t, c.String()+" (container clean-up)")
			e.Call = &c
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

// containerGC is the container garbage collector, every minute
// (kuberuntime_gc.go): exited instances beyond one per container name, and
// every exited instance of a pod whose content may be removed.
func (p *podSim) containerGC() {
	if p.forgotten || termination.Query(p.mem.Worker, true, p.node.cfg.Kubelet.Features).ShouldPodContentBeRemoved {
		p.pruneDead("", p.loop.Now)
	} else {
		// The container names, sorted, without a map: few per pod.
		var buf [8]string
		sorted := buf[:0]
		for _, in := range p.rt.containers {
			if !slices.Contains(sorted, in.c.Name) {
				sorted = append(sorted, in.c.Name)
			}
		}
		sort.Strings(sorted)
		for _, name := range sorted {
			p.pruneDead(name, p.loop.Now)
		}
	}
	if p.gcTick == nil {
		p.gcTick = p.containerGC
	}
	p.at(p.loop.Now.Add(time.Minute), p.gcTick)
}
