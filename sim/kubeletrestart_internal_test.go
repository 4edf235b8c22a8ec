package sim

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A restarted kubelet's 1 s sync tick starts anywhere in the second after
// the process starts (its phase is drawn from the seed and the start
// time): in [0, 1 s) for every seed, and not the same for all of them.
func TestRestartKubeletSyncTickPhase(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "st", Annotations: map[string]string{"kubernetes.io/config.source": "file"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	var phases []time.Duration
	for seed := uint64(1); seed <= 8; seed++ {
		n := NewNode(Config{Seed: seed})
		t0 := n.Start()
		if err := n.AddPod(t0, pod, Script{}); err != nil {
			t.Fatal(err)
		}
		down := Duration(5 * time.Second)
		if err := n.Do(t0.Add(10*time.Second), "", "st", Action{RestartKubelet: &down}); err != nil {
			t.Fatal(err)
		}
		n.Advance(t0.Add(15*time.Second + time.Millisecond))
		p := n.pods["default/st"]
		if p == nil || !p.node.kubeletUp.Equal(t0.Add(15*time.Second)) {
			t.Fatalf("seed %d: the kubelet did not start again at 15 s", seed)
		}
		ph := p.node.clocks.Tick.Sub(p.node.kubeletUp)
		if ph < 0 || ph >= time.Second {
			t.Errorf("seed %d: sync tick %s after the start, want within the first second", seed, ph)
		}
		phases = append(phases, ph)
	}
	spread := false
	for _, ph := range phases {
		spread = spread || ph >= 100*time.Millisecond
	}
	if !spread {
		t.Errorf("sync tick phases %v: all within 100 ms of the start over 8 seeds, want them drawn over the second", phases)
	}
}
