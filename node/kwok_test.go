package node_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
)

// kwokGrace is the controller manager's --node-monitor-grace-period here:
// a KWOK node whose lease stopped being renewed is marked Unknown within
// the test's watch window (kwokWatch).
const (
	kwokGrace = 20 * time.Second
	kwokWatch = kwokGrace + 15*time.Second
)

// TestKwokNodes is the foundation of KWOK mode: the real kwok binary
// (KWOK v0.8.0, node stages only) on the real control plane keeps a node
// carrying KWOK's annotation Ready (conditions written once, its Lease
// renewed every 10 s, so the real node lifecycle controller leaves it
// Ready and untainted past its grace period), ignores a node without the
// annotation, and writes nothing to a pod bound to its node: with no pod
// stage it has no pod controller, and the pods are ours to drive.
func TestKwokNodes(t *testing.T) {
	cp := controlplane.Start(t, controlplane.Options{NodeMonitorGracePeriod: kwokGrace})
	c := cp.Client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp.StartKwok(t, controlplane.KwokOptions{})

	renewals := watchKwokLease(ctx, t, c, "kwok-0")
	fake := kwokNode("kwok-0")
	plain := kwokNode("plain-0")
	delete(plain.Annotations, controlplane.KwokNodeKey)
	for _, n := range []*v1.Node{fake, plain} {
		if _, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// kwok's node-initialize stage: Ready, and nodeInfo naming kwok's
	// version where the node gave none.
	var n *v1.Node
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var err error
		n, err = c.CoreV1().Nodes().Get(ctx, "kwok-0", metav1.GetOptions{})
		if err == nil && kwokReady(n) == v1.ConditionTrue {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if kwokReady(n) != v1.ConditionTrue {
		t.Fatalf("kwok-0 not Ready after 60 s: conditions %v", n.Status.Conditions)
	}
	readyAt := time.Now()
	// The stage writes "kwok-" and kwok's consts.Version, which has no "v".
	if want := "kwok-" + strings.TrimPrefix(controlplane.KwokVersion, "v"); n.Status.NodeInfo.KubeletVersion != want {
		t.Errorf("kwok-0 kubeletVersion %q: want %q (kwok's node-initialize stage)", n.Status.NodeInfo.KubeletVersion, want)
	}
	kwokManager := kwokStatusManager(n)
	if kwokManager == "" {
		t.Fatalf("kwok-0: no field manager wrote its status: %v", kwokManagers(n.ManagedFields))
	}
	t.Logf("kwok's field manager: %q", kwokManager)

	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "on-kwok", Namespace: "default"},
		Spec: v1.PodSpec{
			NodeName:    "kwok-0",
			Containers:  []v1.Container{{Name: "app", Image: "busybox"}},
			Tolerations: []v1.Toleration{{Key: controlplane.KwokNodeKey, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
		},
	}
	created, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// Past the grace period: a lease not renewed would have the node
	// lifecycle controller mark kwok-0 Unknown and taint it unreachable.
	time.Sleep(time.Until(readyAt.Add(kwokWatch)))

	t.Run("kwok keeps its node Ready", func(t *testing.T) {
		n, err := c.CoreV1().Nodes().Get(ctx, "kwok-0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if kwokReady(n) != v1.ConditionTrue {
			t.Errorf("kwok-0 Ready %s after %s: conditions %v", kwokReady(n), kwokWatch, n.Status.Conditions)
		}
		for _, tn := range n.Spec.Taints {
			if strings.HasPrefix(tn.Key, "node.kubernetes.io/") {
				t.Errorf("kwok-0 tainted %s:%s by the node lifecycle controller", tn.Key, tn.Effect)
			}
		}
		l, err := c.CoordinationV1().Leases(v1.NamespaceNodeLease).Get(ctx, "kwok-0", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("lease kwok-0: %v", err)
		}
		// kwok holds a node's lease under its own identity (hostname_UUID,
		// controllers.Identity), not the node's name as a kubelet does;
		// the lease duration is its --node-lease-duration-seconds, 40.
		if l.Spec.HolderIdentity == nil || !strings.Contains(*l.Spec.HolderIdentity, "_") || l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds != 40 {
			t.Errorf("lease kwok-0: holder %v duration %v: want kwok's identity (host_UUID) and 40", l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds)
		}
		if len(l.OwnerReferences) != 1 || l.OwnerReferences[0].Kind != "Node" || l.OwnerReferences[0].UID != n.UID {
			t.Errorf("lease kwok-0 owners %v: want the Node %s", l.OwnerReferences, n.UID)
		}
		// kwok renews every 40 s / 4 with up to 4 % jitter.
		times := renewals.get()
		if len(times) < 3 {
			t.Errorf("lease kwok-0 renewed %d times in %s: want at least 3 (every 10 s)", len(times), kwokWatch)
		}
		for i := 1; i < len(times); i++ {
			if gap := times[i].Sub(times[i-1]); gap > 13*time.Second {
				t.Errorf("lease kwok-0 renew gap %s: want about 10 s", gap)
			}
		}
		t.Logf("lease kwok-0 renew times: %v", times)
	})

	t.Run("kwok leaves a node without its annotation alone", func(t *testing.T) {
		p, err := c.CoreV1().Nodes().Get(ctx, "plain-0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if kwokReady(p) == v1.ConditionTrue {
			t.Errorf("plain-0 Ready True: kwok manages a node it was not told to")
		}
		if slices.Contains(kwokManagers(p.ManagedFields), kwokManager) {
			t.Errorf("plain-0 written by %s: %v", kwokManager, kwokManagers(p.ManagedFields))
		}
		if _, err := c.CoordinationV1().Leases(v1.NamespaceNodeLease).Get(ctx, "plain-0", metav1.GetOptions{}); err == nil {
			t.Errorf("plain-0 has a lease: kwok manages a node it was not told to")
		}
	})

	t.Run("kwok writes nothing to a pod on its node", func(t *testing.T) {
		got, err := c.CoreV1().Pods("default").Get(ctx, "on-kwok", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(kwokManagers(got.ManagedFields), kwokManager) {
			t.Errorf("pod written by %s: %v", kwokManager, kwokManagers(got.ManagedFields))
		}
		if got.ResourceVersion != created.ResourceVersion {
			t.Errorf("pod changed since its creation (resourceVersion %s, was %s): status %+v, managers %v",
				got.ResourceVersion, created.ResourceVersion, got.Status, kwokManagers(got.ManagedFields))
		}
		st := got.Status
		if st.Phase != v1.PodPending || len(st.Conditions) != 0 || len(st.ContainerStatuses) != 0 || st.PodIP != "" || st.HostIP != "" || st.StartTime != nil {
			t.Errorf("pod status %+v: want Pending and nothing else (no pod stage)", st)
		}
	})
}

// kwokNode is a fake node as KWOK's documentation writes one: its
// annotation and NoSchedule taint, the labels a node carries, no status.
func kwokNode(name string) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{controlplane.KwokNodeKey: controlplane.KwokNodeValue, "node.alpha.kubernetes.io/ttl": "0"},
			Labels: map[string]string{"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
				"kubernetes.io/hostname": name, "type": "kwok"},
		},
		Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: controlplane.KwokNodeKey, Value: controlplane.KwokNodeValue, Effect: v1.TaintEffectNoSchedule}}},
	}
}

