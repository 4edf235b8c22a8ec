package validation

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func ptr[T any](v T) *T { return &v }

// validPod returns a pod that passes Pod: one regular container, one init
// container and one sidecar, with the fields the API server fills in set.
func validPod() *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u1"},
		Spec: v1.PodSpec{
			RestartPolicy:                 v1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr(int64(30)),
			InitContainers: []v1.Container{
				{Name: "init", Image: "busybox"},
				{Name: "sidecar", Image: "envoy", RestartPolicy: ptr(v1.ContainerRestartPolicyAlways)},
			},
			Containers: []v1.Container{
				{Name: "app", Image: "nginx"},
			},
		},
	}
}

func execProbe() *v1.Probe {
	return &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}
}

func exitCodes(op v1.ContainerRestartRuleOnExitCodesOperator, values ...int32) *v1.ContainerRestartRuleOnExitCodes {
	return &v1.ContainerRestartRuleOnExitCodes{Operator: op, Values: values}
}

func rule(action v1.ContainerRestartRuleAction, codes *v1.ContainerRestartRuleOnExitCodes) v1.ContainerRestartRule {
	return v1.ContainerRestartRule{Action: action, ExitCodes: codes}
}

func resources(pairs ...string) v1.ResourceList {
	l := v1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		l[v1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

func TestPod(t *testing.T) {
	tests := []struct {
		name   string
		modify func(p *v1.Pod)
		// want lists one substring per expected error, in order; empty for a
		// valid pod.
		want []string
	}{
		// Valid pods.
		{name: "minimal", modify: func(p *v1.Pod) {}},
		{name: "restartPolicy OnFailure", modify: func(p *v1.Pod) { p.Spec.RestartPolicy = v1.RestartPolicyOnFailure }},
		{name: "restartPolicy Never", modify: func(p *v1.Pod) { p.Spec.RestartPolicy = v1.RestartPolicyNever }},
		{name: "zero grace period", modify: func(p *v1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr(int64(0)) }},
		{name: "deletion grace period zero", modify: func(p *v1.Pod) {
			p.DeletionTimestamp = &metav1.Time{}
			p.DeletionGracePeriodSeconds = ptr(int64(0))
		}},
		{name: "activeDeadlineSeconds at bounds", modify: func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(1<<31 - 1)) }},
		{name: "regular container with each restartPolicy", modify: func(p *v1.Pod) {
			p.Spec.Containers = []v1.Container{
				{Name: "a", Image: "i", RestartPolicy: ptr(v1.ContainerRestartPolicyAlways)},
				{Name: "b", Image: "i", RestartPolicy: ptr(v1.ContainerRestartPolicyOnFailure)},
				{Name: "c", Image: "i", RestartPolicy: ptr(v1.ContainerRestartPolicyNever)},
			}
		}},
		{name: "restart rules on regular container", modify: func(p *v1.Pod) {
			c := &p.Spec.Containers[0]
			c.RestartPolicy = ptr(v1.ContainerRestartPolicyNever)
			c.RestartPolicyRules = []v1.ContainerRestartRule{
				rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, 42)),
				rule(v1.ContainerRestartRuleActionRestartAllContainers, exitCodes(v1.ContainerRestartRuleOnExitCodesOpNotIn, 0, 1)),
			}
		}},
		{name: "restart rules on init container and sidecar", modify: func(p *v1.Pod) {
			p.Spec.InitContainers[0].RestartPolicy = ptr(v1.ContainerRestartPolicyOnFailure)
			p.Spec.InitContainers[0].RestartPolicyRules = []v1.ContainerRestartRule{
				rule(v1.ContainerRestartRuleActionRestartAllContainers, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, 3)),
			}
			p.Spec.InitContainers[1].RestartPolicyRules = []v1.ContainerRestartRule{
				rule(v1.ContainerRestartRuleActionRestartAllContainers, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, 3)),
				rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, 4)),
			}
		}},
		{name: "exit codes empty, repeated and unsorted", modify: func(p *v1.Pod) {
			c := &p.Spec.Containers[0]
			c.RestartPolicy = ptr(v1.ContainerRestartPolicyNever)
			c.RestartPolicyRules = []v1.ContainerRestartRule{
				rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn)),
				rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpNotIn, 7, 3, 7)),
			}
		}},
		{name: "20 rules and 255 exit codes", modify: func(p *v1.Pod) {
			c := &p.Spec.Containers[0]
			c.RestartPolicy = ptr(v1.ContainerRestartPolicyNever)
			codes := make([]int32, 255)
			for i := range codes {
				codes[i] = int32(i)
			}
			for range 20 {
				c.RestartPolicyRules = append(c.RestartPolicyRules,
					rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, codes...)))
			}
		}},
		{name: "probes and hooks on regular container and sidecar", modify: func(p *v1.Pod) {
			for _, c := range []*v1.Container{&p.Spec.Containers[0], &p.Spec.InitContainers[1]} {
				c.LivenessProbe = execProbe()
				c.LivenessProbe.TerminationGracePeriodSeconds = ptr(int64(5))
				c.ReadinessProbe = execProbe()
				c.StartupProbe = execProbe()
				c.StartupProbe.SuccessThreshold = 1
				c.Lifecycle = &v1.Lifecycle{
					PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"true"}}},
					PreStop:   &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 30}},
				}
			}
		}},
		{name: "readiness successThreshold above 1", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = execProbe()
			p.Spec.Containers[0].ReadinessProbe.SuccessThreshold = 3
		}},
		{name: "ephemeral container", modify: func(p *v1.Pod) {
			p.Spec.EphemeralContainers = []v1.EphemeralContainer{{
				EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug", Image: "busybox", Stdin: true, TTY: true},
				TargetContainerName:      "app",
			}}
		}},
		{name: "resources within limits", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].Resources = v1.ResourceRequirements{
				Requests: resources("cpu", "100m", "memory", "64Mi", "hugepages-2Mi", "4Mi", "example.com/gpu", "1"),
				Limits:   resources("cpu", "1", "memory", "64Mi", "hugepages-2Mi", "4Mi", "example.com/gpu", "1"),
			}
		}},
		{name: "limits without requests", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].Resources.Limits = resources("cpu", "1", "example.com/gpu", "1")
		}},
		{name: "resize policy", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].ResizePolicy = []v1.ContainerResizePolicy{
				{ResourceName: v1.ResourceCPU, RestartPolicy: v1.NotRequired},
				{ResourceName: v1.ResourceMemory, RestartPolicy: v1.RestartContainer},
			}
			p.Spec.InitContainers[1].ResizePolicy = []v1.ContainerResizePolicy{
				{ResourceName: v1.ResourceMemory, RestartPolicy: v1.RestartContainer},
			}
			p.Spec.InitContainers[0].ResizePolicy = []v1.ContainerResizePolicy{
				{ResourceName: v1.ResourceMemory, RestartPolicy: v1.NotRequired},
			}
		}},
		{name: "pod-level resources", modify: func(p *v1.Pod) {
			p.Spec.Resources = &v1.ResourceRequirements{
				Requests: resources("cpu", "1", "memory", "1Gi"),
				Limits:   resources("cpu", "2", "memory", "1Gi"),
			}
			p.Spec.Containers[0].Resources.Limits = resources("cpu", "2")
		}},

		// Invalid pods: one rule each.
		{name: "no containers", modify: func(p *v1.Pod) { p.Spec.Containers = nil },
			want: []string{"spec.containers: Required value"}},
		{name: "empty container name", modify: func(p *v1.Pod) { p.Spec.Containers[0].Name = "" },
			want: []string{"spec.containers[0].name: Required value"}},
		{name: "container name not a DNS label", modify: func(p *v1.Pod) { p.Spec.InitContainers[0].Name = "Init_1" },
			want: []string{`spec.initContainers[0].name: Invalid value: "Init_1"`}},
		{name: "duplicate regular names", modify: func(p *v1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: "app", Image: "i"})
		}, want: []string{`spec.containers[1].name: Duplicate value: "app"`}},
		{name: "init container named like a regular one", modify: func(p *v1.Pod) { p.Spec.InitContainers[0].Name = "app" },
			want: []string{`spec.initContainers[0].name: Duplicate value: "app"`}},
		{name: "ephemeral container named like an init one", modify: func(p *v1.Pod) {
			p.Spec.EphemeralContainers = []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "sidecar", Image: "i"}}}
		}, want: []string{`spec.ephemeralContainers[0].name: Duplicate value: "sidecar"`}},
		{name: "ephemeral container targeting no container", modify: func(p *v1.Pod) {
			p.Spec.EphemeralContainers = []v1.EphemeralContainer{{
				EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug", Image: "busybox"},
				TargetContainerName:      "gone",
			}}
		}, want: []string{`spec.ephemeralContainers[0].targetContainerName: Not found: "gone"`}},
		{name: "empty image", modify: func(p *v1.Pod) { p.Spec.Containers[0].Image = "" },
			want: []string{"spec.containers[0].image: Required value"}},
		{name: "image with white space", modify: func(p *v1.Pod) { p.Spec.Containers[0].Image = "nginx " },
			want: []string{"spec.containers[0].image: Invalid value"}},

		{name: "empty restartPolicy", modify: func(p *v1.Pod) { p.Spec.RestartPolicy = "" },
			want: []string{`spec.restartPolicy: Required value: the API server defaults an empty restartPolicy to "Always"`}},
		{name: "unknown restartPolicy", modify: func(p *v1.Pod) { p.Spec.RestartPolicy = "Sometimes" },
			want: []string{`spec.restartPolicy: Unsupported value: "Sometimes"`}},
		{name: "unset terminationGracePeriodSeconds", modify: func(p *v1.Pod) { p.Spec.TerminationGracePeriodSeconds = nil },
			want: []string{"spec.terminationGracePeriodSeconds: Required value: the API server defaults an unset terminationGracePeriodSeconds to 30"}},
		{name: "negative terminationGracePeriodSeconds", modify: func(p *v1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr(int64(-1)) },
			want: []string{"spec.terminationGracePeriodSeconds: Invalid value: -1"}},
		{name: "negative deletionGracePeriodSeconds", modify: func(p *v1.Pod) {
			p.DeletionTimestamp = &metav1.Time{}
			p.DeletionGracePeriodSeconds = ptr(int64(-5))
		}, want: []string{"metadata.deletionGracePeriodSeconds: Invalid value: -5"}},
		{name: "zero activeDeadlineSeconds", modify: func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(0)) },
			want: []string{"spec.activeDeadlineSeconds: Invalid value: 0"}},
		{name: "activeDeadlineSeconds above int32", modify: func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(1 << 31)) },
			want: []string{"spec.activeDeadlineSeconds: Invalid value: 2147483648"}},

		{name: "unknown container restartPolicy", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].RestartPolicy = ptr(v1.ContainerRestartPolicy("Sometimes"))
		}, want: []string{`spec.containers[0].restartPolicy: Unsupported value: "Sometimes"`}},
		{name: "unknown init container restartPolicy", modify: func(p *v1.Pod) {
			p.Spec.InitContainers[0].RestartPolicy = ptr(v1.ContainerRestartPolicy(""))
		}, want: []string{`spec.initContainers[0].restartPolicy: Unsupported value: ""`}},
		{name: "rules without restartPolicy", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].RestartPolicyRules = []v1.ContainerRestartRule{
				rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, 1)),
			}
		}, want: []string{"spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used"}},
		{name: "init rules without restartPolicy", modify: func(p *v1.Pod) {
			p.Spec.InitContainers[0].RestartPolicyRules = []v1.ContainerRestartRule{
				rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, 1)),
			}
		}, want: []string{"spec.initContainers[0].restartPolicy: Required value"}},
		{name: "too many rules", modify: func(p *v1.Pod) {
			c := &p.Spec.Containers[0]
			c.RestartPolicy = ptr(v1.ContainerRestartPolicyNever)
			for range 21 {
				c.RestartPolicyRules = append(c.RestartPolicyRules,
					rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, 1)))
			}
		}, want: []string{"spec.containers[0].restartPolicyRules: Too many: 21: must have at most 20 items"}},
		{name: "unknown rule action", modify: func(p *v1.Pod) {
			c := &p.Spec.InitContainers[1]
			c.RestartPolicyRules = []v1.ContainerRestartRule{
				rule("Ignore", exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, 1)),
			}
		}, want: []string{`spec.initContainers[1].restartPolicyRules[0].action: Unsupported value: "Ignore": supported values: "Restart", "RestartAllContainers"`}},
		{name: "rule without exitCodes", modify: func(p *v1.Pod) {
			c := &p.Spec.Containers[0]
			c.RestartPolicy = ptr(v1.ContainerRestartPolicyNever)
			c.RestartPolicyRules = []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestart}}
		}, want: []string{"spec.containers[0].restartPolicyRules[0].exitCodes: Required value"}},
		{name: "unknown exitCodes operator", modify: func(p *v1.Pod) {
			c := &p.Spec.InitContainers[1]
			c.RestartPolicyRules = []v1.ContainerRestartRule{
				rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, 1)),
				rule(v1.ContainerRestartRuleActionRestart, exitCodes("Foo", 1)),
			}
		}, want: []string{`spec.initContainers[1].restartPolicyRules[1].exitCodes.operator: Unsupported value: "Foo": supported values: "In", "NotIn"`}},
		{name: "too many exit codes", modify: func(p *v1.Pod) {
			c := &p.Spec.Containers[0]
			c.RestartPolicy = ptr(v1.ContainerRestartPolicyOnFailure)
			c.RestartPolicyRules = []v1.ContainerRestartRule{
				rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpNotIn, make([]int32, 256)...)),
			}
		}, want: []string{"spec.containers[0].restartPolicyRules[0].exitCodes.values: Too many: 256: must have at most 255 items"}},

		{name: "liveness probe on init container", modify: func(p *v1.Pod) { p.Spec.InitContainers[0].LivenessProbe = execProbe() },
			want: []string{"spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"}},
		{name: "readiness probe on init container", modify: func(p *v1.Pod) {
			p.Spec.InitContainers[0].RestartPolicy = ptr(v1.ContainerRestartPolicyNever)
			p.Spec.InitContainers[0].ReadinessProbe = execProbe()
		}, want: []string{"spec.initContainers[0].readinessProbe: Forbidden"}},
		{name: "startup probe on init container", modify: func(p *v1.Pod) { p.Spec.InitContainers[0].StartupProbe = execProbe() },
			want: []string{"spec.initContainers[0].startupProbe: Forbidden"}},
		{name: "lifecycle on init container", modify: func(p *v1.Pod) {
			p.Spec.InitContainers[0].Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 1}}}
		}, want: []string{"spec.initContainers[0].lifecycle: Forbidden"}},
		{name: "probe without handler", modify: func(p *v1.Pod) { p.Spec.Containers[0].LivenessProbe = &v1.Probe{} },
			want: []string{"spec.containers[0].livenessProbe: Required value: must specify a handler type"}},
		{name: "probe with two handlers", modify: func(p *v1.Pod) {
			pr := execProbe()
			pr.TCPSocket = &v1.TCPSocketAction{}
			p.Spec.InitContainers[1].StartupProbe = pr
		}, want: []string{"spec.initContainers[1].startupProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"}},
		{name: "negative probe period", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = execProbe()
			p.Spec.Containers[0].ReadinessProbe.PeriodSeconds = -1
		}, want: []string{"spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0"}},
		{name: "zero probe terminationGracePeriodSeconds", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].LivenessProbe = execProbe()
			p.Spec.Containers[0].LivenessProbe.TerminationGracePeriodSeconds = ptr(int64(0))
		}, want: []string{"spec.containers[0].livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0"}},
		{name: "readiness probe terminationGracePeriodSeconds", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = execProbe()
			p.Spec.Containers[0].ReadinessProbe.TerminationGracePeriodSeconds = ptr(int64(10))
		}, want: []string{"spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 10: must not be set for readinessProbes"}},
		{name: "liveness successThreshold 2", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].LivenessProbe = execProbe()
			p.Spec.Containers[0].LivenessProbe.SuccessThreshold = 2
		}, want: []string{"spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"}},
		{name: "startup successThreshold 3 on sidecar", modify: func(p *v1.Pod) {
			p.Spec.InitContainers[1].StartupProbe = execProbe()
			p.Spec.InitContainers[1].StartupProbe.SuccessThreshold = 3
		}, want: []string{"spec.initContainers[1].startupProbe.successThreshold: Invalid value: 3: must be 1"}},
		{name: "hook without handler", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{}}
		}, want: []string{"spec.containers[0].lifecycle.preStop: Required value: must specify a handler type"}},
		{name: "sleep longer than grace period", modify: func(p *v1.Pod) {
			p.Spec.InitContainers[1].Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 31}}}
		}, want: []string{"spec.initContainers[1].lifecycle.preStop.sleep: Invalid value: 31: must be from 0 to terminationGracePeriodSeconds (30)"}},
		{name: "negative sleep", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].Lifecycle = &v1.Lifecycle{PostStart: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: -1}}}
		}, want: []string{"spec.containers[0].lifecycle.postStart.sleep: Invalid value: -1"}},

		{name: "ephemeral container with probes, hooks, ports, resources and restart fields", modify: func(p *v1.Pod) {
			p.Spec.EphemeralContainers = []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{
				Name: "debug", Image: "busybox",
				Ports:              []v1.ContainerPort{{ContainerPort: 80}},
				Resources:          v1.ResourceRequirements{Requests: resources("cpu", "1")},
				ResizePolicy:       []v1.ContainerResizePolicy{{ResourceName: v1.ResourceCPU, RestartPolicy: v1.NotRequired}},
				RestartPolicy:      ptr(v1.ContainerRestartPolicyAlways),
				RestartPolicyRules: []v1.ContainerRestartRule{rule(v1.ContainerRestartRuleActionRestart, exitCodes(v1.ContainerRestartRuleOnExitCodesOpIn, 1))},
				LivenessProbe:      execProbe(),
				ReadinessProbe:     execProbe(),
				StartupProbe:       execProbe(),
				Lifecycle:          &v1.Lifecycle{},
			}}}
		}, want: []string{
			"spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container",
			"spec.ephemeralContainers[0].resources: Forbidden",
			"spec.ephemeralContainers[0].resizePolicy: Forbidden",
			"spec.ephemeralContainers[0].restartPolicy: Forbidden",
			"spec.ephemeralContainers[0].restartPolicyRules: Forbidden",
			"spec.ephemeralContainers[0].livenessProbe: Forbidden",
			"spec.ephemeralContainers[0].readinessProbe: Forbidden",
			"spec.ephemeralContainers[0].startupProbe: Forbidden",
			"spec.ephemeralContainers[0].lifecycle: Forbidden",
		}},

		{name: "request above limit", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].Resources = v1.ResourceRequirements{
				Requests: resources("cpu", "2"), Limits: resources("cpu", "1"),
			}
		}, want: []string{`spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		{name: "init container request above limit", modify: func(p *v1.Pod) {
			p.Spec.InitContainers[0].Resources = v1.ResourceRequirements{
				Requests: resources("memory", "2Gi"), Limits: resources("memory", "1Gi"),
			}
		}, want: []string{"spec.initContainers[0].resources.requests[memory]"}},
		{name: "negative request", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].Resources.Requests = resources("memory", "-1")
		}, want: []string{`spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0`}},
		{name: "hugepages request below limit", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].Resources = v1.ResourceRequirements{
				Requests: resources("cpu", "1", "hugepages-2Mi", "2Mi"), Limits: resources("hugepages-2Mi", "4Mi"),
			}
		}, want: []string{"spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: \"2Mi\": must be equal to hugepages-2Mi limit of 4Mi"}},
		{name: "extended resource request without limit", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].Resources.Requests = resources("example.com/gpu", "1")
		}, want: []string{"spec.containers[0].resources.limits[example.com/gpu]: Required value"}},
		{name: "duplicate resize resource", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].ResizePolicy = []v1.ContainerResizePolicy{
				{ResourceName: v1.ResourceCPU, RestartPolicy: v1.NotRequired},
				{ResourceName: v1.ResourceCPU, RestartPolicy: v1.NotRequired},
			}
		}, want: []string{`spec.containers[0].resizePolicy[1].resourceName: Duplicate value: "cpu"`}},
		{name: "unsupported resize resource", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].ResizePolicy = []v1.ContainerResizePolicy{{ResourceName: "ephemeral-storage", RestartPolicy: v1.NotRequired}}
		}, want: []string{`spec.containers[0].resizePolicy[0].resourceName: Unsupported value: "ephemeral-storage"`}},
		{name: "unsupported resize restartPolicy", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].ResizePolicy = []v1.ContainerResizePolicy{{ResourceName: v1.ResourceMemory, RestartPolicy: "Sometimes"}}
		}, want: []string{`spec.containers[0].resizePolicy[0].restartPolicy: Unsupported value: "Sometimes"`}},
		{name: "empty resize restartPolicy", modify: func(p *v1.Pod) {
			p.Spec.Containers[0].ResizePolicy = []v1.ContainerResizePolicy{{ResourceName: v1.ResourceMemory}}
		}, want: []string{"spec.containers[0].resizePolicy[0].restartPolicy: Required value"}},
		{name: "RestartContainer resize in a Never pod", modify: func(p *v1.Pod) {
			p.Spec.RestartPolicy = v1.RestartPolicyNever
			p.Spec.Containers[0].ResizePolicy = []v1.ContainerResizePolicy{{ResourceName: v1.ResourceMemory, RestartPolicy: v1.RestartContainer}}
		}, want: []string{`spec.containers[0].resizePolicy[0].restartPolicy: Invalid value: "RestartContainer": must be 'NotRequired' when pod`}},
		{name: "RestartContainer resize on a regular init container", modify: func(p *v1.Pod) {
			p.Spec.InitContainers[0].ResizePolicy = []v1.ContainerResizePolicy{{ResourceName: v1.ResourceCPU, RestartPolicy: v1.RestartContainer}}
		}, want: []string{`spec.initContainers[0].resizePolicy[0].restartPolicy: Invalid value: "RestartContainer": must not be set to 'RestartContainer' for non-sidecar initContainers`}},

		{name: "pod-level request above limit", modify: func(p *v1.Pod) {
			p.Spec.Resources = &v1.ResourceRequirements{Requests: resources("cpu", "2"), Limits: resources("cpu", "1")}
		}, want: []string{"spec.resources.requests[cpu]: Invalid value"}},
		{name: "pod-level unsupported resource", modify: func(p *v1.Pod) {
			p.Spec.Resources = &v1.ResourceRequirements{Requests: resources("ephemeral-storage", "1Gi")}
		}, want: []string{`spec.resources.requests[ephemeral-storage]: Unsupported value: "ephemeral-storage"`}},
		{name: "pod-level claims", modify: func(p *v1.Pod) {
			p.Spec.Resources = &v1.ResourceRequirements{Claims: []v1.ResourceClaim{{Name: "gpu"}}}
		}, want: []string{"spec.resources.claims: Forbidden"}},
		{name: "pod-level resources on windows", modify: func(p *v1.Pod) {
			p.Spec.OS = &v1.PodOS{Name: v1.Windows}
			p.Spec.Resources = &v1.ResourceRequirements{Requests: resources("cpu", "1")}
		}, want: []string{"spec.resources: Forbidden: may not be set for a windows pod"}},
		{name: "container limit above pod-level limit", modify: func(p *v1.Pod) {
			p.Spec.Resources = &v1.ResourceRequirements{Limits: resources("memory", "1Gi")}
			p.Spec.Containers[0].Resources.Limits = resources("memory", "2Gi")
		}, want: []string{"spec.containers[0].resources.limits[memory]: Invalid value: \"2Gi\": must be less than or equal to pod limits of 1Gi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := validPod()
			tt.modify(pod)
			err := Pod(pod)
			got := unjoin(err)
			if len(got) != len(tt.want) {
				t.Fatalf("Pod() returned %d errors, want %d:\n%v", len(got), len(tt.want), err)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i].Error(), w) {
					t.Errorf("error %d = %q, want it to contain %q", i, got[i], w)
				}
				var fe *field.Error
				if !errors.As(got[i], &fe) {
					t.Errorf("error %d (%v) is not a *field.Error", i, got[i])
				}
			}
		})
	}
}

// unjoin returns the errors errors.Join combined into err.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func TestPodNil(t *testing.T) {
	if err := Pod(nil); err == nil {
		t.Fatal("Pod(nil) = nil, want an error")
	}
}

// TestPodReportsEveryProblem checks that problems in different places are
// all reported, metadata first and then the spec in the API server's order.
func TestPodReportsEveryProblem(t *testing.T) {
	p := validPod()
	p.DeletionGracePeriodSeconds = ptr(int64(-1))
	p.Spec.RestartPolicy = ""
	p.Spec.Containers[0].Name = ""
	p.Spec.InitContainers[0].LivenessProbe = execProbe()
	got := unjoin(Pod(p))
	want := []string{
		"metadata.deletionGracePeriodSeconds",
		"spec.containers[0].name",
		"spec.initContainers[0].livenessProbe",
		"spec.restartPolicy",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i].Error(), w+":") {
			t.Errorf("error %d = %q, want path %s", i, got[i], w)
		}
	}
}

// TestPodDeterministic checks that resource maps are reported in a fixed
// order.
func TestPodDeterministic(t *testing.T) {
	p := validPod()
	p.Spec.Containers[0].Resources = v1.ResourceRequirements{
		Requests: resources("cpu", "-1", "memory", "-1", "ephemeral-storage", "-1", "example.com/a", "1", "example.com/b", "1"),
	}
	first := Pod(p).Error()
	for range 20 {
		if again := Pod(p).Error(); again != first {
			t.Fatalf("Pod() not deterministic:\n%s\n---\n%s", first, again)
		}
	}
}
