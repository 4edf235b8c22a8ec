package sim_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// sandboxLostAfterInit is a pod whose init container fails once, then
// completes (exit 0) within the crash-loop back-off of its first restart,
// and whose sandbox dies right after: the kubelet creates a new sandbox and
// starts the init containers again from the first (computePodActions), but
// doBackOff still finds init's newest instance (exit 0, finished inside the
// 10 s window) and refuses the start (CrashLoopBackOff in the reason
// cache). The next sync no longer finds any instance of init (purged with
// the old sandbox) and convertToAPIContainerStatuses takes its previous
// status whole (terminated, exit 0, ready) and turns its state to waiting.
func sandboxLostAfterInit(policy v1.RestartPolicy) sim.PodInput {
	pod := apiPod("web", v1.PodSpec{
		RestartPolicy:  policy,
		InitContainers: []v1.Container{{Name: "init", Image: "busybox"}},
		Containers:     []v1.Container{{Name: "app", Image: "nginx"}},
	})
	return sim.PodInput{
		Pod: pod,
		Script: sim.Script{Containers: map[string]sim.Behaviour{
			"init": {Runs: []sim.Run{{ExitAfter: sec(0.3), ExitCode: 1}, {ExitAfter: sec(0.05)}}},
		}},
		Actions: []sim.Action{{At: sec(4), KillSandbox: true}},
	}
}

// TestTerminatedInitStaysTerminated: the status manager refuses a status
// in which a regular init container that completed (exit 0) of a pod with
// restartPolicy OnFailure or Never is no longer terminated
// (status_manager.go checkContainerStateTransition, called by
// updateStatusInternal: "Status update on pod aborted"); the cached status
// stays as it was until the new instance completes. With restartPolicy
// Always the update goes through, and the init container's status keeps
// ready=true from its completed run while it waits (the probe manager's
// UpdatePodStatus only ever sets a regular init container's ready to true).
// Every status the simulation stores is one podstatus.Check accepts.
func TestTerminatedInitStaysTerminated(t *testing.T) {
	for _, policy := range []v1.RestartPolicy{v1.RestartPolicyOnFailure, v1.RestartPolicyAlways} {
		in := sandboxLostAfterInit(policy)
		for seed := uint64(1); seed <= 6; seed++ {
			tl := run(t, sim.Config{Seed: seed, For: sec(30)}, in)
			// The scenario happens: a second sandbox, and init waits in
			// back-off at some point.
			if _, ok := tl.First("web", func(e sim.Entry) bool {
				return e.Kind == sim.KindCRI && e.Call.Method == "RunPodSandbox" && e.Call.Attempt == 1
			}); !ok {
				t.Fatalf("%s seed %d: no second sandbox\n%s", policy, seed, tl.Events())
			}
			completed, waitedReady := false, false
			for _, e := range tl.Entries {
				if e.Pod != "web" || e.Kind != sim.KindStatus {
					continue
				}
				st := e.Status.Status
				cs := st.InitContainerStatuses[0]
				if completed && cs.State.Terminated == nil && policy != v1.RestartPolicyAlways {
					t.Fatalf("%s seed %d at %s (%s): init completed with exit 0 and is now %+v: the status manager aborts that update\n%s", policy, seed, e.At, e.Status.By, cs.State, tl.Events())
				}
				if cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0 {
					completed = true
				}
				if cs.State.Waiting != nil && cs.Ready {
					waitedReady = true
				}
				// The statuses a sync generates (the status manager's
				// patches and TerminatePod's version are not generated).
				switch e.Status.By {
				case "SyncPod", "SyncTerminatingPod", "SyncTerminatedPod":
				default:
					continue
				}
				pod := in.Pod.DeepCopy()
				pod.Status = *st.DeepCopy()
				pod.Generation = e.Status.Generation
				if m := podstatus.Check(pod, podstatus.RecomputeOptions{Now: tl.Start.Add(e.At)}); len(m) > 0 {
					if m2 := podstatus.Check(pod, podstatus.RecomputeOptions{Now: tl.Start.Add(e.At), PodIsTerminal: true}); len(m2) > 0 {
						t.Fatalf("%s seed %d at %s (%s): a kubelet does not write this status: %v\n%s", policy, seed, e.At, e.Status.By, m, tl.Events())
					}
				}
			}
			if !completed {
				t.Fatalf("%s seed %d: init never completed\n%s", policy, seed, tl.Events())
			}
			if policy == v1.RestartPolicyAlways && !waitedReady {
				t.Fatalf("%s seed %d: init never waited with ready=true kept from its completed run\n%s", policy, seed, tl.Events())
			}
		}
	}
}

