package node_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubeletlogic/kubeletlogic/node"
	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
)

// gracePeriod is the controller manager's --node-monitor-grace-period in
// this test: shorter than its 50 s default, so a node whose lease stops
// being renewed is marked Unknown within the test (see the last subtest),
// and still more than twice the kubelet's 10 s renewal.
const gracePeriod = 20 * time.Second

// TestStandalone runs Standalone against a real control plane: the nodes
// register Ready with what the kubelet writes, the real scheduler binds a
// pod to them, their leases are renewed every 10-10.4 s on the wall clock,
// the real node lifecycle controller keeps them Ready while they are and
// marks one Unknown once it stops; on a fake clock, the lease renew times
// and the node status reports follow the kubelet's schedule exactly.
func TestStandalone(t *testing.T) {
	cp := controlplane.Start(t, controlplane.Options{NodeMonitorGracePeriod: gracePeriod})
	c := cp.Client
	ctx, cancelAll := context.WithCancel(context.Background())
	defer cancelAll()

	specs, err := node.Numbered("kl", 3)
	if err != nil {
		t.Fatal(err)
	}
	specs[2].Labels = map[string]string{"pool": "gpu", "topology.kubernetes.io/zone": "z1"}
	specs[2].Taints = []v1.Taint{{Key: "example.com/dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule}}
	names := []string{"kl-0", "kl-1", "kl-2"}

	renewals := watchLeases(ctx, t, c, names)
	health := watchHealth(ctx, c, names)

	sa, err := node.NewStandalone(c, specs, node.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stopNodes := context.WithCancel(ctx)
	var runErr error
	finished := make(chan struct{})
	start := time.Now()
	go func() { runErr = sa.Run(runCtx); close(finished) }()
	// The nodes log through t: stop them before the test ends, whatever
	// happens.
	defer func() { stopNodes(); <-finished }()

	t.Run("registered", func(t *testing.T) {
		for _, name := range names {
			n := waitNode(t, c, name, 60*time.Second, func(n *v1.Node) bool { return ready(n) == v1.ConditionTrue })
			checkNode(t, n, name)
		}
		n2, _ := c.CoreV1().Nodes().Get(ctx, "kl-2", metav1.GetOptions{})
		if n2.Labels["pool"] != "gpu" || n2.Labels["topology.kubernetes.io/zone"] != "z1" {
			t.Errorf("kl-2 labels %v: want pool=gpu and the zone", n2.Labels)
		}
		if !slices.ContainsFunc(n2.Spec.Taints, func(tn v1.Taint) bool {
			return tn.Key == "example.com/dedicated" && tn.Effect == v1.TaintEffectNoSchedule
		}) {
			t.Errorf("kl-2 taints %v: want example.com/dedicated:NoSchedule", n2.Spec.Taints)
		}
		for _, name := range names {
			l := waitLease(t, c, name, 30*time.Second)
			nd, _ := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != name || l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds != 40 {
				t.Errorf("lease %s: holder %v duration %v: want %s and 40", name, l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, name)
			}
			if len(l.OwnerReferences) != 1 || l.OwnerReferences[0].Kind != "Node" || l.OwnerReferences[0].UID != nd.UID {
				t.Errorf("lease %s owners %v: want the Node %s", name, l.OwnerReferences, nd.UID)
			}
		}
	})

	t.Run("scheduler binds a pod", func(t *testing.T) {
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("3")}}}}},
		}
		if _, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var got *v1.Pod
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			got, err = c.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
			if err == nil && got.Spec.NodeName != "" {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if got == nil || got.Spec.NodeName == "" {
			t.Fatalf("pod not bound after 60 s: %+v", got)
		}
		// kl-2 carries a NoSchedule taint the pod does not tolerate.
		if got.Spec.NodeName != "kl-0" && got.Spec.NodeName != "kl-1" {
			t.Errorf("pod bound to %q: want kl-0 or kl-1", got.Spec.NodeName)
		}
	})

	for _, r := range []float64{0, 0.75} {
		t.Run(fmt.Sprintf("fake clock rand %.2f", r), func(t *testing.T) { fakeClockSchedule(t, c, r) })
	}

	t.Run("leases every 10 s, nodes stay Ready", func(t *testing.T) {
		// Watch at least two grace periods and a half: a lease renewed
		// too rarely would let the controller mark a node Unknown.
		if d := 2*gracePeriod + 10*time.Second - time.Since(start); d > 0 {
			time.Sleep(d)
		}
		for _, name := range names {
			times := renewals.get(name)
			if len(times) < 4 {
				t.Errorf("lease %s renewed %d times in %s: want at least 4", name, len(times), time.Since(start).Round(time.Second))
				continue
			}
			var gaps []time.Duration
			for i := 1; i < len(times); i++ {
				gaps = append(gaps, times[i].Sub(times[i-1]))
			}
			t.Logf("lease %s renew intervals: %v", name, gaps)
			// Each gap is the wait, 10 s plus up to 4 % jitter, plus the
			// latency of the previous update (the wait starts when the
			// update returns): up to 3 s allowed on a loaded machine, and
			// the median within 0.5 s of the wait.
			for _, g := range gaps {
				if g < 10*time.Second || g > 10400*time.Millisecond+3*time.Second {
					t.Errorf("lease %s renewed after %s: want 10 s to 10.4 s plus the call's latency", name, g)
				}
			}
			slices.Sort(gaps)
			if m := gaps[len(gaps)/2]; m > 10900*time.Millisecond {
				t.Errorf("lease %s: median renew interval %s, want 10 s to 10.4 s plus a little latency", name, m)
			}
		}
		if bad := health.violations(); len(bad) > 0 {
			t.Errorf("while the nodes ran: %v", bad)
		}
	})

	t.Run("the node lifecycle controller notices a node that stops", func(t *testing.T) {
		stopNodes()
		<-finished
		if runErr != nil {
			t.Fatal(runErr)
		}
		stopped := time.Now()
		n := waitNode(t, c, "kl-0", gracePeriod+40*time.Second, func(n *v1.Node) bool { return ready(n) == v1.ConditionUnknown })
		t.Logf("kl-0 Ready=Unknown %s after its lease stopped (grace %s): %s", time.Since(stopped).Round(time.Second), gracePeriod, readyCond(n).Message)
	})
}

