// Package features is the set of kubelet feature gates that change a
// decision kubeletlogic makes.
//
// The kubelet reads its gates from a process-global registry; kubeletlogic
// never does. Every decision function takes a Set as an argument, so two
// calls with different gate settings can run side by side. The zero Set is
// kubelet v1.37.2 with its default gates (V1_37 returns the same), so an
// Options struct that leaves its Features out models a real v1.37.2 node;
// use With or Parse to model a node that runs with a gate changed.
//
// Some gates are locked to their default in v1.37.2 (see Locked): a real
// v1.37.2 kubelet refuses to change them. A Set can still turn them off, which
// models the code path the kubelet takes when the gate is off; such settings
// are not reachable on a v1.37.2 node.
package features

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
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
	// instead of 10 s (Alpha, default off). Its cap is 60 s only while
	// KubeletCrashLoopBackOffMax is off; with that gate on (the default)
	// the cap is the configured maxContainerRestartPeriod, 300 s unless set
	// (see restart.NewBackOffConfig).
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

// Set is the gate configuration of one kubelet. Its zero value is kubelet
// v1.37.2 with every gate at its default: a Set left out of an Options
// struct, or declared and never changed, models a real v1.37.2 node. Change
// gates with With (or Parse, for the --feature-gates syntax); read them with
// Enabled.
//
// A Set stores only the gates that differ from the defaults, so two Sets
// that enable the same gates are == equal however they were built.
type Set struct {
	// flipped has bit i set when Gates()[i] differs from its default.
	flipped uint32
}

// V1_37 returns the gate defaults of kubelet v1.37.2. It equals the zero
// Set.
func V1_37() Set { return Set{} }

// gates lists every gate with its v1.37.2 default, in a fixed order; a
// gate's bit in Set.flipped is its index here.
var gates = [...]struct {
	g   Gate
	def bool
}{
	{ContainerRestartRules, true},
	{RestartAllContainersOnContainerExits, true},
	{ReduceDefaultCrashLoopBackOffDecay, false},
	{KubeletCrashLoopBackOffMax, true},
	{InPlacePodVerticalScaling, true},
	{InPlacePodLevelResourcesVerticalScaling, true},
	{InPlacePodVerticalScalingInitContainers, true},
	{InPlacePodVerticalScalingMemoryBackedVolumes, false},
	{PodLevelResources, true},
	{ChangeContainerStatusOnKubeletRestart, false},
	{PodReadyToStartContainersCondition, true},
	{PodObservedGenerationTracking, true},
}

// Gates lists every gate a Set holds, in a fixed order.
func Gates() []Gate {
	out := make([]Gate, len(gates))
	for i, e := range gates {
		out[i] = e.g
	}
	return out
}

// Default reports g's default in kubelet v1.37.2; an unknown gate reads as
// off.
func Default(g Gate) bool {
	if i := index(g); i >= 0 {
		return gates[i].def
	}
	return false
}

// index returns g's position in gates, or -1. Every decision asks Enabled
// on its hot path, so this is a switch (the compiler dispatches on the
// length first) rather than a scan of the table; TestIndexMatchesTable keeps
// the two in step.
func index(g Gate) int {
	switch g {
	case ContainerRestartRules:
		return 0
	case RestartAllContainersOnContainerExits:
		return 1
	case ReduceDefaultCrashLoopBackOffDecay:
		return 2
	case KubeletCrashLoopBackOffMax:
		return 3
	case InPlacePodVerticalScaling:
		return 4
	case InPlacePodLevelResourcesVerticalScaling:
		return 5
	case InPlacePodVerticalScalingInitContainers:
		return 6
	case InPlacePodVerticalScalingMemoryBackedVolumes:
		return 7
	case PodLevelResources:
		return 8
	case ChangeContainerStatusOnKubeletRestart:
		return 9
	case PodReadyToStartContainersCondition:
		return 10
	case PodObservedGenerationTracking:
		return 11
	}
	return -1
}

// Locked reports whether kubelet v1.37.2 refuses to change g from its
// default (a GA gate with LockToDefault).
func Locked(g Gate) bool {
	switch g {
	case InPlacePodVerticalScaling, InPlacePodVerticalScalingInitContainers,
		PodReadyToStartContainersCondition, PodObservedGenerationTracking:
		return true
	}
	return false
}

// Enabled reports the value of g in s. A gate the Set does not hold reads
// as off.
func (s Set) Enabled(g Gate) bool {
	i := index(g)
	if i < 0 {
		return false
	}
	return gates[i].def != (s.flipped&(1<<i) != 0)
}

// With returns a copy of s with g set to on. It returns an error for a gate
// the Set does not hold. Any combination is allowed, including a locked
// gate turned off or a gate on while one it depends on in the kubelet is
// off: such a Set models the code path, not a node v1.37.2 would run.
func (s Set) With(g Gate, on bool) (Set, error) {
	i := index(g)
	if i < 0 {
		return s, fmt.Errorf("features: unknown gate %q (known: %v)", g, Gates())
	}
	if on == gates[i].def {
		s.flipped &^= 1 << i
	} else {
		s.flipped |= 1 << i
	}
	return s, nil
}

// Parse reads the --feature-gates syntax, "Name=true,Other=false" (spaces
// allowed, empty string allowed), applied to the v1.37.2 defaults. An
// unknown gate or a value other than true/false is an error.
func Parse(spec string) (Set, error) {
	var s Set
	for _, kv := range strings.Split(spec, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return Set{}, fmt.Errorf("features: %q: want Name=true or Name=false", kv)
		}
		on, err := strconv.ParseBool(strings.TrimSpace(val))
		if err != nil {
			return Set{}, fmt.Errorf("features: %q: value must be true or false", kv)
		}
		if s, err = s.With(Gate(strings.TrimSpace(name)), on); err != nil {
			return Set{}, err
		}
	}
	return s, nil
}

// Map returns the gates as a name-to-value map, the shape kubelet
// configuration files and --feature-gates use.
func (s Set) Map() map[string]bool {
	m := make(map[string]bool, len(gates))
	for _, e := range gates {
		m[string(e.g)] = s.Enabled(e.g)
	}
	return m
}

// Diff lists, sorted, the gates whose value in s differs from the v1.37.2
// defaults, as Name=value.
func (s Set) Diff() []string {
	var out []string
	for i, e := range gates {
		if s.flipped&(1<<i) != 0 {
			out = append(out, fmt.Sprintf("%s=%t", e.g, !e.def))
		}
	}
	sort.Strings(out)
	return out
}

// String renders s as the gates that differ from the v1.37.2 defaults
// ("ContainerRestartRules=false,…"), or "v1.37.2 defaults". Parse reads it
// back.
func (s Set) String() string {
	d := s.Diff()
	if len(d) == 0 {
		return "v1.37.2 defaults"
	}
	return strings.Join(d, ",")
}
