package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// runUntilStatus drives a Node with pod until cond holds for a status the
// kubelet wrote to the API object (or until limit), and returns the API
// object with that status and the node's time then.
func runUntilStatus(t *testing.T, seed uint64, pod *v1.Pod, script sim.Script, limit time.Duration, cond func(v1.PodStatus) bool) (*v1.Pod, time.Time) {
	t.Helper()
	n := sim.NewNode(sim.Config{Seed: seed})
	if err := n.AddPod(n.Start(), pod, script); err != nil {
		t.Fatal(err)
	}
	for at := n.Start(); at.Sub(n.Start()) < limit; at = at.Add(100 * time.Millisecond) {
		for _, e := range n.Advance(at).Entries {
			if e.Kind == sim.KindAPI && e.API == sim.APIStatus && e.Status != nil && cond(e.Status.Status) {
				out := pod.DeepCopy()
				out.Status = *e.Status.Status.DeepCopy()
				return out, n.Start().Add(e.At)
			}
		}
	}
	t.Fatalf("no status for which the condition holds within %s", limit)
	return nil, time.Time{}
}

func restartsOf(st v1.PodStatus) int32 {
	if len(st.ContainerStatuses) == 0 {
		return -1
	}
	return st.ContainerStatuses[0].RestartCount
}

// A crash-looping pod adopted by a new kubelet (its status read from the
// API object) goes on with the next restart count, one per crash, never
// back to an earlier one; the back-off record is forgotten, so the first
// back-off after the adoption is the initial 10 s; the running container's
// ID and start are the status's.
func TestAdoptPodContinuesRestartCount(t *testing.T) {
	pod := apiPod("crash", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(2), ExitCode: 1}}}}}
	for _, running := range []bool{true, false} {
		for seed := uint64(1); seed <= 4; seed++ {
			seen, at := runUntilStatus(t, seed, pod, script, 5*time.Minute, func(st v1.PodStatus) bool {
				if restartsOf(st) < 2 {
					return false
				}
				cs := st.ContainerStatuses[0]
				if running {
					return cs.State.Running != nil
				}
				return cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff"
			})
			from := restartsOf(seen.Status)
			// A new node (a new kubelet) 3 s later.
			n := sim.NewNode(sim.Config{Seed: seed + 100, Start: at.Add(3 * time.Second), KubeletUptime: sim.Duration(time.Nanosecond)})
			if err := n.AdoptPod(n.Start(), seen, script); err != nil {
				t.Fatal(err)
			}
			last := from
			var entries []sim.Entry
			var backOff string
			for step := n.Start(); step.Sub(n.Start()) < 90*time.Second; step = step.Add(100 * time.Millisecond) {
				for _, e := range n.Advance(step).Entries {
					entries = append(entries, e)
					if e.Kind == sim.KindSync && backOff == "" && strings.Contains(e.Message, "back-off ") {
						backOff = e.Message
					}
					if e.Kind != sim.KindAPI || e.API != sim.APIStatus {
						continue
					}
					r := restartsOf(e.Status.Status)
					if r < last || r > last+1 {
						t.Fatalf("running=%v seed %d: restart count %d after %d (adopted at %d)\n%s", running, seed, r, last, from, (&sim.Timeline{Entries: entries}).Events())
					}
					last = r
				}
			}
			if last < from+2 {
				t.Fatalf("running=%v seed %d: restart count %d 90 s after adopting at %d: the pod did not go on crash-looping\n%s", running, seed, last, from, (&sim.Timeline{Entries: entries}).Events())
			}
			if !strings.Contains(backOff, "back-off 10s") {
				t.Fatalf("running=%v seed %d: first back-off after the adoption %q, want 10s\n%s", running, seed, backOff, (&sim.Timeline{Entries: entries}).Events())
			}
			for _, e := range entries {
				if e.Kind == sim.KindCRI && e.Call.Method == "CreateContainer" {
					if e.Call.RestartCount != int(from)+1 {
						t.Fatalf("running=%v seed %d: first container created after the adoption has restart count %d, want %d", running, seed, e.Call.RestartCount, from+1)
					}
					break
				}
			}
		}
	}
}

