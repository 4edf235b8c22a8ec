package sim

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
)

// The phases of the kubelet's loops that its code ties together
// (syncTicks, gcFromStart).

// loopPod is a static pod that runs until stopped.
func loopPod() *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "loop", Namespace: "default", UID: "u-loop",
		Annotations: map[string]string{"kubernetes.io/config.source": "file"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	apidefaults.Pod(p)
	return p
}

// kubelet.go syncLoop makes its 1 s and 2 s tickers together: every
// housekeeping tick is a sync tick, and either parity occurs over seeds.
func TestHousekeepingTicksWithSyncTick(t *testing.T) {
	parity := map[time.Duration]int{}
	for seed := uint64(1); seed <= 64; seed++ {
		n := NewNode(Config{Seed: seed})
		c := n.st.clocks
		d := c.Housekeep.Sub(c.Tick)
		if d != 0 && d != time.Second {
			t.Fatalf("seed %d: housekeeping %v after the sync tick, want 0 or 1s", seed, d)
		}
		parity[d]++
	}
	if len(parity) != 2 {
		t.Errorf("housekeeping phases over 64 seeds: %v, want both 0 and 1s", parity)
	}
}

// The new process of a kubelet restart makes its tickers together too.
func TestHousekeepingTicksWithSyncTickAfterRestart(t *testing.T) {
	down := Duration(2 * time.Second)
	for seed := uint64(1); seed <= 32; seed++ {
		n := NewNode(Config{Seed: seed})
		if err := n.AddPod(n.Start(), loopPod(), Script{}); err != nil {
			t.Fatal(err)
		}
		n.Advance(n.Start().Add(5 * time.Second))
		if err := n.Do(n.Start().Add(5*time.Second), "default", "loop", Action{RestartKubelet: &down}); err != nil {
			t.Fatal(err)
		}
		n.Advance(n.Start().Add(10 * time.Second))
		p, err := n.pod("default", "loop")
		if err != nil {
			t.Fatal(err)
		}
		c := p.node.clocks
		if !p.node.kubeletUp.Equal(n.Start().Add(7 * time.Second)) {
			t.Fatalf("seed %d: kubelet up at %v, want the restart's end (7s)", seed, p.node.kubeletUp.Sub(n.Start()))
		}
		if d := c.Housekeep.Sub(c.Tick); d != 0 && d != time.Second {
			t.Fatalf("seed %d: after the restart housekeeping %v after the sync tick, want 0 or 1s", seed, d)
		}
	}
}

// gcPass is when the container GC's first pass over the pod began (its
// first call).
func gcPass(t *testing.T, tl *Timeline) time.Duration {
	t.Helper()
	e, ok := tl.First("loop", func(e Entry) bool {
		return e.Kind == KindCRI && strings.HasSuffix(e.Message, "(container GC)")
	})
	if !ok {
		t.Fatalf("no call of the container GC\n%s", tl.Events())
	}
	return e.At
}

// The container GC's first pass is at the kubelet's start
// (createAndInitKubelet: StartGarbageCollection, wait.UntilWithContext),
// then every minute: a kubelet up 10 s collects a pod removed at 5 s at
// 50 s, whatever the seed.
func TestContainerGCFromKubeletStart(t *testing.T) {
	for seed := uint64(1); seed <= 16; seed++ {
		tl, err := Simulate(Config{Seed: seed, KubeletUptime: Duration(10 * time.Second), For: Duration(90 * time.Second)},
			[]PodInput{{Pod: loopPod(), Actions: []Action{{At: Duration(5 * time.Second), Remove: true}}}})
		if err != nil {
			t.Fatal(err)
		}
		if at := gcPass(t, tl); at != 50*time.Second {
			t.Errorf("seed %d: the GC's pass over the removed pod at %v, want 50s (a minute after the kubelet's start)", seed, at)
		}
	}
}

// After a kubelet restart the GC runs a minute from the new process's
// start: restarted at 10 s, up again at 11 s, a pod removed at 20 s is
// collected at 71 s.
func TestContainerGCAfterKubeletRestart(t *testing.T) {
	down := Duration(time.Second)
	for seed := uint64(1); seed <= 16; seed++ {
		tl, err := Simulate(Config{Seed: seed, For: Duration(100 * time.Second)},
			[]PodInput{{Pod: loopPod(), Actions: []Action{
				{At: Duration(10 * time.Second), RestartKubelet: &down},
				{At: Duration(20 * time.Second), Remove: true}}}})
		if err != nil {
			t.Fatal(err)
		}
		if at := gcPass(t, tl); at != 71*time.Second {
			t.Errorf("seed %d: the GC's pass over the removed pod at %v, want 71s (a minute after the new kubelet's start)", seed, at)
		}
	}
}
