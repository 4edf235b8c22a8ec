package podstatus_test

import (
	"fmt"
	"strings"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/manifest"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
)

// A pod read from `kubectl get pod -o yaml`, its init container in
// CrashLoopBackOff: the phase, conditions and STATUS a kubelet derives
// from those container statuses, and the back-off the message shows.
func ExampleRecompute() {
	pod, err := manifest.Pod([]byte(`
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: shop, uid: u-1}
spec:
  restartPolicy: Always
  initContainers: [{name: migrate, image: busybox}]
  containers: [{name: app, image: nginx}]
status:
  phase: Pending
  conditions:
  - {type: PodReadyToStartContainers, status: "True"}
  initContainerStatuses:
  - name: migrate
    image: busybox
    imageID: ""
    ready: false
    restartCount: 3
    lastState: {terminated: {exitCode: 1, reason: Error}}
    state: {waiting: {reason: CrashLoopBackOff, message: "back-off 40s restarting failed container=migrate pod=web-0_shop(u-1)"}}
  containerStatuses:
  - {name: app, image: nginx, imageID: "", ready: false, restartCount: 0, state: {waiting: {reason: PodInitializing}}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	r := podstatus.Recompute(pod, podstatus.RecomputeOptions{})
	fmt.Println("phase:", r.Phase)
	for _, c := range r.Conditions {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s=%s %s", c.Type, c.Status, c.Reason)))
	}
	fmt.Println("STATUS:", r.KubectlStatus)
	cfg, _ := restart.NewBackOffConfig(features.V1_37(), restart.BackOffSettings{})
	e, src := cfg.EntryFromStatus(&pod.Status.InitContainerStatuses[0])
	fmt.Printf("back-off now %s (from the %s); next waits %s\n", e.Delay, src, min(2*e.Delay, cfg.Max))
	// Output:
	// phase: Pending (computed by getPhase)
	// PodReadyToStartContainers=True
	// Initialized=False ContainersNotInitialized
	// Ready=False ContainersNotReady
	// ContainersReady=False ContainersNotReady
	// PodScheduled=True
	// STATUS: Init:CrashLoopBackOff
	// back-off now 40s (from the CrashLoopBackOff message); next waits 1m20s
}

// A simulator wrote Running for a pod whose only container exited 0 under
// restartPolicy Never: no kubelet writes that.
func ExampleCheck() {
	pod, err := manifest.Pod([]byte(`
apiVersion: v1
kind: Pod
metadata: {name: job-1, namespace: batch, uid: u-2}
spec:
  restartPolicy: Never
  containers: [{name: work, image: busybox}]
status:
  phase: Running
  conditions:
  - {type: PodReadyToStartContainers, status: "True"}
  - {type: Initialized, status: "True"}
  - {type: Ready, status: "False", reason: PodCompleted}
  - {type: ContainersReady, status: "False", reason: PodCompleted}
  - {type: PodScheduled, status: "True"}
  containerStatuses:
  - name: work
    image: busybox
    imageID: ""
    ready: false
    started: false
    restartCount: 0
    state: {terminated: {exitCode: 0, reason: Completed}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range podstatus.Check(pod, podstatus.RecomputeOptions{}) {
		fmt.Print(m)
	}
	// Output:
	// status.phase: getPhase gives Succeeded: every container succeeded and none will restart
	//   - "Running"
	//   + "Succeeded"
	// status.conditions[Initialized].reason: Initialized follows the init container statuses (GenerateInitializedCondition)
	//   - ""
	//   + "PodCompleted"
}
