// Package kubeletgates sets the real kubelet's feature gates for the length
// of one test (or one rapid iteration) and restores them afterwards.
//
// The kubelet reads gates from the process-global
// utilfeature.DefaultMutableFeatureGate, so tests that change gates must not
// run in parallel with each other (the upstream helper used underneath fails
// the test when it detects that).
package kubeletgates

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	// Registers the kubelet's gates on utilfeature.DefaultMutableFeatureGate.
	_ "k8s.io/kubernetes/pkg/features"
)

// TB is what Set and SetEmulationVersion need from a test. Both *testing.T
// and *rapid.T satisfy it; cleanups run when that test (or rapid iteration)
// ends.
type TB = featuregatetesting.TB

func gate() featuregate.MutableVersionedFeatureGate { return utilfeature.DefaultMutableFeatureGate }

// Enabled reports the current value of a gate. It panics on an unknown name.
func Enabled(name string) bool { return gate().Enabled(featuregate.Feature(name)) }

// Snapshot returns the current values of the named gates.
func Snapshot(names ...string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = Enabled(n)
	}
	return out
}

// Known reports whether name is a registered gate.
func Known(name string) bool {
	_, ok := gate().GetAllVersioned()[featuregate.Feature(name)]
	return ok
}

// LockedTo reports whether the gate is locked to its default at the current
// emulation version, and that default.
func LockedTo(name string) (locked bool, value bool, err error) {
	specs, ok := gate().GetAllVersioned()[featuregate.Feature(name)]
	if !ok {
		return false, false, fmt.Errorf("unknown feature gate %q", name)
	}
	emu, minCompat := gate().EmulationVersion(), gate().MinCompatibilityVersion()
	// The specs are ordered by version; the last one not newer than the
	// emulation version (and whose own minimum compatibility version, if any,
	// is met) is in effect.
	for i := len(specs) - 1; i >= 0; i-- {
		s := specs[i]
		if s.Version.GreaterThan(emu) {
			continue
		}
		if s.MinCompatibilityVersion != nil && minCompat != nil && !minCompat.AtLeast(s.MinCompatibilityVersion) {
			continue
		}
		return s.LockToDefault, s.Default, nil
	}
	return false, false, nil // not available at this emulation version
}

// Dependencies returns the registered dependencies of a gate (the gates it
// requires to be enabled whenever it is enabled).
func Dependencies(name string) []string {
	var out []string
	for _, d := range gate().Dependencies()[featuregate.Feature(name)] {
		out = append(out, string(d))
	}
	return out
}

// overrides returns the values Set will apply: the requested ones plus, as
// the upstream test helper does, every currently enabled gate that
// (transitively) depends on a gate requested to be false and is not itself in
// the request.
func overrides(g featuregate.FeatureGate, gates map[string]bool) map[string]bool {
	return overridesFrom(g.Enabled, g.Dependencies(), gates)
}

// overridesFrom is overrides with the gate's current values given by enabled.
func overridesFrom(enabled func(featuregate.Feature) bool, deps map[featuregate.Feature][]featuregate.Feature, gates map[string]bool) map[string]bool {
	out := make(map[string]bool, len(gates))
	for k, v := range gates {
		out[k] = v
	}
	var disabledBy func(f featuregate.Feature, seen map[featuregate.Feature]bool) bool
	disabledBy = func(f featuregate.Feature, seen map[featuregate.Feature]bool) bool {
		if v, ok := gates[string(f)]; ok {
			return !v
		}
		if seen[f] {
			return false
		}
		seen[f] = true
		for _, d := range deps[f] {
			if disabledBy(d, seen) {
				return true
			}
		}
		return false
	}
	for f := range deps {
		if _, explicit := gates[string(f)]; explicit || !enabled(f) {
			continue
		}
		if disabledBy(f, map[featuregate.Feature]bool{}) {
			out[string(f)] = false
		}
	}
	return out
}

