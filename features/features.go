// Package features is the set of kubelet feature gates that change a
// decision kubeletlogic makes.
//
// The kubelet reads its gates from a process-global registry; kubeletlogic
// never does. Every decision function takes a Set as an argument, so two
// calls with different gate settings can run side by side. V1_37 returns the
// defaults of kubelet v1.37.2; flip a field, or use With, to model a node
// that runs with a gate changed.
//
// Some gates are locked to their default in v1.37.2 (see Locked): a real
// v1.37.2 kubelet refuses to change them. A Set can still turn them off, which
// models the code path the kubelet takes when the gate is off; such settings
// are not reachable on a v1.37.2 node.
package features

import (
	"fmt"
	"sort"
)

// Gate names one kubelet feature gate, spelled as in
// pkg/features/kube_features.go.
type Gate string

// The gates a Set holds. Each comment says what the gate changes in the
// decisions this library mirrors.
const (
	// ContainerRestartRules: container-level restartPolicy on regular and
	// init containers, and restartPolicyRules (Beta, default on).
	ContainerRestartRules Gate = "ContainerRestartRules"
	// RestartAllContainersOnContainerExits: the RestartAllContainers rule
	// action and everything that follows from it (Beta, default on).
	RestartAllContainersOnContainerExits Gate = "RestartAllContainersOnContainerExits"
	// ReduceDefaultCrashLoopBackOffDecay: crash-loop back-off starts at 1 s
	// and is capped at 60 s instead of 10 s and 300 s (Alpha, default off).
	ReduceDefaultCrashLoopBackOffDecay Gate = "ReduceDefaultCrashLoopBackOffDecay"
	// KubeletCrashLoopBackOffMax: the kubelet configuration's
	// crashLoopBackOff.maxContainerRestartPeriod sets the back-off cap
	// (Beta, default on).
	KubeletCrashLoopBackOffMax Gate = "KubeletCrashLoopBackOffMax"
	// InPlacePodVerticalScaling: in-place resize of container resources
	// (GA, locked on).
	InPlacePodVerticalScaling Gate = "InPlacePodVerticalScaling"
	// InPlacePodLevelResourcesVerticalScaling: in-place resize of pod-level
	// resources (Beta, default on).
	InPlacePodLevelResourcesVerticalScaling Gate = "InPlacePodLevelResourcesVerticalScaling"
	// InPlacePodVerticalScalingInitContainers: running regular init
	// containers are resized in place too (GA, locked on).
	InPlacePodVerticalScalingInitContainers Gate = "InPlacePodVerticalScalingInitContainers"
	// InPlacePodVerticalScalingMemoryBackedVolumes: memory-backed emptyDir
	// size limits follow resizes (Alpha, default off).
	InPlacePodVerticalScalingMemoryBackedVolumes Gate = "InPlacePodVerticalScalingMemoryBackedVolumes"
	// PodLevelResources: pod-level requests and limits (Beta, default on).
	PodLevelResources Gate = "PodLevelResources"
	// ChangeContainerStatusOnKubeletRestart: the pre-1.35 behaviour of
	// resetting container status and probe results when the kubelet restarts
	// (Deprecated, default off).
	ChangeContainerStatusOnKubeletRestart Gate = "ChangeContainerStatusOnKubeletRestart"
	// PodReadyToStartContainersCondition: the PodReadyToStartContainers pod
	// condition (GA, locked on).
	PodReadyToStartContainersCondition Gate = "PodReadyToStartContainersCondition"
	// PodObservedGenerationTracking: observedGeneration on the pod status and
	// its conditions (GA, locked on).
	PodObservedGenerationTracking Gate = "PodObservedGenerationTracking"
)

// Set holds one value per gate. The zero value has every gate off, which is
// not what any kubelet runs with: start from V1_37.
type Set struct {
	ContainerRestartRules                        bool
	RestartAllContainersOnContainerExits         bool
	ReduceDefaultCrashLoopBackOffDecay           bool
	KubeletCrashLoopBackOffMax                   bool
	InPlacePodVerticalScaling                    bool
	InPlacePodLevelResourcesVerticalScaling      bool
	InPlacePodVerticalScalingInitContainers      bool
	InPlacePodVerticalScalingMemoryBackedVolumes bool
	PodLevelResources                            bool
	ChangeContainerStatusOnKubeletRestart        bool
	PodReadyToStartContainersCondition           bool
	PodObservedGenerationTracking                bool
}

