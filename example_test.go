package kubeletlogic_test

import (
	"fmt"
	"time"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/manifest"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// A Job pod with a native sidecar whose app exited 0: the kubelet kills
// the pod, sidecar included, and the pod ends Succeeded.
func Example_jobWithSidecar() {
	pod, _ := manifest.Pod([]byte(`{apiVersion: batch/v1, kind: Job, metadata: {name: report}, spec: {template: {spec: {
  restartPolicy: Never,
  initContainers: [{name: proxy, image: envoy, restartPolicy: Always}],
  containers: [{name: job, image: busybox}]}}}}`))
	st, _ := runtimestate.FromYAML([]byte(`{sandboxes: [{id: s1, ready: true, ip: 10.244.1.6}], containers: [
  {id: c2, name: job, sandboxID: s1, state: exited, exitCode: 0, reason: Completed},
  {id: c1, name: proxy, sandboxID: s1, state: running}]}`))
	fmt.Println(podactions.Compute(pod, st, features.Set{}, podactions.Options{}))
	fmt.Println("phase now:", podstatus.Compute(pod, st, podstatus.Options{}).Status.Phase)

	st.Containers[1].State, st.Containers[1].ExitCode = runtimestate.Exited, 137 // after the kill
	pod.Status = podstatus.Compute(pod, st, podstatus.Options{PodIsTerminal: true}).Status
	fmt.Println("phase after the kill:", pod.Status.Phase, "| STATUS:", kubectlstatus.Compute(pod))
	// Output:
	// kill the pod: no regular container runs or is left to start (running sidecars are stopped too)
	// phase now: Running
	// phase after the kill: Succeeded | STATUS: Completed
}

// When are restarts 1..8 of a container that crashes at once, with and
// without ReduceDefaultCrashLoopBackOffDecay? (Earliest times: a real
// kubelet adds up to half the delay of jitter and the relist latency.)
func Example_crashLoopSchedule() {
	reduced, _ := features.Parse("ReduceDefaultCrashLoopBackOffDecay=true")
	for _, f := range []features.Set{{}, reduced} {
		cfg, _ := restart.NewBackOffConfig(f, restart.BackOffSettings{})
		fmt.Printf("%s (%s):", f, cfg)
		for _, r := range cfg.Schedule(8, 0) {
			fmt.Printf(" %s", r.Start)
		}
		fmt.Println()
	}
	_ = time.Second
	// Output:
	// v1.37.2 defaults (initial 10s, max 5m0s): 0s 10s 30s 1m10s 2m30s 5m10s 10m10s 15m10s
	// ReduceDefaultCrashLoopBackOffDecay=true (initial 1s, max 5m0s): 0s 1s 3s 7s 15s 31s 1m3s 2m7s
}
