package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/probe"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
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
	// For is how long to simulate (0: 10 minutes); the simulation also
	// ends when every pod is gone and the kubelet is done with it.
	For Duration `json:"for,omitempty"`
}

// PodInput is one pod of a simulation, with what happens to it.
type PodInput struct {
	// Pod is the pod. API defaults are applied (apidefaults.Pod), a
	// missing UID is derived from the name. A pod whose
	// kubernetes.io/config.source annotation is not "api" is a static pod:
	// it has no API object.
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
	Call    *Call  `json:"call,omitempty"`
	// Status is the pod's status and how kubectl shows it.
	Status *StatusEntry `json:"status,omitempty"`
	// Probe is a committed probe result.
	Probe *ProbeEntry `json:"probe,omitempty"`
}

// StatusEntry is one stored status.
type StatusEntry struct {
	// Ready, Status, Restarts are kubectl get pod's READY, STATUS and
	// RESTARTS columns.
	Ready    string       `json:"ready"`
	Column   string       `json:"column"`
	Restarts int32        `json:"restarts"`
	Status   v1.PodStatus `json:"status"`
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
	Container string       `json:"container"`
	ID        string       `json:"id"`
	Probe     string       `json:"probe"`
	Result    probe.Result `json:"result"`
}

// Timeline is what happened on the simulated node.
type Timeline struct {
	Start   time.Time     `json:"start"`
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

type node struct {
	cfg         Config
	start, end  time.Time
	now         time.Time
	kubeletUp   time.Time
	rng         *rand.Rand
	q           queue
	seq         uint64
	pods        []*podSim
	tl          *Timeline
	delays      RuntimeDelays
	globalCache time.Time
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
}

// Simulate simulates a node running pods and returns what happened. It is
// deterministic: the same inputs and seed give the same timeline.
func Simulate(cfg Config, pods []PodInput) (*Timeline, error) {
	if len(pods) == 0 {
		return nil, errors.New("sim: no pod to simulate")
	}
	n := &node{cfg: cfg}
	n.start = cfg.Start
	if n.start.IsZero() {
		n.start = DefaultStart
	}
	n.now = n.start
	d := cfg.For.D()
	if d <= 0 {
		d = 10 * time.Minute
	}
	n.end = n.start.Add(d)
	up := cfg.KubeletUptime.D()
	if up <= 0 {
		up = time.Hour
	}
	n.kubeletUp = n.start.Add(-up)
	n.rng = rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	n.tl = &Timeline{Start: n.start, Seed: cfg.Seed}
	names := map[string]bool{}
	for i, in := range pods {
		if in.Pod == nil {
			return nil, fmt.Errorf("sim: pod %d is nil", i)
		}
		p := &podSim{n: n, in: in, record: map[string]string{}, created: map[string]int{}}
		p.pod = apidefaults.PodCopy(in.Pod)
		if p.pod.Namespace == "" {
			p.pod.Namespace = "default"
		}
		if p.pod.UID == "" {
			p.pod.UID = types.UID(fmt.Sprintf("uid-%s-%s", p.pod.Namespace, p.pod.Name))
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
		n.pods = append(n.pods, p)
		add := n.start.Add(in.At.D())
		n.at(add, p.add)
		for _, a := range in.Actions {
			a := a
			n.at(n.start.Add(a.At.D()), func() { p.act(a) })
		}
	}
	n.delays = DefaultRuntimeDelays()
	// The kubelet has been relisting for a while: the first sync of a new
	// pod need not wait for a relist.
	n.globalCache = n.start.Add(-time.Nanosecond)
	// PLEG relists and the sync loop's 1 s tick run from the kubelet's
	// start, in phase with it.
	// The kubelet's periodic loops have run since its start; where in its
	// period each one is when the simulation starts depends on when the
	// kubelet started and on how long each relist took, so each phase is
	// drawn from the seed: the PLEG relist (sliding), the sync loop's 1 s
	// tick, housekeeping (2 s) and container GC (60 s).
	n.at(n.start.Add(n.phase(cfg.Kubelet.relistPeriod())), n.relist)
	n.at(n.start.Add(n.phase(time.Second)), n.tick)
	n.at(n.start.Add(n.phase(2*time.Second)), n.housekeeping)
	n.at(n.start.Add(n.phase(time.Minute)), n.containerGC)
	for len(n.q) > 0 {
		e := heap.Pop(&n.q).(*event)
		if e.at.After(n.end) {
			break
		}
		n.now = e.at
		e.fn()
		if n.allDone() {
			break
		}
	}
	n.tl.End = n.now.Sub(n.start)
	sort.SliceStable(n.tl.Entries, func(i, j int) bool { return n.tl.Entries[i].At < n.tl.Entries[j].At })
	return n.tl, nil
}

func (p *podSim) delaysCheck() {
	p.in.Script.Runtime = p.in.Script.Runtime.orDefault()
}

// phase draws the offset of a periodic loop's next run from the start.
func (n *node) phase(period time.Duration) time.Duration {
	return time.Duration(n.rng.Float64() * float64(period))
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

// allDone: every pod has been removed, and its worker forgotten.
func (n *node) allDone() bool {
	for _, p := range n.pods {
		if !p.forgotten || (!p.static && !p.apiGone) {
			return false
		}
	}
	return true
}

func (n *node) log(p *podSim, kind EntryKind, at time.Time, msg string) *Entry {
	n.tl.Entries = append(n.tl.Entries, Entry{At: at.Sub(n.start), Pod: p.pod.Name, Kind: kind, Message: msg})
	return &n.tl.Entries[len(n.tl.Entries)-1]
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
		p.fillStatus(e, *p.api)
	}
	p.known = true
	p.update(termination.Update{Type: termination.UpdateCreate, Pod: p.pod})
}

func (p *podSim) act(a Action) {
	n := p.n
	n.log(p, KindAction, n.now, a.String())
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
				break
			}
		}
	case a.KillSandbox:
		for i := range p.rt.sandboxes {
			p.rt.sandboxes[i].Ready = false
		}
	case a.AddEphemeral != nil:
		pod := p.pod.DeepCopy()
		pod.Spec.EphemeralContainers = append(pod.Spec.EphemeralContainers, *a.AddEphemeral.DeepCopy())
		apidefaults.Pod(pod)
		p.pod = pod
		p.update(termination.Update{Type: termination.UpdateUpdate, Pod: p.pod})
	}
}

