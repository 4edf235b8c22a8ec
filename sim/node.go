package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/validation"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// DefaultStart is the virtual wall-clock time a simulation starts at when
// Config.Start is zero.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Config is a simulated node.
type Config struct {
	// Kubelet is the kubelet's configuration (zero: v1.37.2 defaults).
	Kubelet Kubelet `json:"kubelet,omitzero"`
	// Seed seeds every random choice the kubelet makes (requeue jitter,
	// probe start jitter): the same seed gives the same timeline.
	Seed uint64 `json:"seed,omitempty"`
	// Start is the virtual time the simulation starts at (zero:
	// DefaultStart). Nothing reads the wall clock.
	Start time.Time `json:"start,omitzero"`
	// KubeletUptime is how long the kubelet has been running at Start
	// (0: one hour). Probe workers created within one probe period of the
	// kubelet's start wait a random part of the period first.
	KubeletUptime Duration `json:"kubeletUptime,omitempty"`
	// For is how long to simulate (0: 10 minutes); the simulation of a
	// pod also ends when it is gone and the kubelet is done with it.
	For Duration `json:"for,omitempty"`
	// Parallelism is how many pods are simulated at once (0: GOMAXPROCS).
	// It does not change the timeline.
	Parallelism int `json:"parallelism,omitempty"`
	// Observe, when set, receives every entry instead of the timeline
	// (Timeline.Entries stays empty, so memory does not grow with the
	// length of the run). It is called from several goroutines at once,
	// one per pod being simulated; the entries of one pod come in time
	// order.
	Observe func(Entry) `json:"-"`
}

// PodInput is one pod of a simulation, with what happens to it.
type PodInput struct {
	// Pod is the pod. API defaults are applied (apidefaults.Pod), a
	// missing UID is derived from the name; a pod the API server would
	// reject (validation.Pod) is an error. A pod whose
	// kubernetes.io/config.source annotation is present and is not "api"
	// (a file or URL source) is a static pod: it has no API object. A pod
	// without the annotation is an API pod, as the kubelet's IsStaticPod
	// reads a missing source (phase.IsStaticPod).
	Pod *v1.Pod `json:"pod"`
	// At is when the kubelet receives the pod.
	At Duration `json:"at,omitempty"`
	// Script is what its containers and the runtime do.
	Script Script `json:"script,omitzero"`
	// Actions are what the outside does to it, at given times.
	Actions []Action `json:"actions,omitempty"`
}

// Action is one thing the outside does to a pod, at a time counted from
// the start of the simulation. Exactly one kind is set.
type Action struct {
	At Duration `json:"at"`
	// Delete deletes the pod through the API with this grace period
	// (-1: the pod's terminationGracePeriodSeconds), as kubectl delete
	// --grace-period does. The kubelet sees an update carrying the
	// deletion timestamp; a static pod is removed instead.
	Delete *int64 `json:"delete,omitempty"`
	// Remove makes the pod disappear from the kubelet's configuration
	// at once: its static manifest is removed, or it is force-deleted.
	Remove bool `json:"remove,omitempty"`
	// RemoveFinalizers clears the API object's finalizers.
	RemoveFinalizers bool `json:"removeFinalizers,omitempty"`
	// KillContainer SIGKILLs the process of the named container's running
	// instance (exit code 137), as `ctr tasks kill -s SIGKILL` does.
	KillContainer string `json:"killContainer,omitempty"`
	// KillSandbox kills the sandbox's pause process: the sandbox is no
	// longer ready.
	KillSandbox bool `json:"killSandbox,omitempty"`
	// AddEphemeral adds an ephemeral container (kubectl debug).
	AddEphemeral *v1.EphemeralContainer `json:"addEphemeral,omitempty"`
	// Resize resizes containers in place (kubectl patch pod --subresource
	// resize): by container name, the requests and limits to set; each
	// one given replaces the container's own. The kubelet is taken to
	// admit it at once; see resize.go's notes for what is modelled.
	Resize map[string]v1.ResourceRequirements `json:"resize,omitempty"`
}

func (a Action) String() string {
	switch {
	case a.Delete != nil && *a.Delete < 0:
		return "delete"
	case a.Delete != nil:
		return fmt.Sprintf("delete --grace-period=%d", *a.Delete)
	case a.Remove:
		return "remove"
	case a.RemoveFinalizers:
		return "remove finalizers"
	case a.KillContainer != "":
		return "kill container " + a.KillContainer
	case a.KillSandbox:
		return "kill sandbox"
	case a.AddEphemeral != nil:
		return "add ephemeral container " + a.AddEphemeral.Name
	case a.Resize != nil:
		return "resize " + resizeWords(a.Resize)
	}
	return "nothing"
}

// EntryKind is what an entry of a timeline records.
type EntryKind string

// The entry kinds.
const (
	// KindAction: the outside did something (Action).
	KindAction EntryKind = "action"
	// KindSync: the pod worker ran a sync function.
	KindSync EntryKind = "sync"
	// KindCRI: the kubelet made a CRI call.
	KindCRI EntryKind = "cri"
	// KindExit: a container process ended.
	KindExit EntryKind = "exit"
	// KindPLEG: a relist saw a change.
	KindPLEG EntryKind = "pleg"
	// KindProbe: a probe result was committed.
	KindProbe EntryKind = "probe"
	// KindStatus: the status manager stored a new status.
	KindStatus EntryKind = "status"
	// KindAPI: the API object changed (status written, deleted, gone).
	KindAPI EntryKind = "api"
)

