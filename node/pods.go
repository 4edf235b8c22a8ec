package node

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// podDriver runs the pods bound to one node: it watches them (the
// kubelet's own watch, pods with spec.nodeName=<node>: pkg/kubelet/config/
// apiserver.go NewSourceApiserver), feeds each add, update and delete to
// the node's engine (sim.Node) at the wall-clock time it arrives, advances
// the engine to the clock's now whenever it has something to do, and
// writes what the engine's kubelet writes: status patches, Events, the
// final delete.
//
// The engine's virtual time is the wall clock itself: its Start is the
// time the driver started (the kubelet's start), so an entry's At plus
// Start is the wall time the kubelet did it.
type podDriver struct {
	s        *Standalone
	spec     NodeSpec
	index    int
	o        PodOptions
	recorder record.EventRecorder
	events   record.EventBroadcaster
	cidr     netip.Prefix
	// sq writes the pods' statuses and final deletes (statusqueue.go).
	sq *statusQueue

	mu    sync.Mutex
	queue []podChange
	kick  chan struct{}

	// The loop's own state (one goroutine).
	eng   *sim.Node
	start time.Time
	pods  map[types.UID]*drivenPod
	ips   map[string]bool
	next  int
}

type changeKind int

const (
	podAdded changeKind = iota
	podUpdated
	podDeleted
)

// podChange is one watch event, stamped with the time it arrived.
type podChange struct {
	at   time.Time
	kind changeKind
	pod  *v1.Pod
}

// drivenPod is one pod the driver knows.
type drivenPod struct {
	pod       *v1.Pod // the API object as last seen
	simulated bool    // the engine runs it
	track     podTrack
	ip        string
	sandboxUp bool
	actions   []timedAction
	apiGone   bool // the watch saw it deleted
}

func newPodDriver(s *Standalone, spec NodeSpec, index int, o PodOptions) *podDriver {
	bc := record.NewBroadcaster()
	bc.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: s.client.CoreV1().Events("")})
	// The kubelet's recorder: source component kubelet, host the node
	// (cmd/kubelet/app/server.go makeEventRecorder).
	rec := bc.NewRecorder(scheme.Scheme, v1.EventSource{Component: "kubelet", Host: spec.Name})
	d := &podDriver{s: s, spec: spec, index: index, o: o, recorder: rec, events: bc, cidr: nodePodCIDR(index),
		kick: make(chan struct{}, 1), pods: map[types.UID]*drivenPod{}, ips: map[string]bool{}}
	// The status writer's sweep and rate limiter run on the wall clock,
	// as client-go's limiter does: a test's fake clock (Options.Clock)
	// steps the node's loops, never a write's wait.
	d.sq = newStatusQueue(s.client, clock.RealClock{}, s.o.QPS, s.o.Burst, spec.InternalIP, d.logf)
	return d
}

// nodePodCIDR is the pod range of the node at index: 10.244.<index>.0/24
// for the first 256 nodes, then 10.245.x.0/24 and so on (the layout of a
// kind or kubeadm cluster's default 10.244.0.0/16 pod network).
func nodePodCIDR(index int) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(244 + index/256), byte(index % 256), 0}), 24)
}

// allocIP is the next free address of the node's range, from .2 up (.1 is
// the bridge), as host-local IPAM hands them out; "" when the range is
// full.
func (d *podDriver) allocIP() string {
	size := 254 - 1
	for i := 0; i < size; i++ {
		host := 2 + (d.next+i)%size
		b := d.cidr.Addr().As4()
		b[3] = byte(host)
		ip := netip.AddrFrom4(b).String()
		if !d.ips[ip] {
			d.ips[ip] = true
			d.next = (d.next + i + 1) % size
			return ip
		}
	}
	return ""
}

// keepIP takes ip, the pod IP an adopted pod's status shows, when it is
// in the node's range and free; "" otherwise.
func (d *podDriver) keepIP(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil || !d.cidr.Contains(a) || d.ips[ip] {
		return ""
	}
	d.ips[ip] = true
	return ip
}

// hasContainerStatuses says whether a pod's status shows any container.
func hasContainerStatuses(pod *v1.Pod) bool {
	st := &pod.Status
	return len(st.InitContainerStatuses)+len(st.ContainerStatuses)+len(st.EphemeralContainerStatuses) > 0
}

