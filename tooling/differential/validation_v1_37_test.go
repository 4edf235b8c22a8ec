//go:build kubeletlogic_overlay

package differential

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apipod "k8s.io/kubernetes/pkg/api/pod"
	core "k8s.io/kubernetes/pkg/apis/core"
	corev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	apivalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/validation"
)

// apiServerValidate runs the API server's create validation of v1.37.2 on
// pod (already defaulted).
func apiServerValidate(pod *v1.Pod) (field.ErrorList, error) {
	// Ephemeral containers cannot be set on create: the API server adds
	// them through the ephemeralcontainers subresource, validated as an
	// update of the created pod.
	var internal core.Pod
	if err := corev1.Convert_v1_Pod_To_core_Pod(pod, &internal, nil); err != nil {
		return nil, err
	}
	created := internal.DeepCopy()
	created.Spec.EphemeralContainers = nil
	opts := apipod.GetValidationOptionsFromPodSpecAndMeta(&created.Spec, nil, &created.ObjectMeta, nil)
	errs := apivalidation.ValidatePodCreate(created, opts)
	if len(internal.Spec.EphemeralContainers) > 0 && len(errs) == 0 {
		created.ResourceVersion = "1"
		internal.ResourceVersion = "1"
		opts = apipod.GetValidationOptionsFromPodSpecAndMeta(&internal.Spec, &created.Spec, &internal.ObjectMeta, &created.ObjectMeta)
		errs = append(errs, apivalidation.ValidatePodEphemeralContainersUpdate(&internal, created, opts)...)
	}
	return errs, nil
}

// mutation breaks (or, as often, keeps) one rule validation.Pod models.
type mutation struct {
	name  string
	apply func(t *rapid.T, pod *v1.Pod)
}

func pick[T any](t *rapid.T, label string, xs []T) *T {
	if len(xs) == 0 {
		return nil
	}
	return &xs[rapid.IntRange(0, len(xs)-1).Draw(t, label)]
}

// execProbe is a valid probe as the API server defaults it.
func execProbe() *v1.Probe {
	return &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
}

