package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// TestInOrderMatchesIndependent: the two ways a node runs its pods give
// the same timeline when the runtime adds nothing for overlapping calls:
// in time order, one instant at a time, with a runtime ledger whose
// contention is zero (the sync steps played one by one, shifted by
// nothing; adds and actions delivered as events), and independently, each
// pod run to the end of each advance, in parallel. Random pods (podgen),
// scripts, actions, seeds, gates and parallelism.
func TestInOrderMatchesIndependent(t *testing.T) {
	defer func(d time.Duration) { defaultContention = d }(defaultContention)
	rapid.Check(t, func(t *rapid.T) {
		cfg, pods := drawNode(t, 4)
		cfg.RuntimeContention = -1
		want, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatalf("independent: %v", err)
		}
		defaultContention = 0
		cfg.RuntimeContention = 0
		got, err := Simulate(cfg, pods)
		defaultContention = DefaultRuntimeContention
		if err != nil {
			t.Fatalf("in order: %v", err)
		}
		if diff := timelineDiff(want, got); diff != "" {
			t.Fatalf("%s\nindependent:\n%s", diff, want.Events())
		}
	})
}

// TestOnePodUnaffectedByContention: a node with one pod gives the same
// timeline with the runtime shared as without: one sync's calls follow
// one another, and the container GC's calls are outside the model.
func TestOnePodUnaffectedByContention(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		span := time.Duration(rapid.IntRange(20, 400).Draw(t, "span seconds")) * time.Second
		pods := []PodInput{drawInput(t, 0, span)}
		cfg := Config{Seed: rapid.Uint64().Draw(t, "seed"), For: Duration(span)}
		got, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeContention = -1
		want, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatal(err)
		}
		if diff := timelineDiff(want, got); diff != "" {
			t.Fatalf("%s\nindependent:\n%s", diff, want.Events())
		}
	})
}

// burstPods are n identical pods of one container, added at once.
func burstPods(n int) []PodInput {
	var pods []PodInput
	for i := 0; i < n; i++ {
		pods = append(pods, PodInput{Pod: &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: string(rune('a' + i))},
			Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}})
	}
	return pods
}

// TestContentionSlowsOverlappingCalls pins the model on pods started
// together: alone, a pod's sandbox, create and start take their delays
// (289, 11 and 67 ms); two pods started at once each take one
// contention step longer per call, whichever started first (the two
// sandboxes both end at 289+14 ms); three pods two steps; pods that start
// apart (one after the other's calls have returned) do not slow each
// other; and a contention set in Config is the one used.
func TestContentionSlowsOverlappingCalls(t *testing.T) {
	calls := func(cfg Config, pods []PodInput) map[string][]time.Duration {
		t.Helper()
		cfg.For = Duration(5 * time.Second)
		tl, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]time.Duration{}
		for _, e := range tl.Entries {
			if e.Call != nil {
				out[e.Pod] = append(out[e.Pod], e.Call.Done-e.Call.At)
			}
		}
		return out
	}
	ms := time.Millisecond
	k := DefaultRuntimeContention
	check := func(what string, got []time.Duration, want ...time.Duration) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: calls took %v, want %v", what, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: calls took %v, want %v", what, got, want)
			}
		}
	}
	alone := calls(Config{Seed: 1}, burstPods(1))
	check("alone", alone["a"], 289*ms, 11*ms, 67*ms)
	two := calls(Config{Seed: 1}, burstPods(2))
	for _, p := range []string{"a", "b"} {
		check("two at once, pod "+p, two[p], 289*ms+k, 11*ms+k, 67*ms+k)
	}
	three := calls(Config{Seed: 1}, burstPods(3))
	for _, p := range []string{"a", "b", "c"} {
		check("three at once, pod "+p, three[p], 289*ms+2*k, 11*ms+2*k, 67*ms+2*k)
	}
	apart := burstPods(2)
	apart[1].At = Duration(time.Second)
	sep := calls(Config{Seed: 1}, apart)
	check("apart, first", sep["a"], 289*ms, 11*ms, 67*ms)
	check("apart, second", sep["b"], 289*ms, 11*ms, 67*ms)
	own := calls(Config{Seed: 1, RuntimeContention: Duration(100 * ms)}, burstPods(2))
	check("contention 100ms", own["a"], 389*ms, 111*ms, 167*ms)
	off := calls(Config{Seed: 1, RuntimeContention: -1}, burstPods(3))
	check("contention off", off["c"], 289*ms, 11*ms, 67*ms)
}

