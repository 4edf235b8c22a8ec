package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
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

// adoptedStatus is the API status of a running pod whose containers run
// since 30 s before start: one running instance each, restart count 0.
func adoptedStatus(start time.Time, podIP string, names ...string) v1.PodStatus {
	st := v1.PodStatus{Phase: v1.PodRunning, PodIP: podIP, StartTime: &metav1.Time{Time: start.Add(-time.Minute)},
		Conditions: []v1.PodCondition{{Type: v1.PodReadyToStartContainers, Status: v1.ConditionTrue}}}
	if podIP != "" {
		st.PodIPs = []v1.PodIP{{IP: podIP}}
	}
	for _, name := range names {
		st.ContainerStatuses = append(st.ContainerStatuses, v1.ContainerStatus{Name: name, ContainerID: "containerd://" + name + "-x",
			Image: "busybox", ImageID: "docker.io/library/busybox@sha256:0123", Ready: true, Started: ptrBool(true),
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(start.Add(-30 * time.Second))}}})
	}
	return st
}

// lastStatuses returns the last status written to each pod's API object.
func lastStatuses(r sim.Report) map[string]v1.PodStatus {
	out := map[string]v1.PodStatus{}
	for _, e := range r.Entries {
		if e.Kind == sim.KindAPI && e.API == sim.APIStatus && e.Status != nil {
			out[e.Pod] = e.Status.Status
		}
	}
	return out
}

// Pods added and adopted on one node in turn each have an IP of their own,
// and a pod adopted with an IP in its status (podIP, or podIPs alone)
// keeps it.
func TestAdoptPodIPs(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	spec := v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}
	n := sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond)})
	adopt := func(name, ip string, podIPsOnly bool) {
		p := apiPod(name, spec)
		p.Status = adoptedStatus(start, ip, "app")
		if podIPsOnly {
			p.Status.PodIP = ""
		}
		if err := n.AdoptPod(start, p, sim.Script{}); err != nil {
			t.Fatal(err)
		}
	}
	add := func(name string) {
		if err := n.AddPod(start, apiPod(name, spec), sim.Script{}); err != nil {
			t.Fatal(err)
		}
	}
	add("added-1")
	adopt("adopted-1", "10.1.2.3", false)
	add("added-2")
	adopt("adopted-2", "10.1.2.4", true)
	add("added-3")
	r := n.Advance(start.Add(30 * time.Second))
	last := lastStatuses(r)
	byIP := map[string]string{}
	for _, name := range []string{"added-1", "adopted-1", "added-2", "adopted-2", "added-3"} {
		ip := last[name].PodIP
		if ip == "" {
			t.Fatalf("%s: no pod IP\n%s", name, (&sim.Timeline{Entries: r.Entries}).Events())
		}
		if other, ok := byIP[ip]; ok {
			t.Errorf("%s and %s both have IP %s", other, name, ip)
		}
		byIP[ip] = name
	}
	if ip := last["adopted-1"].PodIP; ip != "10.1.2.3" {
		t.Errorf("adopted-1: pod IP %s, want its status's 10.1.2.3", ip)
	}
	if ip := last["adopted-2"].PodIP; ip != "10.1.2.4" {
		t.Errorf("adopted-2: pod IP %s, want its status's podIPs[0] 10.1.2.4", ip)
	}
}

