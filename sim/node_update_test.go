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

// UpdatePod reads only what changed: an update of a pod without
// finalizers that changes nothing is no action (no "remove finalizers",
// and the pod keeps no finalizer: deleted, its API object goes once it has
// terminated); a deletion timestamp that appears is one delete, with the
// object's grace, and an update of the pod already being deleted is no
// second one.
func TestUpdatePodReadsOnlyWhatChanged(t *testing.T) {
	start := sim.DefaultStart
	n := sim.NewNode(sim.Config{Seed: 1})
	obj := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	if err := n.AddPod(start, obj, sim.Script{}); err != nil {
		t.Fatal(err)
	}
	var entries []sim.Entry
	advance := func(to time.Duration) {
		entries = append(entries, n.Advance(start.Add(to)).Entries...)
	}
	update := func(at time.Duration, p *v1.Pod) {
		advance(at - time.Nanosecond)
		if err := n.UpdatePod(start.Add(at), p, nil); err != nil {
			t.Fatal(err)
		}
	}
	update(5*time.Second, obj.DeepCopy())
	deleted := obj.DeepCopy()
	ts := metav1.NewTime(start.Add(10 * time.Second))
	grace := int64(5)
	deleted.DeletionTimestamp, deleted.DeletionGracePeriodSeconds = &ts, &grace
	update(10*time.Second, deleted)
	update(12*time.Second, deleted.DeepCopy())
	advance(time.Minute)
	var actions []string
	gone := false
	for _, e := range entries {
		if e.Kind == sim.KindAction && e.Message != "pod added to the kubelet" {
			actions = append(actions, e.At.String()+" "+e.Message)
		}
		if e.Kind == sim.KindAPI && e.API == sim.APIGone {
			gone = true
		}
	}
	if got, want := strings.Join(actions, "; "), "10s delete --grace-period=5"; got != want {
		t.Errorf("actions %q, want %q", got, want)
	}
	if !gone {
		t.Errorf("the API object of the deleted pod without finalizers is not deleted within a minute")
	}
}

// A deletion timestamp without deletionGracePeriodSeconds is a delete with
// the pod's own grace (terminationGracePeriodSeconds, 30 s by default):
// the container is stopped with a 30 s timeout.
func TestUpdatePodDeletionWithoutGrace(t *testing.T) {
	start := sim.DefaultStart
	n := sim.NewNode(sim.Config{Seed: 1})
	obj := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	if err := n.AddPod(start, obj, sim.Script{}); err != nil {
		t.Fatal(err)
	}
	entries := n.Advance(start.Add(5*time.Second - time.Nanosecond)).Entries
	deleted := obj.DeepCopy()
	ts := metav1.NewTime(start.Add(5 * time.Second))
	deleted.DeletionTimestamp = &ts
	if err := n.UpdatePod(start.Add(5*time.Second), deleted, nil); err != nil {
		t.Fatal(err)
	}
	entries = append(entries, n.Advance(start.Add(10*time.Second)).Entries...)
	var del []string
	var timeout int64 = -1
	for _, e := range entries {
		if e.Kind == sim.KindAction && strings.HasPrefix(e.Message, "delete") {
			del = append(del, e.Message)
		}
		if e.Kind == sim.KindCRI && e.Call.Method == "StopContainer" && e.Call.Timeout != nil {
			timeout = *e.Call.Timeout
		}
	}
	if len(del) != 1 || del[0] != "delete" || timeout != 30 {
		t.Errorf("delete actions %q, StopContainer timeout %d; want one \"delete\" (the pod's grace) and 30", del, timeout)
	}
}

// UpdatePod with a script checks it against the new pod as AddPod does: a
// script naming no container of the pod is refused, a fitting one taken
// (the container's next instance follows it).
func TestUpdatePodScript(t *testing.T) {
	start := sim.DefaultStart
	n := sim.NewNode(sim.Config{Seed: 1})
	obj := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	if err := n.AddPod(start, obj, sim.Script{}); err != nil {
		t.Fatal(err)
	}
	n.Advance(start.Add(time.Second))
	bad := &sim.Script{Containers: map[string]sim.Behaviour{"ap": {}}}
	if err := n.UpdatePod(start.Add(time.Second), obj.DeepCopy(), bad); err == nil || !strings.Contains(err.Error(), `"ap" is not a container`) {
		t.Fatalf("a script naming no container: error %v", err)
	}
	crash := &sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{}, {ExitAfter: sec(1), ExitCode: 3}}}}}
	if err := n.UpdatePod(start.Add(time.Second), obj.DeepCopy(), crash); err != nil {
		t.Fatalf("a fitting script: %v", err)
	}
	if err := n.Do(start.Add(2*time.Second), "", "web", sim.Action{KillContainer: "app"}); err != nil {
		t.Fatal(err)
	}
	exited := false
	for _, e := range n.Advance(start.Add(30 * time.Second)).Entries {
		if e.Status != nil {
			for _, cs := range e.Status.Status.ContainerStatuses {
				if lt := cs.LastTerminationState.Terminated; lt != nil && lt.ExitCode == 3 {
					exited = true
				}
			}
		}
	}
	if !exited {
		t.Errorf("the instance after the kill does not follow the new script (exit code 3 after 1 s)")
	}
}

// Node.Do refuses a resize the API server would refuse (a request above
// its limit), as Simulate refuses it in an action list.
func TestDoRefusesAnInvalidResize(t *testing.T) {
	start := sim.DefaultStart
	n := sim.NewNode(sim.Config{Seed: 1})
	obj := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox", Resources: v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}, Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("200m")}}}}})
	if err := n.AddPod(start, obj, sim.Script{}); err != nil {
		t.Fatal(err)
	}
	n.Advance(start.Add(5 * time.Second))
	bad := sim.Action{Resize: map[string]v1.ResourceRequirements{"app": {Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("300m")}}}}
	err := n.Do(start.Add(5*time.Second), "", "web", bad)
	if err == nil || !strings.Contains(err.Error(), "must be less than or equal to cpu limit") {
		t.Fatalf("a resize of app's cpu request above its limit: error %v", err)
	}
	ok := sim.Action{Resize: map[string]v1.ResourceRequirements{"app": {Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("150m")}}}}
	if err := n.Do(start.Add(5*time.Second), "", "web", ok); err != nil {
		t.Fatalf("a resize within the limit: %v", err)
	}
}
