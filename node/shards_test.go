package node_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubeletlogic/kubeletlogic/node"
	"github.com/kubeletlogic/kubeletlogic/node/internal/controlplane"
)

// shardLabel splits the KWOK nodes of TestShards between the two shards.
const shardLabel = "kubeletlogic.io/shard"

// TestShards runs two shards of kubeletlogic-node's KWOK mode against one
// real control plane and the real kwok (node stages only): shard a drives
// the nodes labelled kubeletlogic.io/shard=a, shard b those labelled b
// (node.KwokSelector.Labels, the command's --node-label-selector). Each
// shard has its own client, so its own field manager (its user agent);
// a Deployment per shard, pinned to its nodes, must get every pod Running,
// and every pod's status must have been written by its node's shard only,
// with a pod IP of its node's podCIDR, no IP given twice.
func TestShards(t *testing.T) {
	cp := controlplane.Start(t, controlplane.Options{})
	c := cp.Client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp.StartKwok(t, controlplane.KwokOptions{})

	shards := []string{"a", "b"}
	const nodesPerShard, podsPerShard = 2, 6
	for j, s := range shards {
		for i := range nodesPerShard {
			n := kwokNode(fmt.Sprintf("shard-%s-%d", s, i))
			n.Labels[shardLabel] = s
			// Each shard numbers its own nodes from 0: without a podCIDR
			// of their own, the shards' nodes would share pod ranges.
			n.Spec.PodCIDR = fmt.Sprintf("10.245.%d.0/24", j*nodesPerShard+i)
			if _, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, s := range shards {
		cfg := rest.CopyConfig(cp.Config)
		cfg.UserAgent = "shard-" + s
		sc, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		k, err := node.NewKwok(sc, node.KwokSelector{Labels: shardLabel + "=" + s}, node.Options{Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { _ = k.Run(runCtx); close(done) }()
		defer func() { stop(); <-done }()
	}

	// The scheduler writes a pod's status too when it cannot place it
	// (PodScheduled False): wait until kwok has made every node Ready and
	// the node lifecycle controller has lifted the not-ready taint a new
	// node is given, so that the only status writer is the pod's shard.
	waitFor(t, 60*time.Second, func() (struct{}, bool) {
		l, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: shardLabel})
		if err != nil || len(l.Items) != len(shards)*nodesPerShard {
			return struct{}{}, false
		}
		for i := range l.Items {
			n := &l.Items[i]
			if kwokReady(n) != v1.ConditionTrue {
				return struct{}{}, false
			}
			for _, tn := range n.Spec.Taints {
				if tn.Key == v1.TaintNodeNotReady || tn.Key == v1.TaintNodeUnreachable {
					return struct{}{}, false
				}
			}
		}
		return struct{}{}, true
	})

	t0 := time.Now()
	for _, s := range shards {
		d := shardDeployment("shard-"+s, map[string]string{shardLabel: s}, podsPerShard)
		if _, err := c.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pods := waitFor(t, 60*time.Second, func() ([]v1.Pod, bool) {
		l, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app in (shard-a,shard-b)"})
		if err != nil || len(l.Items) != len(shards)*podsPerShard {
			return nil, false
		}
		for _, p := range l.Items {
			if p.Status.Phase != v1.PodRunning {
				return nil, false
			}
		}
		return l.Items, true
	})
	t.Logf("%d pods Running on %d nodes in %s", len(pods), len(shards)*nodesPerShard, time.Since(t0).Round(100*time.Millisecond))
	// A shard that also drove the other's pods writes them too: give it
	// the time of a second write (the containers' start is 0.4 s after the
	// sandbox).
	time.Sleep(3 * time.Second)
	perShard := map[string]int{}
	ips := map[string]string{}
	for _, p := range pods {
		cur, err := c.CoreV1().Pods("default").Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		nd, err := c.CoreV1().Nodes().Get(ctx, cur.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := "shard-" + nd.Labels[shardLabel]
		writers := statusWriters(cur)
		if len(writers) != 1 || writers[0] != want {
			t.Errorf("pod %s on node %s (%s): status written by %v, want only %s", cur.Name, nd.Name, nd.Labels[shardLabel], writers, want)
		}
		if cur.Labels["app"] != want {
			t.Errorf("pod %s of %s on node %s of %s", cur.Name, cur.Labels["app"], nd.Name, want)
		}
		perShard[want]++
		if other, dup := ips[cur.Status.PodIP]; dup || cur.Status.PodIP == "" {
			t.Errorf("pod %s: IP %q (also %s)", cur.Name, cur.Status.PodIP, other)
		}
		ips[cur.Status.PodIP] = cur.Name
		if pre := strings.TrimSuffix(nd.Spec.PodCIDR, "0/24"); !strings.HasPrefix(cur.Status.PodIP, pre) {
			t.Errorf("pod %s: IP %s outside its node %s's podCIDR %s", cur.Name, cur.Status.PodIP, nd.Name, nd.Spec.PodCIDR)
		}
	}
	t.Logf("pods per shard: %v", perShard)
	for _, s := range shards {
		if perShard["shard-"+s] != podsPerShard {
			t.Errorf("shard %s drove %d pods, want %d", s, perShard["shard-"+s], podsPerShard)
		}
	}
}

// statusWriters are the field managers of a pod's status subresource,
// sorted.
func statusWriters(p *v1.Pod) []string {
	var out []string
	for _, f := range p.ManagedFields {
		if f.Subresource == "status" {
			out = append(out, strings.SplitN(f.Manager, "/", 2)[0])
		}
	}
	sort.Strings(out)
	return out
}

// shardDeployment is a Deployment of replicas pause pods called name,
// pinned by nodeSelector, tolerating KWOK's taint.
func shardDeployment(name string, nodeSelector map[string]string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{
					NodeSelector: nodeSelector,
					Tolerations:  []v1.Toleration{{Key: controlplane.KwokNodeKey, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
					Containers:   []v1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
				},
			},
		},
	}
}
