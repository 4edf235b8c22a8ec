package node

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// The kubelet's defaults (pkg/kubelet/apis/config/v1beta1/defaults.go:
// SetDefaults_KubeletConfiguration; pkg/kubelet/kubelet.go:
// nodeLeaseRenewIntervalFraction).
const (
	DefaultLeaseDurationSeconds  = 40
	LeaseRenewIntervalFraction   = 0.25
	DefaultStatusUpdateFrequency = 10 * time.Second
	DefaultStatusReportFrequency = 5 * time.Minute
	// jitterFactor is the jitter of the kubelet's periodic loops: both the
	// lease controller (controller.Run) and the node status loop
	// (kubelet.go: Run) call wait.JitterUntil with 0.04, sliding.
	jitterFactor = 0.04
)

// Options configures a Standalone. The zero value is a kubelet v1.37.2 with
// its default configuration on the wall clock.
type Options struct {
	// Features is the kubelet modelled; its version is the nodes'
	// nodeInfo.kubeletVersion. The zero value is v1.37.2.
	Features features.Set
	// Clock is the clock the periodic loops (lease renewal, node status)
	// read and wait on; nil means the wall clock. A test may pass a fake
	// clock (k8s.io/utils/clock/testing) and step it. The pod status
	// writer's 10 s sweep and its rate limiter use the wall clock.
	Clock clock.Clock
	// Rand returns a number in [0, 1) for the kubelet's jitter and random
	// report delay; nil means math/rand/v2's Float64.
	Rand func() float64
	// LeaseDurationSeconds is the kubelet's nodeLeaseDurationSeconds; 0
	// means 40. The lease is renewed every LeaseDurationSeconds × 0.25.
	LeaseDurationSeconds int32
	// StatusUpdateFrequency is the kubelet's nodeStatusUpdateFrequency
	// (how often the status is computed); 0 means 10 s.
	StatusUpdateFrequency time.Duration
	// StatusReportFrequency is the kubelet's nodeStatusReportFrequency (how
	// often an unchanged status is still patched); 0 means 5 min.
	StatusReportFrequency time.Duration
	// Pods says how the nodes run the pods bound to them (the zero value:
	// every pod, Job pods exiting 0 after DefaultJobRunTime).
	Pods PodOptions
	// QPS and Burst limit the requests of each node's pod status writer
	// (statusqueue.go: every GET, status PATCH and final DELETE waits for
	// a token), as the kubelet's kubeAPIQPS and kubeAPIBurst limit its
	// client; 0 means the kubelet's defaults, 50 and 100 (DefaultQPS,
	// DefaultBurst); a negative QPS means no limit. The client you pass
	// keeps its own limiter (client-go's QPS and Burst) for every request.
	QPS   float32
	Burst int
	// Logf receives one line per failed or retried API call; nil discards
	// them.
	Logf func(format string, args ...any)
	// StatusScheduled, when set, is called from a node's pod loop with
	// each status its engine's kubelet writes, before the status writer
	// sends it: the pod as last seen, the status and when the engine's
	// kubelet wrote it (its schedule). A benchmark's hook: the API
	// showing the status later than at is how far the node lags behind
	// the kubelet (TestCrashLoopLoad). It must not block.
	StatusScheduled func(pod *v1.Pod, status v1.PodStatus, at time.Time)
}

// Standalone registers nodes on an API server and keeps them alive as their
// kubelets would: it creates each node, renews its Lease and reports its
// status. Build it with NewStandalone and call Run once.
type Standalone struct {
	client kubernetes.Interface
	nodes  []NodeSpec
	o      Options
	mu     sync.Mutex
	ran    bool
	// drivers are the nodes' pod drivers by node name, once Run made them.
	drivers map[string]*podDriver
}