// Entry is one moment of a timeline.
type Entry struct {
	// At is the time since the start of the simulation.
	At  time.Duration `json:"at"`
	Pod string        `json:"pod"`
	// Kind says which of the fields below is set.
	Kind EntryKind `json:"kind"`
	// Message says what happened in words.
	Message string `json:"message,omitempty"`
	// Call is, on a KindCRI entry, the call; its At and Done count from
	// the start of the simulation, as At does (Call.At equals At).
	Call *Call `json:"call,omitempty"`
	// Status is the pod's status and how kubectl shows it.
	Status *StatusEntry `json:"status,omitempty"`
	// Probe is a committed probe result.
	Probe *ProbeEntry `json:"probe,omitempty"`
	// Work is, on a KindSync entry, the sync function that ran: "sync"
	// (SyncPod), "terminating" (SyncTerminatingPod) or "terminated"
	// (SyncTerminatedPod), or "forgotten" when housekeeping drops the
	// finished worker of a pod that left the kubelet's configuration;
	// empty on the decision messages that follow a sync.
	Work string `json:"work,omitempty"`
	// Exit is, on a KindExit entry, the process that ended.
	Exit *ExitEntry `json:"exit,omitempty"`
	// API is, on a KindAPI entry, what happened to the API object.
	API APIEvent `json:"api,omitempty"`
}

// ExitEntry is a container process that ended.
type ExitEntry struct {
	Container string `json:"container"`
	ID        string `json:"id"`
	ExitCode  int32  `json:"exitCode"`
	// Reason is what the runtime reports: Completed for exit code 0,
	// Error otherwise.
	Reason string `json:"reason"`
}

// APIEvent is what happened to a pod's API object.
type APIEvent string

// The API events.
const (
	// APICreated: the pod was created (its status is the API server's).
	APICreated APIEvent = "created"
	// APIStatus: the kubelet wrote a status.
	APIStatus APIEvent = "status"
	// APIDeleteHeld: the kubelet deleted the object (grace 0) but
	// finalizers hold it.
	APIDeleteHeld APIEvent = "delete held by finalizers"
	// APIDeleted: the kubelet deleted the object (grace 0).
	APIDeleted APIEvent = "deleted by the kubelet"
	// APIGone: the object no longer exists.
	APIGone APIEvent = "gone"
)

// StatusEntry is one stored status.
type StatusEntry struct {
	// Ready, Column and Restarts are kubectl get pod's READY and STATUS
	// cells and the number of its RESTARTS cell (kubectlstatus.Ready,
	// Compute and RestartCount); RestartsColumn is the whole RESTARTS cell
	// at the entry's time, "(<age> ago)" included (kubectlstatus.Restarts;
	// empty in timelines written before it was added).
	Ready          string `json:"ready"`
	Column         string `json:"column"`
	Restarts       int32  `json:"restarts"`
	RestartsColumn string `json:"restartsColumn,omitempty"`
	// Status is the stored status itself.
	Status v1.PodStatus `json:"status"`
	// Generation is the pod's metadata.generation when the status was
	// stored (the API server bumps it when it sets the deletion timestamp
	// and when an ephemeral container is added).
	Generation int64 `json:"generation,omitempty"`
	// By is the kubelet function that stored the status (see
	// StoredStatus), or SetContainerReadiness / SetContainerStartup for
	// the status manager's patches after a probe result: those change
	// one container's ready or started field (and, for readiness, the
	// Ready and ContainersReady conditions) and nothing else. Set on
	// KindStatus entries.
	By string `json:"by,omitempty"`
}

// ProbeEntry is one committed probe result.
type ProbeEntry struct {
	Container string            `json:"container"`
	ID        string            `json:"id"`
	Probe     string            `json:"probe"`
	Result    vocab.ProbeResult `json:"result"`
	// Initial is true for the result the worker sets when it first sees a
	// container instance (readiness Failure, liveness Success, startup
	// Unknown), before any probe ran.
	Initial bool `json:"initial,omitempty"`
}

// Timeline is what happened on the simulated node.
type Timeline struct {
	Start time.Time `json:"start"`
	// End is when the last thing happened (the last entry), as a time
	// since Start; the simulation itself runs until Config.For or until
	// every pod is gone.
	End     time.Duration `json:"end"`
	Seed    uint64        `json:"seed"`
	Entries []Entry       `json:"entries"`
	// Syncs counts the syncs run, for benchmarks.
	Syncs int `json:"syncs"`
}

// event is one thing scheduled on the virtual clock.
type event struct {
	at  time.Time
	seq uint64
	fn  func()
}

type queue []*event

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// node simulates one pod on the node (see Simulate).
type node struct {
	cfg        Config
	start, end time.Time
	now        time.Time
	kubeletUp  time.Time
	clocks     clocks
	rng        *rand.Rand
	q          queue
	seq        uint64
	pod        *podSim
	tl         *Timeline
	delays     RuntimeDelays
	last       time.Duration // time of the last entry
}