// remove: the pod is gone from the kubelet's configuration (REMOVE).
func (p *podSim) remove() {
	if p.removed {
		return
	}
	p.removed = true
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
		p.n.log(p, KindAPI, p.n.now, "API object deleted")
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

// fresh is the pod worker's wait for a cache newer than its last sync.
func (p *podSim) fresh() bool {
	t := p.cacheTime
	if p.n.globalCache.After(t) {
		t = p.n.globalCache
	}
	return t.After(p.lastSyncEnd)
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
	})
	n.tl.Syncs++
	msg := work.String()
	if out.Decision != "" {
		msg += ": " + out.Decision
	}
	n.log(p, KindSync, n.now, msg)
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
		n.log(p, KindSync, n.now, m)
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
			r.Liveness, r.Startup = probe.NoResult, probe.NoResult
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
		p.workDue = n.now.Add(n.jitter(n.cfg.Kubelet.syncFrequency()))
	case RequeueBackOff:
		d := out.BackOffUntil.Sub(n.now)
		if d < 0 {
			d = 0
		}
		if sf := n.cfg.Kubelet.syncFrequency(); d > sf {
			d = sf
		}
		p.workDue = n.now.Add(n.jitter(d))
	case RequeueError:
		d := 10 * time.Second
		if sf := n.cfg.Kubelet.syncFrequency(); d > sf {
			d = sf
		}
		p.workDue = n.now.Add(n.jitter(d))
	case RequeueNever:
		p.finished = true
		p.workDue = time.Time{}
		p.maybeDelete()
	}
	if out.ResetAll {
		p.pending = true
	}
	if out.ActedOnRuntime && !out.Result.Err && work == termination.SyncPod {
		p.relistPod()
	}
	p.tryRun()
}

// ---- the runtime ----

func (p *podSim) callStarted(c Call, start time.Time) {
	n := p.n
	e := n.log(p, KindCRI, start.Add(c.At), c.String())
	cc := c
	e.Call = &cc
}

