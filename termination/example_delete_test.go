package termination_test

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// A pod with a finalizer is deleted with grace 30 s. The kubelet deletes
// the API object (grace 0) only when its pod worker has finished the pod;
// the finalizer then keeps the object until a controller removes it.
func ExampleCanBeDeleted() {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	grace := int64(30)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "u1", Finalizers: []string{"example.com/keep"},
			DeletionTimestamp: &metav1.Time{Time: now.Add(30 * time.Second)}, DeletionGracePeriodSeconds: &grace},
		Spec:   v1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{Name: "app", Image: "nginx"}}},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
	running := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true}},
		Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Running}}}
	var f features.Set // v1.37.2 defaults

	// The deletion reaches the pod worker: it starts terminating.
	w := termination.UpdatePod(nil, termination.Update{Type: termination.UpdateUpdate, Pod: pod}, now, f).State
	fmt.Println(termination.CanBeDeleted(pod, running, w))
	// Had a terminal phase been written already, the worker, still
	// terminating, would hold the deletion back.
	pod.Status.Phase = v1.PodFailed
	fmt.Println(termination.CanBeDeleted(pod, running, w))
	pod.Status.Phase = v1.PodRunning

	// SyncTerminatingPod stops the containers and writes a terminal phase.
	w = termination.Complete(w, termination.SyncResult{}, false, now.Add(time.Second), f)
	stopped := running.DeepCopy()
	stopped.Containers[0].State = runtimestate.Exited
	pod.Status.Phase = v1.PodSucceeded
	fmt.Println(termination.CanBeDeleted(pod, stopped, w))

	// SyncTerminatedPod unmounts volumes and removes the cgroup: finished.
	w = termination.Complete(w, termination.SyncResult{}, false, now.Add(2*time.Second), f)
	fmt.Println(termination.CanBeDeleted(pod, stopped, w))

	// A worker said to be finished while the runtime still runs the app is
	// a contradiction; with no runtime state (nil), CanBeDeleted takes the
	// flag at its word, as the kubelet does.
	fmt.Println(termination.CanBeDeleted(pod, running, w))
	fmt.Println(termination.CanBeDeleted(pod, nil, &termination.WorkerState{Finished: true}).Delete)
	// Output:
	// the kubelet does not delete the pod yet: the API status phase is "Running", not Succeeded or Failed: the kubelet has not written a terminal status yet
	// the kubelet does not delete the pod yet: the pod worker is in terminating, not finished (SyncTerminatedPod has not succeeded)
	// the kubelet does not delete the pod yet: the pod worker is in terminated, not finished (SyncTerminatedPod has not succeeded)
	// the kubelet deletes the pod now: deletionTimestamp set, terminal phase, pod worker finished
	// the kubelet does not delete the pod yet: container app (c1) is still running: the pod worker cannot have finished
	// true
}
