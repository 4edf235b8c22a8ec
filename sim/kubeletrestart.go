package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim/internal/engine"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// ---- a restart of the kubelet process (Action.RestartKubelet) ----
//
// The kubelet keeps what it knows of pods in memory; its checkpoints on
// disk here are the actuated resources (allocation/state). Stopping the
// process (SIGTERM) loses the rest; the container runtime keeps running
// the containers, which go on exiting as their scripts say. The new
// process (cmd/kubelet, kubelet.go Run) starts its PLEG, whose first
// relist (pleg/generic.go relist with an empty record) reports every
// container and sandbox as an event, and receives its pods from the
// config sources again (SyncLoop ADD): new pod workers (pod_workers.go),
// a new status manager whose status is re-derived from the API object and
// the runtime (generateAPIPodStatus), new probe workers with a random
// first delay (prober/worker.go run: within a period of the kubelet's
// start), no crash-loop back-off record (kuberuntime_manager.go
// doBackOff: a new flowcontrol.Backoff), an empty reason cache, and its
// periodic loops (sync tick, housekeeping, container GC, status sweep) in
// new phases.
//
// Modelled as one step: a restart that comes while a sync runs takes
// effect when that sync's calls are done (the model plays a sync out as
// one decision). During the downtime the kubelet does nothing: updates,
// relists and probes wait for the new process, which sees the pod as the
// API object (or the manifest) is when it starts.

// restartKubelet stops the kubelet now (or when its sync in flight ends)
// and starts it again after down.
func (p *podSim) restartKubelet(down time.Duration, entry *Entry) {
	if p.down {
		entry.Message += ": the kubelet is already stopped, nothing changes"
		return
	}
	if p.busy {
		p.stopAfterSync = down
		p.stopRequested = true
		return
	}
	p.stopKubelet(down)
}

// kubeletStopRequested, at the end of a sync, stops the kubelet a restart
// waited for; true when it did.
func (p *podSim) kubeletStopRequested() bool {
	if !p.stopRequested {
		return false
	}
	p.stopRequested = false
	p.stopKubelet(p.stopAfterSync)
	return true
}

func (p *podSim) stopKubelet(down time.Duration) {
	p.down = true
	p.log(KindSync, p.loop.Now, fmt.Sprintf("kubelet stopped (starts again in %s): its memory of the pod is lost; the containers keep running", down)).Work = "kubelet stopped"
	// Everything scheduled was the kubelet's but the processes' own exits.
	p.abandonPlay()
	p.clearLoop()
	p.gc.parked = false // no pass while the kubelet is down
	for _, in := range p.rt.containers {
		p.scheduleOwnExit(in, p.loop.Now)
	}
	for _, w := range p.probes {
		w.stopped = true
	}
	p.mem = Memory{Actuated: p.mem.Actuated}
	p.rz.pending, p.reinspect = false, false
	p.cache, p.cacheTime = nil, time.Time{}
	p.record, p.seen, p.dirty = map[string]string{}, false, false
	p.busy, p.pending, p.finished = false, false, false
	p.lastSyncEnd, p.workDue, p.deadline = time.Time{}, time.Time{}, time.Time{}
	p.grace = 0
	p.eviction = nil
	p.probes, p.probesAdded = nil, false
	p.relists = map[int64]bool{}
	p.housekeeping = false
	p.at(p.loop.Now.Add(down), p.startKubelet)
}

// scheduleOwnExit schedules the exit of a running process that ends on its
// own (Run.ExitAfter from its start, at now at the earliest), as
// StartContainer did: after a restart of the kubelet, whose loop lost what
// was scheduled, and for an adopted pod's processes.
func (p *podSim) scheduleOwnExit(in *instance, now time.Time) {
	d := in.run.ExitAfter.D()
	if d <= 0 || in.c.State != runtimestate.Running {
		return
	}
	at := in.c.StartedAt.Add(d)
	if at.Before(now) {
		at = now
	}
	p.ownExitAt(in, at)
}

// startKubelet is the new kubelet process.
func (p *podSim) startKubelet() {
	now := p.loop.Now
	// The new process's loops: the PLEG relists and the container GC runs
	// at its start (gcFromStart), the status manager sweeps 10 s after it,
	// housekeeping ticks with every second sync tick (syncTicks), the sync
	// tick's phase is drawn from the seed and the start time (the same for
	// every pod restarted at that time).
	cfg := p.node.cfg
	rng := rand.New(rand.NewPCG(cfg.Seed^0x2545f4914f6cdd1d, uint64(now.UnixNano())))
	ph := func(period time.Duration) time.Time { return now.Add(time.Duration(rng.Float64() * float64(period))) }
	st := *p.node
	st.kubeletUp = now
	st.clocks.Relist = now
	st.clocks.Tick, st.clocks.Housekeep = syncTicks(ph(time.Second), rng.Float64())
	st.clocks.GC = gcFromStart(now)
	// The status manager's ticker starts with the process, just before
	// the PLEG's first relist (kubelet.go Run: statusManager.Start, then
	// pleg.Start); its first sweep comes a whole period later
	// (status_manager.go Start: time.NewTicker).
	st.clocks.StatusSync = now.Add(10 * time.Second)
	p.node = &st
	p.log(KindSync, now, "kubelet started: the first relist reports every container; the pod comes from its source again").Work = "kubelet started"
	p.down = false
	p.armGC(engine.NextAfter(st.clocks.GC, time.Minute, now.Add(-time.Nanosecond)))
	// The pod reaches the new pod worker (SyncLoop ADD) before the PLEG's
	// first relist reports its containers (as captured), but the worker's
	// first sync waits for that relist (pod_workers.go podWorkerLoop,
	// GetNewerThan): held as if busy until the relist filled the cache.
	p.busy = true
	if p.removed {
		// Not in the kubelet's configuration any more: the new process
		// has no pod worker for it. Housekeeping kills what still runs of
		// it as an orphan, grace 1 s, with no status
		// (kubelet_pods.go HandlePodCleanups over the runtime cache's
		// running pods: running containers and ready sandboxes;
		// kubelet.go SyncTerminatingRuntimePod); when nothing runs, it
		// is simply unknown to the pod workers.
		if p.rt.running() || p.rt.sandboxReady() {
			one := int64(1)
			p.update(termination.Update{Type: termination.UpdateKill, RuntimeOnly: true, Kill: &termination.KillRequest{GracePeriodOverride: &one}})
		} else {
			p.forgotten = true
			p.log(KindSync, now, "the removed pod is unknown to the new kubelet and nothing of it runs: no pod worker").Work = "forgotten"
		}
	} else {
		p.update(termination.Update{Type: termination.UpdateCreate, Pod: p.pod})
		p.resizesAfterRestart()
	}
	p.relistAt(now)
	p.busy = false
	p.tryRun()
}