var mutations = []mutation{
	{"pod restartPolicy", func(t *rapid.T, p *v1.Pod) {
		p.Spec.RestartPolicy = rapid.SampledFrom([]v1.RestartPolicy{"Always", "OnFailure", "Never", "", "Sometimes"}).Draw(t, "policy")
	}},
	{"container restartPolicy", func(t *rapid.T, p *v1.Pod) {
		c := pick(t, "c", p.Spec.Containers)
		if rapid.Bool().Draw(t, "init") && len(p.Spec.InitContainers) > 0 {
			c = pick(t, "ic", p.Spec.InitContainers)
		}
		if rapid.Bool().Draw(t, "nil") {
			c.RestartPolicy = nil
			return
		}
		v := rapid.SampledFrom([]v1.ContainerRestartPolicy{"Always", "OnFailure", "Never", "Bogus", ""}).Draw(t, "cpolicy")
		c.RestartPolicy = &v
	}},
	{"restart rule", func(t *rapid.T, p *v1.Pod) {
		c := pick(t, "c", p.Spec.Containers)
		if rapid.Bool().Draw(t, "init") && len(p.Spec.InitContainers) > 0 {
			c = pick(t, "ic", p.Spec.InitContainers)
		}
		r := v1.ContainerRestartRule{Action: rapid.SampledFrom([]v1.ContainerRestartRuleAction{"Restart", "RestartAllContainers", "Bogus", ""}).Draw(t, "action")}
		if rapid.IntRange(0, 5).Draw(t, "noExitCodes") != 0 {
			n := rapid.SampledFrom([]int{0, 1, 3, 255, 256}).Draw(t, "values")
			vals := make([]int32, n)
			for i := range vals {
				vals[i] = int32(i)
			}
			r.ExitCodes = &v1.ContainerRestartRuleOnExitCodes{
				Operator: rapid.SampledFrom([]v1.ContainerRestartRuleOnExitCodesOperator{"In", "NotIn", "Bogus", ""}).Draw(t, "op"),
				Values:   vals,
			}
		}
		c.RestartPolicyRules = append(c.RestartPolicyRules, r)
		if rapid.Bool().Draw(t, "withPolicy") && c.RestartPolicy == nil {
			v := rapid.SampledFrom([]v1.ContainerRestartPolicy{"Always", "OnFailure", "Never"}).Draw(t, "rpolicy")
			c.RestartPolicy = &v
		}
	}},
	{"duplicate name", func(t *rapid.T, p *v1.Pod) {
		var names []string
		for _, c := range p.Spec.InitContainers {
			names = append(names, c.Name)
		}
		for _, c := range p.Spec.Containers {
			names = append(names, c.Name)
		}
		pick(t, "c", p.Spec.Containers).Name = rapid.SampledFrom(names).Draw(t, "dup")
	}},
	{"container name", func(t *rapid.T, p *v1.Pod) {
		pick(t, "c", p.Spec.Containers).Name = rapid.SampledFrom([]string{"", "Bad_Name", "ok-name", "a-very-long-name-that-is-longer-than-sixty-three-characters-for-sure"}).Draw(t, "name")
	}},
	{"probe on init container", func(t *rapid.T, p *v1.Pod) {
		c := pick(t, "ic", p.Spec.InitContainers)
		if c == nil {
			return
		}
		pr := execProbe()
		switch rapid.IntRange(0, 3).Draw(t, "which") {
		case 0:
			c.LivenessProbe = pr
		case 1:
			c.ReadinessProbe = pr
		case 2:
			c.StartupProbe = pr
		case 3:
			c.Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}
		}
	}},
	{"probe fields", func(t *rapid.T, p *v1.Pod) {
		c := pick(t, "c", p.Spec.Containers)
		pr := execProbe()
		pr.SuccessThreshold = rapid.SampledFrom([]int32{1, 2}).Draw(t, "success")
		if rapid.Bool().Draw(t, "grace") {
			g := rapid.SampledFrom([]int64{-1, 0, 1, 5}).Draw(t, "graceValue")
			pr.TerminationGracePeriodSeconds = &g
		}
		if rapid.Bool().Draw(t, "noHandler") {
			pr.ProbeHandler = v1.ProbeHandler{}
		}
		switch rapid.IntRange(0, 2).Draw(t, "which") {
		case 0:
			c.LivenessProbe = pr
		case 1:
			c.ReadinessProbe = pr
		case 2:
			c.StartupProbe = pr
		}
	}},
	{"grace and deadline", func(t *rapid.T, p *v1.Pod) {
		g := rapid.SampledFrom([]int64{-1, 0, 1, 30}).Draw(t, "grace")
		p.Spec.TerminationGracePeriodSeconds = &g
		if rapid.Bool().Draw(t, "deadline") {
			d := rapid.SampledFrom([]int64{-1, 0, 1, 1 << 31, 1<<31 - 1}).Draw(t, "deadlineValue")
			p.Spec.ActiveDeadlineSeconds = &d
		}
	}},
	{"resizePolicy", func(t *rapid.T, p *v1.Pod) {
		c := pick(t, "c", p.Spec.Containers)
		if rapid.Bool().Draw(t, "init") && len(p.Spec.InitContainers) > 0 {
			c = pick(t, "ic", p.Spec.InitContainers)
		}
		c.ResizePolicy = append(c.ResizePolicy, v1.ContainerResizePolicy{
			ResourceName:  rapid.SampledFrom([]v1.ResourceName{"cpu", "memory", "storage"}).Draw(t, "resource"),
			RestartPolicy: rapid.SampledFrom([]v1.ResourceResizeRestartPolicy{"NotRequired", "RestartContainer", "Sometimes"}).Draw(t, "rrp"),
		})
	}},
	{"ephemeral fields", func(t *rapid.T, p *v1.Pod) {
		e := pick(t, "e", p.Spec.EphemeralContainers)
		if e == nil {
			return
		}
		switch rapid.IntRange(0, 2).Draw(t, "which") {
		case 0:
			e.LivenessProbe = execProbe()
		case 1:
			e.Ports = []v1.ContainerPort{{ContainerPort: 80, Protocol: v1.ProtocolTCP}}
		case 2:
			v := v1.ContainerRestartPolicyNever
			e.RestartPolicy = &v
		}
	}},
	{"image", func(t *rapid.T, p *v1.Pod) {
		pick(t, "c", p.Spec.Containers).Image = rapid.SampledFrom([]string{"", " busybox", "busybox"}).Draw(t, "image")
	}},
}

// TestDifferentialValidation compares validation.Pod with the API server's
// own ValidatePodCreate of v1.37.2: every podgen pod (defaulted as the API
// server defaults it) is accepted by both, and after one mutation of a
// field validation.Pod models, both accept or both reject.
func TestDifferentialValidation(t *testing.T) {
	// The API server's validation reads the API server's gates, which
	// validation.Pod does not take (it models a v1.37.2 API server with
	// default gates): these cases keep the defaults.
	rejected := 0
	checkDefaults(t, 10000, []string{"validation.Pod"}, func(rt *rapid.T, _ features.Set) {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod")
		corev1.SetObjectDefaults_Pod(pod)
		if errs, err := apiServerValidate(pod); err != nil || len(errs) > 0 {
			rt.Fatalf("podgen pod rejected by the API server: %v %v", err, errs)
		}
		if err := validation.Pod(pod); err != nil {
			rt.Fatalf("podgen pod rejected by validation.Pod: %v", err)
		}
		m := rapid.SampledFrom(mutations).Draw(rt, "mutation")
		m.apply(rt, pod)
		real, err := apiServerValidate(pod)
		if err != nil {
			rt.Fatalf("conversion: %v", err)
		}
		ours := validation.Pod(pod)
		if (ours != nil) != (len(real) > 0) {
			rt.Fatalf("mutation %q: validation.Pod says %v; API server says %v", m.name, ours, real.ToAggregate())
		}
		compared(rt, "validation.Pod")
		if ours != nil {
			rejected++
		}
	})
	if rejected == 0 && cases(10000) >= 1000 {
		t.Error("no mutation was rejected: the comparison proved nothing")
	}
}
