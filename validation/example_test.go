package validation_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/validation"
)

func ExamplePod() {
	never := v1.ContainerRestartPolicyNever
	grace := int64(30)
	pod := &v1.Pod{Spec: v1.PodSpec{
		RestartPolicy:                 v1.RestartPolicyAlways,
		TerminationGracePeriodSeconds: &grace,
		InitContainers: []v1.Container{{
			Name:  "migrate",
			Image: "migrate:v2",
			// A regular init container may not have probes.
			ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}},
		}},
		Containers: []v1.Container{{
			Name:          "app",
			Image:         "app:v1",
			RestartPolicy: &never,
			RestartPolicyRules: []v1.ContainerRestartRule{{
				Action:    v1.ContainerRestartRuleActionRestart,
				ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: "Equals", Values: []int32{42}},
			}},
		}},
	}}
	fmt.Println(validation.Pod(pod))
	// Output:
	// spec.containers[0].restartPolicyRules[0].exitCodes.operator: Unsupported value: "Equals": supported values: "In", "NotIn"
	// spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always
}
