package phase

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Helpers that build pods and API container statuses.

func ctr(name string) v1.Container { return v1.Container{Name: name, Image: "busybox"} }

func sidecar(name string) v1.Container {
	c := ctr(name)
	always := v1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

func withPolicy(c v1.Container, p v1.ContainerRestartPolicy, rules ...v1.ContainerRestartRule) v1.Container {
	c.RestartPolicy = &p
	c.RestartPolicyRules = rules
	return c
}

func rule(action v1.ContainerRestartRuleAction, codes ...int32) v1.ContainerRestartRule {
	return v1.ContainerRestartRule{Action: action, ExitCodes: &v1.ContainerRestartRuleOnExitCodes{
		Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: codes}}
}

func pod(policy v1.RestartPolicy, init []v1.Container, containers ...v1.Container) *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{RestartPolicy: policy, InitContainers: init, Containers: containers}}
}

func running(name string) v1.ContainerStatus {
	return v1.ContainerStatus{Name: name, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}
}

func started(s v1.ContainerStatus, b bool) v1.ContainerStatus { s.Started = &b; return s }

func waiting(name, reason string) v1.ContainerStatus {
	return v1.ContainerStatus{Name: name, State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: reason}}}
}

func terminated(name string, code int32, reason string) v1.ContainerStatus {
	return v1.ContainerStatus{Name: name, State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: code, Reason: reason}}}
}

// waitingAfter is a container waiting to restart after it exited with code.
func waitingAfter(name, reason string, code int32, lastReason string) v1.ContainerStatus {
	s := waiting(name, reason)
	s.LastTerminationState.Terminated = &v1.ContainerStateTerminated{ExitCode: code, Reason: lastReason}
	return s
}

func noState(name string) v1.ContainerStatus { return v1.ContainerStatus{Name: name} }

func statuses(init []v1.ContainerStatus, regular ...v1.ContainerStatus) *v1.PodStatus {
	return &v1.PodStatus{InitContainerStatuses: init, ContainerStatuses: regular}
}

func gatesWithout(g ...features.Gate) features.Set {
	f := features.V1_37()
	for _, x := range g {
		f, _ = f.With(x, false)
	}
	return f
}

