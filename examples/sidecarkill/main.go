// Command sidecarkill answers a design-review question with the kubelet's
// own arithmetic: a pod is deleted with a 20 s grace period; its app has a
// preStop hook that takes 4 s, and its native sidecar one that takes 10 s.
// Who gets SIGKILL when?
//
//	go run ./examples/sidecarkill
package main

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

func main() {
	grace := int64(20)
	always := v1.ContainerRestartPolicyAlways
	sleep := func(s int64) *v1.Lifecycle {
		return &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: s}}}
	}
	deleted := metav1.NewTime(time.Date(2026, 11, 29, 15, 43, 22, 0, time.UTC))
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "u1", DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: &grace},
		Spec: v1.PodSpec{
			TerminationGracePeriodSeconds: &grace,
			InitContainers:                []v1.Container{{Name: "sidecar", RestartPolicy: &always, Lifecycle: sleep(10)}},
			Containers:                    []v1.Container{{Name: "app", Lifecycle: sleep(4)}},
		},
	}
	st := &runtimestate.Pod{
		UID:       "u1",
		Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true}},
		Containers: []runtimestate.Container{
			{ID: "c2", Name: "app", SandboxID: "s1", State: runtimestate.Running},
			{ID: "c1", Name: "sidecar", SandboxID: "s1", State: runtimestate.Running},
		},
	}
	f := features.V1_37()
	// The pod worker turns the deletion into the override SyncTerminatingPod
	// passes to KillPod.
	override, _ := termination.EffectiveGracePeriod(0, pod, nil, f)
	preStop := map[string]time.Duration{"app": 4 * time.Second, "sidecar": 10 * time.Second}

	fmt.Println("Both processes ignore SIGTERM:")
	fmt.Print(termination.Plan(pod, st, termination.Options{Features: f, GracePeriodOverride: &override, PreStop: preStop}))
	fmt.Println()
	fmt.Println("The app exits 1 s after SIGTERM, the sidecar ignores it:")
	fmt.Print(termination.Plan(pod, st, termination.Options{Features: f, GracePeriodOverride: &override, PreStop: preStop,
		ExitAfter: map[string]time.Duration{"app": time.Second}}))
}
