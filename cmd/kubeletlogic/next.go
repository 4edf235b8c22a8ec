package main

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// workFuncs names the kubelet function each pod-worker state runs.
var workFuncs = map[termination.WorkType]string{
	termination.SyncPod:        "SyncPod",
	termination.TerminatingPod: "SyncTerminatingPod",
	termination.TerminatedPod:  "SyncTerminatedPod",
}

// explainNext runs the front-door next (sim.Next) on explain's inputs and
// says what it does in words. It also returns the reason-cache entries of
// the containers the sync holds in crash-loop back-off (for the status
// explain shows) and whether the pod is restarting all its containers in
// that sync (the AllContainersRestarting condition of the status SyncPod
// stored).
func explainNext(pod *v1.Pod, st *runtimestate.Pod, view podstatus.StatusView, now time.Time, f features.Set, cfg restart.BackOffConfig, rel func(time.Time) string) (next, map[string]vocab.StartFailure, outlookContext) {
	opts := sim.NextOptions{Now: now, Kubelet: sim.Kubelet{Features: f}, Probes: view.Probes}
	if view.State != nil {
		// Read off the pod's status: the resources it shows were actuated.
		opts.Actuated = &view.Actuated
	}
	r := sim.Next(pod, st, opts)
	n := next{Function: workFuncs[r.Work], Starts: r.Started(), Stops: r.Stopped(), Removes: r.Removed()}
	failures := map[string]vocab.StartFailure{}
	oc := outlookContext{started: map[string]bool{}, removed: map[string]bool{}, backOff: r.Input.Memory.BackOff, pod: pod}
	for _, name := range n.Removes {
		oc.removed[name] = true
	}
	for _, name := range n.Starts {
		oc.started[name] = true
	}
	for _, c := range r.Calls {
		oc.newSandbox = oc.newSandbox || c.Method == "RunPodSandbox"
	}
	if r.Work == termination.SyncPod && r.Memory.Status != nil {
		for _, c := range r.Memory.Status.Conditions {
			if c.Type == v1.AllContainersRestarting && c.Status == v1.ConditionTrue {
				oc.resetting = true
			}
		}
	}
	phase := v1.PodPhase("")
	if k := len(r.Statuses); k > 0 {
		phase = r.Statuses[0].Status.Phase
	}
	switch {
	case pod.DeletionTimestamp != nil:
		oc.over = "the pod is being deleted"
	case r.Work != termination.SyncPod:
		oc.over = fmt.Sprintf("the pod's phase is %s", pod.Status.Phase)
	case r.Result.Terminal:
		oc.over = fmt.Sprintf("the pod's phase is %s", phase)
	}
	has := func(method string) bool {
		for _, c := range r.Calls {
			if c.Method == method {
				return true
			}
		}
		return false
	}

	switch {
	case r.Work == termination.TerminatingPod && pod.DeletionTimestamp != nil:
		n.Terminating = true
		n.Say = append(n.Say,
			fmt.Sprintf("terminate the pod: it is being deleted (deletionTimestamp %s), so the pod worker stops syncing it", pod.DeletionTimestamp.UTC().Format(time.RFC3339)),
			"and kills it (SyncTerminatingPod): every running container, then the sandbox (see BEING DELETED); nothing is started or restarted any more")
	case r.Work == termination.TerminatingPod:
		n.Say = append(n.Say,
			fmt.Sprintf("terminate the pod: its phase is %s, so the pod worker stops syncing it", pod.Status.Phase),
			"and stops what still runs (SyncTerminatingPod), then the sandbox; nothing is started or restarted any more")
	case r.Work == termination.TerminatedPod:
		n.Say = append(n.Say,
			fmt.Sprintf("nothing runs and its phase is %s: the pod worker runs SyncTerminatedPod, which writes the final status; nothing is started or killed", pod.Status.Phase))
	case r.Result.Terminal:
		n.Say = append(n.Say,
			fmt.Sprintf("nothing: the status it generates has phase %s, so SyncPod returns before computePodActions; no container is started or killed", phase),
			"the pod worker then terminates the pod (SyncTerminatingPod stops whatever still runs) and SyncTerminatedPod writes its final status")
	default:
		n.Say = append(n.Say, strings.Split(strings.TrimRight(r.Decision, "\n"), "\n")...)
		if strings.HasPrefix(r.Decision, "kill the pod") {
			if !has("StopContainer") && has("RunPodSandbox") {
				n.Say = append(n.Say, "(the kubelet's kill step stops nothing here: nothing runs yet)")
			}
			if !has("RunPodSandbox") {
				n.Say = append(n.Say, "then the pod is done: "+afterKill(pod, st, f))
			}
			if strings.Contains(r.Decision, ": restart all containers") {
				n.Say = append(n.Say, "(the removals wait: with the pod killed, SyncPod skips them; the reset goes on in the new sandbox)")
			}
		}
		// Containers held in crash-loop back-off, in the order the sync
		// met them.
		for _, m := range r.Messages {
			name, msg, ok := strings.Cut(m, ": ")
			if !ok || !strings.HasPrefix(msg, "back-off ") {
				continue
			}
			_, c, ok := restart.KindOf(&pod.Spec, name)
			if !ok {
				continue
			}
			d := cfg.Decide(pod, c, st, r.Input.Memory.BackOff[restart.BackOffKey(pod, c)], now)
			n.Held = append(n.Held, name)
			n.Say = append(n.Say, fmt.Sprintf("but crash-loop back-off holds %s until %s (back-off %s): the kubelet reports CrashLoopBackOff until then", name, rel(d.Until), d.Delay))
			failures[name] = vocab.StartFailure{Reason: d.Reason, Message: d.Message}
		}
		for _, name := range n.Starts {
			_, c, ok := restart.KindOf(&pod.Spec, name)
			if !ok || st.NewestExited(name) == nil {
				continue
			}
			e := r.Input.Memory.BackOff[restart.BackOffKey(pod, c)]
			d := cfg.Decide(pod, c, st, e, now)
			wait := "no back-off: first restart after an exit"
			if d.Delay > 0 && !e.IsZero() {
				wait = fmt.Sprintf("its back-off ran out; the next one is %s", d.Delay)
			}
			n.Say = append(n.Say, fmt.Sprintf("%s starts again now (%s)", name, wait))
		}
	}
	if len(r.Calls) > 0 {
		var calls []string
		for _, c := range r.Calls {
			calls = append(calls, strings.TrimSpace(c.Method+" "+c.Name))
		}
		n.Say = append(n.Say, "runtime calls: "+strings.Join(calls, ", "))
	}
	return n, failures, oc
}

