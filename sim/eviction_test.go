package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// The kubelet's eviction manager evicts a pod (eviction_manager.go
// evictPod, kubelet.go SyncTerminatingPod): the first status SyncTerminatingPod
// stores is Failed with reason Evicted and the DisruptionTarget condition
// (reason TerminationByKubelet), the containers are stopped with the
// eviction's grace period override (a hard threshold's 1 s, raised to
// killContainer's 2 s minimum; a soft threshold's, less a preStop's time).
// The final phase is the containers': one that exits 0 on SIGTERM makes
// the pod Succeeded, its reason gone (kubernetes#118310, #120182: seen on
// real clusters); one killed keeps Failed and Evicted. The API object shows
// no terminal phase and no DisruptionTarget until no container can run
// (status_manager.go mergePodStatus), then both. A static pod is
// critical and never evicted.
func TestEvict(t *testing.T) {
	grace := int64(30)
	spec := v1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{Name: "app", Image: "busybox",
		Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"sleep", "4"}}}}}}}
	soft := int64(20)
	for _, tc := range []struct {
		name      string
		e         sim.Eviction
		run       sim.Run
		timeout   string
		msg       string
		end       v1.PodPhase
		endReason string
	}{
		{"hard threshold, exits 0 on SIGTERM", sim.Eviction{}, sim.Run{PreStop: sec(4), TermAfter: sec(0.1)},
			"timeout 2s", sim.DefaultEvictionMessage, v1.PodSucceeded, ""},
		{"soft threshold, ignores SIGTERM", sim.Eviction{GracePeriod: &soft, Message: "The node was low on resource: ephemeral-storage. "},
			sim.Run{PreStop: sec(4), TermAfter: sec(100)}, "timeout 16s", "The node was low on resource: ephemeral-storage. ", v1.PodFailed, sim.EvictedReason},
	} {
		pod := apiPod("ev", spec)
		pod.Generation = 3
		script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{tc.run}}}}
		tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script,
			Actions: []sim.Action{{At: sec(10), Evict: &tc.e}}})
		stop, ok := tl.First("ev", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" })
		if !ok || stop.At < 10*time.Second || !strings.Contains(stop.Message, tc.timeout) {
			t.Fatalf("%s: StopContainer %q at %s (found %v), want %s after 10s\n%s", tc.name, stop.Message, stop.At, ok, tc.timeout, tl.Events())
		}
		var after, api []sim.Entry
		for _, e := range tl.Entries {
			if e.Kind == sim.KindStatus && e.At >= 10*time.Second {
				after = append(after, e)
			}
			if e.Kind == sim.KindAPI && e.API == sim.APIStatus && e.At >= 10*time.Second {
				api = append(api, e)
			}
		}
		if len(after) == 0 || len(api) == 0 {
			t.Fatalf("%s: no status after the eviction\n%s", tc.name, tl.Events())
		}
		first := after[0].Status.Status
		if first.Phase != v1.PodFailed || first.Reason != sim.EvictedReason || first.Message != tc.msg || after[0].At != 10*time.Second {
			t.Fatalf("%s: first status after the eviction at %s: %s %q %q, want Failed Evicted %q at 10s\n%s",
				tc.name, after[0].At, first.Phase, first.Reason, first.Message, tc.msg, tl.Events())
		}
		dt := condition(&first, v1.DisruptionTarget)
		if dt == nil || dt.Status != v1.ConditionTrue || dt.Reason != v1.PodReasonTerminationByKubelet || dt.Message != tc.msg || dt.ObservedGeneration != 3 {
			t.Fatalf("%s: DisruptionTarget %+v, want True TerminationByKubelet %q observed generation 3", tc.name, dt, tc.msg)
		}
		last := after[len(after)-1].Status.Status
		if last.Phase != tc.end || last.Reason != tc.endReason {
			t.Fatalf("%s: last status %s %q, want %s %q\n%s", tc.name, last.Phase, last.Reason, tc.end, tc.endReason, tl.Events())
		}
		for _, e := range api {
			st := e.Status.Status
			terminal := st.Phase == v1.PodSucceeded || st.Phase == v1.PodFailed
			if has := condition(&st, v1.DisruptionTarget) != nil; has != terminal || (terminal && e.At < stop.At) {
				t.Fatalf("%s: API status at %s: phase %s, DisruptionTarget %v: want both only once the containers stopped (after %s)\n%s",
					tc.name, e.At, st.Phase, has, stop.At, tl.Events())
			}
		}
		if st := api[len(api)-1].Status.Status; st.Phase != tc.end {
			t.Fatalf("%s: the API's last phase %s, want %s\n%s", tc.name, st.Phase, tc.end, tl.Events())
		}
		if _, ok := tl.First("ev", func(e sim.Entry) bool {
			return e.Kind == sim.KindCRI && e.Call.Method == "CreateContainer" && e.At > 10*time.Second
		}); ok {
			t.Fatalf("%s: a container created after the eviction\n%s", tc.name, tl.Events())
		}
	}

	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{PreStop: sec(4), TermAfter: sec(0.1)}}}}}
	static := staticPod("crit", spec)
	tl := run(t, sim.Config{Seed: 1, For: sec(30)}, sim.PodInput{Pod: static, Script: script,
		Actions: []sim.Action{{At: sec(10), Evict: &sim.Eviction{}}}})
	if _, ok := tl.First("crit", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" }); ok {
		t.Fatalf("a static (critical) pod was evicted\n%s", tl.Events())
	}
	if a, ok := tl.First("crit", func(e sim.Entry) bool { return e.Kind == sim.KindAction && e.At == 10*time.Second }); !ok || !strings.Contains(a.Message, "critical") {
		t.Fatalf("the refused eviction's entry %q does not say why\n%s", a.Message, tl.Events())
	}
	// An API pod of system-cluster-critical priority is critical too.
	prio := int32(2000000000)
	critAPI := apiPod("crit", spec)
	critAPI.Spec.Priority = &prio
	tl = run(t, sim.Config{Seed: 1, For: sec(30)}, sim.PodInput{Pod: critAPI, Script: script,
		Actions: []sim.Action{{At: sec(10), Evict: &sim.Eviction{}}}})
	if _, ok := tl.First("crit", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" }); ok {
		t.Fatalf("a pod of priority 2000000000 was evicted\n%s", tl.Events())
	}
	prio--
	tl = run(t, sim.Config{Seed: 1, For: sec(30)}, sim.PodInput{Pod: critAPI, Script: script,
		Actions: []sim.Action{{At: sec(10), Evict: &sim.Eviction{}}}})
	if _, ok := tl.First("crit", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" }); !ok {
		t.Fatalf("a pod of priority 1999999999 was not evicted\n%s", tl.Events())
	}
}

