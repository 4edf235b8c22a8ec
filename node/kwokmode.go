package node

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sort"
	"sync"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// DefaultKwokNodeSelector is the annotation selector of the nodes KWOK
// manages by convention: kwokctl starts kwok with
// --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake (KWOK
// v0.8.0, pkg/kwokctl/components/kwok_controller.go), and KWOK's
// documentation gives its fake nodes that annotation.
const DefaultKwokNodeSelector = "kwok.x-k8s.io/node=fake"

// KwokSelector selects the nodes whose pods a [Kwok] drives, as kwok v0.8.0
// selects the nodes it manages: a node must match both selectors (kwok
// filters its node watch by the label selector and then the node's
// annotations by the annotation selector, pkg/kwok/controllers/
// controller.go init). The zero value selects DefaultKwokNodeSelector.
type KwokSelector struct {
	// Annotations is a selector over the node's annotations, in label
	// selector syntax (kwok's --manage-nodes-with-annotation-selector).
	// Empty means DefaultKwokNodeSelector when Labels is empty too, and no
	// condition on annotations when Labels is set.
	Annotations string
	// Labels is a selector over the node's labels (kwok's
	// --manage-nodes-with-label-selector); empty means no condition on
	// labels.
	Labels string
}

// Kwok drives the pods of nodes someone else keeps (KWOK with its node
// stages only: it registers the nodes, renews their leases and keeps them
// Ready, and with no pod stage writes nothing to a pod). Every node the
// selector matches gets its own pod driver, the same as a [Standalone]
// node's: it watches the pods bound to that node, runs them on its own
// sim.Node on the wall clock and writes what the node's kubelet would
// write. A node's driver starts when a matching node has an InternalIP
// address (the pods' hostIP) or is Ready: kwok's node-initialize stage
// writes the conditions and the addresses in one status patch, and writes
// no InternalIP at all when kwok has no --node-ip (kwokctl's binary
// runtime passes none), so a Ready node with no InternalIP has its pods
// driven with no hostIP, as kwok's own pod stages would write them. The
// driver stops when the node goes, stops matching, or is replaced by a
// node of the same name (a new UID). Pods bound to any other node are
// never read or written. Build it with NewKwok and call Run once.
type Kwok struct {
	s   *Standalone // the client and options the pod drivers read
	ann labels.Selector
	lbl labels.Selector
	// lblText is the label selector as given, for the node watch.
	lblText string
	mu      sync.Mutex
	ran     bool
	done    bool // Run is returning: start no driver
	ctx     context.Context
	// nodes are the nodes being driven, by name.
	nodes map[string]*kwokNode
	// waiting are the matching nodes neither Ready nor with an InternalIP
	// yet (logged once).
	waiting map[string]bool
}

type kwokNode struct {
	uid    types.UID
	index  int
	cancel context.CancelFunc
	done   chan struct{}
}

// NewKwok validates the selector and options. Of Options, KWOK mode reads
// Features (the kubelet modelled for the pods), Clock, Pods and Logf; the
// node settings (LeaseDurationSeconds, StatusUpdateFrequency,
// StatusReportFrequency) are kwok's business and are an error when set, as
// is Pods.Disabled (there would be nothing left to do). It makes no API
// call.
func NewKwok(client kubernetes.Interface, sel KwokSelector, o Options) (*Kwok, error) {
	if client == nil {
		return nil, errors.New("node: NewKwok: nil client")
	}
	if o.LeaseDurationSeconds != 0 || o.StatusUpdateFrequency != 0 || o.StatusReportFrequency != 0 {
		return nil, errors.New("node: NewKwok: lease duration, status update and report frequencies are set: in KWOK mode kwok keeps the nodes")
	}
	if o.Pods.Disabled {
		return nil, errors.New("node: NewKwok: Pods.Disabled: KWOK mode only drives pods")
	}
	if sel.Annotations == "" && sel.Labels == "" {
		sel.Annotations = DefaultKwokNodeSelector
	}
	ann, err := labels.Parse(sel.Annotations)
	if err != nil {
		return nil, fmt.Errorf("node: NewKwok: annotation selector %q: %v", sel.Annotations, err)
	}
	lbl, err := labels.Parse(sel.Labels)
	if err != nil {
		return nil, fmt.Errorf("node: NewKwok: label selector %q: %v", sel.Labels, err)
	}
	o = o.withDefaults()
	return &Kwok{s: &Standalone{client: client, o: o}, ann: ann, lbl: lbl, lblText: sel.Labels,
		nodes: map[string]*kwokNode{}, waiting: map[string]bool{}}, nil
}

