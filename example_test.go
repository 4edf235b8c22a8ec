package kubeletlogic_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/manifest"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// The README's sketch (TestREADMESketch keeps the two the same).
func Example() {
	kubectlYAML := []byte(`{apiVersion: v1, kind: Pod, metadata: {name: web}, spec: {restartPolicy: Never, containers: [{name: app, image: nginx}]}}`)
	handWritten := []byte(`{sandboxes: [{id: s1, ready: true, ip: 10.244.1.6}], containers: [{id: c1, name: app, sandboxID: s1, state: exited, exitCode: 0}]}`)
	// README sketch begins
	pod, err := manifest.Pod(kubectlYAML)                       // kubectl get pod -o yaml, or a Deployment/Job/…
	apidefaults.Pod(pod)                                        // what the API server fills in (grace 30 s …); kubectl output has it
	st, err := runtimestate.FromYAML(handWritten)               // only what matters; hashes may be left out
	next := sim.Next(pod, st, sim.NextOptions{})                // the kubelet's whole next sync, as a node in steady state
	fmt.Print(next)                                             // "SyncPod … pod reached phase Succeeded: terminating"
	s := podstatus.Compute(pod, st, podstatus.Options{})        // the whole .status; s.Status.Phase …
	r := podstatus.Recompute(pod, podstatus.RecomputeOptions{}) // phase, conditions, STATUS from an API status
	plan := termination.Plan(pod, st, termination.Options{})    // SIGTERM/SIGKILL times; sleep preStops from the spec
	cfg, _ := restart.NewBackOffConfig(features.Set{}, restart.BackOffSettings{})
	fmt.Println(cfg.Schedule(8, 0)[7].Start) // a crash loop's 8th restart: 15m10s
	// README sketch ends
	fmt.Println(err, s.Status.Phase, r.KubectlStatus, plan.SandboxStop)
	// Output:
	// SyncPod
	//   no runtime call
	//   pod reached phase Succeeded: terminating
	//   stores status: phase Succeeded
	// 15m10s
	// <nil> Succeeded Pending 0s
}

// TestREADMESketch: the README's code sketch is the one Example compiles.
func TestREADMESketch(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(readme), "```go\n")
	sketch, _, _ := strings.Cut(rest, "```")
	_, body, _ := strings.Cut(string(src), "// README sketch begins\n")
	body, _, _ = strings.Cut(body, "\t// README sketch ends")
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if squash(sketch) != squash(strings.Join(lines, "\n")) {
		t.Errorf("README sketch:\n%s\nExample:\n%s", sketch, strings.Join(lines, "\n"))
	}
	// The sketch reads a manifest as written (a Deployment, a Job): the
	// decisions then read the pod the API server stores only once it is
	// defaulted (an unset terminationGracePeriodSeconds is 30 s there; read
	// as unset, termination.Plan gives each container the 2 s minimum).
	def := strings.Index(sketch, "apidefaults.Pod(pod)")
	for _, call := range []string{"podstatus.Compute(pod", "termination.Plan(pod", "podstatus.Recompute(pod"} {
		if i := strings.Index(sketch, call); i >= 0 && (def < 0 || def > i) {
			t.Errorf("README sketch: %s reads the manifest before apidefaults.Pod(pod) defaults it", call)
		}
	}
}

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
	fmt.Println(podactions.Compute(pod, st, podactions.Options{Features: features.Set{}}))
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
	// Output:
	// v1.37.2 defaults (initial 10s, max 5m0s): 0s 10s 30s 1m10s 2m30s 5m10s 10m10s 15m10s
	// ReduceDefaultCrashLoopBackOffDecay=true (initial 1s, max 5m0s): 0s 1s 3s 7s 15s 31s 1m3s 2m7s
}

// An app exits 42 and a RestartAllContainers rule matches: the next sync
// removes every container instance (init container first), and the pod
// shows AllContainersRestarting=True meanwhile.
func Example_restartAllContainers() {
	pod, _ := manifest.Pod([]byte(`{apiVersion: v1, kind: Pod, metadata: {name: train}, spec: {restartPolicy: Never,
  initContainers: [{name: fetch, image: busybox}],
  containers: [{name: app, image: trainer, restartPolicy: Never, restartPolicyRules: [
    {action: RestartAllContainers, exitCodes: {operator: In, values: [42]}}]}]}}`))
	st, _ := runtimestate.FromYAML([]byte(`{sandboxes: [{id: s1, ready: true, ip: 10.244.1.6}], containers: [
  {id: c2, name: app, sandboxID: s1, state: exited, exitCode: 42, reason: Error},
  {id: c1, name: fetch, sandboxID: s1, state: exited, exitCode: 0, reason: Completed}]}`))
	s := podstatus.Compute(pod, st, podstatus.Options{})
	for _, c := range s.Status.Conditions[1:] {
		fmt.Printf("%s=%s (%s)\n", c.Type, c.Status, c.Reason)
	}
	reset := restart.RestartingAllContainers(pod, st, nil, s.Status.Phase, features.Set{})
	fmt.Println(podactions.Compute(pod, st, podactions.Options{Features: features.Set{}, RestartAllContainers: reset}))
	// Output:
	// Initialized=True ()
	// Ready=False (ContainersNotReady)
	// ContainersReady=False (ContainersNotReady)
	// PodScheduled=True ()
	// AllContainersRestarting=True (RestartAllContainersStarted)
	// remove fetch (c1): restart all containers
	// remove app (c2): restart all containers (it triggered the restart)
}