// An adopted container's image ID is its status's; one whose status has
// none gets one from the runtime. The runtime keeps that ID for the image:
// the container's next instance, of the same image, shows it too.
func TestAdoptPodImageIDs(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}, {Name: "bare", Image: "nginx"}}})
	pod.Status = adoptedStatus(start, "10.1.2.3", "app", "bare")
	pod.Status.ContainerStatuses[1].Image, pod.Status.ContainerStatuses[1].ImageID = "nginx", ""
	// Each exits 10 s after the adoption and is started again.
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(40), ExitCode: 1}, {}}},
		"bare": {Runs: []sim.Run{{ExitAfter: sec(40), ExitCode: 1}, {}}}}}
	n := sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond)})
	if err := n.AdoptPod(start, pod, script); err != nil {
		t.Fatal(err)
	}
	r := n.Advance(start.Add(time.Minute))
	ids := map[string]map[int32]string{"app": {}, "bare": {}}
	for _, e := range r.Entries {
		if e.Kind != sim.KindAPI || e.API != sim.APIStatus || e.Status == nil {
			continue
		}
		for _, cs := range e.Status.Status.ContainerStatuses {
			if cs.ImageID != "" && (cs.State.Running != nil || cs.State.Terminated != nil) {
				ids[cs.Name][cs.RestartCount] = cs.ImageID
			}
		}
	}
	if got := ids["app"][0]; got != "docker.io/library/busybox@sha256:0123" {
		t.Errorf("app: image ID %q, want its status's docker.io/library/busybox@sha256:0123", got)
	}
	if ids["bare"][0] == "" {
		t.Errorf("bare: no image ID")
	}
	for name, byRestart := range ids {
		if byRestart[1] == "" || byRestart[1] != byRestart[0] {
			t.Errorf("%s: image IDs by restart count %v, want the next instance's the adopted one's\n%s", name, byRestart, (&sim.Timeline{Entries: r.Entries}).Events())
		}
	}
}

// AdoptPod's runtime runs each container's current spec (runtimestate.
// FromStatus's assumption: a status carries no hash; the new kubelet's
// actuated record is the spec's too, initActuated): a running container
// with requests or limits reports the spec's, so the first status the new
// kubelet writes shows them, not other values the adopted status showed
// (the kubelet keeps a previous status's resources only where the runtime
// reports none). A resize in flight when the kubelet restarted is not
// modelled.
func TestAdoptPodResourcesFromSpec(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	full := v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("200m"), v1.ResourceMemory: resource.MustParse("128Mi")}}
	requestsOnly := v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("50m")}}
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox", Resources: full},
		{Name: "req", Image: "busybox", Resources: requestsOnly}}})
	pod.Status = adoptedStatus(start, "10.1.2.3", "app", "req")
	pod.Status.ContainerStatuses[0].Resources = &v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("300m"), v1.ResourceMemory: resource.MustParse("32Mi")},
		Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("400m"), v1.ResourceMemory: resource.MustParse("256Mi")}}
	pod.Status.ContainerStatuses[1].Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("70m")}}
	n := sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond)})
	if err := n.AdoptPod(start, pod, sim.Script{}); err != nil {
		t.Fatal(err)
	}
	r := n.Advance(start.Add(30 * time.Second))
	var first *v1.PodStatus
	for _, e := range r.Entries {
		if e.Kind == sim.KindAPI && e.API == sim.APIStatus && e.Status != nil {
			first = &e.Status.Status
			break
		}
	}
	if first == nil || len(first.ContainerStatuses) != 2 {
		t.Fatalf("no status with both containers\n%s", (&sim.Timeline{Entries: r.Entries}).Events())
	}
	for i, want := range []v1.ResourceRequirements{full, requestsOnly} {
		cs := first.ContainerStatuses[i]
		if cs.Resources == nil || !equality.Semantic.DeepEqual(cs.Resources.Requests, want.Requests) || len(cs.Resources.Limits) != len(want.Limits) ||
			(len(want.Limits) > 0 && !equality.Semantic.DeepEqual(cs.Resources.Limits, want.Limits)) {
			t.Errorf("%s: resources %+v, want the spec's %+v", cs.Name, cs.Resources, want)
		}
	}
}