// Run watches the nodes and drives the pods of those the selector matches
// until ctx ends; it then stops every driver and returns nil. A second call
// returns an error.
func (k *Kwok) Run(ctx context.Context) error {
	k.mu.Lock()
	if k.ran {
		k.mu.Unlock()
		return errors.New("node: Kwok.Run called twice")
	}
	k.ran = true
	k.ctx = ctx
	k.mu.Unlock()
	f := informers.NewSharedInformerFactoryWithOptions(k.s.client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = k.lblText
	}))
	inf := f.Core().V1().Nodes().Informer()
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if n, ok := obj.(*v1.Node); ok {
				k.sync(n)
			}
		},
		UpdateFunc: func(_, obj any) {
			if n, ok := obj.(*v1.Node); ok {
				k.sync(n)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if n, ok := obj.(*v1.Node); ok {
				k.mu.Lock()
				defer k.mu.Unlock()
				delete(k.waiting, n.Name)
				k.stop(n.Name, "deleted")
			}
		},
	})
	f.Start(ctx.Done())
	<-ctx.Done()
	f.Shutdown()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.done = true
	for _, name := range k.driven() {
		k.stop(name, "shutting down")
	}
	return nil
}

// Nodes returns the names of the nodes whose pods are being driven now,
// sorted.
func (k *Kwok) Nodes() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.driven()
}

func (k *Kwok) driven() []string {
	out := make([]string, 0, len(k.nodes))
	for name := range k.nodes {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// sync starts or stops the driver of one node after the watch saw it.
func (k *Kwok) sync(n *v1.Node) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return
	}
	match, ip, ready := kwokOwns(n, k.ann, k.lbl)
	cur := k.nodes[n.Name]
	if cur != nil && cur.uid != n.UID {
		k.stop(n.Name, "replaced by a node with a new UID")
		cur = nil
	}
	switch {
	case !match:
		delete(k.waiting, n.Name)
		if cur != nil {
			k.stop(n.Name, "no longer matches the selector")
		}
	case cur != nil:
	case ip == "" && !ready:
		if !k.waiting[n.Name] {
			k.waiting[n.Name] = true
			k.s.o.Logf("node %s: matches the selector; its pods are driven once it is Ready or has an InternalIP address", n.Name)
		}
	default:
		delete(k.waiting, n.Name)
		k.start(n, ip)
	}
}

// kwokOwns says whether n is selected (its labels match the label selector,
// its annotations the annotation selector), gives its first InternalIP
// address ("" when it has none that parses) and whether it is Ready.
func kwokOwns(n *v1.Node, ann, lbl labels.Selector) (match bool, ip string, ready bool) {
	if !lbl.Matches(labels.Set(n.Labels)) || !ann.Matches(labels.Set(n.Annotations)) {
		return false, "", false
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady && c.Status == v1.ConditionTrue {
			ready = true
		}
	}
	for _, a := range n.Status.Addresses {
		if a.Type != v1.NodeInternalIP {
			continue
		}
		if addr, err := netip.ParseAddr(a.Address); err == nil {
			return true, addr.String(), ready
		}
	}
	return true, "", ready
}

// kwokPodCIDR is the node's spec.podCIDR when it is an IPv4 range of at
// least a /24 (the pod driver hands out .2 to .254 of its first /24), else
// false.
func kwokPodCIDR(n *v1.Node) (netip.Prefix, bool) {
	p, err := netip.ParsePrefix(n.Spec.PodCIDR)
	if err != nil || !p.Addr().Is4() || p.Bits() > 24 {
		return netip.Prefix{}, false
	}
	return p.Masked(), true
}

// start runs a pod driver for n (k.mu held). Its index (the seed's mix and
// the default pod range 10.244.<index>.0/24) is the lowest one free.
func (k *Kwok) start(n *v1.Node, ip string) {
	used := map[int]bool{}
	for _, d := range k.nodes {
		used[d.index] = true
	}
	index := 0
	for used[index] {
		index++
	}
	d := newPodDriver(k.s, NodeSpec{Name: n.Name, InternalIP: ip}, index, k.s.o.Pods)
	if p, ok := kwokPodCIDR(n); ok {
		d.cidr = p
	}
	ctx, cancel := context.WithCancel(k.ctx)
	kn := &kwokNode{uid: n.UID, index: index, cancel: cancel, done: make(chan struct{})}
	k.nodes[n.Name] = kn
	go func() { defer close(kn.done); d.run(ctx) }()
	if ip == "" {
		k.s.o.Logf("node %s: driving its pods (no InternalIP address: no hostIP; pod range %s)", n.Name, d.cidr)
		return
	}
	k.s.o.Logf("node %s: driving its pods (hostIP %s, pod range %s)", n.Name, ip, d.cidr)
}

// stop ends the driver of the named node, if any, and waits for it (k.mu
// held). The pods stay as they are in the API; the driver writes nothing
// more.
func (k *Kwok) stop(name, why string) {
	kn := k.nodes[name]
	if kn == nil {
		return
	}
	kn.cancel()
	<-kn.done
	delete(k.nodes, name)
	k.s.o.Logf("node %s: %s; its pods are no longer driven", name, why)
}
