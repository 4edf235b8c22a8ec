package sim

import (
	"errors"
	"fmt"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
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
	// kubelet's start wait a random part of the period first. When set,
	// the container garbage collector runs at the kubelet's start and
	// every minute from it (unless ContainerGC places it).
	KubeletUptime Duration `json:"kubeletUptime,omitempty"`
	// ContainerGC places the container garbage collector's passes, every
	// minute from the kubelet's start: one runs at Start + ContainerGC
	// (taken modulo the minute; a minute for a pass at Start). Zero: from
	// KubeletUptime when that is set, else the phase is drawn from Seed,
	// like those of the kubelet's other loops.
	ContainerGC Duration `json:"containerGC,omitempty"`
	// RelistPhase and HousekeepingPhase place the PLEG's global relist
	// and the sync loop's housekeeping instead of drawing them from Seed,
	// as ContainerGC places the GC: a relist at Start + RelistPhase (taken
	// modulo the relist's period plus its duration) and one every such
	// period from it; housekeeping at Start + HousekeepingPhase (modulo
	// 2 s) and every 2 s, with the 1 s sync tick at the same times and
	// between them (syncTicks: kubelet.go syncLoop makes both tickers
	// together). A phase of zero is drawn; a loop running exactly at
	// Start is given as its period. All the pods of one kubelet process
	// share these phases: they tell, for instance, whether housekeeping
	// marked a removed pod's worker deleted before the relist that sees
	// its sandbox die (the container deletor then removes every dead
	// container of the pod).
	RelistPhase       Duration `json:"relistPhase,omitempty"`
	HousekeepingPhase Duration `json:"housekeepingPhase,omitempty"`
	// Allocatable is the node's allocatable cpu and memory, against which
	// the kubelet admits a resize (nil: DefaultAllocatable, a real node's;
	// see allocation.go). The API server refuses a resize whose requests
	// exceed it.
	Allocatable v1.ResourceList `json:"allocatable,omitempty"`
	// For is how long to simulate (0: 10 minutes); the simulation of a
	// pod also ends when it is gone and the kubelet is done with it.
	For Duration `json:"for,omitempty"`
	// Parallelism is how many pods are simulated at once (0: GOMAXPROCS).
	// It does not change the timeline. A node whose pods share the
	// runtime (RuntimeContention not negative) runs them one at a time
	// in time order and ignores it.
	Parallelism int `json:"parallelism,omitempty"`
	// RuntimeContention is how much longer a CRI call that creates,
	// starts, stops or removes a sandbox or container (or resizes one)
	// takes for each other such call of the node's syncs that overlaps
	// it, whichever started first (see runtimeLedger in contention.go):
	// 0 is DefaultRuntimeContention (14 ms, fitted to thirteen pods
	// started at once on a 2-core node); negative: none, every call takes
	// its RuntimeDelays time whatever the other pods do, and the pods are
	// simulated independently (in parallel, Parallelism). A node with one
	// pod gives the same timeline either way.
	RuntimeContention Duration `json:"runtimeContention,omitempty"`
	// Observe, when set, receives every entry instead of the timeline
	// (Timeline.Entries stays empty, so memory does not grow with the
	// length of the run). It is called from Simulate's goroutine, with
	// the entries in the timeline's order, at least every ten minutes of
	// virtual time (nextStep).
	Observe func(Entry) `json:"-"`
	// eagerGC runs every container GC pass, even the ones that would find
	// nothing to do (gcPark): for the test that skipping them changes
	// nothing.
	eagerGC bool
}

