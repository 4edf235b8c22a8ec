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

// Each branch of GatesOff, with the gates it reads set one way or the
// other: what it names, and that a spec not using a feature names nothing
// (found by gremlins: every `> 0` here could be `>= 0` unseen).
func TestGatesOffEachUse(t *testing.T) {
	set := func(t *testing.T, gates map[features.Gate]bool) features.Set {
		f := features.V1_37()
		for g, on := range gates {
			var err error
			if f, err = f.With(g, on); err != nil {
				t.Fatal(err)
			}
		}
		return f
	}
	always, onFailure := v1.ContainerRestartPolicyAlways, v1.ContainerRestartPolicyOnFailure
	rule := []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{3}}}}
	cpu := v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}
	rulesOff := map[features.Gate]bool{features.ContainerRestartRules: false}
	allOff := map[features.Gate]bool{features.RestartAllContainersOnContainerExits: false}
	podLevelOff := map[features.Gate]bool{features.PodLevelResources: false}
	initResizeOff := map[features.Gate]bool{features.InPlacePodVerticalScalingInitContainers: false}
	for _, tc := range []struct {
		name  string
		gates map[features.Gate]bool
		spec  v1.PodSpec
		want  string // "Gate: uses | instead contains", or "" for none
	}{
		{"no container policy, rules off", rulesOff, v1.PodSpec{
			InitContainers: []v1.Container{{Name: "side", RestartPolicy: &always}},
			Containers:     []v1.Container{{Name: "a"}}}, ""},
		{"own policy only", rulesOff, v1.PodSpec{Containers: []v1.Container{{Name: "a", RestartPolicy: &onFailure}}},
			"ContainerRestartRules: container restartPolicy on a (restartPolicy OnFailure) | the pod's restartPolicy Always"},
		{"rules only", rulesOff, v1.PodSpec{Containers: []v1.Container{{Name: "b", RestartPolicyRules: rule}}},
			"ContainerRestartRules: restartPolicyRules on b | the pod's restartPolicy Always"},
		{"both", rulesOff, v1.PodSpec{Containers: []v1.Container{{Name: "a", RestartPolicy: &onFailure}, {Name: "b", RestartPolicyRules: rule}}},
			"ContainerRestartRules: container restartPolicy on a (restartPolicy OnFailure) and restartPolicyRules on b | the pod's restartPolicy Always"},
		{"no restart-all rule", allOff, v1.PodSpec{Containers: []v1.Container{{Name: "c", RestartPolicy: &onFailure}}}, ""},
		{"restart-all rule, the pod's policy", allOff, v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "c", RestartPolicyRules: rule}}},
			"RestartAllContainersOnContainerExits: a restartPolicyRules action RestartAllContainers on c | c: the pod's restartPolicy Never"},
		{"restart-all rule, its own policy", allOff, v1.PodSpec{Containers: []v1.Container{{Name: "c", RestartPolicy: &onFailure, RestartPolicyRules: rule}}},
			"RestartAllContainersOnContainerExits: a restartPolicyRules action RestartAllContainers on c | c: its restartPolicy OnFailure"},
		{"pod resources, requests only", podLevelOff, v1.PodSpec{Resources: &v1.ResourceRequirements{Requests: cpu}, Containers: []v1.Container{{Name: "a"}}},
			"PodLevelResources: pod-level resources (spec.resources) | the containers' resources alone"},
		{"pod resources, limits only", podLevelOff, v1.PodSpec{Resources: &v1.ResourceRequirements{Limits: cpu}, Containers: []v1.Container{{Name: "a"}}},
			"PodLevelResources: pod-level resources (spec.resources) | the containers' resources alone"},
		{"pod resources, empty", podLevelOff, v1.PodSpec{Resources: &v1.ResourceRequirements{}, Containers: []v1.Container{{Name: "a"}}}, ""},
		{"init container with a request and a limit", initResizeOff, v1.PodSpec{
			InitContainers: []v1.Container{{Name: "i", Resources: v1.ResourceRequirements{Requests: cpu, Limits: cpu}}, {Name: "side", RestartPolicy: &always, Resources: v1.ResourceRequirements{Requests: cpu}}},
			Containers:     []v1.Container{{Name: "a"}}},
			"InPlacePodVerticalScalingInitContainers: resources on init containers i | a resize waits"},
		{"init container without resources", initResizeOff, v1.PodSpec{
			InitContainers: []v1.Container{{Name: "i"}}, Containers: []v1.Container{{Name: "a"}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := podactions.GatesOff(&v1.Pod{Spec: tc.spec}, set(t, tc.gates))
			if tc.want == "" {
				if len(got) != 0 {
					t.Errorf("want none, got %v", got)
				}
				return
			}
			head, instead, _ := strings.Cut(tc.want, " | ")
			gate, uses, _ := strings.Cut(head, ": ")
			if len(got) != 1 || string(got[0].Gate) != gate || got[0].Uses != uses || !strings.Contains(got[0].Instead, instead) {
				t.Errorf("got %v, want %s using %q, instead %q", got, gate, uses, instead)
			}
		})
	}
}
