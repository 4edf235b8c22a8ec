package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// The PLEG's global relist starts one relist period (1 s) after the
// previous relist ended (generic.go, the timer re-armed after each
// relist), so relists are 1 s plus one relist's duration apart. The
// duration is the one measured on the captures of round 1 (one kubelet,
// containerd 1.6): the crash loops' ContainerDied events, each seen by a
// global relist, lie on a grid of 1.0045 s (crashloop, onfailure-init,
// sidecar-crash: 1.0040 to 1.0048 s over 41 s to 85 s; appkilled: 20
// relists in 20.086 s), not 1.010 s. A crash-looping container's deaths
// are seen by relists a whole number of those periods apart.
func TestGlobalRelistsAPeriodPlusARelistApart(t *testing.T) {
	pod := staticPod("crash", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(2), ExitCode: 1}}}}}
	const every = time.Second + 4500*time.Microsecond
	if got := sim.DefaultRuntimeDelays().Relist.D(); got != 4500*time.Microsecond {
		t.Errorf("default relist duration %s, want 4.5ms", got)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(120)}, sim.PodInput{Pod: pod, Script: script})
		var died []time.Duration
		for _, e := range tl.Entries {
			if e.Kind == sim.KindPLEG && strings.HasPrefix(e.Message, "ContainerDied ") {
				died = append(died, e.At)
			}
		}
		if len(died) < 4 {
			t.Fatalf("seed %d: %d deaths seen, want 4 or more\n%s", seed, len(died), tl.Events())
		}
		for _, d := range died[1:] {
			gap := d - died[0]
			n := (gap + every/2) / every
			if off := gap - n*every; off < -time.Microsecond || off > time.Microsecond {
				t.Errorf("seed %d: deaths seen %s apart: %d relists of %s and %s off the grid", seed, gap, n, every, off)
			}
		}
	}
}
