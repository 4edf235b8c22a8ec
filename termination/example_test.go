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

// sidecarPod is a pod deleted with a 20 s grace period: an app whose
// preStop hook sleeps 4 s and a native sidecar whose hook sleeps 10 s.
func sidecarPod() (*v1.Pod, *runtimestate.Pod) {
	grace := int64(20)
	always := v1.ContainerRestartPolicyAlways
	sleep := func(s int64) *v1.Lifecycle {
		return &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: s}}}
	}
	now := metav1.NewTime(time.Date(2026, 11, 29, 15, 43, 2, 0, time.UTC))
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "u1", DeletionTimestamp: &now, DeletionGracePeriodSeconds: &grace},
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
	return pod, st
}

// Grace 20 s, the app's preStop sleeps 4 s, the sidecar's 10 s (Plan reads
// sleep hooks from the spec), and neither process exits on SIGTERM: who
// gets SIGKILL when?
func ExamplePlan() {
	pod, st := sidecarPod()
	f := features.V1_37()
	// The pod worker passes the deletion grace down as the override.
	grace, _ := termination.EffectiveGracePeriod(0, pod, nil, f)
	tl := termination.Plan(pod, st, termination.Options{
		Features:            f,
		GracePeriodOverride: &grace,
	})
	fmt.Print(tl)
	// Output:
	// sidecar ordering in force
	// app (c2): grace 20s; preStop 0s-4s (4s off the grace); StopContainer (SIGTERM) at 4s, timeout 16s; SIGKILL at 20s
	// sidecar (c1): grace 20s; preStop 0s-10s (10s off the grace); waits 10s-20s for app (10s off the grace); StopContainer (SIGTERM) at 20s, timeout 2s; SIGKILL at 22s
	// StopPodSandbox at 22s (s1)
}

// The same pod, but the app exits 1 s after SIGTERM: the sidecar's turn
// comes as soon as its own preStop hook ends.
func ExamplePlan_appExits() {
	pod, st := sidecarPod()
	f := features.V1_37()
	grace, _ := termination.EffectiveGracePeriod(0, pod, nil, f)
	tl := termination.Plan(pod, st, termination.Options{
		Features:            f,
		GracePeriodOverride: &grace,
		ExitAfter:           map[string]time.Duration{"app": time.Second, "sidecar": 500 * time.Millisecond},
	})
	fmt.Print(tl)
	// Output:
	// sidecar ordering in force
	// app (c2): grace 20s; preStop 0s-4s (4s off the grace); StopContainer (SIGTERM) at 4s, timeout 16s; exits at 5s
	// sidecar (c1): grace 20s; preStop 0s-10s (10s off the grace); waits 10s-10s for app (0s off the grace); StopContainer (SIGTERM) at 10s, timeout 10s; exits at 10.5s
	// StopPodSandbox at 10.5s (s1)
}

func ExampleStopTimeout() {
	// Real-cluster fact 19 (docs/real-cluster-facts.md#fact-19): grace 5 s, a 4 s
	// preStop sleep: StopContainer gets the 2 s minimum.
	s := termination.StopTimeout(5, termination.StopOptions{Features: features.V1_37(), HasPreStop: true, PreStop: 4 * time.Second})
	fmt.Println(s.Timeout)
	// Output: 2
}