// podSim is one pod on the simulated node.
type podSim struct {
	n      *node
	in     PodInput
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
	seen      bool
	// pod worker
	known       bool
	busy        bool
	pending     bool
	lastSyncEnd time.Time
	workDue     time.Time
	grace       int64
	finished    bool
	created     map[string]int // instances created per container name
	probes      []*prober
	probesAdded bool
	// API object
	api        *v1.PodStatus
	apiGone    bool
	finalizers bool
	removed    bool
	lastShown  string
	gen        int
	// forgotten: housekeeping removed the finished worker of a removed
	// pod.
	forgotten bool
	// index is the pod's place in Simulate's input.
	index int
	// dirty: the runtime changed since the last relist of the pod;
	// relists are the relist times with an event scheduled.
	dirty   bool
	relists map[time.Time]bool
	// housekeeping and deadline checks scheduled.
	housekeeping bool
	deadline     time.Time
}

// Simulate simulates a node running pods and returns what happened. It is
// deterministic: the same inputs and seed give the same timeline, whatever
// Config.Parallelism is.
//
// Pods on the simulated node do not affect one another (the model has no
// shared resource), so each pod is simulated on its own, in parallel, with
// the node's timers in the same phase for all of them and its own stream
// of random numbers (drawn from the seed and the pod's index); the
// timelines are then merged in time order.
func Simulate(cfg Config, pods []PodInput) (*Timeline, error) {
	if len(pods) == 0 {
		return nil, errors.New("sim: no pod to simulate")
	}
	start := cfg.Start
	if start.IsZero() {
		start = DefaultStart
	}
	d := cfg.For.D()
	if d <= 0 {
		d = 10 * time.Minute
	}
	up := cfg.KubeletUptime.D()
	if up <= 0 {
		up = time.Hour
	}
	// The kubelet's periodic loops have run since its start; where in its
	// period each one is when the simulation starts depends on when the
	// kubelet started and on how long each relist took, so each phase is
	// drawn from the seed: the PLEG relist (sliding), the sync loop's 1 s
	// tick, housekeeping (2 s) and container GC (60 s).
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	ph := func(period time.Duration) time.Duration { return time.Duration(rng.Float64() * float64(period)) }
	delays := DefaultRuntimeDelays()
	clocks := clocks{
		relist:      start.Add(ph(cfg.Kubelet.relistPeriod())),
		relistEvery: cfg.Kubelet.relistPeriod() + delays.Relist.D(),
		tick:        start.Add(ph(time.Second)),
		housekeep:   start.Add(ph(2 * time.Second)),
		gc:          start.Add(ph(time.Minute)),
		statusSync:  start.Add(ph(10 * time.Second)),
	}
	names := map[string]bool{}
	nodes := make([]*node, len(pods))
	for i, in := range pods {
		if in.Pod == nil {
			return nil, fmt.Errorf("sim: pod %d is nil", i)
		}
		n := &node{cfg: cfg, start: start, now: start, end: start.Add(d), kubeletUp: start.Add(-up), clocks: clocks, delays: delays,
			rng: rand.New(rand.NewPCG(cfg.Seed^0x5851f42d4c957f2d, uint64(i)+1)),
			tl:  &Timeline{Start: start, Seed: cfg.Seed}}
		p := &podSim{n: n, in: in, index: i, record: map[string]string{}, created: map[string]int{}, relists: map[time.Time]bool{}}
		p.pod = apidefaults.PodCopy(in.Pod)
		if p.pod.Namespace == "" {
			p.pod.Namespace = "default"
		}
		if p.pod.UID == "" {
			p.pod.UID = types.UID(fmt.Sprintf("uid-%s-%s", p.pod.Namespace, p.pod.Name))
		}
		if err := validation.Pod(p.pod); err != nil {
			return nil, fmt.Errorf("sim: pod %s/%s: the API server would reject it: %w", p.pod.Namespace, p.pod.Name, err)
		}
		for _, a := range in.Actions {
			if a.At < 0 {
				return nil, fmt.Errorf("sim: pod %s/%s: action %q at a negative time %s", p.pod.Namespace, p.pod.Name, a, a.At)
			}
		}
		if err := in.Script.validate(); err != nil {
			return nil, fmt.Errorf("sim: pod %s/%s: %w", p.pod.Namespace, p.pod.Name, err)
		}
		if err := in.Script.checkMeaning(); err != nil {
			return nil, fmt.Errorf("sim: pod %s/%s: %w", p.pod.Namespace, p.pod.Name, err)
		}
		if err := checkNames(p.pod, in); err != nil {
			return nil, fmt.Errorf("sim: pod %s/%s: %w", p.pod.Namespace, p.pod.Name, err)
		}
		if err := in.Script.checkHooks(p.pod); err != nil {
			return nil, fmt.Errorf("sim: pod %s/%s: %w", p.pod.Namespace, p.pod.Name, err)
		}
		if err := checkResizes(p.pod, in.Actions, cfg.Kubelet.Features); err != nil {
			return nil, fmt.Errorf("sim: pod %s/%s: %w", p.pod.Namespace, p.pod.Name, err)
		}
		key := p.pod.Namespace + "/" + p.pod.Name
		if names[key] {
			return nil, fmt.Errorf("sim: two pods named %s", key)
		}
		names[key] = true
		p.static = phase.IsStaticPod(p.pod)
		p.finalizers = len(p.pod.Finalizers) > 0
		p.rt = fakeRuntime{pod: p.pod, script: &p.in.Script}
		p.delaysCheck()
		n.pod = p
		nodes[i] = n
	}
	workers := cfg.Parallelism
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers > len(nodes) {
		workers = len(nodes)
	}
	var wg sync.WaitGroup
	next := make(chan *node)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range next {
				n.run()
			}
		}()
	}
	for _, n := range nodes {
		next <- n
	}
	close(next)
	wg.Wait()

	tl := &Timeline{Start: start, Seed: cfg.Seed}
	total := 0
	for _, n := range nodes {
		total += len(n.tl.Entries)
		tl.Syncs += n.tl.Syncs
		if n.last > tl.End {
			tl.End = n.last
		}
	}
	if cfg.Observe == nil {
		tl.Entries = make([]Entry, 0, total)
		for _, n := range nodes {
			tl.Entries = append(tl.Entries, n.tl.Entries...)
		}
		sort.SliceStable(tl.Entries, func(i, j int) bool { return tl.Entries[i].At < tl.Entries[j].At })
	}
	return tl, nil
}