// TestOnFailureSandboxLostAfterInit: what the refused statuses lead to.
// With restartPolicy OnFailure the sandbox dies after init completed and
// app runs; the kubelet stops app (it exits 0 on SIGTERM here) and starts
// init again in a new sandbox, where doBackOff holds it. The next sync
// generates init waiting and app completed: phase Succeeded, so SyncPod
// ends and the pod worker terminates the pod (kubelet.go SyncPod reads
// the generated phase, not the stored one). Every status it generates from
// then on shows init waiting and is refused, and TerminatePod builds the
// final status from the cached one, where app still runs: app becomes
// ContainerStatusUnknown (exit 137) and the phase Failed
// (status_manager.go TerminatePod).
func TestOnFailureSandboxLostAfterInit(t *testing.T) {
	tl := run(t, sim.Config{Seed: 1, For: sec(30)}, sandboxLostAfterInit(v1.RestartPolicyOnFailure))
	if _, ok := tl.First("web", func(e sim.Entry) bool {
		return e.Kind == sim.KindSync && strings.Contains(e.Message, "status update aborted: init container init exited 0 under restartPolicy OnFailure")
	}); !ok {
		t.Fatalf("no refused status update is logged\n%s", tl.Events())
	}
	if _, ok := tl.First("web", func(e sim.Entry) bool {
		return e.Kind == sim.KindSync && e.Message == "pod reached phase Succeeded in the status SyncPod generated (not stored): terminating"
	}); !ok {
		t.Fatalf("the timeline does not say the terminal phase SyncPod acted on was not stored\n%s", tl.Events())
	}
	_, last := tl.LastStatus("web")
	if last == nil || last.Phase != v1.PodFailed || len(last.ContainerStatuses) != 1 {
		t.Fatalf("last status %+v, want phase Failed\n%s", last, tl.Events())
	}
	if term := last.ContainerStatuses[0].State.Terminated; term == nil || term.Reason != "ContainerStatusUnknown" || term.ExitCode != 137 {
		t.Fatalf("app ends %+v, want terminated ContainerStatusUnknown 137 (TerminatePod over the cached status)\n%s", last.ContainerStatuses[0].State, tl.Events())
	}
	if term := last.InitContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != 0 {
		t.Fatalf("init ends %+v, want its completed run kept\n%s", last.InitContainerStatuses[0].State, tl.Events())
	}
}

// TestReadyKeptThroughReset: the same kept ready=true through a
// RestartAllContainers reset. The pod (restartPolicy OnFailure) restarts
// all containers when app exits 137; its sandbox dies after init
// completed, app is killed (137) and init is held by doBackOff in the new
// sandbox. The reset's syncs keep init's completed status whole: first
// terminated ("treat it as exited normally", last termination the reset's
// RestartingAllContainers, exit 137), then, app removed, waiting
// CrashLoopBackOff from the reason cache over that same last termination,
// ready=true all along (convertToAPIContainerStatuses). The status manager
// stores it (a RestartAllContainers rule lets every container leave the
// terminated state) and podstatus.Check accepts every generated status.
func TestReadyKeptThroughReset(t *testing.T) {
	never := v1.ContainerRestartPolicyNever
	grace := int64(2)
	pod := apiPod("web", v1.PodSpec{
		RestartPolicy:                 v1.RestartPolicyOnFailure,
		TerminationGracePeriodSeconds: &grace,
		InitContainers:                []v1.Container{{Name: "init", Image: "busybox"}},
		Containers: []v1.Container{{Name: "app", Image: "nginx", RestartPolicy: &never,
			RestartPolicyRules: []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers,
				ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{137}}}}}},
	})
	in := sim.PodInput{
		Pod: pod,
		Script: sim.Script{Containers: map[string]sim.Behaviour{
			"init": {Runs: []sim.Run{{ExitAfter: sec(0.3), ExitCode: 1}, {ExitAfter: sec(0.05)}}},
			"app":  {Runs: []sim.Run{{IgnoreSIGTERM: true}}},
		}},
		Actions: []sim.Action{{At: sec(4), KillSandbox: true}},
	}
	for seed := uint64(1); seed <= 6; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(30)}, in)
		shown := false
		for _, e := range tl.Entries {
			if e.Pod != "web" || e.Kind != sim.KindStatus {
				continue
			}
			st := e.Status.Status
			cs := st.InitContainerStatuses[0]
			if cs.Ready && cs.State.Waiting != nil && cs.LastTerminationState.Terminated != nil &&
				cs.LastTerminationState.Terminated.Reason == "RestartingAllContainers" {
				shown = true
			}
			switch e.Status.By {
			case "SyncPod", "SyncTerminatingPod", "SyncTerminatedPod":
			default:
				continue
			}
			p := pod.DeepCopy()
			p.Status = *st.DeepCopy()
			p.Generation = e.Status.Generation
			if m := podstatus.Check(p, podstatus.RecomputeOptions{Now: tl.Start.Add(e.At)}); len(m) > 0 {
				t.Fatalf("seed %d at %s (%s): a kubelet does not write this status: %v\n%s", seed, e.At, e.Status.By, m, tl.Events())
			}
		}
		if !shown {
			t.Fatalf("seed %d: init never waited with ready=true over the reset's last termination\n%s", seed, tl.Events())
		}
	}
}