// A script's evict action reads, and a negative grace period is refused.
func TestEvictScript(t *testing.T) {
	pod := apiPod("ev", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	f, err := sim.ReadScript([]byte("actions:\n- {at: 5s, evict: {gracePeriod: 7, message: low}}\n"), []*v1.Pod{pod})
	if err != nil {
		t.Fatal(err)
	}
	a := f.Actions[0].Action()
	if a.Evict == nil || *a.Evict.GracePeriod != 7 || a.Evict.Message != "low" || a.String() != "evict (grace 7s)" {
		t.Fatalf("read %+v (%s)", a.Evict, a)
	}
	if _, err := sim.ReadScript([]byte("actions:\n- {at: 5s, evict: {gracePeriod: -2}}\n"), []*v1.Pod{pod}); err == nil || !strings.Contains(err.Error(), "gracePeriod") {
		t.Fatalf("a script evicting with grace -2: %v, want an error naming gracePeriod", err)
	}
	n := sim.NewNode(sim.Config{Seed: 1})
	if err := n.AddPod(n.Start(), pod, sim.Script{}); err != nil {
		t.Fatal(err)
	}
	neg := int64(-1)
	if err := n.Do(n.Start().Add(time.Second), "", "ev", sim.Action{Evict: &sim.Eviction{GracePeriod: &neg}}); err == nil {
		t.Fatal("an eviction with a negative grace period was accepted")
	}
}

// The container GC removes an evicted pod's dead sandbox while a sync is
// still under way (ShouldPodContentBeRemoved is true for an evicted pod):
// here the sync waits 3 s for an image pull. The runtime then refuses the
// sync's CreateContainer in the removed sandbox, and the StartContainer
// after it: no container of that sandbox ever runs.
func TestCreateInRemovedSandboxFails(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	pod := apiPod("gc", v1.PodSpec{
		InitContainers: []v1.Container{{Name: "sidecar", Image: "busybox:1.36", RestartPolicy: &always}},
		Containers:     []v1.Container{{Name: "app", Image: "busybox:1.36"}}})
	script := sim.Script{Images: map[string]sim.Image{"busybox:1.36": {Missing: true, Pulls: []sim.Pull{{Took: sec(3)}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(30), ContainerGC: sec(2.5)}, sim.PodInput{Pod: pod, Script: script,
		Actions: []sim.Action{{At: sec(1), Evict: &sim.Eviction{}}, {At: sec(1), KillSandbox: true}, {At: sec(1), Remove: true}}})
	removed, ok := tl.First("gc", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "RemovePodSandbox" })
	create, created := tl.First("gc", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "CreateContainer" })
	if !ok || !created || create.At < removed.At {
		t.Fatalf("want the sandbox removed by the GC before the sync's CreateContainer\n%s", tl.Events())
	}
	if create.Call.Error == "" || !strings.HasSuffix(create.Message, "fails: sandbox "+create.Call.Sandbox+" not found") {
		t.Errorf("CreateContainer in the removed sandbox: %q (error %q), want it refused\n%s", create.Message, create.Call.Error, tl.Events())
	}
	for _, e := range tl.Entries {
		if e.Kind == sim.KindCRI && e.Call.Method == "StartContainer" && e.Call.ID == create.Call.ID && e.Call.Error == "" {
			t.Errorf("StartContainer %s of a refused container succeeded\n%s", e.Call.ID, tl.Events())
		}
		if e.Kind == sim.KindPLEG && strings.Contains(e.Message, create.Call.ID) {
			t.Errorf("PLEG saw the refused container: %s\n%s", e.Message, tl.Events())
		}
	}
}

// A pod carrying the mirror-pod annotation is critical
// (kubelettypes.IsCriticalPod: IsMirrorPod), so the eviction manager never
// evicts it, whatever its priority. Plant: criticalPod ignoring the
// annotation.
func TestEvictMirrorPodRefused(t *testing.T) {
	spec := v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}
	mirror := apiPod("mirror", spec)
	mirror.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "abc"}
	tl := run(t, sim.Config{Seed: 1, For: sec(30)}, sim.PodInput{Pod: mirror,
		Actions: []sim.Action{{At: sec(10), Evict: &sim.Eviction{}}}})
	if e, ok := tl.First("mirror", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" }); ok {
		t.Fatalf("a mirror pod was evicted (StopContainer at %s)\n%s", e.At, tl.Events())
	}
	if a, ok := tl.First("mirror", func(e sim.Entry) bool { return e.Kind == sim.KindAction && e.At == 10*time.Second }); !ok || !strings.Contains(a.Message, "critical") {
		t.Fatalf("the refused eviction's entry %q does not say why\n%s", a.Message, tl.Events())
	}
}