// run simulates the node's one pod to the end.
func (n *node) run() {
	p := n.pod
	n.at(n.start.Add(p.in.At.D()), p.add)
	for _, a := range p.in.Actions {
		a := a
		n.at(n.start.Add(a.At.D()), func() { p.act(a) })
	}
	n.at(n.clocks.gc, n.containerGC)
	for len(n.q) > 0 {
		e := heap.Pop(&n.q).(*event)
		if e.at.After(n.end) {
			break
		}
		n.now = e.at
		e.fn()
		if p.forgotten && (p.static || p.apiGone) {
			break
		}
	}
	n.flush()
	n.q = nil
}

// clocks are the phases of the kubelet's periodic loops.
type clocks struct {
	relist      time.Time     // a relist starts then, and every relistEvery
	relistEvery time.Duration // period plus the relist's own duration
	tick        time.Time     // a sync-loop tick, every second
	housekeep   time.Time     // housekeeping, every 2 s
	gc          time.Time     // container GC, every minute
	statusSync  time.Time     // the status manager's full sweep, every 10 s
}

// nextAfter is the first time strictly after t of a loop that runs at
// base + k·every.
func nextAfter(base time.Time, every time.Duration, t time.Time) time.Time {
	if t.Before(base) {
		return base
	}
	k := t.Sub(base)/every + 1
	return base.Add(k * every)
}

func (p *podSim) delaysCheck() {
	p.in.Script.Runtime = p.in.Script.Runtime.orDefault()
}

func (n *node) at(t time.Time, fn func()) {
	if t.Before(n.now) {
		t = n.now
	}
	n.seq++
	heap.Push(&n.q, &event{at: t, seq: n.seq, fn: fn})
}

// jitter is wait.Jitter(d, 0.5): uniform in [d, 1.5 d).
func (n *node) jitter(d time.Duration) time.Duration {
	return d + time.Duration(n.rng.Float64()*0.5*float64(d))
}

// log records an entry; the caller may fill in its details until the next
// call of log.
func (n *node) log(p *podSim, kind EntryKind, at time.Time, msg string) *Entry {
	n.flush()
	if d := at.Sub(n.start); d > n.last {
		n.last = d
	}
	n.tl.Entries = append(n.tl.Entries, Entry{At: at.Sub(n.start), Pod: p.pod.Name, Kind: kind, Message: msg})
	return &n.tl.Entries[len(n.tl.Entries)-1]
}

// flush hands the recorded entries to Config.Observe, if set.
func (n *node) flush() {
	if n.cfg.Observe == nil {
		return
	}
	for _, e := range n.tl.Entries {
		n.cfg.Observe(e)
	}
	n.tl.Entries = n.tl.Entries[:0]
}

// ---- the outside ----

func (p *podSim) add() {
	n := p.n
	ts := metav1.NewTime(n.now.Truncate(time.Second))
	if p.pod.CreationTimestamp.IsZero() {
		p.pod.CreationTimestamp = ts
	}
	n.log(p, KindAction, n.now, "pod added to the kubelet")
	if !p.static {
		// The API server's status of a new pod.
		p.api = &v1.PodStatus{Phase: v1.PodPending}
		e := n.log(p, KindAPI, n.now, "pod created: phase Pending")
		e.API = APICreated
		p.fillStatus(e, *p.api)
	}
	p.known = true
	p.update(termination.Update{Type: termination.UpdateCreate, Pod: p.pod})
}