// PodInput is one pod of a simulation, with what happens to it.
type PodInput struct {
	// Pod is the pod. API defaults are applied (apidefaults.Pod), a
	// manifest gets the generation 1 the API server creates it with
	// (apidefaults.Created), a missing UID is derived from the name; a pod
	// the API server would
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
	// one given replaces the container's own. The kubelet admits it when
	// it fits next to the node's other pods (OtherRequests), defers it
	// otherwise; see allocation.go and resize.go for what is modelled.
	Resize map[string]v1.ResourceRequirements `json:"resize,omitempty"`
	// ResizePod resizes the pod-level resources (spec.resources) in place
	// through the same subresource: the pod-level requests and limits to
	// set, each one given replacing the pod's own (cpu and memory; the
	// pod must have pod-level resources, gate
	// InPlacePodLevelResourcesVerticalScaling on: v1.36 and v1.37 by
	// default, off in v1.35). With Resize in the same action it is one
	// request: one generation, checked as a whole (a pod-level request
	// must cover its containers' requests). Admission and actuation are
	// those of Resize: containers without a limit of their own follow a
	// pod-level limit, and restart or are updated per their resizePolicy.
	ResizePod *v1.ResourceRequirements `json:"resizePod,omitempty"`
	// OtherRequests are the summed cpu and memory requests of the node's
	// other pods the kubelet holds from this time on (none before the
	// first such action): another pod admitted, reaching a terminal phase
	// or gone. A fall retries a deferred resize of the pod.
	OtherRequests *v1.ResourceList `json:"otherRequests,omitempty"`
	// SetCondition is another API client setting a condition in the
	// object's status, such as a readiness gate's (kubectl patch
	// --subresource status): its type and status (reason and message
	// optional; the transition time is the action's). A condition the
	// kubelet owns is an error; see apiconditions.go.
	SetCondition *v1.PodCondition `json:"setCondition,omitempty"`
	// RestartKubelet stops the kubelet process (SIGTERM) and starts it
	// again after this downtime: its memory of the pod is lost, the
	// containers keep running; see kubeletrestart.go.
	RestartKubelet *Duration `json:"restartKubelet,omitempty"`
	// Evict is the kubelet's eviction manager evicting the pod (node
	// pressure): phase Failed, reason Evicted, DisruptionTarget, and a
	// kill with the eviction's grace period override; see eviction.go.
	Evict *Eviction `json:"evict,omitempty"`
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
	case a.Resize != nil || a.ResizePod != nil:
		return "resize " + resizeWords(a.Resize, a.ResizePod)
	case a.OtherRequests != nil:
		return "other pods request " + resourceWords(*a.OtherRequests)
	case a.SetCondition != nil:
		return fmt.Sprintf("set condition %s %s", a.SetCondition.Type, a.SetCondition.Status)
	case a.RestartKubelet != nil:
		return fmt.Sprintf("restart kubelet (down %s)", *a.RestartKubelet)
	case a.Evict != nil:
		return fmt.Sprintf("evict (grace %ds)", a.Evict.grace())
	}
	return "nothing"
}