// The instances of an adopted container follow the script's run of their
// restart count: the running one its own, the next ones the next, whatever
// instances the status shows (a last termination and a running one here).
func TestAdoptPodRunsFollowRestartCount(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	var runs []sim.Run
	for i := 0; i < 8; i++ {
		runs = append(runs, sim.Run{ExitAfter: sec(5), ExitCode: int32(10 + i)})
	}
	runs[3].ExitAfter = sec(40)
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: runs}}}
	pod := apiPod("crash", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	pod.Status = adoptedStatus(start, "10.1.2.3", "app")
	cs := &pod.Status.ContainerStatuses[0]
	cs.RestartCount = 3
	cs.LastTerminationState.Terminated = &v1.ContainerStateTerminated{ExitCode: 12, Reason: "Error", ContainerID: "containerd://app-w",
		StartedAt: metav1.NewTime(start.Add(-50 * time.Second)), FinishedAt: metav1.NewTime(start.Add(-45 * time.Second))}
	n := sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond)})
	if err := n.AdoptPod(start, pod, script); err != nil {
		t.Fatal(err)
	}
	r := n.Advance(start.Add(2 * time.Minute))
	seen := map[int32]bool{}
	for _, e := range r.Entries {
		if e.Kind != sim.KindAPI || e.API != sim.APIStatus || e.Status == nil {
			continue
		}
		cs := e.Status.Status.ContainerStatuses[0]
		check := func(term *v1.ContainerStateTerminated, rc int32) {
			if term == nil {
				return
			}
			if term.ExitCode != 10+rc {
				t.Fatalf("instance %d exited with code %d, want %d (the script's run %d)\n%s", rc, term.ExitCode, 10+rc, rc, (&sim.Timeline{Entries: r.Entries}).Events())
			}
			seen[rc] = true
		}
		check(cs.State.Terminated, cs.RestartCount)
		if cs.State.Running != nil {
			check(cs.LastTerminationState.Terminated, cs.RestartCount-1)
		}
	}
	for rc := int32(3); rc <= 5; rc++ {
		if !seen[rc] {
			t.Fatalf("no exit of instance %d seen (seen %v)\n%s", rc, seen, (&sim.Timeline{Entries: r.Entries}).Events())
		}
	}
}

// podIPs runs n for a second from its start and returns each pod's IP in
// the last status written.
func podIPs(t *testing.T, n *sim.Node) map[string]string {
	t.Helper()
	// Two minutes: 251 pods started at once share the runtime
	// (Config.RuntimeContention), their sandboxes take seconds.
	r := n.Advance(n.Start().Add(2 * time.Minute))
	out := map[string]string{}
	for name, st := range lastStatuses(r) {
		out[name] = st.PodIP
	}
	return out
}

// A pod adopted with a status that shows no IP (FromStatus assumes one, the
// same for every pod) gets the IP the node gives a pod at its place, as an
// added pod gets at its first RunPodSandbox: its own. Past the 250th pod
// too.
func TestAdoptPodWithoutIP(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	spec := v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}
	// place puts before pods on a new node, then bare, adopted without an
	// IP or added.
	place := func(before int, bare []string, adopt bool) *sim.Node {
		n := sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond)})
		for i := 0; i < before; i++ {
			if err := n.AddPod(start, apiPod(fmt.Sprintf("added-%d", i), spec), sim.Script{}); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range bare {
			p := apiPod(name, spec)
			var err error
			if adopt {
				p.Status = adoptedStatus(start, "", "app")
				err = n.AdoptPod(start, p, sim.Script{})
			} else {
				err = n.AddPod(start, p, sim.Script{})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	for _, tc := range []struct {
		before int
		bare   []string
	}{{1, []string{"bare-1", "bare-2"}}, {250, []string{"bare-250"}}} {
		adopted, added := podIPs(t, place(tc.before, tc.bare, true)), podIPs(t, place(tc.before, tc.bare, false))
		owner := map[string]string{}
		for name, ip := range adopted {
			if ip == "" {
				t.Fatalf("%s: no pod IP", name)
			}
			if other, ok := owner[ip]; ok {
				t.Errorf("%s and %s both have IP %s", other, name, ip)
			}
			owner[ip] = name
		}
		for _, name := range tc.bare {
			if adopted[name] != added[name] {
				t.Errorf("%s adopted without an IP has IP %s; added at its place, %s", name, adopted[name], added[name])
			}
		}
	}
}