func (p *podSim) act(a Action) {
	n := p.n
	entry := n.log(p, KindAction, n.now, a.String())
	switch {
	case a.Delete != nil:
		if p.static || p.apiGone {
			p.remove()
			return
		}
		if p.pod.DeletionTimestamp != nil {
			return
		}
		grace := *a.Delete
		if grace < 0 {
			grace = 30
			if p.pod.Spec.TerminationGracePeriodSeconds != nil {
				grace = *p.pod.Spec.TerminationGracePeriodSeconds
			}
		}
		if grace == 0 {
			p.remove()
			return
		}
		pod := p.pod.DeepCopy()
		ts := metav1.NewTime(n.now.Add(time.Duration(grace) * time.Second).Truncate(time.Second))
		pod.DeletionTimestamp = &ts
		pod.DeletionGracePeriodSeconds = &grace
		pod.Generation++
		p.pod = pod
		p.update(termination.Update{Type: termination.UpdateUpdate, Pod: p.pod})
		// The status manager's full sweep (every 10 s) deletes a pod the
		// kubelet had already finished with (status_manager.go syncBatch,
		// needsUpdate).
		n.at(nextAfter(n.clocks.statusSync, 10*time.Second, n.now), p.maybeDelete)
	case a.Remove:
		p.remove()
	case a.RemoveFinalizers:
		p.finalizers = false
		if p.pod.DeletionTimestamp != nil && p.mem.Finished {
			p.gone()
		}
	case a.KillContainer != "":
		for i := len(p.rt.containers) - 1; i >= 0; i-- {
			in := p.rt.containers[i]
			if in.c.Name == a.KillContainer && in.c.State == runtimestate.Running {
				p.exit(in, 137, n.now)
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
		apidefaults.Pod(pod)
		p.pod = pod
		p.update(termination.Update{Type: termination.UpdateUpdate, Pod: p.pod})
	case a.Resize != nil:
		p.resize(a.Resize)
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
		p.n.log(p, KindAPI, p.n.now, "API object deleted").API = APIGone
	}
}

// ---- the pod worker ----

func (p *podSim) update(u termination.Update) {
	n := p.n
	f := n.cfg.Kubelet.Features
	if p.forgotten {
		return
	}
	u.Cached = p.cache
	r := termination.UpdatePod(p.mem.Worker, u, n.now, f)
	if r.State == nil {
		return
	}
	p.mem.Worker = r.State
	if r.GracePeriodOverride != nil {
		p.grace = *r.GracePeriodOverride
	}
	if r.Outcome != termination.Queued {
		return
	}
	p.pending = true
	p.tryRun()
}

// fresh is the pod worker's wait for a cache newer than its last sync: a
// relist of the pod after the sync ended (the on-demand one, or a global
// relist that started after it). When it is not fresh yet, the next global
// relist wakes the worker.
func (p *podSim) fresh() bool {
	if p.lastSyncEnd.IsZero() || p.cacheTime.After(p.lastSyncEnd) {
		return true
	}
	n := p.n
	next := nextAfter(n.clocks.relist, n.clocks.relistEvery, p.lastSyncEnd)
	if !next.After(n.now) {
		return true
	}
	p.scheduleRelist(next)
	return false
}

func (p *podSim) tryRun() {
	if p.busy || !p.pending || p.finished || !p.fresh() {
		return
	}
	n := p.n
	p.pending = false
	p.busy = true
	if p.mem.Worker != nil && p.mem.Worker.WorkType() == termination.TerminatingPod {
		p.mem.Worker = termination.AcknowledgeTerminating(p.mem.Worker)
	}
	work := termination.SyncPod
	if p.mem.Worker != nil {
		work = p.mem.Worker.WorkType()
	}
	if work == termination.SyncPod && !p.probesAdded {
		p.addProbes()
	}
	if work == termination.TerminatingPod {
		p.stopProbes(false)
	}
	cache := p.cache
	if cache == nil {
		cache = &runtimestate.Pod{UID: p.pod.UID, Name: p.pod.Name, Namespace: p.pod.Namespace}
	}
	out := Sync(SyncInput{
		Pod:        p.pod,
		Runtime:    cache,
		Now:        n.now,
		Memory:     p.mem,
		Kubelet:    n.cfg.Kubelet,
		Grace:      p.grace,
		Containers: p.rt.runs(),
		Delays:     p.in.Script.Runtime,
		Logs:       p.rt.logMax(),
		Created:    p.created,
		Behaviours: p.in.Script.Containers,
	})
	n.tl.Syncs++
	msg := work.String()
	if out.Decision != "" {
		msg += ": " + out.Decision
	}
	n.log(p, KindSync, n.now, oneLine(msg)).Work = work.String()
	start := n.now
	for _, c := range out.Calls {
		c := c
		n.at(start.Add(c.At), func() { p.callStarted(c, start) })
		n.at(start.Add(c.Done), func() { p.apply(c, start) })
	}
	gen := p.pod.Generation
	for _, s := range out.Statuses {
		s := s
		if s.At == 0 {
			p.stored(s.Status, s.By, gen)
			continue
		}
		n.at(start.Add(s.At), func() { p.stored(s.Status, s.By, gen) })
	}
	for _, m := range out.Messages {
		n.log(p, KindSync, n.now, oneLine(m))
	}
	if work == termination.SyncPod {
		// The status generation triggers readiness probes of started,
		// running containers that are not ready yet.
		n.at(n.now, p.triggerReadiness)
	}
	n.at(start.Add(out.Duration), func() { p.finish(out, work) })
}

func (p *podSim) finish(out SyncOutput, work termination.WorkType) {
	n := p.n
	f := n.cfg.Kubelet.Features
	p.busy = false
	p.lastSyncEnd = n.now
	live := p.mem
	p.mem = out.Memory
	p.mem.Probes = live.Probes
	p.mem.Status = live.Status
	p.mem.Version = live.Version
	// Updates and housekeeping may have changed the worker meanwhile.
	p.mem.Worker = live.Worker
	if work == termination.TerminatingPod {
		for id, r := range p.mem.Probes {
			r.Liveness, r.Startup = vocab.ProbeNoResult, vocab.ProbeNoResult
			p.mem.Probes[id] = r
		}
	}
	if p.rt.running() && work == termination.TerminatingPod {
		// A container still runs: SyncTerminatingPod fails and is retried.
		out.Result.Err = true
		out.Requeue = RequeueError
	}
	// The worker completes the work it ran (podWorkerLoop switches on
	// update.WorkType): a deletion that made it terminating meanwhile
	// waits for SyncTerminatingPod.
	if p.mem.Worker.WorkType() == work {
		p.mem.Worker = termination.Complete(p.mem.Worker, out.Result, false, n.now, f)
	}
	if work == termination.TerminatingPod && !out.Result.Err {
		p.stopProbes(true)
	}
	switch out.Requeue {
	case RequeueNow:
		p.pending = true
	case RequeueSuccess:
		p.setWorkDue(n.now.Add(n.jitter(n.cfg.Kubelet.syncFrequency())))
	case RequeueBackOff:
		d := out.BackOffUntil.Sub(n.now)
		if d < 0 {
			d = 0
		}
		if sf := n.cfg.Kubelet.syncFrequency(); d > sf {
			d = sf
		}
		p.setWorkDue(n.now.Add(n.jitter(d)))
	case RequeueError:
		d := 10 * time.Second
		if sf := n.cfg.Kubelet.syncFrequency(); d > sf {
			d = sf
		}
		p.setWorkDue(n.now.Add(n.jitter(d)))
	case RequeueNever:
		p.finished = true
		p.workDue = time.Time{}
		p.maybeDelete()
	}
	// From v1.36 on, a successful reset syncs the pod again at once (D12);
	// v1.35 waits for the relist or the resync.
	if out.ResetAll && f.Version().Minor() >= 36 {
		p.pending = true
	}
	if out.ActedOnRuntime && !out.Result.Err && work == termination.SyncPod {
		p.relistPod()
	}
	p.tryRun()
}

// ---- the runtime ----

// oneLine joins the lines of a decision's text, so that every entry is one
// line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }

// callStarted records a call; in the timeline its At and Done are times
// since the start of the simulation, like the entry's.
func (p *podSim) callStarted(c Call, start time.Time) {
	n := p.n
	e := n.log(p, KindCRI, start.Add(c.At), c.String())
	cc := c
	cc.At = start.Add(c.At).Sub(n.start)
	cc.Done = start.Add(c.Done).Sub(n.start)
	e.Call = &cc
}

func (p *podSim) apply(c Call, start time.Time) {
	n := p.n
	done := start.Add(c.Done)
	if c.Method == "ExecSync" || c.Method == "UpdateContainerResources" {
		// Neither changes what a relist sees.
		return
	}
	p.markDirty()
	switch c.Method {
	case "RunPodSandbox":
		sb := runtimestate.Sandbox{ID: c.ID, Ready: true, Attempt: c.Attempt, CreatedAt: done}
		if p.pod.Spec.HostNetwork {
			sb.NetworkMode = runtimestate.NamespaceNode
		} else {
			sb.IP = fmt.Sprintf("10.88.%d.%d", p.index/250%250, p.index%250+2)
		}
		p.rt.sandboxes = append(p.rt.sandboxes, sb)
	case "CreateContainer":
		k := p.created[c.Name]
		p.created[c.Name] = k + 1
		spec := containerByName(p.pod, c.Name)
		in := &instance{run: p.in.Script.Containers[c.Name].run(k)}
		in.c = runtimestate.Container{ID: c.ID, Name: c.Name, SandboxID: c.Sandbox, State: runtimestate.Created,
			Hash: c.Hash, RestartCount: c.RestartCount, CreatedAt: done}
		if spec != nil {
			in.c.Image = spec.Image
			in.c.ImageRef = "sha256:" + spec.Image
		}
		p.rt.containers = append(p.rt.containers, in)
		if p.rt.logs == nil {
			p.rt.logs = map[string]map[int]bool{}
		}
		if p.rt.logs[c.Name] == nil {
			p.rt.logs[c.Name] = map[int]bool{}
		}
		p.rt.logs[c.Name][c.RestartCount] = true
	case "StartContainer":
		in := p.rt.find(c.ID)
		if in == nil || in.c.State != runtimestate.Created {
			return
		}
		in.c.State = runtimestate.Running
		in.c.StartedAt = done
		if d := in.run.ExitAfter.D(); d > 0 {
			in.gen++
			gen := in.gen
			at := done.Add(d)
			n.at(at, func() {
				if in.gen == gen && in.c.State == runtimestate.Running {
					p.exit(in, in.run.ExitCode, at)
				}
			})
		}
	case "StopContainer":
		in := p.rt.find(c.ID)
		if in != nil && (in.c.State == runtimestate.Running || in.c.State == runtimestate.Created) {
			p.exit(in, c.ExitCode, done)
		}
	case "StopPodSandbox":
		for i := range p.rt.sandboxes {
			if p.rt.sandboxes[i].ID == c.ID {
				p.rt.sandboxes[i].Ready = false
			}
		}
		for _, in := range p.rt.containers {
			if in.c.SandboxID == c.ID && in.c.State == runtimestate.Running {
				p.exit(in, 137, done)
			}
		}
	case "RemoveContainer":
		p.rt.remove(c.ID, c.KeepLogs)
	}
}

func (p *podSim) exit(in *instance, code int32, at time.Time) {
	p.markDirty()
	in.gen++
	if in.c.State == runtimestate.Created {
		in.c.StartedAt = time.Time{}
	}
	in.c.State = runtimestate.Exited
	in.c.ExitCode = int(code)
	in.c.Reason = exitReason(code)
	in.c.FinishedAt = at
	e := p.n.log(p, KindExit, at, fmt.Sprintf("%s %s exited with code %d", in.c.Name, in.c.ID, code))
	e.Exit = &ExitEntry{Container: in.c.Name, ID: in.c.ID, ExitCode: code, Reason: in.c.Reason}
}

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
	n := p.n
	p.scheduleRelist(nextAfter(n.clocks.relist, n.clocks.relistEvery, n.now))
}

// scheduleRelist makes the global relist at t visit the pod: relist it if
// its runtime changed, then let its worker run. Relists that would find
// nothing new for a pod with nothing waiting are not simulated.
func (p *podSim) scheduleRelist(t time.Time) {
	if p.relists[t] {
		return
	}
	p.relists[t] = true
	p.n.at(t, func() {
		delete(p.relists, t)
		if p.dirty || !p.seen {
			p.dirty = false
			p.relistAt(t)
		}
		p.tryRun()
	})
}

// relistPod is the on-demand relist of one pod right after a sync that
// acted on the runtime; the kubelet makes it after recording the sync's
// end, so its data counts as newer than that sync.
func (p *podSim) relistPod() {
	p.relistAt(p.n.now)
	p.cacheTime = p.n.now.Add(time.Nanosecond)
}

// relistAt diffs the runtime against the last relist and updates the cache.
func (p *podSim) relistAt(t time.Time) {
	n := p.n
	snap := p.rt.snapshot(t)
	cur := map[string]string{}
	for _, sb := range snap.Sandboxes {
		if sb.Ready {
			cur[sb.ID] = "running"
		} else {
			cur[sb.ID] = "exited"
		}
	}
	for _, c := range snap.Containers {
		cur[c.ID] = plegState(c)
	}
	var events []string
	died := map[string]bool{}
	ids := make([]string, 0, len(cur)+len(p.record))
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
			if in := p.rt.find(id); in != nil {
				died[in.c.Name] = true
			}
		case "":
			if old == "running" || old == "unknown" {
				events = append(events, "ContainerDied "+id)
			}
			events = append(events, "ContainerRemoved "+id)
		}
	}
	p.record = cur
	if len(events) == 0 && p.seen {
		return
	}
	p.seen = true
	p.cache = snap
	p.cacheTime = t
	worthy := false
	for _, e := range events {
		n.log(p, KindPLEG, t, e)
		if len(e) < 16 || e[:16] != "ContainerRemoved" {
			worthy = true
		}
	}
	// The container deletor keeps one exited instance per container
	// name; once the pod's content may be removed (deleted and
	// terminated), it removes every exited instance.
	if len(died) > 0 && (p.forgotten || termination.Query(p.mem.Worker, true, n.cfg.Kubelet.Features).ShouldPodContentBeRemoved) {
		p.pruneDead("", t)
	} else {
		names := make([]string, 0, len(died))
		for name := range died {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			p.pruneDead(name, t)
		}
	}
	if worthy {
		p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
	}
}

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
			at := t.Sub(p.n.start)
			c := Call{Method: "RemoveContainer", Name: in.c.Name, ID: in.c.ID, At: at, Done: at}
			e := p.n.log(p, KindCRI, t, c.String()+" (container clean-up)")
			e.Call = &c
			p.rt.remove(in.c.ID, false)
			p.markDirty()
		}
	}
}