// TestAbandonedCallStopsCounting: a kubelet restart asked for while pod
// a's RunPodSandbox is in flight (the kubelet stops once that sync has
// played out, and forgets everything it had scheduled) leaves no call
// counted in the runtime: pod b, added later, takes its delays alone.
// (abandonPlay, which uncounts a call whose sync is dropped mid-flight,
// is a guard: no path drops a sync that is playing.)
func TestAbandonedCallStopsCounting(t *testing.T) {
	down := Duration(time.Second)
	pods := burstPods(2)
	pods[0].Actions = []Action{{At: Duration(100 * time.Millisecond), RestartKubelet: &down}}
	pods[1].At = Duration(30 * time.Second)
	tl, err := Simulate(Config{Seed: 1, For: Duration(40 * time.Second)}, pods)
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	for _, e := range tl.Entries {
		if e.Pod == "b" && e.Call != nil {
			got = append(got, e.Call.Done-e.Call.At)
		}
	}
	ms := time.Millisecond
	want := []time.Duration{289 * ms, 11 * ms, 67 * ms}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("pod b's calls took %v, want %v alone\n%s", got, want, tl.Events())
	}
}

// TestSyncsCountsTheSyncEntries: Timeline.Syncs (and Report.Syncs) count
// the pod syncs the kubelet ran, one per sync entry, on both engines.
func TestSyncsCountsTheSyncEntries(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, pods := drawNode(t, 3)
		cfg.RuntimeContention = rapid.SampledFrom([]Duration{0, -1}).Draw(t, "runtime contention")
		tl, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range tl.Entries {
			if e.Kind == KindSync && isSyncWork(e.Work) {
				n++
			}
		}
		if n == 0 || tl.Syncs != n {
			t.Fatalf("Syncs %d, %d sync entries\n%s", tl.Syncs, n, tl.Events())
		}
	})
}

// isSyncWork is whether an entry's Work names one of the pod worker's
// three syncs.
func isSyncWork(w string) bool {
	return w == "sync" || w == "terminating" || w == "terminated"
}

// TestSyncLinesFollowDecisions: each sync entry says its own decision: a
// pod's first sync creates the sandbox, the next ones keep the pod, and
// after a crash one restarts the container (the line kept from the last
// sync is reused only for the same work and decision).
func TestSyncLinesFollowDecisions(t *testing.T) {
	pods := burstPods(1)
	pods[0].Script = Script{Containers: map[string]Behaviour{"app": {Runs: []Run{{ExitAfter: Duration(3 * time.Second), ExitCode: 1}}}}}
	tl, err := Simulate(Config{Seed: 1, For: Duration(20 * time.Second)}, pods)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range tl.Entries {
		if e.Kind == KindSync && isSyncWork(e.Work) {
			lines = append(lines, e.Message)
		}
	}
	has := func(from int, sub string) int {
		for i := from; i < len(lines); i++ {
			if strings.Contains(lines[i], sub) {
				return i
			}
		}
		t.Fatalf("no sync line with %q after line %d: %q", sub, from, lines)
		return -1
	}
	i := has(0, "create sandbox")
	if i != 0 {
		t.Fatalf("first sync line %q, want the sandbox's creation", lines[0])
	}
	k := has(1, "keep the pod as it is")
	has(k+1, "start containers: app")
}

// TestStatusLinesFollowTheirStatus: every status entry's line says its
// own STATUS, READY and restart count (the line kept from the last entry
// is reused only when all three are the same), on random pods.
func TestStatusLinesFollowTheirStatus(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, pods := drawNode(t, 2)
		tl, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tl.Entries {
			if e.Kind != KindStatus {
				continue
			}
			s := e.Status
			if want := fmt.Sprintf("%s %s restarts %d", s.Column, s.Ready, s.Restarts); e.Message != want {
				t.Fatalf("status entry at %s: %q, want %q\n%s", e.At, e.Message, want, tl.Events())
			}
		}
	})
}

