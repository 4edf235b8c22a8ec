package podstatus_test

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// What does the kubelet write to .status for a pod whose app runs but
// whose readiness probe has not succeeded yet (real-cluster fact 6,
// docs/real-cluster-facts.md#fact-6)? The
// phase is Running, computed before the probe step; the container and the
// pod are not ready. Once the probe succeeds, both are.
func Example() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := &v1.Pod{Spec: v1.PodSpec{
		RestartPolicy: v1.RestartPolicyAlways,
		Containers:    []v1.Container{{Name: "app", Image: "nginx", ReadinessProbe: &v1.Probe{}}},
	}}
	st := &runtimestate.Pod{
		Sandboxes:  []runtimestate.Sandbox{{ID: "sb1", Ready: true, IP: "10.244.1.6", CreatedAt: t0}},
		Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "sb1", State: runtimestate.Running, Image: "nginx", CreatedAt: t0, StartedAt: t0}},
	}
	opts := podstatus.Options{Features: features.V1_37(), Now: t0.Add(time.Minute), HostIPs: []string{"172.18.0.2"}}

	fmt.Println(podstatus.Compute(pod, st, opts))

	opts.Probes = map[string]vocab.ProbeResults{"c1": {Readiness: vocab.ProbeSuccess}}
	s := podstatus.Compute(pod, st, opts).Status
	fmt.Println("after the probe succeeds: ready =", s.ContainerStatuses[0].Ready)
	// Output:
	// Running (computed by getPhase)
	//   getPhase: Running (a container is running and none is unknown; counted 1 running)
	//   condition PodReadyToStartContainers=True
	//   condition Initialized=True
	//   condition Ready=False (ContainersNotReady)
	//   condition ContainersReady=False (ContainersNotReady)
	//   condition PodScheduled=True
	//   container app: running ready=false started=true restarts=0
	//   podIPs=10.244.1.6 hostIPs=172.18.0.2
	// after the probe succeeds: ready = true
}
