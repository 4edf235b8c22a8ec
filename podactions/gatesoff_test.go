package podactions_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/restart"
)

func gatesOffPod() *v1.Pod {
	never := v1.ContainerRestartPolicyNever
	return &v1.Pod{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever,
		InitContainers: []v1.Container{{Name: "fetch", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}}},
		Containers: []v1.Container{{Name: "trainer", RestartPolicy: &never, RestartPolicyRules: []v1.ContainerRestartRule{{
			Action: v1.ContainerRestartRuleActionRestartAllContainers, ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}}},
		Resources: &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceMemory: resource.MustParse("1Gi")}}}}
}

func gateNames(gs []podactions.GateOff) string {
	var s []string
	for _, g := range gs {
		s = append(s, string(g.Gate))
	}
	return strings.Join(s, ",")
}

// TestGatesOff: a pod using v1.37 features on a v1.35 kubelet is told
// which gates are off there and what that kubelet does instead; on v1.37
// nothing; a gate turned off by hand is reported as such.
func TestGatesOff(t *testing.T) {
	pod := gatesOffPod()
	if g := podactions.GatesOff(pod, features.V1_37()); len(g) != 0 {
		t.Errorf("v1.37: %v", g)
	}
	got := podactions.GatesOff(pod, features.V1_35())
	if want := "RestartAllContainersOnContainerExits,InPlacePodLevelResourcesVerticalScaling,InPlacePodVerticalScalingInitContainers"; gateNames(got) != want {
		t.Fatalf("v1.35: gates %s, want %s", gateNames(got), want)
	}
	for _, g := range got {
		if !g.Default || g.Version != features.V1_35_4 || !strings.Contains(g.String(), "off by default in kubelet v1.35.4") {
			t.Errorf("v1.35: %s", g)
		}
	}
	// What it says instead is what the decisions do: exit 42 of trainer
	// falls through to its restartPolicy Never.
	if !strings.Contains(got[0].Instead, "trainer: its restartPolicy Never") {
		t.Errorf("instead: %s", got[0].Instead)
	}
	if restart.ContainerShouldRestart(&pod.Spec.Containers[0], &pod.Spec, 42, features.V1_35()) {
		t.Error("v1.35 restarts trainer after exit 42: the warning's 'instead' is wrong")
	}

	off, err := features.V1_37().With(features.ContainerRestartRules, false)
	if err != nil {
		t.Fatal(err)
	}
	got = podactions.GatesOff(pod, off)
	if gateNames(got) != "ContainerRestartRules" || got[0].Default || !strings.Contains(got[0].String(), "turned off") ||
		!strings.Contains(got[0].Instead, "restartPolicy Never") {
		t.Errorf("ContainerRestartRules turned off: %v", got)
	}
	if podactions.GatesOff(nil, features.V1_35()) != nil {
		t.Error("nil pod")
	}
}