// TestEphemeralContainerStarted: an ephemeral container added to a running
// pod is created (kind ephemeral) and started by the next sync.
func TestEphemeralContainerStarted(t *testing.T) {
	pods := burstPods(1)
	debug := &v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}
	pods[0].Actions = []Action{{At: Duration(10 * time.Second), AddEphemeral: debug}}
	tl, err := Simulate(Config{Seed: 1, For: Duration(20 * time.Second)}, pods)
	if err != nil {
		t.Fatal(err)
	}
	var created, started bool
	for _, e := range tl.Entries {
		if e.Call == nil || e.Call.Name != "debug" {
			continue
		}
		switch e.Call.Method {
		case "CreateContainer":
			created = e.Call.Kind == "ephemeral" && e.At >= 10*time.Second
		case "StartContainer":
			started = created
		}
	}
	if !created || !started {
		t.Fatalf("the ephemeral container was not created and started\n%s", tl.Events())
	}
}

// TestInitRetriesKeepOneExitedInstance: an init container that fails again
// and again keeps one exited instance besides the newest: the older ones
// are removed (the container deletor after each relist; SyncPod's pruning
// of init containers, pruneInitContainersBeforeStart, would, but finds
// none left), so the runtime never holds more than two instances of it.
func TestInitRetriesKeepOneExitedInstance(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: v1.PodSpec{
		InitContainers: []v1.Container{{Name: "prep", Image: "busybox"}},
		Containers:     []v1.Container{{Name: "app", Image: "busybox"}}}}
	script := Script{Containers: map[string]Behaviour{"prep": {Runs: []Run{{ExitAfter: Duration(time.Second), ExitCode: 1}}}}}
	tl, err := Simulate(Config{Seed: 1, For: Duration(3 * time.Minute), RuntimeContention: -1}, []PodInput{{Pod: pod, Script: script}})
	if err != nil {
		t.Fatal(err)
	}
	created, removed := 0, 0
	for _, e := range tl.Entries {
		if e.Call == nil || e.Call.Name != "prep" {
			continue
		}
		switch e.Call.Method {
		case "CreateContainer":
			created++
		case "RemoveContainer":
			removed++
		}
		if alive := created - removed; alive > 2 {
			t.Fatalf("at %s the runtime holds %d instances of the failing init container\n%s", e.At, alive, tl.Events())
		}
	}
	if created < 4 || removed < created-2 {
		t.Fatalf("%d instances created, %d removed: want the old ones removed\n%s", created, removed, tl.Events())
	}
}

// TestRuntimeIDsNameTheNamespace: the simulated runtime's IDs start with
// the pod's name, after its namespace unless that is default.
func TestRuntimeIDsNameTheNamespace(t *testing.T) {
	for ns, want := range map[string]string{"": "a-sandbox-0", "default": "a-sandbox-0", "web": "web.a-sandbox-0"} {
		pods := burstPods(1)
		pods[0].Pod.Namespace = ns
		tl, err := Simulate(Config{Seed: 1, For: Duration(5 * time.Second)}, pods)
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := tl.First("a", func(e Entry) bool { return e.Call != nil && e.Call.Method == "RunPodSandbox" }); !ok || e.Call.ID != want {
			t.Errorf("namespace %q: sandbox %+v, want %s", ns, e.Call, want)
		}
	}
}

// TestDefaultRuntimeContentionIsTheFit: with Config.RuntimeContention
// unset, two pods started at once each take 14 ms longer per contended
// call than alone (DefaultRuntimeContention, the fit to the burst
// captures), and the constant is that 14 ms, not whatever the code says.
func TestDefaultRuntimeContentionIsTheFit(t *testing.T) {
	ms := time.Millisecond
	if DefaultRuntimeContention != 14*ms {
		t.Fatalf("DefaultRuntimeContention %s, want 14ms (the fit to the burst captures)", DefaultRuntimeContention)
	}
	tl, err := Simulate(Config{Seed: 1, For: Duration(5 * time.Second)}, burstPods(2))
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	for _, e := range tl.Entries {
		if e.Pod == "a" && e.Call != nil {
			got = append(got, e.Call.Done-e.Call.At)
		}
	}
	if want := []time.Duration{303 * ms, 25 * ms, 81 * ms}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("pod a's calls took %v beside pod b, want %v", got, want)
	}
}
