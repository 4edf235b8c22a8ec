package restart

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
)

func kindsPod(policy v1.RestartPolicy) *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{
		RestartPolicy: policy,
		InitContainers: []v1.Container{
			{Name: "prepare"},
			{Name: "sidecar", RestartPolicy: policyPtr(v1.ContainerRestartPolicyAlways)},
			{Name: "once", RestartPolicy: policyPtr(v1.ContainerRestartPolicyNever)},
		},
		Containers:          []v1.Container{{Name: "app"}, {Name: "job", RestartPolicy: policyPtr(v1.ContainerRestartPolicyOnFailure)}},
		EphemeralContainers: []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug"}}},
	}}
}

func TestEffectivePolicy(t *testing.T) {
	def := features.V1_37()
	noRules := gatesOff(t, features.ContainerRestartRules)
	for _, tc := range []struct {
		policy   v1.RestartPolicy
		name     string
		f        features.Set
		kind     Kind
		want     v1.ContainerRestartPolicy
		fromCont bool
	}{
		{v1.RestartPolicyAlways, "app", def, Regular, v1.ContainerRestartPolicyAlways, false},
		{v1.RestartPolicyNever, "app", def, Regular, v1.ContainerRestartPolicyNever, false},
		{v1.RestartPolicyNever, "job", def, Regular, v1.ContainerRestartPolicyOnFailure, true},
		{v1.RestartPolicyNever, "job", noRules, Regular, v1.ContainerRestartPolicyNever, false},
		{v1.RestartPolicyAlways, "prepare", def, Init, v1.ContainerRestartPolicyOnFailure, false},
		{v1.RestartPolicyNever, "prepare", def, Init, v1.ContainerRestartPolicyNever, false},
		{v1.RestartPolicyAlways, "once", def, Init, v1.ContainerRestartPolicyNever, true},
		{v1.RestartPolicyNever, "sidecar", def, Sidecar, v1.ContainerRestartPolicyAlways, false},
		{v1.RestartPolicyAlways, "debug", def, Ephemeral, v1.ContainerRestartPolicyNever, false},
	} {
		e, ok := EffectivePolicy(kindsPod(tc.policy), tc.name, tc.f)
		if !ok || e.Kind != tc.kind || e.Policy != tc.want || e.FromContainer != tc.fromCont {
			t.Errorf("%s under %s (%v): got %+v ok=%v, want kind %v policy %s fromContainer %v", tc.name, tc.policy, tc.f, e, ok, tc.kind, tc.want, tc.fromCont)
		}
	}
	if _, ok := EffectivePolicy(kindsPod(v1.RestartPolicyAlways), "missing", def); ok {
		t.Error("missing container found")
	}
}

func TestRestartsAfterExit(t *testing.T) {
	def := features.V1_37()
	noRules := gatesOff(t, features.ContainerRestartRules)
	deleting := kindsPod(v1.RestartPolicyAlways)
	now := metav1.Now()
	deleting.DeletionTimestamp = &now
	for _, tc := range []struct {
		desc   string
		pod    *v1.Pod
		name   string
		code   int32
		reason string
		f      features.Set
		want   bool
	}{
		{"succeeded init container moves on", kindsPod(v1.RestartPolicyAlways), "prepare", 0, "Completed", def, false},
		{"failed init container restarts under Always", kindsPod(v1.RestartPolicyAlways), "prepare", 1, "Error", def, true},
		{"failed init container fails the pod under Never", kindsPod(v1.RestartPolicyNever), "prepare", 1, "Error", def, false},
		{"OOMKilled with exit 0 under OnFailure: rules path says no", kindsPod(v1.RestartPolicyOnFailure), "prepare", 0, "OOMKilled", def, false},
		{"OOMKilled with exit 0 under OnFailure: gate off restarts", kindsPod(v1.RestartPolicyOnFailure), "prepare", 0, "OOMKilled", noRules, true},
		{"init container Never policy", kindsPod(v1.RestartPolicyAlways), "once", 1, "Error", def, false},
		{"init container Never policy ignored without gate", kindsPod(v1.RestartPolicyAlways), "once", 1, "Error", noRules, true},
		{"failed init while deleting, gate on", deleting, "prepare", 1, "Error", def, false},
		{"failed init while deleting, gate off", deleting, "prepare", 1, "Error", noRules, true},
		{"sidecar always", kindsPod(v1.RestartPolicyNever), "sidecar", 0, "Completed", def, true},
		{"sidecar even while deleting", deleting, "sidecar", 0, "Completed", def, true},
		{"ephemeral never", kindsPod(v1.RestartPolicyAlways), "debug", 1, "Error", def, false},
		{"regular under Always", kindsPod(v1.RestartPolicyAlways), "app", 0, "Completed", def, true},
		{"regular while deleting", deleting, "app", 1, "Error", def, false},
		{"regular with container OnFailure, exit 0", kindsPod(v1.RestartPolicyAlways), "job", 0, "Completed", def, false},
	} {
		got, _, ok := RestartsAfterExit(tc.pod, tc.name, tc.code, tc.reason, tc.f)
		if !ok || got != tc.want {
			t.Errorf("%s: got %v (ok %v), want %v", tc.desc, got, ok, tc.want)
		}
	}
}