// A pod read from `kubectl get pod -o yaml` whose init container is in
// CrashLoopBackOff: the phase, conditions and STATUS a kubelet writes for
// those container statuses, and when the next restart comes.
func Example_initCrashLoopFromKubectl() {
	pod, _ := manifest.Pod([]byte(`{apiVersion: v1, kind: Pod, metadata: {name: web-0, uid: u-1},
  spec: {restartPolicy: Always, initContainers: [{name: migrate, image: busybox}], containers: [{name: app, image: nginx}]},
  status: {phase: Pending, conditions: [{type: PodReadyToStartContainers, status: "True"}],
    initContainerStatuses: [{name: migrate, image: busybox, imageID: "", ready: false, restartCount: 3,
      lastState: {terminated: {exitCode: 1, reason: Error, startedAt: "2026-11-30T10:00:40Z", finishedAt: "2026-11-30T10:00:41Z"}},
      state: {waiting: {reason: CrashLoopBackOff, message: "back-off 40s restarting failed container=migrate pod=web-0_default(u-1)"}}}],
    containerStatuses: [{name: app, image: nginx, imageID: "", ready: false, restartCount: 0, state: {waiting: {reason: PodInitializing}}}]}}`))
	r := podstatus.Recompute(pod, podstatus.RecomputeOptions{})
	fmt.Println(r.Phase.Phase, r.Conditions[1].Type, r.Conditions[1].Status, r.Conditions[1].Reason, "| STATUS:", r.KubectlStatus)
	cfg, _ := restart.NewBackOffConfig(features.Set{}, restart.BackOffSettings{})
	e, _ := cfg.EntryFromStatus(&pod.Status.InitContainerStatuses[0])
	fmt.Println("next restart at the earliest:", pod.Status.InitContainerStatuses[0].LastTerminationState.Terminated.FinishedAt.Add(e.Delay).UTC().Format("15:04:05"))
	// Output:
	// Pending Initialized False ContainersNotInitialized | STATUS: Init:CrashLoopBackOff
	// next restart at the earliest: 10:01:21
}

// A pod with a finalizer is deleted: the kubelet sends its delete (grace 0)
// only once its pod worker has finished; a running container says no.
func Example_deleteWithFinalizer() {
	pod, _ := manifest.Pod([]byte(`{apiVersion: v1, kind: Pod, metadata: {name: web, uid: u-1, finalizers: [example.com/keep],
  deletionTimestamp: "2026-12-01T10:00:30Z", deletionGracePeriodSeconds: 30},
  spec: {containers: [{name: app, image: nginx}]}, status: {phase: Running}}`))
	st, _ := runtimestate.FromYAML([]byte(`{sandboxes: [{id: s1, ready: true}], containers: [{id: c1, name: app, sandboxID: s1, state: running}]}`))
	now := pod.DeletionTimestamp.Add(-30 * time.Second)
	w := termination.UpdatePod(nil, termination.Update{Type: termination.UpdateUpdate, Pod: pod}, now, features.Set{}).State
	fmt.Println(termination.CanBeDeleted(pod, st, w))
	w = termination.Complete(w, termination.SyncResult{}, false, now.Add(time.Second), features.Set{})   // containers stopped
	w = termination.Complete(w, termination.SyncResult{}, false, now.Add(2*time.Second), features.Set{}) // volumes, cgroup
	st.Containers[0].State, pod.Status.Phase = runtimestate.Exited, "Succeeded"
	fmt.Println(termination.CanBeDeleted(pod, st, w))
	// Output:
	// the kubelet does not delete the pod yet: the API status phase is "Running", not Succeeded or Failed: the kubelet has not written a terminal status yet
	// the kubelet deletes the pod now: deletionTimestamp set, terminal phase, pod worker finished
}

// Grace 30 s; the app has a preStop `sleep 25`, the native sidecar a
// preStop `sleep 10`; both ignore SIGTERM. Who gets SIGTERM and SIGKILL
// when? The preStop durations are read from the spec.
func Example_preStopAndSidecar() {
	pod, _ := manifest.Pod([]byte(`{apiVersion: v1, kind: Pod, metadata: {name: web}, spec: {terminationGracePeriodSeconds: 30,
  initContainers: [{name: proxy, image: envoy, restartPolicy: Always, lifecycle: {preStop: {sleep: {seconds: 10}}}}],
  containers: [{name: app, image: nginx, lifecycle: {preStop: {sleep: {seconds: 25}}}}]}}`))
	st, _ := runtimestate.FromYAML([]byte(`{sandboxes: [{id: s1, ready: true}], containers: [
  {id: c2, name: app, sandboxID: s1, state: running}, {id: c1, name: proxy, sandboxID: s1, state: running}]}`))
	grace := int64(30) // the pod worker's effective grace for a delete with the spec's grace
	fmt.Print(termination.Plan(pod, st, termination.Options{GracePeriodOverride: &grace}))
	// Output:
	// sidecar ordering in force
	// app (c2): grace 30s; preStop 0s-25s (25s off the grace); StopContainer (SIGTERM) at 25s, timeout 5s; SIGKILL at 30s
	// proxy (c1): grace 30s; preStop 0s-10s (10s off the grace); waits 10s-30s for app (20s off the grace); StopContainer (SIGTERM) at 30s, timeout 2s; SIGKILL at 32s
	// StopPodSandbox at 32s (s1)
}
