package restart_test

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// A container exited 1 at 12:00:05 after being restarted twice: when may
// the kubelet start it again?
func ExampleBackOffConfig_Decide() {
	pod := &v1.Pod{}
	pod.Name, pod.Namespace, pod.UID = "web", "default", "u1"
	pod.Spec.Containers = []v1.Container{{Name: "app", Image: "busybox"}}
	app := &pod.Spec.Containers[0]

	at := func(s int) time.Time { return time.Date(2026, 11, 29, 12, 0, s, 0, time.UTC) }
	st := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c3", Name: "app", State: runtimestate.Exited, ExitCode: 1, CreatedAt: at(4), FinishedAt: at(5)},
		{ID: "c2", Name: "app", State: runtimestate.Exited, ExitCode: 1, CreatedAt: at(2), FinishedAt: at(3)},
		{ID: "c1", Name: "app", State: runtimestate.Exited, ExitCode: 1, CreatedAt: at(0), FinishedAt: at(1)},
	}}
	cfg, _ := restart.NewBackOffConfig(features.V1_37(), restart.BackOffSettings{})
	history, err := restart.HistoryFrom(st, "app")
	if err != nil {
		fmt.Println(err)
		return
	}
	entry := cfg.Replay(history, at(6))

	for _, now := range []time.Time{at(6), at(25)} {
		d := cfg.Decide(pod, app, st, entry, now)
		if d.Start {
			fmt.Printf("%s: start (next delay %v)\n", now.Format("15:04:05"), d.Entry.Delay)
		} else {
			fmt.Printf("%s: wait until %s: %s\n", now.Format("15:04:05"), d.Until.Format("15:04:05"), d.Message)
		}
	}
	// Output:
	// 12:00:06: wait until 12:00:25: back-off 20s restarting failed container=app pod=web_default(u1)
	// 12:00:25: start (next delay 40s)
}

// Which containers of a pod restart after exiting 0 under restartPolicy
// OnFailure?
func ExampleRestartsAfterExit() {
	always, never := v1.ContainerRestartPolicyAlways, v1.ContainerRestartPolicyNever
	pod := &v1.Pod{Spec: v1.PodSpec{
		RestartPolicy:  v1.RestartPolicyOnFailure,
		InitContainers: []v1.Container{{Name: "prepare"}, {Name: "proxy", RestartPolicy: &always}},
		Containers: []v1.Container{{Name: "app"}, {Name: "job", RestartPolicy: &never,
			RestartPolicyRules: []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestart,
				ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{0}}}}}},
	}}
	for _, name := range []string{"prepare", "proxy", "app", "job"} {
		again, kind, _ := restart.RestartsAfterExit(pod, name, 0, "Completed", features.V1_37())
		fmt.Printf("%-7s %-8s restarts: %v\n", name, kind, again)
	}
	// Output:
	// prepare init     restarts: false
	// proxy   sidecar  restarts: true
	// app     regular  restarts: false
	// job     regular  restarts: true
}