// withDefaults fills in what both modes default the same way: the wall
// clock, math/rand/v2's Float64, the kubelet's QPS and Burst, and a Logf
// that discards.
func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.QPS == 0 {
		o.QPS = DefaultQPS
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// NewStandalone validates the node specs and options. Names must be unique;
// see NodeSpec for each field. It makes no API call.
func NewStandalone(client kubernetes.Interface, nodes []NodeSpec, o Options) (*Standalone, error) {
	if client == nil {
		return nil, errors.New("node: NewStandalone: nil client")
	}
	if len(nodes) == 0 {
		return nil, errors.New("node: NewStandalone: no nodes")
	}
	if o.LeaseDurationSeconds < 0 || o.StatusUpdateFrequency < 0 || o.StatusReportFrequency < 0 {
		return nil, fmt.Errorf("node: NewStandalone: negative lease duration %d s, status update frequency %s or report frequency %s",
			o.LeaseDurationSeconds, o.StatusUpdateFrequency, o.StatusReportFrequency)
	}
	if o.LeaseDurationSeconds == 0 {
		o.LeaseDurationSeconds = DefaultLeaseDurationSeconds
	}
	if o.StatusUpdateFrequency == 0 {
		o.StatusUpdateFrequency = DefaultStatusUpdateFrequency
	}
	if o.StatusReportFrequency == 0 {
		o.StatusReportFrequency = DefaultStatusReportFrequency
	}
	o = o.withDefaults()
	seen := map[string]bool{}
	out := make([]NodeSpec, len(nodes))
	for i, n := range nodes {
		v, err := n.validate()
		if err != nil {
			return nil, err
		}
		if seen[v.Name] {
			return nil, fmt.Errorf("node: NewStandalone: node %s given twice", v.Name)
		}
		seen[v.Name] = true
		out[i] = v
	}
	return &Standalone{client: client, nodes: out, o: o}, nil
}

// RenewInterval is the lease renewal period: the lease duration times the
// kubelet's nodeLeaseRenewIntervalFraction (pkg/kubelet/kubelet.go:
// NewMainKubelet), 10 s by default.
func (s *Standalone) RenewInterval() time.Duration {
	return time.Duration(float64(time.Duration(s.o.LeaseDurationSeconds)*time.Second) * LeaseRenewIntervalFraction)
}

// Run registers every node and keeps their leases and statuses up to date
// until ctx ends; it then returns nil. Like the kubelet, it never gives up
// on a failed call: it logs it (Options.Logf) and retries. A second call
// returns an error.
func (s *Standalone) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.ran {
		s.mu.Unlock()
		return errors.New("node: Standalone.Run called twice")
	}
	s.ran = true
	s.mu.Unlock()
	var wg sync.WaitGroup
	for i, n := range s.nodes {
		if !s.o.Pods.Disabled {
			d := newPodDriver(s, n, i, s.o.Pods)
			s.mu.Lock()
			if s.drivers == nil {
				s.drivers = map[string]*podDriver{}
			}
			s.drivers[n.Name] = d
			s.mu.Unlock()
			wg.Add(1)
			go func() { defer wg.Done(); d.run(ctx) }()
		}
		st := &statusReporter{s: s, spec: n}
		ls := &leaseRenewer{s: s, name: n.Name}
		wg.Add(2)
		go func() { defer wg.Done(); s.every(ctx, s.o.StatusUpdateFrequency, st.sync) }()
		go func() { defer wg.Done(); s.every(ctx, s.RenewInterval(), ls.sync) }()
	}
	wg.Wait()
	return nil
}

// engineStatus is the newest status the engine of node gave for the pod
// uid (the status manager's cache, before the node's IPs and the merge);
// false when there is none.
func (s *Standalone) engineStatus(node string, uid types.UID) (v1.PodStatus, bool) {
	s.mu.Lock()
	d := s.drivers[node]
	s.mu.Unlock()
	if d == nil {
		return v1.PodStatus{}, false
	}
	return d.sq.cached(uid)
}

// driver is node's pod driver (nil: none).
func (s *Standalone) driver(node string) *podDriver {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.drivers[node]
}

// rand01 is Options.Rand behind a lock (a user's source need not be safe
// for concurrent use).
func (s *Standalone) rand01() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.o.Rand()
}

// every runs f, then waits period plus up to 4 % jitter measured from the
// end of f, until ctx ends: wait.JitterUntil(f, period, 0.04, sliding=true),
// as the kubelet runs its node status and lease loops.
func (s *Standalone) every(ctx context.Context, period time.Duration, f func(context.Context)) {
	for {
		if ctx.Err() != nil {
			return
		}
		f(ctx)
		t := s.o.Clock.NewTimer(period + time.Duration(s.rand01()*jitterFactor*float64(period)))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// sleep waits d on the wall clock (the kubelet's registration and
// lease-creation back-offs use time.Sleep and time.After); false when ctx
// ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