// outlookContext is what RESTARTS reads from the next sync, so that it
// never contradicts NEXT.
type outlookContext struct {
	// resetting: the sync restarts all the pod's containers
	// (AllContainersRestarting True in the status SyncPod stored).
	resetting bool
	// over says why nothing is restarted any more (the pod is deleted or
	// its phase is terminal); empty when the pod worker syncs it.
	over string
	// started are the containers the sync starts; newSandbox is true when
	// it creates a sandbox first.
	started    map[string]bool
	newSandbox bool
	// removed are the containers the sync removes.
	removed map[string]bool
	// backOff are the crash-loop back-off records the sync holds.
	backOff map[string]restart.BackOffEntry
	pod     *v1.Pod
}

// againWords says that the sync starts a container its policy does not
// restart after its exit.
func (oc outlookContext) againWords() string {
	if oc.newSandbox {
		return "but this sync starts it again, in the new sandbox (see NEXT)"
	}
	return "but this sync starts it again (see NEXT)"
}

// entry is the crash-loop back-off record of the named container.
func (oc outlookContext) entry(name string) restart.BackOffEntry {
	_, c, ok := restart.KindOf(&oc.pod.Spec, name)
	if !ok {
		return restart.BackOffEntry{}
	}
	return oc.backOff[restart.BackOffKey(oc.pod, c)]
}

// sidecarRules are the restartPolicyRules RESTARTS lists for a native
// sidecar: restart.EffectivePolicy lists none, since a sidecar restarts
// after every exit, but a rule with action RestartAllContainers that
// matches its exit restarts the whole pod (ShouldAllContainersRestart reads
// every init container's rules) when gate
// RestartAllContainersOnContainerExits is on; the API server accepts rules
// on a sidecar only then. With the gate off the kubelet reads none.
func sidecarRules(c *v1.Container, f features.Set) []v1.ContainerRestartRule {
	if c == nil || !f.Enabled(features.RestartAllContainersOnContainerExits) {
		return nil
	}
	return c.RestartPolicyRules
}

// sidecarPolicy is RESTARTS' policy words for a native sidecar.
func sidecarPolicy(c *v1.Container, f features.Set) string {
	restartAll := false
	for _, r := range sidecarRules(c, f) {
		restartAll = restartAll || r.Action == v1.ContainerRestartRuleActionRestartAllContainers
	}
	switch {
	case restartAll:
		return "always restarted (restartPolicy Always), unless its exit code matches a RestartAllContainers rule: then the whole pod restarts in place"
	case c != nil && len(c.RestartPolicyRules) > 0 && !f.Enabled(features.RestartAllContainersOnContainerExits):
		return "always restarted, whatever its exit code (restartPolicy Always; its restartPolicyRules are ignored: gate RestartAllContainersOnContainerExits is off)"
	}
	return "always restarted, whatever its exit code (restartPolicy Always)"
}

// outlookRules are the rules RESTARTS lists and matches for a container:
// those the kubelet reads for it.
func outlookRules(pod *v1.Pod, name string, eff restart.Effective, f features.Set) []v1.ContainerRestartRule {
	if eff.Kind == restart.Sidecar {
		return sidecarRules(containerSpec(pod, name), f)
	}
	return eff.Rules
}

// resetWords is what RESTARTS says of a container with an instance while
// the pod restarts all its containers (computePodActions'
// ContainersToReset): running tells whether the instance runs, removed
// whether this sync removes it (it does not when it kills the pod to
// re-create the sandbox).
func resetWords(running, removed bool) string {
	const head = "the pod is restarting all its containers (AllContainersRestarting): "
	switch {
	case !removed && running:
		return head + "this sync kills the pod, this container too, and re-creates the sandbox; its removal waits (see NEXT)"
	case !removed:
		return head + "this sync re-creates the sandbox first; its removal waits (see NEXT)"
	case running:
		return head + "this sync stops it (grace 0: the 2 s minimum) and removes it, then the pod starts again from its first init container"
	}
	return head + "this sync removes it, then the pod starts again from its first init container"
}