func ready(n *v1.Node) v1.ConditionStatus {
	if c := readyCond(n); c != nil {
		return c.Status
	}
	return ""
}

func readyCond(n *v1.Node) *v1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == v1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// checkNode checks what the kubelet writes at registration.
func checkNode(t *testing.T, n *v1.Node, name string) {
	t.Helper()
	want := map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64"}
	for k, v := range want {
		if n.Labels[k] != v {
			t.Errorf("%s label %s = %q, want %q", name, k, n.Labels[k], v)
		}
	}
	if n.Status.NodeInfo.KubeletVersion != "v1.37.2" {
		t.Errorf("%s kubeletVersion %q, want v1.37.2", name, n.Status.NodeInfo.KubeletVersion)
	}
	var types []v1.NodeConditionType
	for _, c := range n.Status.Conditions {
		types = append(types, c.Type)
		if c.Type != v1.NodeReady && c.Status != v1.ConditionFalse {
			t.Errorf("%s condition %s = %s, want False", name, c.Type, c.Status)
		}
	}
	if !slices.Equal(types, []v1.NodeConditionType{v1.NodeMemoryPressure, v1.NodeDiskPressure, v1.NodePIDPressure, v1.NodeReady}) {
		t.Errorf("%s conditions %v, want the kubelet's four in its order", name, types)
	}
	if rc := readyCond(n); rc.Reason != "KubeletReady" || rc.Message != "kubelet is posting ready status" {
		t.Errorf("%s Ready %q %q", name, rc.Reason, rc.Message)
	}
	capacity, alloc := n.Status.Capacity, n.Status.Allocatable
	for r, want := range map[v1.ResourceName][2]string{v1.ResourceCPU: {"4", "4"}, v1.ResourceMemory: {"16Gi", "16284Mi"},
		v1.ResourcePods: {"110", "110"}, v1.ResourceEphemeralStorage: {"100Gi", "96636764160"}} {
		c, a := capacity[r], alloc[r]
		if c.Cmp(resource.MustParse(want[0])) != 0 || a.Cmp(resource.MustParse(want[1])) != 0 {
			t.Errorf("%s %s capacity %s allocatable %s, want %s and %s", name, r, c.String(), a.String(), want[0], want[1])
		}
	}
	if len(n.Status.Addresses) != 2 || n.Status.Addresses[0].Type != v1.NodeInternalIP || n.Status.Addresses[1] != (v1.NodeAddress{Type: v1.NodeHostName, Address: name}) {
		t.Errorf("%s addresses %v", name, n.Status.Addresses)
	}
	if n.Status.DaemonEndpoints.KubeletEndpoint.Port != 10250 {
		t.Errorf("%s kubelet port %d", name, n.Status.DaemonEndpoints.KubeletEndpoint.Port)
	}
}

func waitNode(t *testing.T, c kubernetes.Interface, name string, limit time.Duration, ok func(*v1.Node) bool) *v1.Node {
	t.Helper()
	deadline := time.Now().Add(limit)
	var last *v1.Node
	for time.Now().Before(deadline) {
		n, err := c.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
		if err == nil {
			last = n
			if ok(n) {
				return n
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("node %s not as wanted after %s; last seen conditions %+v", name, limit, last)
	return nil
}

func waitLease(t *testing.T, c kubernetes.Interface, name string, limit time.Duration) *coordinationv1.Lease {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		l, err := c.CoordinationV1().Leases(v1.NamespaceNodeLease).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil {
			return l
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no lease %s after %s", name, limit)
	return nil
}

// renewLog holds the renew times each lease was written with, as a watch
// on the API server saw them.
type renewLog struct {
	mu sync.Mutex
	m  map[string][]time.Time
}

func (r *renewLog) get(name string) []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.m[name]...)
}

func watchLeases(ctx context.Context, t *testing.T, c kubernetes.Interface, names []string) *renewLog {
	w, err := c.CoordinationV1().Leases(v1.NamespaceNodeLease).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := &renewLog{m: map[string][]time.Time{}}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			l, ok := ev.Object.(*coordinationv1.Lease)
			if !ok || (ev.Type != watch.Added && ev.Type != watch.Modified) || !slices.Contains(names, l.Name) || l.Spec.RenewTime == nil {
				continue
			}
			r.mu.Lock()
			ts := r.m[l.Name]
			if len(ts) == 0 || !ts[len(ts)-1].Equal(l.Spec.RenewTime.Time) {
				r.m[l.Name] = append(ts, l.Spec.RenewTime.Time)
			}
			r.mu.Unlock()
		}
	}()
	return r
}