// A running container adopted keeps running: no CRI call, the status the
// new kubelet derives is Running with the same restart count and start.
func TestAdoptPodKeepsRunning(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "nginx"}}})
	seen, at := runUntilStatus(t, 1, pod, sim.Script{}, time.Minute, func(st v1.PodStatus) bool {
		return len(st.ContainerStatuses) == 1 && st.ContainerStatuses[0].State.Running != nil && st.ContainerStatuses[0].Ready
	})
	started := seen.Status.ContainerStatuses[0].State.Running.StartedAt
	n := sim.NewNode(sim.Config{Seed: 7, Start: at.Add(30 * time.Second), KubeletUptime: sim.Duration(time.Nanosecond)})
	if err := n.AdoptPod(n.Start(), seen, sim.Script{}); err != nil {
		t.Fatal(err)
	}
	r := n.Advance(n.Start().Add(2 * time.Minute))
	for _, e := range r.Entries {
		if e.Kind == sim.KindCRI {
			t.Fatalf("CRI call after the adoption: %s\n%s", e.Message, (&sim.Timeline{Entries: r.Entries}).Events())
		}
		if e.Kind == sim.KindAPI && e.API == sim.APIStatus {
			cs := e.Status.Status.ContainerStatuses[0]
			if cs.State.Running == nil || !cs.State.Running.StartedAt.Equal(&started) || cs.RestartCount != 0 || cs.ContainerID != seen.Status.ContainerStatuses[0].ContainerID {
				t.Fatalf("status after the adoption: %+v, want running since %s, ID %s", cs, started, seen.Status.ContainerStatuses[0].ContainerID)
			}
		}
	}
}

// A pod that Succeeded is not started again, whatever its restart policy
// says: its worker starts terminated (a pod of restartPolicy Always, as
// one whose containers all exited 0 while it was being stopped).
func TestAdoptPodSucceededStaysTerminal(t *testing.T) {
	pod := apiPod("job", v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(2)}}}}}
	seen, at := runUntilStatus(t, 1, pod, script, time.Minute, func(st v1.PodStatus) bool { return st.Phase == v1.PodSucceeded })
	seen.Spec.RestartPolicy = v1.RestartPolicyAlways
	n := sim.NewNode(sim.Config{Seed: 3, Start: at.Add(5 * time.Second), KubeletUptime: sim.Duration(time.Nanosecond)})
	if err := n.AdoptPod(n.Start(), seen, script); err != nil {
		t.Fatal(err)
	}
	r := n.Advance(n.Start().Add(2 * time.Minute))
	for _, e := range r.Entries {
		if e.Kind == sim.KindCRI && (e.Call.Method == "CreateContainer" || e.Call.Method == "RunPodSandbox") {
			t.Fatalf("the Succeeded pod was started again: %s\n%s", e.Message, (&sim.Timeline{Entries: r.Entries}).Events())
		}
		if e.Kind == sim.KindAPI && e.API == sim.APIStatus && e.Status.Status.Phase != v1.PodSucceeded {
			t.Fatalf("phase %s written after the adoption", e.Status.Status.Phase)
		}
	}
}

// A pod being deleted when the new kubelet adopts it is stopped: its
// worker starts terminating, the running container gets StopContainer and
// the kubelet deletes the object.
func TestAdoptPodBeingDeleted(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "nginx"}}})
	seen, at := runUntilStatus(t, 1, pod, sim.Script{}, time.Minute, func(st v1.PodStatus) bool {
		return len(st.ContainerStatuses) == 1 && st.ContainerStatuses[0].State.Running != nil
	})
	grace := int64(30)
	ts := metav1.NewTime(at.Add(40 * time.Second))
	seen.DeletionTimestamp, seen.DeletionGracePeriodSeconds = &ts, &grace
	n := sim.NewNode(sim.Config{Seed: 2, Start: at.Add(10 * time.Second), KubeletUptime: sim.Duration(time.Nanosecond)})
	if err := n.AdoptPod(n.Start(), seen, sim.Script{}); err != nil {
		t.Fatal(err)
	}
	r := n.Advance(n.Start().Add(time.Minute))
	stopped, deleted := false, false
	for _, e := range r.Entries {
		if e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" {
			stopped = true
		}
		if e.Kind == sim.KindCRI && e.Call.Method == "CreateContainer" {
			t.Fatalf("a container created for a pod being deleted: %s", e.Message)
		}
		if e.Kind == sim.KindAPI && e.API == sim.APIDeleted {
			deleted = true
		}
	}
	if !stopped || !deleted {
		t.Fatalf("stopped %v, deleted %v: want the container stopped and the object deleted\n%s", stopped, deleted, (&sim.Timeline{Entries: r.Entries}).Events())
	}
}

