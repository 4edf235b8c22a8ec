package restart

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

func policyPtr(p v1.ContainerRestartPolicy) *v1.ContainerRestartPolicy { return &p }

func rule(action v1.ContainerRestartRuleAction, op v1.ContainerRestartRuleOnExitCodesOperator, codes ...int32) v1.ContainerRestartRule {
	return v1.ContainerRestartRule{Action: action, ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: op, Values: codes}}
}

func gatesOff(t *testing.T, gs ...features.Gate) features.Set {
	t.Helper()
	f := features.V1_37()
	for _, g := range gs {
		var err error
		if f, err = f.With(g, false); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func exitedState(name string, code int) *runtimestate.Pod {
	return &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c1", Name: name, State: runtimestate.Exited, ExitCode: code}}}
}

func TestShouldContainerBeRestarted(t *testing.T) {
	now := metav1.Now()
	base := func(policy v1.RestartPolicy) *v1.Pod {
		return &v1.Pod{Spec: v1.PodSpec{RestartPolicy: policy, Containers: []v1.Container{{Name: "app"}}}}
	}
	withRules := func(p *v1.Pod, cp v1.ContainerRestartPolicy, rules ...v1.ContainerRestartRule) *v1.Pod {
		p.Spec.Containers[0].RestartPolicy = policyPtr(cp)
		p.Spec.Containers[0].RestartPolicyRules = rules
		return p
	}
	deleted := base(v1.RestartPolicyAlways)
	deleted.DeletionTimestamp = &now
	def := features.V1_37()
	noRules := gatesOff(t, features.ContainerRestartRules)
	noRA := gatesOff(t, features.RestartAllContainersOnContainerExits)

	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		st   *runtimestate.Pod
		f    features.Set
		want bool
	}{
		{"deleted pod never restarts", deleted, nil, def, false},
		{"never ran", base(v1.RestartPolicyNever), nil, def, true},
		{"running", base(v1.RestartPolicyAlways), &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c", Name: "app", State: runtimestate.Running}}}, def, false},
		{"created is started again", base(v1.RestartPolicyNever), &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c", Name: "app", State: runtimestate.Created}}}, def, true},
		{"unknown is started again", base(v1.RestartPolicyNever), &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c", Name: "app", State: runtimestate.Unknown}}}, def, true},
		{"Always exit 0", base(v1.RestartPolicyAlways), exitedState("app", 0), def, true},
		{"OnFailure exit 0", base(v1.RestartPolicyOnFailure), exitedState("app", 0), def, false},
		{"OnFailure exit 1", base(v1.RestartPolicyOnFailure), exitedState("app", 1), def, true},
		{"Never exit 1", base(v1.RestartPolicyNever), exitedState("app", 1), def, false},
		{"only the newest instance counts", base(v1.RestartPolicyOnFailure), &runtimestate.Pod{Containers: []runtimestate.Container{
			{ID: "c2", Name: "app", State: runtimestate.Exited, ExitCode: 0},
			{ID: "c1", Name: "app", State: runtimestate.Exited, ExitCode: 1},
		}}, def, false},
		{"container Never overrides pod Always", withRules(base(v1.RestartPolicyAlways), v1.ContainerRestartPolicyNever), exitedState("app", 1), def, false},
		{"container Never ignored without gate", withRules(base(v1.RestartPolicyAlways), v1.ContainerRestartPolicyNever), exitedState("app", 1), noRules, true},
		{"rule Restart on 42 under Never", withRules(base(v1.RestartPolicyNever), v1.ContainerRestartPolicyNever,
			rule(v1.ContainerRestartRuleActionRestart, v1.ContainerRestartRuleOnExitCodesOpIn, 42)), exitedState("app", 42), def, true},
		{"rule does not match 7", withRules(base(v1.RestartPolicyNever), v1.ContainerRestartPolicyNever,
			rule(v1.ContainerRestartRuleActionRestart, v1.ContainerRestartRuleOnExitCodesOpIn, 42)), exitedState("app", 7), def, false},
		{"NotIn matches unlisted code", withRules(base(v1.RestartPolicyNever), v1.ContainerRestartPolicyNever,
			rule(v1.ContainerRestartRuleActionRestart, v1.ContainerRestartRuleOnExitCodesOpNotIn, 0)), exitedState("app", 3), def, true},
		{"RestartAllContainers restarts with gate", withRules(base(v1.RestartPolicyNever), v1.ContainerRestartPolicyNever,
			rule(v1.ContainerRestartRuleActionRestartAllContainers, v1.ContainerRestartRuleOnExitCodesOpIn, 42)), exitedState("app", 42), def, true},
		{"RestartAllContainers falls through without gate", withRules(base(v1.RestartPolicyAlways), v1.ContainerRestartPolicyNever,
			rule(v1.ContainerRestartRuleActionRestartAllContainers, v1.ContainerRestartRuleOnExitCodesOpIn, 42)), exitedState("app", 42), noRA, false},
		{"unknown container policy falls to pod", withRules(base(v1.RestartPolicyOnFailure), "Sometimes"), exitedState("app", 0), def, false},
		{"unknown pod policy reads as Always", base("Sometimes"), exitedState("app", 0), def, true},
		{"unknown pod policy reads as Always without gate", base(""), exitedState("app", 0), noRules, true},
		{"negative exit code is a failure", base(v1.RestartPolicyOnFailure), exitedState("app", -1), def, true},
		{"instance of another name ignored", base(v1.RestartPolicyNever), exitedState("other", 1), def, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ShouldContainerBeRestarted(&tc.pod.Spec.Containers[0], tc.pod, tc.st, tc.f); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNilInputs(t *testing.T) {
	f := features.V1_37()
	if ShouldContainerBeRestarted(nil, &v1.Pod{}, nil, f) || ShouldContainerBeRestarted(&v1.Container{}, nil, nil, f) {
		t.Error("nil container or pod must give false")
	}
	if !ContainerShouldRestart(nil, nil, 0, f) {
		t.Error("empty container and spec read as pod policy Always")
	}
	if _, ok := MatchRule(nil, 0); ok {
		t.Error("nil container has no rules")
	}
	if !IsContainerRestartable(nil, nil) || AllContainersCouldRestart(nil) || IsInitContainerFailed(nil) {
		t.Error("nil defaults wrong")
	}
	if _, _, ok := RestartsAfterExit(nil, "x", 0, "", f); ok {
		t.Error("nil pod has no containers")
	}
	if _, ok := EffectivePolicy(nil, "x", f); ok {
		t.Error("nil pod has no containers")
	}
	if ShouldAllContainersRestart(nil, nil, nil) || !AllContainersRestartCleanedUp(nil, nil) || RestartingAllContainers(nil, nil, nil, "", f) {
		t.Error("nil pod in restart-all chain")
	}
}

func TestMatchRuleFirstMatchWins(t *testing.T) {
	c := &v1.Container{RestartPolicyRules: []v1.ContainerRestartRule{
		{Action: v1.ContainerRestartRuleActionRestart}, // no exitCodes: never matches
		rule(v1.ContainerRestartRuleActionRestart, "Between", 1),
		rule(v1.ContainerRestartRuleActionRestartAllContainers, v1.ContainerRestartRuleOnExitCodesOpIn, 1, 2),
		rule(v1.ContainerRestartRuleActionRestart, v1.ContainerRestartRuleOnExitCodesOpIn, 1),
	}}
	r, ok := MatchRule(c, 1)
	if !ok || r.Action != v1.ContainerRestartRuleActionRestartAllContainers {
		t.Errorf("got %v %v, want the RestartAllContainers rule", r, ok)
	}
	if _, ok := MatchRule(c, 3); ok {
		t.Error("3 matches nothing")
	}
}

func TestIsInitContainerFailed(t *testing.T) {
	for _, tc := range []struct {
		c    runtimestate.Container
		want bool
	}{
		{runtimestate.Container{State: runtimestate.Exited, ExitCode: 0}, false},
		{runtimestate.Container{State: runtimestate.Exited, ExitCode: 2}, true},
		{runtimestate.Container{State: runtimestate.Exited, ExitCode: 0, Reason: "OOMKilled"}, true},
		{runtimestate.Container{State: runtimestate.Running, Reason: "OOMKilled"}, true},
		{runtimestate.Container{State: runtimestate.Running}, false},
		{runtimestate.Container{State: runtimestate.Created}, false},
		{runtimestate.Container{State: runtimestate.Unknown}, true},
	} {
		if got := IsInitContainerFailed(&tc.c); got != tc.want {
			t.Errorf("%+v: got %v want %v", tc.c, got, tc.want)
		}
	}
}

func TestIsContainerRestartable(t *testing.T) {
	spec := &v1.PodSpec{RestartPolicy: v1.RestartPolicyNever}
	if IsContainerRestartable(spec, &v1.Container{}) {
		t.Error("pod Never, no container policy")
	}
	if IsContainerRestartable(&v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways}, &v1.Container{RestartPolicy: policyPtr(v1.ContainerRestartPolicyNever)}) {
		t.Error("container Never overrides pod")
	}
	if !IsContainerRestartable(spec, &v1.Container{RestartPolicy: policyPtr(v1.ContainerRestartPolicyNever),
		RestartPolicyRules: []v1.ContainerRestartRule{rule(v1.ContainerRestartRuleActionRestart, v1.ContainerRestartRuleOnExitCodesOpIn, 1)}}) {
		t.Error("a Restart rule makes it restartable")
	}
}
