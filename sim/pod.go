package sim

import (
	"math/rand/v2"
	"time"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim/internal/engine"
	"github.com/kubeletlogic/kubeletlogic/termination"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podSim simulates one pod on the node: the kubelet's pod-manager entry,
// pod worker, PLEG record, probe workers and status-manager entry for it,
// and the runtime's view of its sandboxes and containers. Pods on the
// simulated node do not affect one another (the model has no shared
// resource), so each pod runs on its own event loop, with the node's
// periodic loops in the same phase for all of them and its own stream of
// random numbers; the Node merges their entries in time order.
type podSim struct {
	node *nodeState // what every pod of the node shares, read-only
	// arena is the entry arena of the worker running the pod (nil: none).
	arena *entryArena
	loop  engine.Loop
	rng   *rand.Rand
	// procRng draws what the script leaves random (procdraw.go), apart
	// from the kubelet's own draws in rng.
	procRng *rand.Rand
	// entries are the entries not reported yet; last is the time of the
	// last entry; syncs counts the syncs run.
	entries []Entry
	last    time.Duration
	syncs   int
	// volumesMounted: a SyncPod ran for the pod while it had a volume
	// mounted into a container, so SyncTerminatedPod waits for the volume
	// manager to unmount it.
	volumesMounted bool
	// index is the pod's place on the node (the order pods were added;
	// Simulate's input order): it seeds rng and picks the sandbox IP.
	index int
	// heapIndex is the pod's place in the Node's wake-up heap; reporting
	// is set while it is on the Node's list of pods with entries.
	heapIndex int
	reporting bool

	key    string // namespace/name
	script Script
	pod    *v1.Pod // as the kubelet's pod manager holds it
	static bool
	rt     fakeRuntime
	mem    Memory
	// cache is the PLEG cache's runtime state and when it was read;
	// record is what the last relist saw (instance or sandbox ID ->
	// state).
	cache     *runtimestate.Pod
	cacheTime time.Time
	record    map[string]string
	// relistAt's buffers.
	plegCur  []plegItem
	plegGone []string
	events   []plegEvent
	died     []string
	// plegBuf is where relistAt's buffers start (initPlegBuffers).
	plegBuf struct {
		cur    [6]plegItem
		events [4]plegEvent
		gone   [2]string
		died   [2]string
	}
	seen bool
	// pod worker
	busy        bool
	pending     bool
	lastSyncEnd time.Time
	workDue     time.Time
	workTick    func(int64) // onWorkTick, made once
	gcTick      func(int64) // onGCTick, made once
	gc          gcPark
	// readinessTick and relistTick: triggerReadiness and onRelist, made
	// once.
	readinessTick func()
	relistTick    func(int64)
	// freePlay is a syncPlay whose sync has finished, for the next sync
	// to play on (nil: none).
	freePlay *syncPlay
	// playing is the sync playing out (nil: none), whose call in flight
	// the runtime ledger counts until it returns or is abandoned.
	playing *syncPlay
	// statusMemo lets SyncPod skip a status step that would store
	// nothing, as the last one did.
	statusMemo statusMemo
	// lastLine is the message of the last sync's entry, for its work and
	// decision (syncLine).
	lastLine         string
	lastLineWork     termination.WorkType
	lastLineDecision string
	// restartsCell is the last RESTARTS cell made and what it was made
	// from (fillStatus).
	restartsCell struct {
		valid     bool
		n         int
		last, now time.Time
		cell      string
	}
	// lastShowLine is the message of the last status entry (showLine).
	lastShowLine struct {
		column, ready, msg string
		restarts           int32
	}
	grace    int64
	finished bool
	created  map[string]int // instances created per container name
	pulls    map[string]int // PullImage calls made per image
	// sandboxIP is the IP of the pod's sandboxes, imageRefs the image IDs
	// by image (made once).
	sandboxIP   string
	imageRefs   map[string]string
	probes      []*prober
	probesAdded bool
	// API object
	api        *v1.PodStatus
	apiGone    bool
	finalizers bool
	removed    bool
	// eviction is the status function of an eviction (Action.Evict) the
	// worker's SyncTerminatingPod applies; nil: none.
	eviction  *Eviction
	lastShown string
	// forgotten: housekeeping removed the finished worker of a removed
	// pod.
	forgotten bool
	// leftover: forgotten and its API object gone, with containers or
	// sandboxes left for the container GC (leaveForGC); gcOrder draws
	// the GC's orders (shuffle).
	leftover bool
	gcOrder  *rand.Rand
	// down: the kubelet process is stopped (kubeletrestart.go); a stop
	// requested during a sync waits for it to end.
	down          bool
	stopRequested bool
	stopAfterSync time.Duration
	// dirty: the runtime changed since the last relist of the pod;
	// relists are the relist times with an event scheduled.
	dirty   bool
	relists map[int64]bool // by time in nanoseconds since the Unix epoch
	// ownExits are the processes' own exits scheduled (ownExitAt), each
	// under a key from ownExitKeys; ownExitTick is onOwnExit, made once.
	// The loop's Clear drops them too (clearLoop).
	ownExits    []ownExit
	ownExitKeys int64
	ownExitTick func(int64)
	// housekeeping and deadline checks scheduled.
	housekeeping bool
	deadline     time.Time
	// rz is the allocation manager's part (allocation.go); reinspect: the
	// PLEG inspects the pod at its next relist (after a resize).
	rz        resizeState
	reinspect bool
}

// released reports whether the kubelet forgot the pod's worker and no API
// object is left: the node no longer has the pod (its name may be used
// again). done reports whether the simulation of the pod is over: released,
// and the container GC removed what it left in the runtime.
func (p *podSim) released() bool { return p.forgotten && (p.static || p.apiGone) }

func (p *podSim) done() bool {
	return p.released() && len(p.rt.containers) == 0 && len(p.rt.sandboxes) == 0
}

// runUntil runs the pod's events due at or before t, and stops early when
// the pod is done.
func (p *podSim) runUntil(t time.Time) {
	for !p.done() && p.loop.RunNext(t) {
		if !p.leftover && p.released() && !p.done() {
			p.leaveForGC()
		}
	}
	if p.done() {
		p.abandonPlay()
		p.clearLoop()
		return
	}
	if p.loop.Now.Before(t) {
		p.loop.Now = t
	}
}

// clearLoop drops every event of the pod's loop, and the own exits
// waiting for theirs.
func (p *podSim) clearLoop() {
	p.loop.Clear()
	clear(p.ownExits)
	p.ownExits = p.ownExits[:0]
}

// at schedules fn on the pod's loop at t (a time before now: now).
func (p *podSim) at(t time.Time, fn func()) { p.loop.At(t, fn) }

// jitter is wait.Jitter(d, 0.5): uniform in [d, 1.5 d).
func (p *podSim) jitter(d time.Duration) time.Duration {
	return d + time.Duration(p.rng.Float64()*0.5*float64(d))
}

// log records an entry; the caller may fill in its details until the next
// call of log.
func (p *podSim) log(kind EntryKind, at time.Time, msg string) *Entry {
	d := at.Sub(p.node.start)
	if d > p.last {
		p.last = d
	}
	p.entries = append(p.entries, Entry{At: d, Pod: p.pod.Name, Kind: kind, Message: msg})
	return &p.entries[len(p.entries)-1]
}

// ---- the outside ----

func (p *podSim) add() {
	ts := metav1.NewTime(p.loop.Now.Truncate(time.Second))
	if p.pod.CreationTimestamp.IsZero() {
		p.pod.CreationTimestamp = ts
	}
	p.log(KindAction, p.loop.Now, "pod added to the kubelet")
	if !p.static {
		// The API server's status of a new pod.
		p.api = &v1.PodStatus{Phase: v1.PodPending}
		e := p.log(KindAPI, p.loop.Now, "pod created: phase Pending")
		e.API = APICreated
		p.fillStatus(e, *p.api)
	}
	p.admitPod()
	p.update(termination.Update{Type: termination.UpdateCreate, Pod: p.pod})
}

func (p *podSim) act(a Action) {
	entry := p.log(KindAction, p.loop.Now, a.String())
	switch {
	case a.Delete != nil:
		p.apiDelete(*a.Delete)
	case a.Remove:
		p.remove()
	case a.RemoveFinalizers:
		p.apiRemoveFinalizers()
	case a.KillContainer != "":
		for i := len(p.rt.containers) - 1; i >= 0; i-- {
			in := p.rt.containers[i]
			if in.c.Name == a.KillContainer && in.c.State == runtimestate.Running {
				p.exit(in, 137, p.loop.Now)
				entry = nil
				break
			}
		}
		if entry != nil {
			entry.Message += ": no running instance, nothing killed"
		}
	case a.KillSandbox:
		for i := range p.rt.sandboxes {
			p.rt.sandboxes[i].Ready = false
		}
		p.markDirty()
	case a.AddEphemeral != nil:
		pod := p.pod.DeepCopy()
		pod.Spec.EphemeralContainers = append(pod.Spec.EphemeralContainers, *a.AddEphemeral.DeepCopy())
		// A change of the spec, which the API server counts
		// (registry/core/pod/strategy.go: the ephemeralcontainers
		// subresource's PrepareForUpdate, updatePodGeneration).
		pod.Generation++
		apidefaults.Pod(pod)
		p.pod = pod
		p.update(termination.Update{Type: termination.UpdateUpdate, Pod: p.pod})
	case a.Resize != nil || a.ResizePod != nil:
		p.resize(a.Resize, a.ResizePod)
	case a.OtherRequests != nil:
		p.otherRequests(*a.OtherRequests)
	case a.SetCondition != nil:
		p.apiSetCondition(*a.SetCondition, entry)
	case a.RestartKubelet != nil:
		p.restartKubelet(a.RestartKubelet.D(), entry)
	case a.Evict != nil:
		p.evict(*a.Evict, entry)
	}
}

// remove: the pod is gone from the kubelet's configuration (REMOVE).
func (p *podSim) remove() {
	if p.removed {
		return
	}
	p.removed = true
	p.scheduleHousekeeping()
	if !p.static {
		p.gone()
	}
	p.update(termination.Update{Type: termination.UpdateKill, Pod: p.pod, Kill: &termination.KillRequest{}})
}

func (p *podSim) gone() {
	if p.apiGone {
		return
	}
	p.apiGone = true
	if !p.static {
		p.log(KindAPI, p.loop.Now, "API object deleted").API = APIGone
	}
}

// abandonPlay ends the sync playing out before the pod's loop is cleared:
// its call in flight no longer counts in the runtime's contention.
func (p *podSim) abandonPlay() {
	if sp := p.playing; sp != nil {
		if l := p.node.ledger; l != nil {
			l.done(sp)
		}
		p.playing = nil
	}
}