func (p *podSim) apply(c Call, start time.Time) {
	n := p.n
	done := start.Add(c.Done)
	switch c.Method {
	case "RunPodSandbox":
		sb := runtimestate.Sandbox{ID: c.ID, Ready: true, Attempt: c.Attempt, CreatedAt: done}
		if p.pod.Spec.HostNetwork {
			sb.NetworkMode = runtimestate.NamespaceNode
		} else {
			sb.IP = fmt.Sprintf("10.88.%d.%d", len(p.n.pods)%250, (int(c.Attempt)+p.index()*7)%250+2)
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

func (p *podSim) index() int {
	for i, q := range p.n.pods {
		if q == p {
			return i
		}
	}
	return 0
}

func (p *podSim) exit(in *instance, code int32, at time.Time) {
	in.gen++
	if in.c.State == runtimestate.Created {
		in.c.StartedAt = time.Time{}
	}
	in.c.State = runtimestate.Exited
	in.c.ExitCode = int(code)
	in.c.Reason = exitReason(code)
	in.c.FinishedAt = at
	p.n.log(p, KindExit, at, fmt.Sprintf("%s %s exited with code %d", in.c.Name, in.c.ID, code))
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

func (n *node) relist() {
	start := n.now
	for _, p := range n.pods {
		if p.known {
			p.relistAt(start)
		}
	}
	n.globalCache = start
	for _, p := range n.pods {
		p.tryRun()
	}
	end := start.Add(n.delays.Relist.D())
	n.at(end.Add(n.cfg.Kubelet.relistPeriod()), n.relist)
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
			c := Call{Method: "RemoveContainer", Name: in.c.Name, ID: in.c.ID}
			e := p.n.log(p, KindCRI, t, c.String()+" (container clean-up)")
			e.Call = &c
			p.rt.remove(in.c.ID, false)
		}
	}
}

// ---- the sync loop tick ----

func (n *node) tick() {
	for _, p := range n.pods {
		if p.finished || !p.known {
			continue
		}
		due := !p.workDue.IsZero() && p.workDue.Before(n.now)
		if !due && p.mem.Status != nil && p.mem.Worker != nil && p.mem.Worker.WorkType() == termination.SyncPod &&
			phase.PastActiveDeadline(p.pod, p.mem.Status, n.now) {
			due = true
		}
		if due {
			p.workDue = time.Time{}
			p.update(termination.Update{Type: termination.UpdateSync, Pod: p.pod})
		}
	}
	n.at(n.now.Add(time.Second), n.tick)
}

// ---- housekeeping ----

// housekeeping is HandlePodCleanups every 2 s: a worker whose pod is no
// longer in the kubelet's configuration is marked deleted (SyncKnownPods,
// removeTerminatedWorker), and forgotten once finished.
func (n *node) housekeeping() {
	for _, p := range n.pods {
		if !p.removed || p.mem.Worker == nil {
			continue
		}
		w := *p.mem.Worker
		w.Deleted = true
		if w.Finished {
			p.mem.Worker = nil
			p.forgotten = true
			continue
		}
		p.mem.Worker = &w
	}
	n.at(n.now.Add(2*time.Second), n.housekeeping)
}

// containerGC is the container garbage collector, every minute
// (kuberuntime_gc.go): exited instances beyond one per container name, and
// every exited instance of a pod whose content may be removed.
func (n *node) containerGC() {
	for _, p := range n.pods {
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
	view := p.pod.DeepCopy()
	view.Status = *st.DeepCopy()
	ready, total, restarts := readyCount(p.pod, st)
	e.Status = &StatusEntry{Ready: fmt.Sprintf("%d/%d", ready, total), Column: kubectlstatus.Compute(view), Restarts: restarts, Status: *st.DeepCopy(), Generation: p.pod.Generation}
}

// readyCount is kubectl's READY (ready and total containers, native
// sidecars counted) and RESTARTS (summed over every container).
func readyCount(pod *v1.Pod, st v1.PodStatus) (ready, total int, restarts int32) {
	total = len(pod.Spec.Containers)
	for _, cs := range st.ContainerStatuses {
		if cs.Ready {
			ready++
		}
		restarts += cs.RestartCount
	}
	for _, cs := range st.InitContainerStatuses {
		restarts += cs.RestartCount
		for _, c := range pod.Spec.InitContainers {
			if c.Name == cs.Name && c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
				total++
				if cs.Ready {
					ready++
				}
			}
		}
	}
	return ready, total, restarts
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
	pod := p.pod.DeepCopy()
	pod.Status = *st.DeepCopy()
	p.pod = pod
	e := n.log(p, KindAPI, n.now, fmt.Sprintf("status written: phase %s", st.Phase))
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
	if !termination.CanBeDeleted(view, p.mem.Finished, p.n.cfg.Kubelet.Features) {
		return
	}
	if p.finalizers {
		if p.lastShown != "deleted" {
			p.lastShown = "deleted"
			p.n.log(p, KindAPI, p.n.now, "kubelet deleted the API object (grace 0); finalizers hold it")
		}
		return
	}
	p.n.log(p, KindAPI, p.n.now, "kubelet deleted the API object (grace 0)")
	p.gone()
}
