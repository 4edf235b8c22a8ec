package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/sim/internal/engine"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// Tests that pin the node's timers to their kubelet constants and
// boundaries. The boundaries (strictly after or at) decide only when a due
// time falls exactly on a tick, which the seeded phases of Simulate make
// improbable, so they are checked on the node's scheduling functions
// directly. See tooling/mutation/simtime.md for the bugs each test catches.

var tick0 = time.Date(2026, 1, 1, 0, 0, 0, 300_000_000, time.UTC)

// nextAfter is the first run of a periodic loop strictly after t.
func TestNextAfterStrictlyAfter(t *testing.T) {
	for _, tc := range []struct {
		t, want time.Duration // from tick0
	}{
		{-5 * time.Second, 0},                  // before the first run: the first run
		{-time.Nanosecond, 0},                  // just before it
		{0, time.Second},                       // at a run: the next one
		{time.Nanosecond, time.Second},         // just after a run
		{999 * time.Millisecond, time.Second},  // just before the next
		{3 * time.Second, 4 * time.Second},     // at a later run
		{3*time.Second + 1, 4 * time.Second},   // just after it
		{3*time.Second - 1, 3 * time.Second},   // just before it
		{59*time.Second + 1, 60 * time.Second}, // a minute on
	} {
		got := engine.NextAfter(tick0, time.Second, tick0.Add(tc.t))
		if got.Sub(tick0) != tc.want {
			t.Errorf("engine.NextAfter(base, 1s, base%+v) = base+%v, want base+%v", tc.t, got.Sub(tick0), tc.want)
		}
	}
}

// timerNode is a pod on a node whose loops run at tick0 + k·period, at
// now.
func timerNode(now time.Time) (*nodeState, *podSim) {
	n := &nodeState{clocks: engine.Clocks{Relist: tick0, RelistEvery: time.Second, Tick: tick0, Housekeep: tick0, GC: tick0, StatusSync: tick0}}
	p := &podSim{node: n, pod: &v1.Pod{}}
	p.loop.Now = now
	return n, p
}

// scheduled returns the times of the pod's pending events.
func scheduled(p *podSim) []time.Duration {
	var out []time.Duration
	for _, t := range p.loop.Times() {
		out = append(out, t.Sub(tick0))
	}
	return out
}

// The sync loop picks up work whose due time is strictly before the tick
// (util/queue/work_queue.go GetWork: v.Before(now)), ticking every second
// (kubelet.go syncLoop): work due exactly at a tick waits for the next one.
func TestWorkPickedUpStrictlyOverdue(t *testing.T) {
	for _, tc := range []struct {
		due, want time.Duration
	}{
		{5 * time.Second, 6 * time.Second},                 // due at a tick: not overdue there
		{5*time.Second - time.Nanosecond, 5 * time.Second}, // a nanosecond before: picked up there
		{5*time.Second + time.Nanosecond, 6 * time.Second},
		{5*time.Second + 999*time.Millisecond, 6 * time.Second},
	} {
		_, p := timerNode(tick0.Add(time.Second))
		p.setWorkDue(tick0.Add(tc.due))
		if got := scheduled(p); len(got) != 1 || got[0] != tc.want {
			t.Errorf("work due at base+%v: picked up at base+%v, want base+%v", tc.due, got, tc.want)
		}
	}
}

// A pod past its activeDeadlineSeconds is synced by the first tick at or
// after the deadline (active_deadline.go pastActiveDeadline: duration >=
// allowed).
func TestDeadlineCheckedAtTheDeadline(t *testing.T) {
	start := tick0.Add(-300 * time.Millisecond) // the whole second the start time is cut to
	for _, tc := range []struct {
		startOffset time.Duration // of the start time from a whole second
		ads         int64
		want        time.Duration // from tick0
	}{
		{300 * time.Millisecond, 5, 5 * time.Second},                 // deadline on a tick
		{300*time.Millisecond + time.Nanosecond, 5, 6 * time.Second}, // a nanosecond after it
		{300*time.Millisecond - time.Nanosecond, 5, 5 * time.Second}, // a nanosecond before it
		{300 * time.Millisecond, 30, 30 * time.Second},               // ads in seconds
	} {
		_, p := timerNode(tick0)
		ads := tc.ads
		p.pod.Spec.ActiveDeadlineSeconds = &ads
		st := metav1.NewTime(start.Add(tc.startOffset))
		p.mem.Status = &v1.PodStatus{StartTime: &st}
		p.checkDeadline()
		if got := scheduled(p); len(got) != 1 || got[0] != tc.want {
			t.Errorf("start time base%+v, activeDeadlineSeconds %d: checked at base+%v, want base+%v", tc.startOffset-300*time.Millisecond, tc.ads, got, tc.want)
		}
	}
}