// A process adopted running whose scripted exit (ExitAfter from its start)
// is already past when the new kubelet starts exits then, at the
// adoption, not back in time: scheduleOwnExit's "at now at the earliest".
// Plant: the clamp applied only to exits more than a second in the past.
func TestAdoptPodOverdueExitAtAdoption(t *testing.T) {
	pod := apiPod("web", v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "nginx"}}})
	seen, at := runUntilStatus(t, 1, pod, sim.Script{}, time.Minute, func(st v1.PodStatus) bool {
		return len(st.ContainerStatuses) == 1 && st.ContainerStatuses[0].State.Running != nil
	})
	started := seen.Status.ContainerStatuses[0].State.Running.StartedAt.Time
	start := at.Add(30 * time.Second)
	// The script says the process exits less than a second before the
	// adoption, in the second before the adoption's (the status keeps
	// whole seconds).
	overdue := start.Sub(start.Truncate(time.Second)) + 100*time.Millisecond
	if overdue >= time.Second {
		t.Fatalf("adoption at %s: too close to the next second for this test", start)
	}
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sim.Duration(start.Sub(started) - overdue), ExitCode: 3}}}}}
	n := sim.NewNode(sim.Config{Seed: 7, Start: start, KubeletUptime: sim.Duration(time.Nanosecond)})
	if err := n.AdoptPod(n.Start(), seen, script); err != nil {
		t.Fatal(err)
	}
	r := n.Advance(n.Start().Add(time.Minute))
	for _, e := range r.Entries {
		if e.Kind != sim.KindAPI || e.API != sim.APIStatus {
			continue
		}
		if term := e.Status.Status.ContainerStatuses[0].State.Terminated; term != nil {
			if term.ExitCode != 3 || term.FinishedAt.Time.Before(start.Truncate(time.Second)) {
				t.Fatalf("terminated %+v, want exit code 3 finished at the adoption (%s) or later\n%s", term, start, (&sim.Timeline{Entries: r.Entries}).Events())
			}
			return
		}
	}
	t.Fatalf("the process never exited after the adoption\n%s", (&sim.Timeline{Entries: r.Entries}).Events())
}

// What AdoptPod reads off an API status that is not complete: a container
// status without an image gets the spec's, a status for a container the
// spec does not have is dropped, a running container with requests
// reports its resources, and the next instance of a container counts on
// from the status's restart count; two pods adopted at once are both
// adopted.
func TestAdoptPodFillsTheStatusGaps(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	running := func(name string, restarts int32, started time.Time) v1.ContainerStatus {
		return v1.ContainerStatus{Name: name, ContainerID: "containerd://" + name + "-x", RestartCount: restarts, Ready: true, Started: ptrBool(true),
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}}}
	}
	adopted := func(name string) *v1.Pod {
		p := apiPod(name, v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}}}})
		p.Status = v1.PodStatus{Phase: v1.PodRunning, StartTime: &metav1.Time{Time: start.Add(-time.Minute)},
			Conditions:        []v1.PodCondition{{Type: v1.PodReadyToStartContainers, Status: v1.ConditionTrue}},
			ContainerStatuses: []v1.ContainerStatus{running("app", 3, start.Add(-30*time.Second)), running("ghost", 0, start.Add(-30*time.Second))}}
		return p
	}
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{}, {}, {}, {ExitAfter: sec(40), ExitCode: 1}, {}}}}}
	n := sim.NewNode(sim.Config{Seed: 3, Start: start, KubeletUptime: sim.Duration(time.Nanosecond)})
	for _, name := range []string{"one", "two"} {
		if err := n.AdoptPod(start, adopted(name), script); err != nil {
			t.Fatal(err)
		}
	}
	r := n.Advance(start.Add(time.Minute))
	first := map[string]*v1.PodStatus{}
	restarted := map[string]int32{}
	for _, e := range r.Entries {
		if e.Kind != sim.KindAPI || e.API != sim.APIStatus || e.Status == nil {
			continue
		}
		st := &e.Status.Status
		if first[e.Pod] == nil {
			first[e.Pod] = st
		}
		for _, cs := range st.ContainerStatuses {
			if cs.Name == "app" && cs.State.Running != nil && cs.RestartCount > 3 {
				restarted[e.Pod] = cs.RestartCount
			}
		}
	}
	for _, name := range []string{"one", "two"} {
		st := first[name]
		if st == nil {
			t.Fatalf("%s: no status written\n%s", name, (&sim.Timeline{Entries: r.Entries}).Events())
		}
		if len(st.ContainerStatuses) != 1 || st.ContainerStatuses[0].Name != "app" {
			t.Fatalf("%s: container statuses %+v, want app alone (ghost is not in the spec)", name, st.ContainerStatuses)
		}
		cs := st.ContainerStatuses[0]
		if cs.Image != "busybox" {
			t.Errorf("%s: image %q, want the spec's busybox", name, cs.Image)
		}
		if cs.Resources == nil || cs.Resources.Requests.Cpu().MilliValue() != 100 {
			t.Errorf("%s: resources %+v, want the running container's cpu request 100m", name, cs.Resources)
		}
		if restarted[name] != 4 {
			t.Errorf("%s: the instance after the adopted one (restart count 3) has restart count %d, want 4", name, restarted[name])
		}
	}
}

func ptrBool(b bool) *bool { return &b }