// Simulate simulates a node running pods and returns what happened. It is
// deterministic: the same inputs and seed give the same timeline, whatever
// Config.Parallelism is.
//
// It is a loop over a Node: the pods and their actions are delivered in
// time order (a pod's actions after the pod, in their order; pods in input
// order, which numbers them for the random streams), the node advanced
// between them and in steps of one to ten minutes to Config.For (see
// nextStep), the entries passed to Config.Observe or kept. An action
// before its pod is added is an error; actions and pods after Config.For,
// and actions after the pod's simulation ended, do not happen.
func Simulate(cfg Config, pods []PodInput) (*Timeline, error) {
	if len(pods) == 0 {
		return nil, errors.New("sim: no pod to simulate")
	}
	d := cfg.For.D()
	if d <= 0 {
		d = 10 * time.Minute
	}
	n := NewNode(cfg)
	start := n.Start()
	end := start.Add(d)
	type delivery struct {
		at     time.Duration
		pod    int
		action int // -1: the pod's addition
	}
	var ds []delivery
	sims := make([]*podSim, len(pods))
	keys := make(map[string]struct{}, len(pods))
	for i, in := range pods {
		if in.Pod == nil {
			return nil, fmt.Errorf("sim: pod %d is nil", i)
		}
		p, err := n.newPod(in, i)
		if err != nil {
			return nil, err
		}
		// A set, not a scan of the pods before: 10,000 pods took 50
		// million comparisons.
		if _, dup := keys[p.key]; dup {
			return nil, fmt.Errorf("sim: two pods named %s", p.key)
		}
		keys[p.key] = struct{}{}
		sims[i] = p
		at := max(in.At.D(), 0)
		ds = append(ds, delivery{at: at, pod: i, action: -1})
		for k, a := range in.Actions {
			if a.At.D() < at {
				return nil, fmt.Errorf("sim: pod %s: action %q at %s, before the pod is added at %s", p.key, a, a.At, in.At)
			}
			ds = append(ds, delivery{at: a.At.D(), pod: i, action: k})
		}
	}
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].at != ds[j].at {
			return ds[i].at < ds[j].at
		}
		return ds[i].pod < ds[j].pod
	})
	tl := &Timeline{Start: start, Seed: cfg.Seed}
	// step is one Advance: its entries streamed to Observe as they are
	// merged (Node.advanceEach), or merged onto the timeline's; it returns
	// how many there were.
	var streamed int
	emit := func(e *Entry) {
		streamed++
		if e.At > tl.End {
			tl.End = e.At
		}
		cfg.Observe(*e)
	}
	step := func(t time.Time) int {
		if cfg.Observe != nil {
			streamed = 0
			tl.Syncs += n.advanceEach(t, emit).Syncs
			return streamed
		}
		k := len(tl.Entries)
		r := n.advance(t, tl.Entries)
		tl.Syncs += r.Syncs
		tl.Entries = r.Entries
		if len(r.Entries) > k && r.Entries[len(r.Entries)-1].At > tl.End {
			tl.End = r.Entries[len(r.Entries)-1].At
		}
		return len(r.Entries) - k
	}
	// advance runs the node to t in steps of one to ten minutes (see
	// nextStep), so that what Observe streams is never held for longer.
	every := time.Minute
	advance := func(t time.Time) {
		for n.Now().Add(every).Before(t) {
			every = nextStep(every, step(n.Now().Add(every)), len(n.pods))
		}
		step(t)
	}
	for i := 0; i < len(ds); {
		at := start.Add(ds[i].at)
		if at.After(end) {
			break
		}
		advance(at.Add(-time.Nanosecond))
		for ; i < len(ds) && start.Add(ds[i].at).Equal(at); i++ {
			p := sims[ds[i].pod]
			if ds[i].action < 0 {
				n.added++
				n.place(at, p, p.add)
				continue
			}
			if n.pods[p.key] != p {
				continue // the pod's simulation ended
			}
			a := pods[ds[i].pod].Actions[ds[i].action]
			if err := checkAction(p, a); err != nil {
				return nil, fmt.Errorf("sim: pod %s: %w", p.key, err)
			}
			n.deliver(at, p, func() { p.act(a) })
		}
	}
	advance(end)
	return tl, nil
}

// stepEntries is about how many entries per pod a step of Simulate holds.
const stepEntries = 16

// nextStep is the length of Simulate's next step after one of length d in
// which the node logged entries with pods on it: long enough for each pod
// to log about stepEntries entries, within one to ten minutes. Each step
// runs every pod with something due in it, and waking a pod costs more
// than most of what it then does (its state comes back into the
// processor's caches): a pod with a probe every 10 s and a container GC
// pass every minute woken every minute spent about a sixth of its time on
// the waking (BenchmarkNode, 10,000 pods). The entries of a step wait for
// its end to be merged into time order; with about stepEntries per pod
// they stay a small part of what the node keeps per pod (about 32 KB for
// the benchmark's pods). The length changes no entry: only where the
// merges fall.
func nextStep(d time.Duration, entries, pods int) time.Duration {
	const least, most = time.Minute, 10 * time.Minute
	if entries <= 0 || pods <= 0 {
		return most
	}
	// entries/pods per d: stepEntries take d*stepEntries*pods/entries.
	next := time.Duration(float64(d) * stepEntries * float64(pods) / float64(entries))
	return min(max(next, least), most)
}