func (d *podDriver) push(c podChange) {
	d.mu.Lock()
	d.queue = append(d.queue, c)
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

func (d *podDriver) logf(format string, args ...any) {
	d.s.o.Logf("node %s: "+format, append([]any{d.spec.Name}, args...)...)
}

// run watches the node's pods and drives them until ctx ends.
func (d *podDriver) run(ctx context.Context) {
	clk := d.s.o.Clock
	d.start = clk.Now()
	d.eng = sim.NewNode(sim.Config{
		Seed:  d.o.Seed ^ uint64(d.index+1)*0x9e3779b97f4a7c15,
		Start: d.start,
		// The kubelet has just started (its probe workers wait a random
		// part of their period at first).
		KubeletUptime: sim.Duration(time.Nanosecond),
		Parallelism:   1,
		// The kubelet modelled (Options.Features): its gates decide for
		// the pods too (back-off, restart rules, ...).
		Kubelet: sim.Kubelet{Features: d.s.o.Features},
	})
	f := informers.NewSharedInformerFactoryWithOptions(d.s.client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", d.spec.Name).String()
	}))
	inf := f.Core().V1().Pods().Informer()
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if p, ok := obj.(*v1.Pod); ok {
				d.push(podChange{at: clk.Now(), kind: podAdded, pod: p})
			}
		},
		UpdateFunc: func(_, obj any) {
			if p, ok := obj.(*v1.Pod); ok {
				d.push(podChange{at: clk.Now(), kind: podUpdated, pod: p})
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if p, ok := obj.(*v1.Pod); ok {
				d.push(podChange{at: clk.Now(), kind: podDeleted, pod: p})
			}
		},
	})
	d.sq.store = inf.GetStore()
	f.Start(ctx.Done())
	defer f.Shutdown()
	defer d.events.Shutdown()
	sqDone := make(chan struct{})
	go func() { defer close(sqDone); d.sq.run(ctx) }()
	defer func() { <-sqDone }()
	for {
		d.step(ctx, clk.Now())
		wake, ok := d.eng.Wake()
		for _, p := range d.pods {
			for _, a := range p.actions {
				if !ok || a.at.Before(wake) {
					wake, ok = a.at, true
				}
			}
		}
		var timer <-chan time.Time
		stop := func() {}
		if ok {
			wait := wake.Sub(clk.Now())
			if wait < 0 {
				wait = 0
			}
			t := clk.NewTimer(wait)
			stop = func() { t.Stop() }
			timer = t.C()
		}
		select {
		case <-ctx.Done():
			stop()
			return
		case <-d.kick:
		case <-timer:
		}
		stop()
	}
}

// step applies the watch events that arrived, the script actions due,
// advances the engine to now and writes what its kubelet wrote.
func (d *podDriver) step(ctx context.Context, now time.Time) {
	d.mu.Lock()
	q := d.queue
	d.queue = nil
	d.mu.Unlock()
	for _, c := range q {
		d.apply(c)
	}
	for uid, p := range d.pods {
		keep := p.actions[:0]
		for _, a := range p.actions {
			if a.at.After(now) {
				keep = append(keep, a)
				continue
			}
			if err := d.eng.Do(a.at, p.pod.Namespace, string(uid), a.action); err != nil {
				d.logf("pod %s/%s: script action %s: %v", p.pod.Namespace, p.pod.Name, a.action, err)
			}
		}
		p.actions = keep
	}
	r := d.eng.Advance(now)
	d.write(ctx, r)
	d.forget()
}

// simPod is the pod as the engine gets it: named by its UID (the engine
// keys pods by namespace/name, the kubelet by UID, and a pod deleted and
// created again under its name is a new pod), with no status.
func simPod(p *v1.Pod) *v1.Pod {
	c := p.DeepCopy()
	c.Name = string(p.UID)
	c.ManagedFields = nil
	c.Status = v1.PodStatus{}
	return c
}