// An eviction's DisruptionTarget replaces the pod's own, as the eviction
// manager's status function does (UpdatePodCondition): the first
// DisruptionTarget condition of the status is replaced, not a second one
// added, and any later one is left as it is; its LastTransitionTime is kept
// when its status stays True and is the eviction's time when it turns True;
// with PodObservedGenerationTracking off, its observedGeneration is the
// pod's generation only where a DisruptionTarget condition already had one
// (CalculatePodConditionObservedGeneration), and with the gate on always.
// The pod is adopted by a new kubelet with its API status, which carries
// the conditions (the scheduler's preemption set the first).
func TestEvictReplacesDisruptionTarget(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	before := metav1.NewTime(start.Add(-time.Hour))
	evictAt := start.Add(5 * time.Second)
	preempted := v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler, LastTransitionTime: before}
	other := v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionFalse, Reason: "SomeController", LastTransitionTime: before}
	genOff, err := features.V1_37().With(features.PodObservedGenerationTracking, false)
	if err != nil {
		t.Fatal(err)
	}
	withGen := func(c v1.PodCondition, g int64) v1.PodCondition { c.ObservedGeneration = g; return c }
	for _, tc := range []struct {
		name     string
		f        features.Set
		conds    []v1.PodCondition
		ltt      time.Time // of the replaced condition
		gen      int64     // its observedGeneration
		leftLast *v1.PodCondition
	}{
		{"True stays True", features.Set{}, []v1.PodCondition{preempted}, before.Time, 4, nil},
		{"False turns True", features.Set{}, []v1.PodCondition{other}, evictAt, 4, nil},
		{"two: the first is replaced", features.Set{}, []v1.PodCondition{preempted, other}, before.Time, 4, &other},
		{"gate off, none observed", genOff, []v1.PodCondition{preempted}, before.Time, 0, nil},
		{"gate off, one observed", genOff, []v1.PodCondition{preempted, withGen(other, 2)}, before.Time, 4, ptrCond(withGen(other, 2))},
	} {
		pod := apiPod("ev", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
		pod.Generation = 4
		pod.Status = v1.PodStatus{Phase: v1.PodRunning, StartTime: &metav1.Time{Time: start.Add(-time.Minute)},
			Conditions: append([]v1.PodCondition{{Type: v1.PodReadyToStartContainers, Status: v1.ConditionTrue}}, tc.conds...),
			ContainerStatuses: []v1.ContainerStatus{{Name: "app", ContainerID: "containerd://app-x", Ready: true, Started: ptrBool(true),
				State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(start.Add(-30 * time.Second))}}}}}
		n := sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond), Kubelet: sim.Kubelet{Features: tc.f}})
		if err := n.AdoptPod(start, pod, sim.Script{}); err != nil {
			t.Fatal(err)
		}
		if err := n.Do(evictAt, "default", "ev", sim.Action{Evict: &sim.Eviction{}}); err != nil {
			t.Fatal(err)
		}
		r := n.Advance(start.Add(time.Minute))
		var first *v1.PodStatus
		for _, e := range r.Entries {
			if e.Kind == sim.KindStatus && e.Status != nil && e.Status.Status.Reason == sim.EvictedReason {
				first = &e.Status.Status
				break
			}
		}
		if first == nil {
			t.Fatalf("%s: no status with reason Evicted\n%s", tc.name, (&sim.Timeline{Entries: r.Entries}).Events())
		}
		var dts []v1.PodCondition
		for _, c := range first.Conditions {
			if c.Type == v1.DisruptionTarget {
				dts = append(dts, c)
			}
		}
		if len(dts) != len(tc.conds) {
			t.Fatalf("%s: DisruptionTarget conditions %+v, want %d", tc.name, dts, len(tc.conds))
		}
		dt := dts[0]
		if dt.Status != v1.ConditionTrue || dt.Reason != v1.PodReasonTerminationByKubelet || !dt.LastTransitionTime.Time.Equal(tc.ltt) || dt.ObservedGeneration != tc.gen {
			t.Errorf("%s: the first DisruptionTarget %+v, want True TerminationByKubelet since %s, observedGeneration %d", tc.name, dt, tc.ltt, tc.gen)
		}
		if tc.leftLast != nil && !equality.Semantic.DeepEqual(dts[1], *tc.leftLast) {
			t.Errorf("%s: the second DisruptionTarget %+v, want it left as %+v", tc.name, dts[1], *tc.leftLast)
		}
		// The API object: the status manager's merge (the API's
		// DisruptionTarget listed first since the kubelet's first write)
		// replaces it, keeping its transition time while it stays True.
		var api *v1.PodStatus
		for _, e := range r.Entries {
			if e.Kind == sim.KindAPI && e.Status != nil && (e.Status.Status.Phase == v1.PodFailed || e.Status.Status.Phase == v1.PodSucceeded) {
				api = &e.Status.Status
				break
			}
		}
		if api == nil {
			t.Fatalf("%s: no terminal status written to the API\n%s", tc.name, (&sim.Timeline{Entries: r.Entries}).Events())
		}
		dts = nil
		for _, c := range api.Conditions {
			if c.Type == v1.DisruptionTarget {
				dts = append(dts, c)
			}
		}
		if len(dts) != len(tc.conds) || dts[0].Reason != v1.PodReasonTerminationByKubelet || !dts[0].LastTransitionTime.Time.Equal(tc.ltt) {
			t.Errorf("%s: the API's DisruptionTarget conditions %+v, want %d, the first TerminationByKubelet since %s", tc.name, dts, len(tc.conds), tc.ltt)
		}
	}
}

func ptrCond(c v1.PodCondition) *v1.PodCondition { return &c }
