// Package features is the set of kubelet feature gates that change a
// decision kubeletlogic makes.
//
// The kubelet reads its gates from a process-global registry; kubeletlogic
// never does. Every decision function takes a [Set] as an argument, so two
// calls with different gate settings can run side by side. The zero Set is
// kubelet v1.37.2 with its default gates ([V1_37] returns the same), so an
// Options struct that leaves its Features out models a real v1.37.2 node;
// use With or [Parse] to model a node that runs with a gate changed.
//
// A Set also carries the kubelet version it models (see [Version]): [V1_36]
// and [V1_35] return the defaults of kubelet v1.36.3 and v1.35.4, and every
// decision whose code changed between those versions and v1.37.2 reads the
// version from the Set, so a version is passed exactly like the gates.
//
// Some gates are locked to their default (see [Locked] and [Version.Locked]): a
// real kubelet of that version refuses to change them. A Set can still turn
// them off, which models the code path the kubelet takes when the gate is
// off; such settings are not reachable on a node of that version.
//
// Gates that older versions flip and that the library does not hold, and
// why: ResourceHealthStatus (device health in allocatedResourcesStatus; the
// library has no input for device health), MemoryQoS (cgroup settings
// during a resize: actuation, not a decision), ImageVolumeWithDigest (image
// volume digests in volumeMounts status: the library does not model image
// volumes), PLEGOnDemandRelist (the relist of a pod right after its sync,
// beta in v1.36 and locked on in v1.37: sim relists so from v1.36 on and
// models no v1.36 node with it turned off). None changes a decision the
// library makes at one instant.
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
	// NodeDeclaredFeatures: the node declares the features it supports and
	// admission checks pods against them (GA, locked on; Alpha, off, in
	// v1.35). No decision in scope reads it (admission is outside the
	// library); the Set holds it because RestartAllContainersOnContainerExits
	// and the in-place resize gates depend on it, so a v1.35 kubelet refuses
	// them without it.
	NodeDeclaredFeatures Gate = "NodeDeclaredFeatures"
)

// Set is the gate configuration of one kubelet: a kubelet version (see
// Version) and the value of every gate. Its zero value is kubelet v1.37.2
// with every gate at its default: a Set left out of an Options struct, or
// declared and never changed, models a real v1.37.2 node. V1_36 and V1_35
// model older kubelets; the decisions read the version from the Set, so the
// version is passed exactly like the gates. Change gates with With (or
// Parse / ParseFor, for the --feature-gates syntax); read them with Enabled.
//
// A Set stores only the version and the gates that differ from that
// version's defaults, so two Sets of one version that enable the same gates
// are == equal however they were built.
type Set struct {
	// flipped has bit i set when gates[i] differs from its default in ver.
	flipped uint32
	ver     Version
}

// V1_37 returns the gate defaults of kubelet v1.37.2. It equals the zero
// Set.
func V1_37() Set { return Set{} }

// V1_36 returns kubelet v1.36.3 with its default gates.
func V1_36() Set { return Set{ver: V1_36_3} }

// V1_35 returns kubelet v1.35.4 with its default gates.
func V1_35() Set { return Set{ver: V1_35_4} }

// ForVersion returns kubelet v with its default gates, or an error for a
// version this package does not model.
func ForVersion(v Version) (Set, error) {
	if !v.valid() {
		return Set{}, fmt.Errorf("features: unknown kubelet version %d (known: %v)", uint8(v), Versions())
	}
	return Set{ver: v}, nil
}

// Version returns the kubelet version s models.
func (s Set) Version() Version { return s.ver }

// gates lists every gate with, per version (indexed by Version), whether
// the kubelet has it, its default, and whether it is locked to that
// default; a gate's bit in Set.flipped is its index here. The values are
// those of pkg/features/kube_features.go of each version, evaluated at the
// binary's own minor.
var gates = [...]struct {
	g      Gate
	has    [numVersions]bool
	def    [numVersions]bool
	locked [numVersions]bool
}{
	//                                              v1.37.2, v1.36.3, v1.35.4
	{ContainerRestartRules, all, [3]bool{true, true, true}, none},
	{RestartAllContainersOnContainerExits, all, [3]bool{true, true, false}, none},
	{ReduceDefaultCrashLoopBackOffDecay, all, none, none},
	{KubeletCrashLoopBackOffMax, all, all, none},
	{InPlacePodVerticalScaling, all, all, all},
	{InPlacePodLevelResourcesVerticalScaling, all, [3]bool{true, true, false}, none},
	{InPlacePodVerticalScalingInitContainers, [3]bool{true, true, false}, [3]bool{true, true, false}, [3]bool{true, false, false}},
	{InPlacePodVerticalScalingMemoryBackedVolumes, [3]bool{true, false, false}, none, none},
	{PodLevelResources, all, all, none},
	{ChangeContainerStatusOnKubeletRestart, all, none, none},
	{PodReadyToStartContainersCondition, all, all, [3]bool{true, false, false}},
	{PodObservedGenerationTracking, all, all, all},
	{NodeDeclaredFeatures, all, [3]bool{true, true, false}, [3]bool{true, false, false}},
}