func (d *podDriver) apply(c podChange) {
	p := d.pods[c.pod.UID]
	switch c.kind {
	case podAdded, podUpdated:
		if p == nil {
			d.add(c)
			return
		}
		old := p.pod
		p.pod = c.pod
		if !p.simulated {
			d.finishUnsimulated(c.pod)
			return
		}
		scriptChanged := old.Annotations[ScriptAnnotation] != c.pod.Annotations[ScriptAnnotation]
		if apiequality.Semantic.DeepEqual(old.Spec, c.pod.Spec) && equalStrings(old.Finalizers, c.pod.Finalizers) &&
			(old.DeletionTimestamp == nil) == (c.pod.DeletionTimestamp == nil) && foreignConditionsKey(old) == foreignConditionsKey(c.pod) &&
			!scriptChanged {
			return
		}
		// A new script (or a new ephemeral container, which the script
		// may describe: kubectl debug adds one, the user annotates how
		// it behaves) is read again; containers created from now on
		// follow it. One that does not parse leaves the old script, with
		// an Event.
		var script *sim.Script
		if scriptChanged || len(old.Spec.EphemeralContainers) != len(c.pod.Spec.EphemeralContainers) {
			sc, _, problems := podScript(c.pod, d.o, c.at)
			if len(problems) == 0 {
				script = &sc
			} else if scriptChanged {
				for _, pr := range problems {
					d.event(c.pod, kubeletEvent{Type: v1.EventTypeWarning, Reason: reasonScriptInvalid, Message: pr})
				}
			}
		}
		next := simPod(c.pod)
		// The conditions other clients set (a readiness gate's): the
		// engine reads their changes from the status it is given
		// (sim.Node.UpdatePod; the kubelet's HandlePodReconcile).
		for _, cd := range c.pod.Status.Conditions {
			if !kubeletOwned(cd.Type) {
				next.Status.Conditions = append(next.Status.Conditions, cd)
			}
		}
		err := d.eng.UpdatePod(c.at, next, script)
		if err != nil && script != nil {
			d.event(c.pod, kubeletEvent{Type: v1.EventTypeWarning, Reason: reasonScriptInvalid,
				Message: fmt.Sprintf("annotation %s does not fit the pod: %v; the pod keeps its script", ScriptAnnotation, err)})
			err = d.eng.UpdatePod(c.at, next, nil)
		}
		if err != nil {
			d.logf("pod %s/%s: update not applied: %v", c.pod.Namespace, c.pod.Name, err)
		}
	case podDeleted:
		if p == nil {
			return
		}
		p.apiGone = true
		if p.simulated {
			// Gone from the API while the engine still has it: deleted
			// with grace 0 by someone (or by the kubelet, which the
			// engine already knows: then Remove changes nothing).
			_ = d.eng.Do(c.at, c.pod.Namespace, string(c.pod.UID), sim.Action{Remove: true})
		}
	}
}

// add starts simulating a pod that reached the node.
func (d *podDriver) add(c podChange) {
	pod := c.pod
	p := &drivenPod{pod: pod}
	d.pods[pod.UID] = p
	if pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
		// A pod that finished before this kubelet started: the kubelet
		// starts nothing for it (kubelet.go HandlePodAdditions: a
		// terminal pod's worker goes straight to terminated); it only
		// deletes it once deleted.
		d.finishUnsimulated(pod)
		return
	}
	// A pod that already shows containers was run by this node's previous
	// process (a restarted kubeletlogic-node): the engine adopts it with
	// the runtime its status shows, as a restarted kubelet finds its
	// containers in the runtime (sim.Node.AdoptPod). Its script's actions
	// count from when the pod first started, and those already past are
	// not done again.
	adopted := hasContainerStatuses(pod)
	reached := c.at
	if adopted && pod.Status.StartTime != nil {
		reached = pod.Status.StartTime.Time
	}
	engPod := simPod(pod)
	engAdd := d.eng.AddPod
	if adopted {
		engPod.Status = *pod.Status.DeepCopy()
		engAdd = d.eng.AdoptPod
	}
	script, actions, problems := podScript(pod, d.o, reached)
	if adopted {
		actions = slices.DeleteFunc(actions, func(a timedAction) bool { return a.at.Before(c.at) })
	}
	for _, pr := range problems {
		d.event(pod, kubeletEvent{Type: v1.EventTypeWarning, Reason: reasonScriptInvalid, Message: pr})
	}
	err := engAdd(c.at, engPod, script)
	if err != nil && len(pod.Annotations[ScriptAnnotation]) > 0 {
		d.event(pod, kubeletEvent{Type: v1.EventTypeWarning, Reason: reasonScriptInvalid,
			Message: fmt.Sprintf("annotation %s does not fit the pod: %v; the pod follows the node's defaults", ScriptAnnotation, err)})
		actions = nil
		err = engAdd(c.at, engPod, defaultScript(pod, d.o, c.at))
	}
	if err != nil {
		d.event(pod, kubeletEvent{Type: v1.EventTypeWarning, Reason: reasonNotSimulated, Message: fmt.Sprintf("not simulated: %v", err)})
		d.logf("pod %s/%s: not simulated: %v", pod.Namespace, pod.Name, err)
		return
	}
	p.simulated = true
	p.actions = actions
	if !pod.Spec.HostNetwork {
		p.ip = d.keepIP(pod.Status.PodIP)
		if p.ip == "" {
			p.ip = d.allocIP()
		}
		p.sandboxUp = adopted && sandboxReady(pod.Status)
	}
	if pod.DeletionTimestamp != nil && !adopted {
		// (An adopted pod's deletion is in the pod AdoptPod was given.)
		if err := d.eng.UpdatePod(c.at, simPod(pod), nil); err != nil {
			d.logf("pod %s/%s: deletion not applied: %v", pod.Namespace, pod.Name, err)
		}
	}
}