func kwokReady(n *v1.Node) v1.ConditionStatus {
	if n == nil {
		return ""
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status
		}
	}
	return ""
}

func kwokManagers(fs []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Manager+"/"+f.Subresource)
	}
	return out
}

// kwokStatusManager is the field manager that wrote n's status subresource
// with "/status" appended, the form kwokManagers returns.
func kwokStatusManager(n *v1.Node) string {
	for _, f := range n.ManagedFields {
		if f.Subresource == "status" {
			return f.Manager + "/" + f.Subresource
		}
	}
	return ""
}

// kwokRenewals are the distinct renewTimes a watch saw on one lease.
type kwokRenewals struct {
	mu    sync.Mutex
	times []time.Time
}

func (r *kwokRenewals) get() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.times)
}

func watchKwokLease(ctx context.Context, t *testing.T, c kubernetes.Interface, name string) *kwokRenewals {
	t.Helper()
	w, err := c.CoordinationV1().Leases(v1.NamespaceNodeLease).Watch(ctx,
		metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	if err != nil {
		t.Fatal(err)
	}
	r := &kwokRenewals{}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			l, ok := ev.Object.(*coordinationv1.Lease)
			if !ok || (ev.Type != watch.Added && ev.Type != watch.Modified) || l.Spec.RenewTime == nil {
				continue
			}
			rt := l.Spec.RenewTime.Time
			r.mu.Lock()
			if len(r.times) == 0 || !r.times[len(r.times)-1].Equal(rt) {
				r.times = append(r.times, rt)
			}
			r.mu.Unlock()
		}
	}()
	return r
}