// ---- the sync loop tick ----

// setWorkDue enqueues the pod in the work queue; the first sync-loop tick
// strictly after due syncs it, unless it was enqueued again meanwhile.
func (p *podSim) setWorkDue(due time.Time) {
	p.workDue = due
	n := p.n
	t := nextAfter(n.clocks.tick, time.Second, due)
	n.at(t, func() {
		if p.finished || !p.workDue.Equal(due) {
			return
		}
		p.workDue = time.Time{}
		p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
	})
}

// checkDeadline arranges for the first tick at or after the pod's active
// deadline to sync it (active_deadline.go).
func (p *podSim) checkDeadline() {
	ads := p.pod.Spec.ActiveDeadlineSeconds
	if ads == nil || p.mem.Status == nil || p.mem.Status.StartTime == nil {
		return
	}
	deadline := p.mem.Status.StartTime.Add(time.Duration(*ads) * time.Second)
	if p.deadline.Equal(deadline) {
		return
	}
	p.deadline = deadline
	n := p.n
	t := nextAfter(n.clocks.tick, time.Second, deadline.Add(-time.Nanosecond))
	n.at(t, func() {
		if p.finished || p.mem.Worker == nil || p.mem.Worker.WorkType() != termination.SyncPod {
			return
		}
		if phase.PastActiveDeadline(p.pod, p.mem.Status, n.now) {
			p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
		}
	})
}