// finishUnsimulated is the status manager's final delete of a terminal pod
// the engine does not run, once it is deleted (status_manager.go
// canBeDeleted: terminal and no container can run).
func (d *podDriver) finishUnsimulated(pod *v1.Pod) {
	terminal := pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
	if !terminal || pod.DeletionTimestamp == nil || (pod.DeletionGracePeriodSeconds != nil && *pod.DeletionGracePeriodSeconds == 0) {
		return
	}
	d.sq.requestDelete(pod)
}

// write carries out a Report: per pod, in the order pods appear, the
// Events, then the status patch, then the final delete.
func (d *podDriver) write(ctx context.Context, r sim.Report) {
	if len(r.Entries) == 0 {
		return
	}
	byPod := map[string][]sim.Entry{}
	var order []string
	for _, e := range r.Entries {
		if _, ok := byPod[e.Pod]; !ok {
			order = append(order, e.Pod)
		}
		byPod[e.Pod] = append(byPod[e.Pod], e)
	}
	for _, uid := range order {
		p := d.pods[types.UID(uid)]
		if p == nil {
			continue
		}
		w := translate(p.pod, byPod[uid], d.start, &p.track)
		for _, ev := range w.Events {
			d.event(p.pod, ev)
		}
		if w.Status != nil && !p.apiGone {
			if sandboxReady(*w.Status) {
				p.sandboxUp = true
			}
			if f := d.s.o.StatusScheduled; f != nil {
				f(p.pod, *w.Status, w.StatusAt)
			}
			d.sq.set(p.pod, *w.Status, p.ip, p.sandboxUp)
		}
		if w.Delete && !p.apiGone {
			d.sq.requestDelete(p.pod)
		}
	}
}

// event records one Event about pod with the kubelet's recorder; the
// involved object is the container's reference when the event has a field
// path (container/ref.go GenerateContainerRef), else the pod's.
func (d *podDriver) event(pod *v1.Pod, ev kubeletEvent) {
	ref := &v1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name,
		UID: pod.UID, ResourceVersion: pod.ResourceVersion, FieldPath: ev.FieldPath}
	d.recorder.Event(ref, ev.Type, ev.Reason, ev.Message)
}

// forget drops the pods that are gone from the API and from the engine, and
// frees their IPs.
func (d *podDriver) forget() {
	var live map[string]bool
	for uid, p := range d.pods {
		if !p.apiGone {
			continue
		}
		if live == nil {
			live = map[string]bool{}
			for _, k := range d.eng.Pods() {
				live[k] = true
			}
		}
		if p.simulated && live[p.pod.Namespace+"/"+string(uid)] {
			continue
		}
		if p.ip != "" {
			delete(d.ips, p.ip)
		}
		d.sq.forget(uid)
		delete(d.pods, uid)
	}
}

// foreignConditionsKey is the types and statuses of the conditions of p's
// status the kubelet does not own, in their order.
func foreignConditionsKey(p *v1.Pod) string {
	var b []byte
	for _, c := range p.Status.Conditions {
		if !kubeletOwned(c.Type) {
			b = append(b, string(c.Type)+"="+string(c.Status)+";"...)
		}
	}
	return string(b)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