// Validate reports whether Set(tb, gates) would succeed, without touching the
// global gate: unknown names, changes to locked gates and dependency
// violations are errors. Property tests can use it to discard invalid gate
// combinations.
func Validate(gates map[string]bool) error {
	var errs []string
	names := make([]string, 0, len(gates))
	for n := range gates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !Known(n) {
			errs = append(errs, fmt.Sprintf("unknown feature gate %q", n))
			continue
		}
		if locked, def, _ := LockedTo(n); locked && def != gates[n] {
			errs = append(errs, fmt.Sprintf("feature gate %s is locked to %v at emulation version %s", n, def, gate().EmulationVersion()))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	cp := gate().DeepCopy()
	if withLogger, ok := cp.(setFromMapWithLogger); ok {
		// Keep the trial run quiet (it would log warnings for GA and
		// deprecated gates).
		return withLogger.SetFromMapWithLogger(logr.Discard(), overrides(gate(), gates))
	}
	return cp.SetFromMap(overrides(gate(), gates))
}

// Set applies the given gate values (name -> enabled) for the duration of
// tb and restores the previous values when tb's cleanups run. Gates that
// depend on a gate set to false are switched off too unless listed in gates.
// An invalid request (see Validate) fails tb with Fatalf before the global
// gate is touched.
func Set(tb TB, gates map[string]bool) {
	tb.Helper()
	if len(gates) == 0 {
		return
	}
	if err := Validate(gates); err != nil {
		tb.Fatalf("kubeletgates.Set(%v): %v", gates, err)
		return
	}
	fo := featuregatetesting.FeatureOverrides{}
	for k, v := range gates {
		fo[featuregate.Feature(k)] = v
	}
	featuregatetesting.SetFeatureGatesDuringTest(tb, utilfeature.DefaultFeatureGate, fo)
}

// SetEmulationVersion makes the gate behave as in an older release ("1.36")
// for the duration of tb: gates that were only locked later become settable,
// but every gate takes its default (and availability) of that release. Call
// it before Set in the same test.
func SetEmulationVersion(tb TB, ver string) {
	tb.Helper()
	v, err := version.ParseMajorMinor(ver)
	if err != nil {
		tb.Fatalf("kubeletgates.SetEmulationVersion(%q): %v", ver, err)
		return
	}
	featuregatetesting.SetFeatureGateEmulationVersionDuringTest(tb, utilfeature.DefaultFeatureGate, v)
}

// EmulationVersion returns the gate's current emulation version ("1.37").
func EmulationVersion() string {
	v := gate().EmulationVersion()
	return fmt.Sprintf("%d.%d", v.Major(), v.Minor())
}

// Switcher changes the kubelet's gates many times within one test, one
// rapid case after another, at a fraction of the cost of Set on each
// *rapid.T (which validates on a copy of the whole registry, logs the whole
// gate map to the test, and restores every gate after each case).
//
// NewSwitcher calls Set on the test with the current values of the named
// gates, so the test's end restores them. Each Switch then sets the named
// gates to the requested values directly on the kubelet's gate, plus, as
// Set does, switches off every gate that depends on one requested off, and
// puts back to its value at NewSwitcher every gate an earlier Switch changed
// and this one does not. Each distinct resulting map is validated once, on a
// copy, before it is first applied. Not for parallel use.
type Switcher struct {
	base    map[featuregate.Feature]bool
	deps    map[featuregate.Feature][]featuregate.Feature
	touched map[string]bool
	checked map[string]error
	last    string // the map applied last, so that an identical request is free
}

// NewSwitcher prepares per-case switching of the named gates for tb's
// duration.
func NewSwitcher(tb TB, names []string) *Switcher {
	tb.Helper()
	cur := map[string]bool{}
	for _, n := range names {
		cur[n] = Enabled(n)
	}
	Set(tb, cur)
	s := &Switcher{base: map[featuregate.Feature]bool{}, deps: gate().Dependencies(), touched: map[string]bool{}, checked: map[string]error{}}
	for f := range gate().GetAll() {
		s.base[f] = gate().Enabled(f)
	}
	// Gates a Switch switched off as dependents may lie outside names: put
	// every gate any Switch touched back (before Set restores names).
	tb.Cleanup(func() {
		m := map[string]bool{}
		for n := range s.touched {
			m[n] = s.base[featuregate.Feature(n)]
		}
		if len(m) == 0 {
			return
		}
		var err error
		if withLogger, ok := gate().(setFromMapWithLogger); ok {
			err = withLogger.SetFromMapWithLogger(logr.Discard(), m)
		} else {
			err = gate().SetFromMap(m)
		}
		if err != nil {
			tb.Fatalf("kubeletgates: restoring %v: %v", m, err)
		}
	})
	return s
}

// Switch sets the gates (see Switcher); it returns the validation error of
// an invalid request without touching the kubelet's gate.
func (s *Switcher) Switch(gates map[string]bool) error {
	m := map[string]bool{}
	for n := range s.touched {
		m[n] = s.base[featuregate.Feature(n)]
	}
	for k, v := range overridesFrom(func(f featuregate.Feature) bool { return s.base[f] }, s.deps, gates) {
		m[k] = v
	}
	keys := make([]string, 0, len(m))
	for k, v := range m {
		keys = append(keys, fmt.Sprintf("%s=%t", k, v))
	}
	sort.Strings(keys)
	key := strings.Join(keys, ",")
	err, seen := s.checked[key]
	if !seen {
		for n := range gates {
			if locked, def, _ := LockedTo(n); locked && def != gates[n] {
				err = fmt.Errorf("feature gate %s is locked to %v", n, def)
			}
		}
		if err == nil {
			cp := gate().DeepCopy()
			if withLogger, ok := cp.(setFromMapWithLogger); ok {
				err = withLogger.SetFromMapWithLogger(logr.Discard(), m)
			} else {
				err = cp.SetFromMap(m)
			}
		}
		s.checked[key] = err
	}
	if err != nil {
		return err
	}
	if key == s.last {
		return nil
	}
	s.last = key
	for k := range m {
		s.touched[k] = true
	}
	if withLogger, ok := gate().(setFromMapWithLogger); ok {
		return withLogger.SetFromMapWithLogger(logr.Discard(), m)
	}
	return gate().SetFromMap(m)
}

// setFromMapWithLogger is what component-base calls
// MutableFeatureGateWithLogger (v0.36 and later), declared here so that the
// package also compiles against v0.35, where a gate has only SetFromMap.
type setFromMapWithLogger interface {
	SetFromMapWithLogger(logger logr.Logger, m map[string]bool) error
}