// A pod the kubelet finished with (its terminal phase in the API) and then
// deleted through the API is gone at the delete: the API server gives a
// Succeeded or Failed pod grace 0 (pkg/registry/core/pod/strategy.go
// CheckGracefulDelete) and removes it at once; the kubelet's status sweep
// (every 10 s) never has to delete it, as it did before the API server's
// rule was modelled (the object stayed up to 10 s).
func TestDeleteAfterFinishGoneAtOnce(t *testing.T) {
	grace := int64(30)
	for _, at := range []time.Duration{8 * time.Second, 20 * time.Second, 33 * time.Second, 47 * time.Second} {
		for seed := uint64(1); seed <= 30; seed++ {
			pod := testPod(v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
			script := Script{Containers: map[string]Behaviour{"app": {Runs: []Run{{ExitAfter: Duration(time.Second)}}}}}
			tl, err := Simulate(Config{Seed: seed, For: Duration(time.Minute + at)}, []PodInput{{Pod: pod, Script: script,
				Actions: []Action{{At: Duration(at), Delete: &grace}}}})
			if err != nil {
				t.Fatal(err)
			}
			done, ok1 := tl.First("web", func(e Entry) bool { return e.Kind == KindStatus && e.Status.By == "TerminatePod" })
			gone, ok2 := tl.First("web", func(e Entry) bool { return e.Kind == KindAPI && e.API == APIGone })
			if !ok1 || !ok2 || done.At >= at {
				t.Fatalf("delete at %s, seed %d: TerminatePod %v at %s, gone %v\n%s", at, seed, ok1, done.At, ok2, tl.Events())
			}
			if gone.At != at {
				t.Errorf("delete at %s, seed %d: gone at %s, want at the delete\n%s", at, seed, gone.At, tl.Events())
			}
		}
	}
}

// Container GC runs every minute (kuberuntime_gc.go, kubelet.go
// ContainerGCPeriod): the exited instance of a deleted pod that finished
// before its deletion is removed at the first GC after the kubelet
// finished with the pod, within a minute; its phase is drawn from the
// seed, within the first minute.
func TestContainerGCEveryMinute(t *testing.T) {
	grace := int64(30)
	for _, at := range []time.Duration{5 * time.Second, 61 * time.Second, 150 * time.Second} {
		for seed := uint64(1); seed <= 20; seed++ {
			pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
			pod.Finalizers = []string{"example.com/hold"}
			tl, err := Simulate(Config{Seed: seed, For: Duration(at + 3*time.Minute)}, []PodInput{{Pod: pod,
				Actions: []Action{{At: Duration(at), Delete: &grace}}}})
			if err != nil {
				t.Fatal(err)
			}
			rm, ok := tl.First("web", func(e Entry) bool {
				return e.Kind == KindCRI && e.Call != nil && e.Call.Method == "RemoveContainer"
			})
			if !ok {
				t.Fatalf("delete at %s, seed %d: the exited container is never removed\n%s", at, seed, tl.Events())
			}
			if d := rm.At - at; d <= 0 || d > time.Minute {
				t.Errorf("delete at %s, seed %d: exited container removed %s after the deletion, want within (0, 1 min]\n%s", at, seed, d, tl.Events())
			}
		}
	}
}

// requeued runs the pod worker's completion of a SyncPod with the given
// outcome at now and returns when the sync loop picks the pod up again
// (nothing when it is not requeued).
func requeued(t *testing.T, k Kubelet, seed uint64, out SyncOutput, now time.Time) []time.Duration {
	t.Helper()
	n, p := timerNode(now)
	n.cfg.Kubelet = k
	p.rng = rand.New(rand.NewPCG(seed, seed+1))
	p.busy = true
	p.finish(out, termination.SyncPod)
	return scheduled(p)
}

// The pod worker requeues a pod after a sync (pod_workers.go completeWork):
// success J(syncFrequency), a crash-loop back-off J(clamp(until-now, 0,
// syncFrequency)), another error J(10 s) (at most syncFrequency); J is
// wait.Jitter with factor 0.5, so a delay d is picked up by the first tick
// strictly after a time in [now+d, now+1.5d).
func TestRequeueDelays(t *testing.T) {
	now := tick0.Add(100 * time.Second)
	at := func(d time.Duration) time.Duration { return now.Add(d).Sub(tick0) }
	for _, tc := range []struct {
		name   string
		k      Kubelet
		out    SyncOutput
		lo, hi time.Duration // the pick-up tick lies in (lo, hi] from now
	}{
		{"success", Kubelet{}, SyncOutput{Requeue: RequeueSuccess}, 60 * time.Second, 91 * time.Second},
		{"success, --sync-frequency 20s", Kubelet{SyncFrequency: Duration(20 * time.Second)}, SyncOutput{Requeue: RequeueSuccess}, 20 * time.Second, 31 * time.Second},
		{"error", Kubelet{}, SyncOutput{Requeue: RequeueError}, 10 * time.Second, 16 * time.Second},
		{"error, --sync-frequency 4s", Kubelet{SyncFrequency: Duration(4 * time.Second)}, SyncOutput{Requeue: RequeueError}, 4 * time.Second, 7 * time.Second},
		{"back-off 30s", Kubelet{}, SyncOutput{Requeue: RequeueBackOff, BackOffUntil: now.Add(30 * time.Second)}, 30 * time.Second, 46 * time.Second},
		{"back-off 5 min: clamped at syncFrequency", Kubelet{}, SyncOutput{Requeue: RequeueBackOff, BackOffUntil: now.Add(5 * time.Minute)}, 60 * time.Second, 91 * time.Second},
		{"back-off ended during the sync: clamped at 0", Kubelet{}, SyncOutput{Requeue: RequeueBackOff, BackOffUntil: now.Add(-5 * time.Second)}, 0, time.Second},
	} {
		var lo, hi time.Duration = -1, -1
		for seed := uint64(1); seed <= 50; seed++ {
			got := requeued(t, tc.k, seed, tc.out, now)
			if len(got) != 1 {
				t.Fatalf("%s, seed %d: %d pick-ups scheduled, want 1", tc.name, seed, len(got))
			}
			if got[0] <= at(tc.lo) || got[0] > at(tc.hi) {
				t.Fatalf("%s, seed %d: picked up at now%+v, want in (now+%v, now+%v]", tc.name, seed, got[0]-at(0), tc.lo, tc.hi)
			}
			d := got[0] - at(0)
			if lo < 0 || d < lo {
				lo = d
			}
			hi = max(hi, d)
		}
		// The jitter spreads the pick-ups over most of [d, 1.5 d].
		if span := tc.hi - tc.lo - time.Second; span > 2*time.Second && hi-lo < span/2 {
			t.Errorf("%s: pick-ups over 50 seeds within [%v, %v], want spread over most of (%v, %v]", tc.name, lo, hi, tc.lo, tc.hi)
		}
	}
}

// Housekeeping runs every 2 s (kubelet.go housekeepingPeriod) from a phase
// drawn within its first period: a removed pod's finished worker is
// forgotten within 2 s of SyncTerminatedPod, also when the pod is removed
// within the first period of the simulation.
func TestHousekeepingEvery2s(t *testing.T) {
	for _, at := range []time.Duration{100 * time.Millisecond, 700 * time.Millisecond, 10 * time.Second} {
		for seed := uint64(1); seed <= 30; seed++ {
			pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
			pod.Annotations["kubernetes.io/config.source"] = "file"
			tl, err := Simulate(Config{Seed: seed, For: Duration(time.Minute)}, []PodInput{{Pod: pod,
				Actions: []Action{{At: Duration(at), Remove: true}}}})
			if err != nil {
				t.Fatal(err)
			}
			done, ok1 := tl.First("web", func(e Entry) bool { return e.Work == "terminated" })
			gone, ok2 := tl.First("web", func(e Entry) bool { return e.Work == "forgotten" })
			if !ok1 || !ok2 {
				t.Fatalf("removed at %s, seed %d: terminated %v, forgotten %v\n%s", at, seed, ok1, ok2, tl.Events())
			}
			if d := gone.At - done.At; d < 0 || d > 2*time.Second {
				t.Errorf("removed at %s, seed %d: forgotten %s after SyncTerminatedPod, want within 2 s\n%s", at, seed, d, tl.Events())
			}
		}
	}
}
