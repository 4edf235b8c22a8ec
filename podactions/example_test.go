package podactions_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// A container whose liveness probe failed is killed and, under
// restartPolicy Always, started again in the same sandbox.
func ExampleCompute() {
	app := v1.Container{Name: "app", Image: "nginx:1.27", LivenessProbe: &v1.Probe{}}
	pod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways, Containers: []v1.Container{app}}}
	st := &runtimestate.Pod{
		Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.244.1.6"}},
		Containers: []runtimestate.Container{
			{ID: "c-123", Name: "app", SandboxID: "s1", State: runtimestate.Running, Hash: containerhash.Of(&app)},
		},
	}
	acts := podactions.Compute(pod, st, podactions.Options{Features: features.V1_37(),
		Probes: map[string]vocab.ProbeResults{"c-123": {Liveness: vocab.ProbeFailure}},
	})
	fmt.Println(acts)
	fmt.Printf("%q\n", acts.ContainersToKill[0].Message)
	// Output:
	// start containers: app (#0)
	// kill app (c-123): liveness probe failed, will be restarted [LivenessProbe]
	// "Container app failed liveness probe, will be restarted"
}

// A pod whose sandbox was stopped, under restartPolicy Never, after its
// containers ran: the kubelet only tears it down.
func ExampleCompute_neverAfterSandboxLoss() {
	pod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	st := &runtimestate.Pod{
		Sandboxes:  []runtimestate.Sandbox{{ID: "s1", Ready: false, Attempt: 0}},
		Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "s1", State: runtimestate.Exited, ExitCode: 0}},
	}
	fmt.Println(podactions.Compute(pod, st, podactions.Options{Features: features.V1_37()}))
	// Output:
	// kill the pod, no new sandbox: pod sandbox is not ready
}

func ExampleSandboxChanged() {
	// The runtime reports the sandbox's network with no IP (NoIP; a sandbox
	// that merely leaves IP out is taken to have one).
	st := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, Attempt: 2, NoIP: true}}}
	fmt.Printf("%+v\n", runtimestate.SandboxChanged(&v1.Pod{}, st))
	// Output:
	// {Changed:true Attempt:3 SandboxID:s1 Message:pod sandbox has no IP address}
}
