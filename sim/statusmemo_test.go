package sim

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// simulateMemoOff is Simulate with statusMemo turned off.
func simulateMemoOff(cfg Config, pods []PodInput) (*Timeline, error) {
	statusMemoOff = true
	defer func() { statusMemoOff = false }()
	return Simulate(cfg, pods)
}

// TestStatusMemoSameTimeline: skipping SyncPod's status step when its
// inputs are unchanged (statusMemo) changes nothing: drawn pods (the
// property test's: probes, hooks, restarts, resizes, deletions, kubelet
// restarts) and the benchmark's mixed node give the same timeline with
// and without it, and on the mixed node it does skip steps.
func TestStatusMemoSameTimeline(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		span := time.Duration(rapid.IntRange(20, 600).Draw(t, "span seconds")) * time.Second
		var pods []PodInput
		for i := range rapid.IntRange(1, 2).Draw(t, "pods") {
			pods = append(pods, drawInput(t, i, span))
		}
		cfg := Config{Seed: rapid.Uint64().Draw(t, "seed"), For: Duration(span), Parallelism: 1}
		tl, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatalf("Simulate: %v", err)
		}
		off, err := simulateMemoOff(cfg, pods)
		if err != nil {
			t.Fatalf("Simulate without the memo: %v", err)
		}
		if !reflect.DeepEqual(tl, off) {
			t.Fatalf("the timeline differs without statusMemo")
		}
	})

	cfg := Config{Seed: 3, For: Duration(30 * time.Minute), Parallelism: 1}
	pods := mixedPods(8)
	// A readiness gate set and cleared by another client (a new pod, the
	// runtime unchanged) and an image that cannot be pulled (the reason
	// cache changes, ErrImagePull then ImagePullBackOff).
	api := map[string]string{"kubernetes.io/config.source": "api"}
	pods = append(pods, PodInput{
		Pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gated", Annotations: api}, Spec: v1.PodSpec{
			ReadinessGates: []v1.PodReadinessGate{{ConditionType: "example.com/gate"}},
			Containers:     []v1.Container{{Name: "app", Image: "busybox"}}}},
		Actions: []Action{
			{At: Duration(5 * time.Minute), SetCondition: &v1.PodCondition{Type: "example.com/gate", Status: v1.ConditionTrue}},
			{At: Duration(9 * time.Minute), SetCondition: &v1.PodCondition{Type: "example.com/gate", Status: v1.ConditionFalse}},
		},
	}, PodInput{
		Pod:    &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "unpulled", Annotations: api}, Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "missing:1"}}}},
		Script: Script{Images: map[string]Image{"missing:1": {Missing: true, Pulls: []Pull{{Fails: true}}}}},
	})
	tl, err := Simulate(cfg, pods)
	if err != nil {
		t.Fatal(err)
	}
	off, err := simulateMemoOff(cfg, pods)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tl, off) {
		t.Fatalf("mixed node: the timeline differs without statusMemo")
	}
	n := NewNode(cfg)
	for _, in := range pods[:8] {
		if err := n.AddPod(n.Start(), in.Pod, in.Script); err != nil {
			t.Fatal(err)
		}
	}
	n.Advance(n.Start().Add(30 * time.Minute))
	hits := 0
	for _, p := range n.pods {
		hits += p.statusMemo.hits
	}
	if hits == 0 {
		t.Fatalf("statusMemo skipped no status step on the mixed node")
	}
	t.Logf("%d status steps skipped", hits)
}
