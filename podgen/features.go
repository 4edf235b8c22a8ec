package podgen

import (
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// FeatureOptions shape what Features generates. The zero value flips each
// gate that v1.37.2 does not lock with probability about 1/4 and keeps the
// gate dependencies the kubelet enforces.
type FeatureOptions struct {
	// Version is the kubelet version whose defaults, gates and locks the
	// sets start from (zero: v1.37.2).
	Version features.Version // an unknown Version fails the test that draws
	// FlipPercent is the chance, in percent, that a gate differs from its
	// v1.37.2 default. Zero means 25; 100 or more flips every gate that may
	// be flipped.
	FlipPercent int
	// FlipLocked lets the gates the version locks to their default
	// (Version.Locked) be flipped too. Such sets model code paths that
	// kubelet cannot run.
	FlipLocked bool
	// IgnoreDependencies keeps a gate on even when a gate it depends on is
	// off. A v1.37.2 kubelet refuses to start with such a set (see
	// Dependencies).
	IgnoreDependencies bool
}

// Dependencies returns, for each gate of features.Set that depends on
// others, the gates it needs on, as declared in v1.37.2's
// pkg/features/kube_features.go (the same in v1.35.4 and v1.36.3 for the
// gates those versions have).
func Dependencies() map[features.Gate][]features.Gate {
	return map[features.Gate][]features.Gate{
		features.RestartAllContainersOnContainerExits:         {features.ContainerRestartRules, features.NodeDeclaredFeatures},
		features.InPlacePodLevelResourcesVerticalScaling:      {features.InPlacePodVerticalScaling, features.PodLevelResources, features.NodeDeclaredFeatures},
		features.InPlacePodVerticalScalingInitContainers:      {features.InPlacePodVerticalScaling, features.NodeDeclaredFeatures},
		features.InPlacePodVerticalScalingMemoryBackedVolumes: {features.InPlacePodVerticalScaling, features.NodeDeclaredFeatures},
	}
}

// Features returns a generator of gate sets: each gate of the version
// starts at its default (features.ForVersion) and is flipped with the probability
// FlipPercent; locked gates stay at their default unless FlipLocked. Unless
// IgnoreDependencies, a gate whose dependency ended up off is turned off
// too, so every set is one a kubelet accepts.
func Features(opts FeatureOptions) *rapid.Generator[features.Set] {
	pct := opts.FlipPercent
	if pct <= 0 {
		pct = 25
	}
	start, err := features.ForVersion(opts.Version)
	v := start.Version()
	may := func(g features.Gate) bool { return v.Has(g) && (opts.FlipLocked || !v.Locked(g)) }
	finish := func(s features.Set) features.Set {
		if !opts.IgnoreDependencies {
			s = respectDependencies(s)
		}
		return s
	}
	if pct >= 100 {
		// Every gate that may flip does: nothing is left to draw, and
		// rapid wants every generator to draw something.
		return rapid.Custom(func(t *rapid.T) features.Set {
			if err != nil {
				t.Fatalf("podgen.Features: %v", err)
			}
			rapid.Just(0).Draw(t, "nothing to draw")
			s := start
			for _, g := range features.Gates() {
				if may(g) {
					s, _ = s.With(g, !s.Enabled(g))
				}
			}
			return finish(s)
		})
	}
	return rapid.Custom(func(t *rapid.T) features.Set {
		if err != nil {
			t.Fatalf("podgen.Features: %v", err)
		}
		s := start
		for _, g := range features.Gates() {
			if may(g) && chance(t, pct, "flip "+string(g)) {
				s, _ = s.With(g, !s.Enabled(g))
			}
		}
		return finish(s)
	})
}

// respectDependencies turns off every gate a dependency of which is off,
// until nothing changes (dependencies can chain).
func respectDependencies(s features.Set) features.Set {
	deps := Dependencies()
	for changed := true; changed; {
		changed = false
		for _, g := range features.Gates() {
			if !s.Enabled(g) {
				continue
			}
			for _, d := range deps[g] {
				if !s.Enabled(d) {
					s, _ = s.With(g, false)
					changed = true
					break
				}
			}
		}
	}
	return s
}