var (
	all  = [numVersions]bool{true, true, true}
	none = [numVersions]bool{}
)

// Gates lists every gate a Set holds, in a fixed order: the gates of every
// version modelled. Version.Has tells which a given version has.
func Gates() []Gate {
	out := make([]Gate, len(gates))
	for i, e := range gates {
		out[i] = e.g
	}
	return out
}

// Default reports g's default in kubelet v1.37.2; an unknown gate reads as
// off. Version.Default answers for another version.
func Default(g Gate) bool { return V1_37_2.Default(g) }

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
	case NodeDeclaredFeatures:
		return 12
	}
	return -1
}

// Locked reports whether kubelet v1.37.2 refuses to change g from its
// default (a GA gate with LockToDefault). Version.Locked answers for
// another version.
func Locked(g Gate) bool { return V1_37_2.Locked(g) }

// Enabled reports the value of g in s. A gate the Set does not hold, or
// that s's kubelet version does not have, reads as off.
//
// Enabled is small enough to inline, and index with it: asked for a gate
// named by its constant, the switch folds away and what is left is one
// load and a few bit operations (an unknown gate's index, -1, shifts every
// bit out).
func (s Set) Enabled(g Gate) bool {
	return (defaultBits[s.ver]^s.flipped)>>uint(index(g))&1 != 0
}

// defaultBits has, for each version, bit i set when gates[i] is on by
// default in it.
var defaultBits = func() (out [numVersions]uint32) {
	for i, g := range gates {
		for v := range out {
			if g.def[v] {
				out[v] |= 1 << i
			}
		}
	}
	return out
}()

// With returns a copy of s with g set to on. It returns an error for a gate
// the Set does not hold, and for turning on a gate s's kubelet version does
// not have (turning it off is allowed: it is off). Any other combination is
// allowed, including a locked gate turned off or a gate on while one it
// depends on in the kubelet is off: such a Set models the code path, not a
// node the kubelet would run.
func (s Set) With(g Gate, on bool) (Set, error) {
	i := index(g)
	if i < 0 {
		return s, fmt.Errorf("features: unknown gate %q (known: %v)", g, Gates())
	}
	if !gates[i].has[s.ver] {
		if on {
			return s, fmt.Errorf("features: kubelet %s has no gate %s", s.ver, g)
		}
		return s, nil
	}
	if on == gates[i].def[s.ver] {
		s.flipped &^= 1 << i
	} else {
		s.flipped |= 1 << i
	}
	return s, nil
}

// Parse reads the --feature-gates syntax, "Name=true,Other=false" (spaces
// allowed, empty string allowed), applied to the v1.37.2 defaults. An
// unknown gate or a value other than true/false is an error. ParseFor does
// the same for another kubelet version.
func Parse(spec string) (Set, error) { return ParseFor(V1_37_2, spec) }

// ParseFor reads the --feature-gates syntax applied to the defaults of
// kubelet v. A gate that v does not have is an error when set to true.
func ParseFor(v Version, spec string) (Set, error) {
	s, err := ForVersion(v)
	if err != nil {
		return Set{}, err
	}
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

// Map returns the gates s's kubelet version has as a name-to-value map,
// the shape kubelet configuration files and --feature-gates use.
func (s Set) Map() map[string]bool {
	m := make(map[string]bool, len(gates))
	for _, e := range gates {
		if e.has[s.ver] {
			m[string(e.g)] = s.Enabled(e.g)
		}
	}
	return m
}

// Diff lists, sorted, the gates whose value in s differs from the defaults
// of s's kubelet version, as Name=value.
func (s Set) Diff() []string {
	var out []string
	for i, e := range gates {
		if s.flipped&(1<<i) != 0 {
			out = append(out, fmt.Sprintf("%s=%t", e.g, !e.def[s.ver]))
		}
	}
	sort.Strings(out)
	return out
}

// String renders a v1.37.2 Set as the gates that differ from the defaults
// ("ContainerRestartRules=false,…"), or "v1.37.2 defaults"; Parse reads it
// back. Another version renders as "v1.35.4 defaults" or "v1.35.4 defaults
// with A=true,B=false"; ParseFor(s.Version(), strings.Join(s.Diff(), ","))
// reads that back.
func (s Set) String() string {
	d := strings.Join(s.Diff(), ",")
	switch {
	case d == "":
		return s.ver.String() + " defaults"
	case s.ver == V1_37_2:
		return d
	}
	return s.ver.String() + " defaults with " + d
}
