package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// syncSlack is how late after an exit the kubelet notices it and restarts a
// container that is not in back-off: the PLEG relist period (1 s), the sync,
// and the CRI round trips.
const syncSlack = 3 * time.Second

// TestReplayBackOff checks every restart of a container that exited on its
// own against restart.BackOffConfig.Decide, replaying the kubelet's back-off
// record from the first start: a restart must come after the back-off ends
// (Decide says Start at the CreateContainer call), and no later than the
// kubelet's requeue granularity after it. The pod worker requeues a pod in
// back-off after the remaining back-off times a jitter factor of 1 to 1.5
// (completeWork in pkg/kubelet/pod_workers.go), so a restart may come up to
// half the delay after the back-off ends, plus syncSlack. A kubelet
// restart (restart-crashloop) clears the record, and so does the kubelet's
// expiry of a record last advanced more than 600 s before the exit
// (backoff-reset, whose kubelet ran with a 20 s cap: the expiry stays
// 600 s, not twice the cap).
func TestReplayBackOff(t *testing.T) {
	cases := []struct{ scenario, container string }{
		{"crashloop", "app"},
		{"crashloop-long", "app"},
		{"oom-always", "app"},
		{"oom-onfailure", "app"},
		{"restart-crashloop", "app"},
		{"onfailure-init", "prepare"},
		{"sidecar-crash", "sidecar"},
		{"backoff-reset", "app"},
	}
	gates := features.V1_37()
	for _, tc := range cases {
		t.Run(tc.scenario+"/"+tc.container, func(t *testing.T) {
			f := fixtureByName(t, tc.scenario)
			cfg, err := restart.NewBackOffConfig(gates, f.backOffSettings(t))
			if err != nil {
				t.Fatal(err)
			}
			spec := f.containerSpec(tc.container)
			if spec == nil {
				t.Fatalf("no container %s", tc.container)
			}
			inst := f.instances()
			removed := f.removedAt()
			var starts []criCall
			for _, c := range f.CRICalls {
				if c.Method == "CreateContainer" && c.Name == tc.container && c.Error == "" &&
					(removed.IsZero() || c.Time.Before(removed)) {
					starts = append(starts, c)
				}
			}
			if len(starts) < 3 {
				t.Fatalf("only %d starts of %s captured", len(starts), tc.container)
			}
			var entry restart.BackOffEntry
			checked := 0
			for k := 1; k < len(starts); k++ {
				prev, ok := inst[starts[k-1].Response]
				if !ok || prev.FinishedAt.IsZero() {
					t.Fatalf("restart %d: previous instance %s not seen exited", k, starts[k-1].Response)
				}
				st := &runtimestate.Pod{
					UID:        f.Pod.UID,
					Sandboxes:  []runtimestate.Sandbox{{ID: prev.SandboxID, Ready: true}},
					Containers: []runtimestate.Container{prev},
				}
				at := starts[k].Time
				// The back-off records are the kubelet's memory: a
				// restarted kubelet starts with none, and notices the exit
				// only once it runs (since).
				since := prev.FinishedAt
				for _, e := range f.Events {
					if strings.HasPrefix(e.What, "kubelet restarted") && e.Time.After(starts[k-1].Time) && e.Time.Before(at) {
						t.Logf("restart %d: the kubelet was restarted at %s since the previous start: no back-off record", k, e.Time.Format("15:04:05.000"))
						entry = restart.BackOffEntry{}
						if e.Time.After(since) {
							since = e.Time
						}
					}
				}
				// The kubelet's housekeeping (every 2 s) drops a record
				// last advanced more than 600 s ago.
				if g := entry.GC(prev.FinishedAt); g != entry {
					t.Logf("restart %d: the back-off record (delay %s, last advanced %s) expired %s before the exit: reset",
						k, entry.Delay, entry.LastUpdate.Format("15:04:05.000"), prev.FinishedAt.Sub(entry.LastUpdate.Add(restart.BackOffResetAfter)).Round(time.Millisecond))
					entry = g
				}
				atExit := cfg.Decide(f.Pod, spec, st, entry, prev.FinishedAt)
				gap := at.Sub(prev.FinishedAt)
				if atExit.Start {
					if at.Sub(since) > syncSlack {
						t.Errorf("restart %d: no back-off expected, but it came %s after the exit (%s after the kubelet could see it)", k, gap, at.Sub(since))
					}
				} else {
					late := at.Sub(atExit.Until)
					t.Logf("restart %d: back-off %s, restarted %s after the exit (%s after the back-off ended)",
						k, atExit.Delay, gap.Round(time.Millisecond), late.Round(time.Millisecond))
					if late < 0 {
						t.Errorf("restart %d: restarted %s before the back-off of %s ended", k, -late, atExit.Delay)
					}
					if max := atExit.Delay/2 + syncSlack; late > max {
						t.Errorf("restart %d: restarted %s after the back-off of %s ended, more than %s", k, late, atExit.Delay, max)
					}
				}
				d := cfg.Decide(f.Pod, spec, st, entry, at)
				if !d.Start {
					t.Errorf("restart %d at %s: Decide refuses the start: %s", k, at.Format("15:04:05.000"), d.Message)
				}
				entry = d.Entry
				checked++
			}
			t.Logf("%d restarts checked", checked)
		})
	}
}
