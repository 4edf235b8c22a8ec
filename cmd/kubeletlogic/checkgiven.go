package main

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
)

// takenAsGiven lists what check reads from the status as it is, because it
// needs the runtime's view that an API status does not hold (see
// podstatus.Recompute): a verdict of consistent holds only with these
// parts as given.
func takenAsGiven(pod *v1.Pod, set features.Set, r podstatus.Recomputed, terminal bool) []string {
	out := []string{"the container states, restart counts and exit codes: they come from the runtime"}
	how := "no regular container has run"
	if r.PodHasInitialized {
		how = "a regular container has run or is running"
	}
	out = append(out, fmt.Sprintf("podHasInitialized %v, estimated from the container statuses (%s): the kubelet counts only instances in the active sandbox", r.PodHasInitialized, how))
	cond := func(t v1.PodConditionType, what string) {
		for _, c := range pod.Status.Conditions {
			if c.Type == t {
				out = append(out, fmt.Sprintf("%s %s: as the status has it; %s is not in the API status", t, c.Status, what))
				return
			}
		}
		for _, c := range r.Conditions {
			if c.Type == t {
				out = append(out, fmt.Sprintf("%s: not in the status, taken as %s (a runtime with no sandbox and no instance); %s is not in the API status", t, c.Status, what))
				return
			}
		}
	}
	if set.Enabled(features.PodReadyToStartContainersCondition) {
		cond(v1.PodReadyToStartContainers, "whether the sandbox is ready")
	}
	if set.Enabled(features.RestartAllContainersOnContainerExits) && restart.AllContainersCouldRestart(&pod.Spec) {
		cond(v1.AllContainersRestarting, "whether the kubelet marked the pod to restart all its containers")
	}
	if terminal {
		out = append(out, fmt.Sprintf("phase %s: taken as written after the kubelet stopped the containers (podIsTerminal), and kept, as the kubelet keeps a terminal phase", pod.Status.Phase))
		if !fromAPI(pod) {
			out = append(out, "the status is the kubelet's own (a static pod from its /pods endpoint): its cache may hold a terminal phase while containers still run, which the API never shows")
		}
	}
	return out
}