func TestCompute(t *testing.T) {
	noRules := gatesWithout(features.ContainerRestartRules, features.RestartAllContainersOnContainerExits)
	tests := []struct {
		name        string
		pod         *v1.Pod
		status      *v1.PodStatus
		gates       *features.Set // nil: v1.37.2 defaults
		terminal    bool
		initialized bool
		want        v1.PodPhase
	}{
		// restartPolicy Always (TestPodPhaseWithRestartAlways).
		{"always: all running", pod(v1.RestartPolicyAlways, nil, ctr("a"), ctr("b")),
			statuses(nil, running("a"), running("b")), nil, false, false, v1.PodRunning},
		{"always: all stopped restart", pod(v1.RestartPolicyAlways, nil, ctr("a"), ctr("b")),
			statuses(nil, terminated("a", 0, "Completed"), terminated("b", 1, "Error")), nil, false, false, v1.PodRunning},
		{"always: stopped and terminal pod succeeds", pod(v1.RestartPolicyAlways, nil, ctr("a")),
			statuses(nil, terminated("a", 0, "Completed")), nil, true, false, v1.PodSucceeded},
		{"always: stopped and terminal pod fails", pod(v1.RestartPolicyAlways, nil, ctr("a"), ctr("b")),
			statuses(nil, terminated("a", 0, "Completed"), terminated("b", 1, "Error")), nil, true, false, v1.PodFailed},
		{"always: one running one missing", pod(v1.RestartPolicyAlways, nil, ctr("a"), ctr("b")),
			statuses(nil, running("a")), nil, false, false, v1.PodPending},
		{"always: one running one waiting", pod(v1.RestartPolicyAlways, nil, ctr("a"), ctr("b")),
			statuses(nil, running("a"), waiting("b", "ContainerCreating")), nil, false, false, v1.PodPending},
		{"always: crash loop keeps running", pod(v1.RestartPolicyAlways, nil, ctr("a"), ctr("b")),
			statuses(nil, running("a"), waitingAfter("b", "CrashLoopBackOff", 1, "Error")), nil, false, false, v1.PodRunning},
		{"always: no state at all is unknown", pod(v1.RestartPolicyAlways, nil, ctr("a")),
			statuses(nil, noState("a")), nil, false, false, v1.PodPending},
		{"static pod: terminal does not force a terminal phase", func() *v1.Pod {
			p := pod(v1.RestartPolicyAlways, nil, ctr("a"))
			p.Annotations = map[string]string{AnnotationConfigSource: "file"}
			return p
		}(), statuses(nil, terminated("a", 1, "Error")), nil, true, false, v1.PodRunning},
		{"config.source api is not static", func() *v1.Pod {
			p := pod(v1.RestartPolicyAlways, nil, ctr("a"))
			p.Annotations = map[string]string{AnnotationConfigSource: "api"}
			return p
		}(), statuses(nil, terminated("a", 1, "Error")), nil, true, false, v1.PodFailed},

		// Regular init containers.
		{"init: running keeps pending", pod(v1.RestartPolicyAlways, []v1.Container{ctr("i")}, ctr("a")),
			statuses([]v1.ContainerStatus{running("i")}, waiting("a", "PodInitializing")), nil, false, false, v1.PodPending},
		{"init: failed under Always restarts", pod(v1.RestartPolicyAlways, []v1.Container{ctr("i")}, ctr("a")),
			statuses([]v1.ContainerStatus{waitingAfter("i", "CrashLoopBackOff", 1, "Error")}, waiting("a", "PodInitializing")), nil, false, false, v1.PodPending},
		{"init: failed under Never fails the pod", pod(v1.RestartPolicyNever, []v1.Container{ctr("i")}, ctr("a")),
			statuses([]v1.ContainerStatus{terminated("i", 1, "Error")}, waiting("a", "PodInitializing")), nil, false, false, v1.PodFailed},
		{"init: failed under Never, gates off", pod(v1.RestartPolicyNever, []v1.Container{ctr("i")}, ctr("a")),
			statuses([]v1.ContainerStatus{terminated("i", 1, "Error")}, waiting("a", "PodInitializing")), &noRules, false, false, v1.PodFailed},
		{"init: container policy OnFailure overrides pod Never", pod(v1.RestartPolicyNever, []v1.Container{withPolicy(ctr("i"), v1.ContainerRestartPolicyOnFailure)}, ctr("a")),
			statuses([]v1.ContainerStatus{terminated("i", 1, "Error")}, waiting("a", "PodInitializing")), nil, false, false, v1.PodPending},
		{"init: container policy ignored with gates off", pod(v1.RestartPolicyNever, []v1.Container{withPolicy(ctr("i"), v1.ContainerRestartPolicyOnFailure)}, ctr("a")),
			statuses([]v1.ContainerStatus{terminated("i", 1, "Error")}, waiting("a", "PodInitializing")), &noRules, false, false, v1.PodFailed},
		{"init: container Never under pod OnFailure fails", pod(v1.RestartPolicyOnFailure, []v1.Container{withPolicy(ctr("i"), v1.ContainerRestartPolicyNever)}, ctr("a")),
			statuses([]v1.ContainerStatus{waitingAfter("i", "", 3, "Error")}, waiting("a", "PodInitializing")), nil, false, false, v1.PodFailed},
		{"init: succeeded, regular running", pod(v1.RestartPolicyNever, []v1.Container{ctr("i")}, ctr("a")),
			statuses([]v1.ContainerStatus{terminated("i", 0, "Completed")}, running("a")), nil, false, false, v1.PodRunning},
		{"init: RestartingAllContainers reason restarts", pod(v1.RestartPolicyNever, []v1.Container{ctr("i")}, ctr("a")),
			statuses([]v1.ContainerStatus{terminated("i", 137, ReasonRestartingAllContainers)}, waiting("a", "PodInitializing")), nil, false, false, v1.PodPending},
		{"init: RestartingAllContainers reason ignored without the gate", pod(v1.RestartPolicyNever, []v1.Container{ctr("i")}, ctr("a")),
			statuses([]v1.ContainerStatus{terminated("i", 137, ReasonRestartingAllContainers)}, waiting("a", "PodInitializing")),
			func() *features.Set { f := gatesWithout(features.RestartAllContainersOnContainerExits); return &f }(), false, false, v1.PodFailed},

		// Native sidecars (TestPodPhaseWith…RestartableInitContainers).
		{"sidecar: running but not started keeps pending", pod(v1.RestartPolicyAlways, []v1.Container{sidecar("s")}, ctr("a")),
			statuses([]v1.ContainerStatus{started(running("s"), false)}, waiting("a", "PodInitializing")), nil, false, false, v1.PodPending},
		{"sidecar: started, app running", pod(v1.RestartPolicyAlways, []v1.Container{sidecar("s")}, ctr("a")),
			statuses([]v1.ContainerStatus{started(running("s"), true)}, running("a")), nil, false, false, v1.PodRunning},
		{"sidecar: restarting after the pod initialized stays running", pod(v1.RestartPolicyAlways, []v1.Container{sidecar("s")}, ctr("a")),
			statuses([]v1.ContainerStatus{started(running("s"), false)}, running("a")), nil, false, true, v1.PodRunning},
		{"sidecar: waiting for its first start keeps pending after initialization", pod(v1.RestartPolicyAlways, []v1.Container{sidecar("s")}, ctr("a")),
			statuses([]v1.ContainerStatus{waiting("s", "ContainerCreating")}, running("a")), nil, false, true, v1.PodPending},
		{"sidecar: crash looping is ignored", pod(v1.RestartPolicyNever, []v1.Container{sidecar("s")}, ctr("a")),
			statuses([]v1.ContainerStatus{waitingAfter("s", "CrashLoopBackOff", 1, "Error")}, terminated("a", 0, "Completed")), nil, false, true, v1.PodSucceeded},
		{"sidecar: alone running keeps the pod running", pod(v1.RestartPolicyNever, []v1.Container{sidecar("s")}, ctr("a")),
			statuses([]v1.ContainerStatus{started(running("s"), true)}, terminated("a", 0, "Completed")), nil, false, true, v1.PodRunning},
		{"sidecar: missing status is unknown", pod(v1.RestartPolicyNever, []v1.Container{sidecar("s")}, ctr("a")),
			statuses(nil, terminated("a", 0, "Completed")), nil, false, true, v1.PodPending},

		// restartPolicy Never and OnFailure.
		{"never: all succeeded", pod(v1.RestartPolicyNever, nil, ctr("a"), ctr("b")),
			statuses(nil, terminated("a", 0, "Completed"), terminated("b", 0, "Completed")), nil, false, false, v1.PodSucceeded},
		{"never: one failed", pod(v1.RestartPolicyNever, nil, ctr("a"), ctr("b")),
			statuses(nil, terminated("a", 0, "Completed"), terminated("b", 1, "Error")), nil, false, false, v1.PodFailed},
		{"never: one still running", pod(v1.RestartPolicyNever, nil, ctr("a"), ctr("b")),
			statuses(nil, running("a"), terminated("b", 1, "Error")), nil, false, false, v1.PodRunning},
		{"onfailure: failed restarts", pod(v1.RestartPolicyOnFailure, nil, ctr("a")),
			statuses(nil, terminated("a", 1, "Error")), nil, false, false, v1.PodRunning},
		{"onfailure: all succeeded", pod(v1.RestartPolicyOnFailure, nil, ctr("a")),
			statuses(nil, terminated("a", 0, "Completed")), nil, false, false, v1.PodSucceeded},
		{"onfailure: waiting after success counts as stopped, not succeeded", pod(v1.RestartPolicyOnFailure, nil, ctr("a")),
			statuses(nil, waitingAfter("a", "", 0, "Completed")), nil, false, false, v1.PodFailed},
		{"onfailure: waiting after success, gates off", pod(v1.RestartPolicyOnFailure, nil, ctr("a")),
			statuses(nil, waitingAfter("a", "", 0, "Completed")), &noRules, false, false, v1.PodRunning},

		// Container-level policy and rules (TestPodPhaseWithContainerRestartPolicy,
		// TestPodPhaseWithRestartAllContainers).
		{"container Always under pod Never keeps running", pod(v1.RestartPolicyNever, nil, withPolicy(ctr("a"), v1.ContainerRestartPolicyAlways)),
			statuses(nil, terminated("a", 0, "Completed")), nil, false, false, v1.PodRunning},
		{"container Never under pod Always fails", pod(v1.RestartPolicyAlways, nil, withPolicy(ctr("a"), v1.ContainerRestartPolicyNever)),
			statuses(nil, terminated("a", 2, "Error")), nil, false, false, v1.PodFailed},
		{"rule Restart on 42 keeps running", pod(v1.RestartPolicyNever, nil,
			withPolicy(ctr("a"), v1.ContainerRestartPolicyNever, rule(v1.ContainerRestartRuleActionRestart, 42))),
			statuses(nil, terminated("a", 42, "Error")), nil, false, false, v1.PodRunning},
		{"rule Restart does not match 1", pod(v1.RestartPolicyNever, nil,
			withPolicy(ctr("a"), v1.ContainerRestartPolicyNever, rule(v1.ContainerRestartRuleActionRestart, 42))),
			statuses(nil, terminated("a", 1, "Error")), nil, false, false, v1.PodFailed},
		{"rule RestartAllContainers on 42 keeps running", pod(v1.RestartPolicyNever, nil,
			withPolicy(ctr("a"), v1.ContainerRestartPolicyNever, rule(v1.ContainerRestartRuleActionRestartAllContainers, 42))),
			statuses(nil, terminated("a", 42, "Error")), nil, false, false, v1.PodRunning},
		{"container reset by RestartAllContainers keeps running", pod(v1.RestartPolicyNever, nil, ctr("a"), ctr("b")),
			statuses(nil, waitingAfter("a", ReasonRestartingAllContainers, 137, ReasonRestartingAllContainers),
				terminated("b", 0, "Completed")), nil, false, false, v1.PodRunning},

		// Lookup.
		{"a status of an init container in the regular list counts", pod(v1.RestartPolicyNever, []v1.Container{ctr("i")}, ctr("a")),
			statuses(nil, terminated("i", 1, "Error"), waiting("a", "PodInitializing")), nil, false, false, v1.PodFailed},
		{"the regular list comes first", pod(v1.RestartPolicyNever, nil, ctr("a")),
			&v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{running("a")}, InitContainerStatuses: []v1.ContainerStatus{terminated("a", 1, "")}},
			nil, false, false, v1.PodRunning},

		// Real-cluster fact 9 (docs/real-cluster-facts.md#fact-9): bare pods with restartPolicy Never.
		{"fact 9: Never, exit 0 gives Succeeded", pod(v1.RestartPolicyNever, nil, ctr("app")),
			statuses(nil, terminated("app", 0, "Completed")), nil, false, false, v1.PodSucceeded},
		{"fact 9: Never, exit 7 gives Failed", pod(v1.RestartPolicyNever, nil, ctr("app")),
			statuses(nil, terminated("app", 7, "Error")), nil, false, false, v1.PodFailed},
		// Real-cluster fact 16 (docs/real-cluster-facts.md#fact-16): exit 1 under Always, crash looping.
		{"fact 16: crash loop, terminated between restarts", pod(v1.RestartPolicyAlways, nil, ctr("app")),
			statuses(nil, terminated("app", 1, "Error")), nil, false, true, v1.PodRunning},
		{"fact 16: crash loop, waiting in back-off", pod(v1.RestartPolicyAlways, nil, ctr("app")),
			statuses(nil, waitingAfter("app", "CrashLoopBackOff", 1, "Error")), nil, false, true, v1.PodRunning},
		// Real-cluster fact 17 (docs/real-cluster-facts.md#fact-17): scheduled, containers not started.
		{"fact 17: before containers start", pod(v1.RestartPolicyAlways, nil, ctr("app")),
			statuses(nil, waiting("app", "ContainerCreating")), nil, false, false, v1.PodPending},
		// Real-cluster fact 18 (docs/real-cluster-facts.md#fact-18): a running nginx pod.
		{"fact 18: running nginx", pod(v1.RestartPolicyAlways, nil, ctr("nginx")),
			statuses(nil, running("nginx")), nil, false, true, v1.PodRunning},

		// Nil inputs.
		{"nil pod", nil, nil, nil, false, false, v1.PodPending},
		{"nil status", pod(v1.RestartPolicyAlways, nil, ctr("a")), nil, nil, false, false, v1.PodPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := features.V1_37()
			if tt.gates != nil {
				f = *tt.gates
			}
			got := Compute(tt.pod, tt.status, Options{Features: f, PodIsTerminal: tt.terminal, PodHasInitialized: tt.initialized})
			if got.Phase != tt.want {
				t.Errorf("Compute = %v, want %s", got, tt.want)
			}
		})
	}
}

