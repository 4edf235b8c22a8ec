package main

import (
	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
)

// gateWarnings says, one line each, which features of pod the chosen
// kubelet does not honour because their gate is off there
// (podactions.GatesOff), and what it does instead.
func gateWarnings(pod *v1.Pod, set features.Set) []string {
	var out []string
	for _, g := range podactions.GatesOff(pod, set) {
		out = append(out, g.String())
	}
	return out
}