// healthLog records, once a node has been seen healthy (Ready, and without
// the not-ready taint the TaintNodesByCondition admission plugin puts on a
// new node), every poll that finds it not Ready or carrying the node
// lifecycle controller's not-ready or unreachable taint.
type healthLog struct {
	mu  sync.Mutex
	bad []string
}

func (h *healthLog) violations() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.bad...)
}

func watchHealth(ctx context.Context, c kubernetes.Interface, names []string) *healthLog {
	h := &healthLog{}
	go func() {
		healthy := map[string]bool{}
		for ctx.Err() == nil {
			for _, name := range names {
				n, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					continue
				}
				var problems []string
				if ready(n) != v1.ConditionTrue {
					problems = append(problems, "Ready="+string(ready(n)))
				}
				for _, tn := range n.Spec.Taints {
					if tn.Key == v1.TaintNodeNotReady || tn.Key == v1.TaintNodeUnreachable {
						problems = append(problems, "taint "+tn.Key+":"+string(tn.Effect))
					}
				}
				switch {
				case len(problems) == 0:
					healthy[name] = true
				case healthy[name]:
					h.mu.Lock()
					h.bad = append(h.bad, fmt.Sprintf("%s %s %v", time.Now().Format(time.TimeOnly), name, problems))
					h.mu.Unlock()
				}
			}
			time.Sleep(time.Second)
		}
	}()
	return h
}

// fakeClockSchedule runs one node on a fake clock whose random source
// always returns r, steps the clock from one wake-up of the node's two
// loops to the next, and checks after every step that the lease's renew
// time and the node's Ready heartbeat are what the kubelet's rules give:
// both loops wake every 10 s × (1 + 0.04 r) after the previous run ends;
// the status is reported at registration, then once the report frequency
// (5 min) plus the random delay 5 min × (r − 0.5) drawn after that first
// report has passed, then every 5 min.
func fakeClockSchedule(t *testing.T, c kubernetes.Interface, r float64) {
	name := fmt.Sprintf("fake-%d", int(r*100))
	t0 := time.Now().Truncate(time.Second)
	clk := clocktesting.NewFakeClock(t0)
	sa, err := node.NewStandalone(c, []node.NodeSpec{{Name: name, InternalIP: "10.99.0.1"}},
		node.Options{Clock: clk, Rand: func() float64 { return r }, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sa.Run(ctx) }()
	defer func() { cancel(); <-done }()

	settle := func() {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for clk.Waiters() < 2 {
			if time.Now().After(deadline) {
				t.Fatalf("the node's two loops are not both waiting on the clock (%d waiters)", clk.Waiters())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// wait.Jitter(10 s, 0.04) with the draw r.
	period := 10*time.Second + time.Duration(r*0.04*float64(10*time.Second))
	nextReport := t0.Add(5*time.Minute + time.Duration(float64(5*time.Minute)*(r-0.5)))
	lastReport := t0
	settle()
	reports := 1
	for now := t0.Add(period); now.Sub(t0) < 12*time.Minute; now = now.Add(period) {
		clk.SetTime(now)
		settle()
		if !now.Before(nextReport) {
			lastReport, nextReport = now, now.Add(5*time.Minute)
			reports++
		}
		ctx := context.Background()
		l, err := c.CoordinationV1().Leases(v1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("at +%s: %v", now.Sub(t0), err)
		}
		if !l.Spec.RenewTime.Time.Equal(now) {
			t.Fatalf("at +%s: lease renew time +%s, want +%s", now.Sub(t0), l.Spec.RenewTime.Time.Sub(t0), now.Sub(t0))
		}
		n, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hb := readyCond(n).LastHeartbeatTime.Time
		if want := lastReport.Truncate(time.Second); !hb.Equal(want) {
			t.Fatalf("at +%s: Ready heartbeat +%s, want +%s (the last report due)", now.Sub(t0), hb.Sub(t0), want.Sub(t0))
		}
	}
	if reports < 3 {
		t.Fatalf("%d status reports in 12 min: the test did not reach the periodic report", reports)
	}
	t.Logf("rand %.2f: lease renewed every %s, status reported %d times in 12 min, the last at +%s", r, period, reports, lastReport.Sub(t0))
}