func TestHasAnyActiveRegularContainerStarted(t *testing.T) {
	p := pod(v1.RestartPolicyAlways, []v1.Container{ctr("i")}, ctr("a"))
	st := &runtimestate.Pod{
		Sandboxes: []runtimestate.Sandbox{{ID: "s2", Ready: true, Attempt: 1}, {ID: "s1", Attempt: 0}},
		Containers: []runtimestate.Container{
			{ID: "c3", Name: "i", SandboxID: "s2", State: runtimestate.Exited},
			{ID: "c2", Name: "a", SandboxID: "s1", State: runtimestate.Running},
		},
	}
	if HasAnyActiveRegularContainerStarted(p, st) {
		t.Error("an app instance in an old sandbox counts as started")
	}
	st.Containers = append([]runtimestate.Container{{ID: "c4", Name: "a", SandboxID: "s2", State: runtimestate.Created}}, st.Containers...)
	if !HasAnyActiveRegularContainerStarted(p, st) {
		t.Error("a created app instance in the active sandbox does not count")
	}
	st.Sandboxes[0].Ready = false
	if HasAnyActiveRegularContainerStarted(p, st) {
		t.Error("no sandbox is active, yet an instance counts")
	}
	if HasAnyActiveRegularContainerStarted(nil, st) || HasAnyActiveRegularContainerStarted(p, nil) {
		t.Error("nil input gives true")
	}
}
