// Command crashloop walks one container through a crash loop and prints what
// kubelet v1.37.2 decides at each step: whether it restarts the container,
// and how long crash-loop back-off makes it wait.
//
//	go run ./examples/crashloop
package main

import (
	"fmt"
	"os"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

func main() {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{}
	pod.Name, pod.Namespace, pod.UID = "web", "default", "7d1f0c2e"
	pod.Spec.RestartPolicy = v1.RestartPolicyAlways
	pod.Spec.Containers = []v1.Container{{
		Name: "app", Image: "busybox", RestartPolicy: &always,
		RestartPolicyRules: []v1.ContainerRestartRule{{
			Action:    v1.ContainerRestartRuleActionRestartAllContainers,
			ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}},
		}},
	}}
	app := &pod.Spec.Containers[0]

	gates := features.V1_37()
	cfg, err := restart.NewBackOffConfig(gates, restart.BackOffSettings{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("gates: %v; back-off %v doubling to %v\n", gates, cfg.Initial, cfg.Max)

	// The app runs 3 s and exits 1, every time. The kubelet syncs the pod
	// once a second while it waits.
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.244.1.6", CreatedAt: start}}}
	var entry restart.BackOffEntry
	now := start
	for i := 0; i < 7; i++ {
		finished := now.Add(3 * time.Second)
		st.Containers = append([]runtimestate.Container{{
			ID: fmt.Sprintf("c%d", i), Name: "app", SandboxID: "s1", State: runtimestate.Exited,
			ExitCode: 1, Reason: "Error", Hash: containerhash.Of(app), RestartCount: i,
			CreatedAt: now, StartedAt: now, FinishedAt: finished,
		}}, st.Containers...)
		if !restart.ShouldContainerBeRestarted(app, pod, st, gates) {
			fmt.Println("not restarted")
			return
		}
		now = finished
		waited := false
		for {
			d := cfg.Decide(pod, app, st, entry, now)
			if d.Start {
				entry = d.Entry
				break
			}
			if !waited {
				fmt.Printf("  %s: waiting: %s (until %s)\n", now.Format("15:04:05"), d.Message, d.Until.Format("15:04:05"))
				waited = true
			}
			now = now.Add(time.Second)
		}
		fmt.Printf("restart %d: exited at %s, started again at %s (after %v)\n",
			i+1, finished.Format("15:04:05"), now.Format("15:04:05"), now.Sub(finished))
	}

	// Exit 42 matches the RestartAllContainers rule.
	st.Containers[0].ExitCode = 42
	fmt.Println("app exits 42; restart all containers on the next sync:",
		restart.RestartingAllContainers(pod, st, nil, v1.PodRunning, gates))
}
