package podstatus_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/manifest"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

func transitionPod(t *testing.T, policy string) *v1.Pod {
	t.Helper()
	pod, err := manifest.Pod([]byte(`{apiVersion: v1, kind: Pod, metadata: {name: web, uid: u-1}, spec: {
  restartPolicy: ` + policy + `,
  initContainers: [{name: init, image: busybox}, {name: proxy, image: envoy, restartPolicy: Always}],
  containers: [{name: app, image: nginx}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// A completed init container whose instances a new sandbox purged, held by
// doBackOff (CrashLoopBackOff in the reason cache): Compute takes its
// previous status whole, ready=true included, and makes it wait
// (convertToAPIContainerStatuses); the probe manager leaves ready as it is.
// The status manager stores that status only where the init container may
// leave the terminated state: with restartPolicy Always, not OnFailure.
// Check agrees with both: it accepts the status where it can be stored and
// rejects it, on init's ready, where it cannot.
func TestCompletedInitWaitingAgain(t *testing.T) {
	for _, tc := range []struct {
		policy string
		stored bool
	}{{"Always", true}, {"OnFailure", false}, {"Never", false}} {
		pod := transitionPod(t, tc.policy)
		// The cached status: init completed in the first sandbox, proxy and
		// app ran there.
		first, err := runtimestate.FromYAML([]byte(`{sandboxes: [{id: s1, ready: true, ip: 10.244.1.6}], containers: [
  {id: c3, name: app, sandboxID: s1, state: running},
  {id: c2, name: proxy, sandboxID: s1, state: running},
  {id: c1, name: init, sandboxID: s1, state: exited, exitCode: 0, reason: Completed}]}`))
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
		cached := podstatus.Compute(pod, first, podstatus.Options{Now: now}).Status
		if cs := cached.InitContainerStatuses[0]; !cs.Ready || cs.State.Terminated == nil {
			t.Fatalf("%s: the completed init container's status %+v, want terminated and ready", tc.policy, cs)
		}
		// A new sandbox; every instance of the first is gone.
		second, err := runtimestate.FromYAML([]byte(`{sandboxes: [{id: s2, attempt: 1, ready: true, ip: 10.244.1.7}, {id: s1, ready: false}]}`))
		if err != nil {
			t.Fatal(err)
		}
		next := podstatus.Compute(pod, second, podstatus.Options{Now: now.Add(time.Second), Cached: &cached,
			StartFailures: map[string]vocab.StartFailure{"init": {Reason: "CrashLoopBackOff", Message: "back-off 10s restarting failed container=init"}}}).Status
		cs := next.InitContainerStatuses[0]
		if cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" || !cs.Ready ||
			cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 0 {
			t.Fatalf("%s: Compute gives init %+v, want waiting (CrashLoopBackOff), ready kept, last state the completed run", tc.policy, cs)
		}
		err = podstatus.CheckTransition(&pod.Spec, &cached, &next, features.V1_37())
		if tc.stored != (err == nil) {
			t.Fatalf("%s: CheckTransition says %v, want stored=%v", tc.policy, err, tc.stored)
		}
		if err != nil && !strings.Contains(err.Error(), "init container init exited 0 under restartPolicy "+tc.policy) {
			t.Errorf("%s: the refusal does not say which container and why: %v", tc.policy, err)
		}
		// The status as the API would show it.
		pod.Status = next
		ms := podstatus.Check(pod, podstatus.RecomputeOptions{Now: now.Add(time.Second)})
		if tc.stored && len(ms) > 0 {
			t.Errorf("%s: Check rejects a status the kubelet stores: %v", tc.policy, ms)
		}
		if !tc.stored && (len(ms) != 1 || ms[0].Field != "status.initContainerStatuses[init].ready" || !strings.Contains(ms[0].Why, "checkContainerStateTransition")) {
			t.Errorf("%s: Check gives %v, want one mismatch on init's ready that names the status manager's rule", tc.policy, ms)
		}
	}
}

// A regular init container waits with ready=true only after a completed
// run or over a RestartAllContainers reset's last termination, and only
// where the status manager lets it leave the terminated state; Check
// rejects the other shapes.
func TestCheckInitReadyShapes(t *testing.T) {
	base := func() v1.ContainerStatus {
		f := false
		return v1.ContainerStatus{Name: "init", Image: "busybox", Ready: true, Started: &f,
			State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}
	}
	reset := &v1.ContainerStateTerminated{ExitCode: 137, Reason: "RestartingAllContainers"}
	for _, tc := range []struct {
		name, policy string
		last         *v1.ContainerStateTerminated
		ok           bool
	}{
		{"last run completed", "Always", &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}, true},
		{"last run failed", "Always", &v1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}, false},
		{"no last run", "Always", nil, false},
		{"last termination the reset's", "Always", reset, true},
		{"OnFailure: last run completed", "OnFailure", &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}, false},
		{"OnFailure: last termination the reset's, no rule", "OnFailure", reset, false},
	} {
		cs := base()
		cs.LastTerminationState.Terminated = tc.last
		p := transitionPod(t, tc.policy)
		p.Status = v1.PodStatus{Phase: v1.PodPending, InitContainerStatuses: []v1.ContainerStatus{cs}}
		var onReady []podstatus.Mismatch
		for _, m := range podstatus.Check(p, podstatus.RecomputeOptions{}) {
			if m.Field == "status.initContainerStatuses[init].ready" {
				onReady = append(onReady, m)
			}
		}
		if tc.ok != (len(onReady) == 0) {
			t.Errorf("%s: mismatches on ready %v, want accepted=%v", tc.name, onReady, tc.ok)
		}
	}
}

// CheckTransition over the status manager's cases.
func TestCheckTransition(t *testing.T) {
	term := func(code int32) v1.ContainerState {
		return v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: code}}
	}
	running := v1.ContainerState{Running: &v1.ContainerStateRunning{}}
	waiting := v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "PodInitializing"}}
	never := features.V1_37()
	noRules, err := never.With(features.ContainerRestartRules, false)
	if err != nil {
		t.Fatal(err)
	}
	noRules, err = noRules.With(features.RestartAllContainersOnContainerExits, false)
	if err != nil {
		t.Fatal(err)
	}
	pol := func(p v1.ContainerRestartPolicy) *v1.ContainerRestartPolicy { return &p }
	spec := func(policy v1.RestartPolicy) v1.PodSpec {
		return v1.PodSpec{RestartPolicy: policy,
			InitContainers: []v1.Container{{Name: "init"}, {Name: "proxy", RestartPolicy: pol(v1.ContainerRestartPolicyAlways)}},
			Containers:     []v1.Container{{Name: "app"}}}
	}
	withRule := func(policy v1.RestartPolicy, action v1.ContainerRestartRuleAction) v1.PodSpec {
		s := spec(policy)
		s.Containers[0].RestartPolicy = pol(v1.ContainerRestartPolicyNever)
		s.Containers[0].RestartPolicyRules = []v1.ContainerRestartRule{{Action: action,
			ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
		return s
	}
	status := func(init, proxy, app v1.ContainerState) *v1.PodStatus {
		return &v1.PodStatus{
			InitContainerStatuses: []v1.ContainerStatus{{Name: "init", State: init}, {Name: "proxy", State: proxy}},
			ContainerStatuses:     []v1.ContainerStatus{{Name: "app", State: app}},
		}
	}
	for _, tc := range []struct {
		name      string
		spec      v1.PodSpec
		f         features.Set
		old, next *v1.PodStatus
		refused   string // "" when stored, else words of the error
	}{
		{"Always: a completed init runs again", spec(v1.RestartPolicyAlways), never, status(term(0), running, running), status(running, running, running), ""},
		{"no restartPolicy reads as Always", spec(""), never, status(term(0), running, running), status(running, running, running), ""},
		{"OnFailure: a completed init runs again", spec(v1.RestartPolicyOnFailure), never, status(term(0), running, running), status(running, running, running), "init container init exited 0"},
		{"OnFailure: a completed init waits", spec(v1.RestartPolicyOnFailure), never, status(term(0), running, running), status(waiting, running, running), "waiting (PodInitializing)"},
		{"OnFailure: a failed init runs again", spec(v1.RestartPolicyOnFailure), never, status(term(1), running, running), status(running, running, running), ""},
		{"Never: a failed init runs again", spec(v1.RestartPolicyNever), never, status(term(1), waiting, waiting), status(running, waiting, waiting), "init container init exited 1"},
		{"OnFailure: a completed init completes again", spec(v1.RestartPolicyOnFailure), never, status(term(0), running, running), status(term(0), running, running), ""},
		{"Never: a sidecar runs again", spec(v1.RestartPolicyNever), never, status(term(0), term(1), running), status(term(0), running, running), ""},
		{"rules off, Never: a sidecar runs again", spec(v1.RestartPolicyNever), noRules, status(term(0), term(0), running), status(term(0), running, running), ""},
		{"OnFailure: a completed app runs again", spec(v1.RestartPolicyOnFailure), never, status(term(0), running, term(0)), status(term(0), running, running), "container app exited 0"},
		{"OnFailure: a failed app runs again", spec(v1.RestartPolicyOnFailure), never, status(term(0), running, term(2)), status(term(0), running, running), ""},
		{"a container missing from the next status", spec(v1.RestartPolicyNever), never, status(term(0), running, term(0)), &v1.PodStatus{}, ""},
		{"a rule restarts exit 42", withRule(v1.RestartPolicyNever, v1.ContainerRestartRuleActionRestart), never, status(term(0), running, term(42)), status(term(0), running, running), ""},
		{"the rule does not match exit 1", withRule(v1.RestartPolicyNever, v1.ContainerRestartRuleActionRestart), never, status(term(0), running, term(1)), status(term(0), running, running), "container app exited 1"},
		{"rules off: the rule is not read", withRule(v1.RestartPolicyNever, v1.ContainerRestartRuleActionRestart), noRules, status(term(0), running, term(42)), status(term(0), running, running), "container app exited 42"},
		{"RestartAllContainers: every container may leave", withRule(v1.RestartPolicyNever, v1.ContainerRestartRuleActionRestartAllContainers), never, status(term(0), running, term(1)), status(waiting, waiting, waiting), ""},
		{"RestartAllContainers off", withRule(v1.RestartPolicyNever, v1.ContainerRestartRuleActionRestartAllContainers), noRules, status(term(0), running, term(1)), status(waiting, waiting, waiting), "container app exited 1"},
		{"Always: init statuses out of spec order are not looked at", spec(v1.RestartPolicyAlways), never,
			&v1.PodStatus{InitContainerStatuses: []v1.ContainerStatus{{Name: "proxy", State: running}, {Name: "init", State: term(0)}}}, status(running, running, running), ""},
		{"init statuses out of spec order", spec(v1.RestartPolicyOnFailure), never,
			&v1.PodStatus{InitContainerStatuses: []v1.ContainerStatus{{Name: "proxy", State: running}, {Name: "init", State: term(0)}}}, status(running, running, running), "not the spec's init container 0"},
	} {
		err := podstatus.CheckTransition(&tc.spec, tc.old, tc.next, tc.f)
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
			t.Errorf("%s: got %v, want a refusal saying %q", tc.name, err, tc.refused)
		}
	}
	if err := podstatus.CheckTransition(nil, nil, nil, never); err != nil {
		t.Errorf("nil inputs: %v", err)
	}
	s := spec(v1.RestartPolicyNever)
	if err := podstatus.CheckTransition(&s, status(term(0), running, term(0)), nil, never); err != nil {
		t.Errorf("nil next: %v", err)
	}
}