// ---- housekeeping ----

// housekeeping is HandlePodCleanups every 2 s: a worker whose pod is no
// longer in the kubelet's configuration is marked deleted (SyncKnownPods,
// removeTerminatedWorker), and forgotten once finished. It is simulated
// only for a removed pod, the only one it changes.
func (p *podSim) scheduleHousekeeping() {
	if p.housekeeping {
		return
	}
	p.housekeeping = true
	n := p.n
	n.at(nextAfter(n.clocks.housekeep, 2*time.Second, n.now), p.housekeep)
}

func (p *podSim) housekeep() {
	n := p.n
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
		n.log(p, KindSync, n.now, "housekeeping forgets the finished pod worker (the UID may be used again)").Work = "forgotten"
		return
	}
	p.mem.Worker = &w
	n.at(n.now.Add(2*time.Second), p.housekeep)
}

// containerGC is the container garbage collector, every minute
// (kuberuntime_gc.go): exited instances beyond one per container name, and
// every exited instance of a pod whose content may be removed.
func (n *node) containerGC() {
	for _, p := range []*podSim{n.pod} {
		if !p.known {
			continue
		}
		if p.forgotten || termination.Query(p.mem.Worker, true, n.cfg.Kubelet.Features).ShouldPodContentBeRemoved {
			p.pruneDead("", n.now)
			continue
		}
		names := map[string]bool{}
		for _, in := range p.rt.containers {
			names[in.c.Name] = true
		}
		sorted := make([]string, 0, len(names))
		for name := range names {
			sorted = append(sorted, name)
		}
		sort.Strings(sorted)
		for _, name := range sorted {
			p.pruneDead(name, n.now)
		}
	}
	n.at(n.now.Add(time.Minute), n.containerGC)
}

