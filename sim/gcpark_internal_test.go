package sim

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestSkippedGCPassesChangeNothing: a node that skips the container GC
// passes that would find nothing to do (gcPark) gives the timeline of one
// that runs every pass, on random pods, scripts and actions (kills,
// deletions, kubelet restarts among them), with the runtime shared or not.
func TestSkippedGCPassesChangeNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, pods := drawNode(t, 3)
		cfg.RuntimeContention = rapid.SampledFrom([]Duration{0, -1}).Draw(t, "runtime contention")
		eager := cfg
		eager.eagerGC = true
		want, err := Simulate(eager, pods)
		if err != nil {
			t.Fatalf("every pass: %v", err)
		}
		got, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatalf("empty passes skipped: %v", err)
		}
		if diff := timelineDiff(want, got); diff != "" {
			t.Fatalf("%s\nevery pass:\n%s", diff, want.Events())
		}
	})
}

// TestTickAtOrAfter: the first tick of a one-minute clock at or after a
// time.
func TestTickAtOrAfter(t *testing.T) {
	tick := time.Unix(0, 0).Add(30 * time.Second)
	for _, c := range []struct{ t, want time.Duration }{
		{0, 30 * time.Second},                // before the clock's tick: that tick
		{30 * time.Second, 30 * time.Second}, // at it
		{31 * time.Second, 90 * time.Second}, // just after: the next one
		{90 * time.Second, 90 * time.Second}, // exactly a later tick
		{150*time.Second + 1, 210 * time.Second},
	} {
		if got := tickAtOrAfter(tick, time.Unix(0, 0).Add(c.t)); !got.Equal(time.Unix(0, 0).Add(c.want)) {
			t.Errorf("tickAtOrAfter(30s, %s) = %s, want %s", c.t, got.Sub(time.Unix(0, 0)), c.want)
		}
	}
}

// TestSkippedGCPassesChangeNothingOnTheMixedNode: the same on an hour of
// BenchmarkNode's mixed pods (crash loops in back-off, whose instances
// the passes collect between quiet minutes), with a kill, a sandbox kill,
// a kubelet restart and deletions delivered in the middle of the skipped
// passes of their pods (two held by a finalizer, whose content the passes
// remove after the termination), for a few seeds, both engines.
func TestSkippedGCPassesChangeNothingOnTheMixedNode(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 24 pods for an hour, four times per seed")
	}
	pods := mixedPods(24)
	down := Duration(90 * time.Second)
	grace := int64(5)
	for i := range pods {
		at := pods[i].At
		switch i {
		case 0: // a crash loop: its container killed between two crashes
			pods[i].Actions = append(pods[i].Actions, Action{At: at + Duration(17*time.Minute+3*time.Second), KillContainer: "app"})
		case 4: // a crash loop: its sandbox killed
			pods[i].Actions = append(pods[i].Actions, Action{At: at + Duration(23*time.Minute+500*time.Millisecond), KillSandbox: true})
		case 6: // the finished Job: a kubelet restart, then a deletion
			pods[i].Actions = append(pods[i].Actions, Action{At: at + Duration(31*time.Minute), RestartKubelet: &down},
				Action{At: at + Duration(44*time.Minute+20*time.Second), Delete: &grace})
		case 8: // a crash loop deleted in its back-off, its API object held
			// by a finalizer: the content goes at the first pass after the
			// termination, long after the delivery
			pods[i].Pod.Finalizers = []string{"example.com/hold"}
			pods[i].Actions = append(pods[i].Actions, Action{At: at + Duration(37*time.Minute+7*time.Second), Delete: &grace})
		case 10: // a probed web server, deleted and held the same way
			pods[i].Pod.Finalizers = []string{"example.com/hold"}
			pods[i].Actions = append(pods[i].Actions, Action{At: at + Duration(29*time.Minute+41*time.Second), Delete: &grace})
		}
	}
	for _, seed := range []uint64{1, 2, 3} {
		for _, contention := range []Duration{0, -1} {
			cfg := Config{Seed: seed, For: Duration(time.Hour), Parallelism: 1, RuntimeContention: contention}
			eager := cfg
			eager.eagerGC = true
			want, err := Simulate(eager, pods)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Simulate(cfg, pods)
			if err != nil {
				t.Fatal(err)
			}
			if diff := timelineDiff(want, got); diff != "" {
				t.Fatalf("seed %d, contention %s: %s", seed, contention, diff)
			}
		}
	}
}

// TestGCParkArmsTheRightTick: on a finished Job pod (nothing scheduled but
// the passes), a pass with nothing to do arms none; an event put on the
// loop 2.5 minutes ahead makes the next pass the first tick at or after
// it; a delivery before that tick arms the first tick at or after the
// delivery, and one after a pass that is already its tick's changes
// nothing.
func TestGCParkArmsTheRightTick(t *testing.T) {
	pod := mixedPods(3)[2].Pod // the Job with a sidecar
	pod.Spec.InitContainers = nil
	n := NewNode(Config{Seed: 1, RuntimeContention: -1})
	if err := n.AddPod(n.Start(), pod, Script{Containers: map[string]Behaviour{"worker": {Runs: []Run{{ExitAfter: Seconds(5)}}}}}); err != nil {
		t.Fatal(err)
	}
	n.Advance(n.Start().Add(10 * time.Minute))
	p := n.pods[pod.Namespace+"/"+pod.Name]
	if p == nil {
		p = n.pods["default/"+pod.Name]
	}
	if p == nil {
		t.Fatalf("no pod; the node has %v", n.Pods())
	}
	if !p.gc.parked || !p.gc.at.IsZero() || p.loop.Len() != 0 {
		t.Fatalf("finished Job after 10 min: gc %+v, %d events scheduled; want parked, nothing armed or scheduled", p.gc, p.loop.Len())
	}
	if w, ok := n.Wake(); ok {
		t.Errorf("finished Job: the node wakes at %s, want never", w.Sub(n.Start()))
	}
	now := p.loop.Now
	p.loop.At(now.Add(150*time.Second), func() {})
	p.parkGC()
	if want := now.Add(3 * time.Minute); !p.gc.parked || !p.gc.at.Equal(want) || !p.gc.next.Equal(now.Add(time.Minute)) {
		t.Fatalf("event 2.5 min ahead: gc %+v, want parked, next %s, armed at %s", p.gc, now.Add(time.Minute), want)
	}
	p.loop.Now = now.Add(70 * time.Second)
	p.unparkGC()
	if want := now.Add(2 * time.Minute); p.gc.parked || !p.gc.at.Equal(want) {
		t.Fatalf("delivery 70 s after the pass: gc %+v, want armed at %s", p.gc, want)
	}
	armed := p.gc
	p.gc.parked = true
	p.loop.Now = now.Add(110 * time.Second)
	p.unparkGC()
	if p.gc.gen != armed.gen || !p.gc.at.Equal(armed.at) {
		t.Fatalf("delivery at the armed pass's tick: gc %+v, want it kept (%+v)", p.gc, armed)
	}
}