// V1_37 returns the gate defaults of kubelet v1.37.2.
func V1_37() Set {
	return Set{
		ContainerRestartRules:                        true,
		RestartAllContainersOnContainerExits:         true,
		ReduceDefaultCrashLoopBackOffDecay:           false,
		KubeletCrashLoopBackOffMax:                   true,
		InPlacePodVerticalScaling:                    true,
		InPlacePodLevelResourcesVerticalScaling:      true,
		InPlacePodVerticalScalingInitContainers:      true,
		InPlacePodVerticalScalingMemoryBackedVolumes: false,
		PodLevelResources:                            true,
		ChangeContainerStatusOnKubeletRestart:        false,
		PodReadyToStartContainersCondition:           true,
		PodObservedGenerationTracking:                true,
	}
}

// Gates lists every gate a Set holds, in a fixed order.
func Gates() []Gate {
	return []Gate{
		ContainerRestartRules,
		RestartAllContainersOnContainerExits,
		ReduceDefaultCrashLoopBackOffDecay,
		KubeletCrashLoopBackOffMax,
		InPlacePodVerticalScaling,
		InPlacePodLevelResourcesVerticalScaling,
		InPlacePodVerticalScalingInitContainers,
		InPlacePodVerticalScalingMemoryBackedVolumes,
		PodLevelResources,
		ChangeContainerStatusOnKubeletRestart,
		PodReadyToStartContainersCondition,
		PodObservedGenerationTracking,
	}
}

// Locked reports whether v1.37.2 locks the gate to its default, so that a
// real kubelet of that version cannot run with it changed.
func Locked(g Gate) bool {
	switch g {
	case InPlacePodVerticalScaling, InPlacePodVerticalScalingInitContainers,
		PodReadyToStartContainersCondition, PodObservedGenerationTracking:
		return true
	}
	return false
}

func (s *Set) field(g Gate) *bool {
	switch g {
	case ContainerRestartRules:
		return &s.ContainerRestartRules
	case RestartAllContainersOnContainerExits:
		return &s.RestartAllContainersOnContainerExits
	case ReduceDefaultCrashLoopBackOffDecay:
		return &s.ReduceDefaultCrashLoopBackOffDecay
	case KubeletCrashLoopBackOffMax:
		return &s.KubeletCrashLoopBackOffMax
	case InPlacePodVerticalScaling:
		return &s.InPlacePodVerticalScaling
	case InPlacePodLevelResourcesVerticalScaling:
		return &s.InPlacePodLevelResourcesVerticalScaling
	case InPlacePodVerticalScalingInitContainers:
		return &s.InPlacePodVerticalScalingInitContainers
	case InPlacePodVerticalScalingMemoryBackedVolumes:
		return &s.InPlacePodVerticalScalingMemoryBackedVolumes
	case PodLevelResources:
		return &s.PodLevelResources
	case ChangeContainerStatusOnKubeletRestart:
		return &s.ChangeContainerStatusOnKubeletRestart
	case PodReadyToStartContainersCondition:
		return &s.PodReadyToStartContainersCondition
	case PodObservedGenerationTracking:
		return &s.PodObservedGenerationTracking
	}
	return nil
}

// Enabled reports the value of g in s. A gate the Set does not hold reads
// as off.
func (s Set) Enabled(g Gate) bool {
	if f := s.field(g); f != nil {
		return *f
	}
	return false
}

// With returns a copy of s with g set to on. It returns an error for a gate
// the Set does not hold.
func (s Set) With(g Gate, on bool) (Set, error) {
	f := s.field(g)
	if f == nil {
		return s, fmt.Errorf("features: unknown gate %q", g)
	}
	*f = on
	return s, nil
}

// Map returns the gates as a name-to-value map, the shape kubelet
// configuration files and --feature-gates use.
func (s Set) Map() map[string]bool {
	m := make(map[string]bool, len(Gates()))
	for _, g := range Gates() {
		m[string(g)] = s.Enabled(g)
	}
	return m
}

// Diff lists, sorted, the gates whose value in s differs from V1_37.
func (s Set) Diff() []string {
	def := V1_37()
	var out []string
	for _, g := range Gates() {
		if s.Enabled(g) != def.Enabled(g) {
			out = append(out, fmt.Sprintf("%s=%t", g, s.Enabled(g)))
		}
	}
	sort.Strings(out)
	return out
}

// String renders s as the gates that differ from the v1.37.2 defaults, or
// "v1.37.2 defaults".
func (s Set) String() string {
	d := s.Diff()
	if len(d) == 0 {
		return "v1.37.2 defaults"
	}
	out := d[0]
	for _, x := range d[1:] {
		out += "," + x
	}
	return out
}