// ---- the status manager ----

func (p *podSim) stored(st v1.PodStatus, by string, gen int64) {
	final := by == "TerminatePod"
	if p.mem.Status != nil && equalStatus(*p.mem.Status, st) && !final {
		return
	}
	s := st
	p.mem.Status = &s
	p.mem.Version++
	if final {
		p.mem.Finished = true
	}
	p.show(st, by, gen)
	p.writeAPI()
	p.checkDeadline()
}

// show logs a status as kubectl would show it.
func (p *podSim) show(st v1.PodStatus, by string, gen int64) {
	e := p.n.log(p, KindStatus, p.n.now, "")
	p.fillStatus(e, st)
	e.Status.By = by
	e.Status.Generation = gen
	e.Message = fmt.Sprintf("%s %s restarts %d", e.Status.Column, e.Status.Ready, e.Status.Restarts)
}

// fillStatus attaches st, as kubectl shows it, to an entry.
func (p *podSim) fillStatus(e *Entry, st v1.PodStatus) {
	// kubectlstatus reads the pod; a shallow copy with the status is
	// enough. Stored statuses are never changed in place, so the entry
	// shares st.
	view := *p.pod
	view.Status = st
	restarts, _ := kubectlstatus.RestartCount(&view)
	e.Status = &StatusEntry{Ready: kubectlstatus.Ready(&view), Column: kubectlstatus.Compute(&view), Restarts: int32(restarts),
		RestartsColumn: kubectlstatus.Restarts(&view, p.n.now), Status: st, Generation: p.pod.Generation}
}

// writeAPI writes the cached status to the API object, holding back a
// terminal phase, with its reason and message, while containers may still
// run.
func (p *podSim) writeAPI() {
	if p.static || p.apiGone || p.mem.Status == nil {
		return
	}
	n := p.n
	st := p.mem.Status.DeepCopy()
	if (st.Phase == v1.PodSucceeded || st.Phase == v1.PodFailed) && p.api != nil && p.api.Phase != st.Phase {
		q := termination.Query(p.mem.Worker, true, n.cfg.Kubelet.Features)
		if q.CouldHaveRunningContainers && !p.mem.Finished {
			// mergePodStatus keeps the API's reason and message with
			// its phase.
			st.Phase, st.Reason, st.Message = p.api.Phase, p.api.Reason, p.api.Message
		}
	}
	if p.api != nil && equalStatus(*p.api, *st) {
		p.maybeDelete()
		return
	}
	p.api = st
	// The kubelet's pod manager sees the written status through its watch.
	// (The spec and metadata are never changed in place, only replaced.)
	pod := *p.pod
	pod.Status = *st
	p.pod = &pod
	e := n.log(p, KindAPI, n.now, fmt.Sprintf("status written: phase %s", st.Phase))
	e.API = APIStatus
	p.fillStatus(e, *st)
	p.maybeDelete()
}

// maybeDelete is the status manager's final delete (canBeDeleted).
func (p *podSim) maybeDelete() {
	if p.static || p.apiGone || p.pod.DeletionTimestamp == nil || p.api == nil {
		return
	}
	view := p.pod.DeepCopy()
	view.Status = *p.api.DeepCopy()
	if !termination.CanBeDeleted(view, nil, &termination.WorkerState{Finished: p.mem.Finished}).Delete {
		return
	}
	if p.finalizers {
		if p.lastShown != "deleted" {
			p.lastShown = "deleted"
			p.n.log(p, KindAPI, p.n.now, "kubelet deleted the API object (grace 0); finalizers hold it").API = APIDeleteHeld
		}
		return
	}
	p.n.log(p, KindAPI, p.n.now, "kubelet deleted the API object (grace 0)").API = APIDeleted
	p.gone()
}
