package restart

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// TestHistoryFromNeedsTimes: a history whose times are missing is an error,
// not a history that replays to a delay of 0 (issue 23, item 4c); StartedAt
// stands in for CreatedAt; instances listed oldest first are read in the
// order of their times.
func TestHistoryFromNeedsTimes(t *testing.T) {
	cfg := BackOffConfig{Initial: 10 * time.Second, Max: 300 * time.Second}
	exited := func(id string, created, finished time.Duration) runtimestate.Container {
		c := runtimestate.Container{ID: id, Name: "app", State: runtimestate.Exited, ExitCode: 1, FinishedAt: t0.Add(finished)}
		if created >= 0 {
			c.CreatedAt = t0.Add(created)
		}
		return c
	}
	want := []Restart{{FinishedAt: t0.Add(3 * time.Second), At: t0.Add(17 * time.Second)}, {FinishedAt: t0.Add(20 * time.Second), At: t0.Add(40 * time.Second)}}
	for _, tc := range []struct {
		name    string
		ctrs    []runtimestate.Container
		wantErr string // part of the error; "" for want
	}{
		{"times given", []runtimestate.Container{exited("c3", 40*time.Second, 43*time.Second), exited("c2", 17*time.Second, 20*time.Second), exited("c1", 0, 3*time.Second)}, ""},
		{"listed oldest first", []runtimestate.Container{exited("c1", 0, 3*time.Second), exited("c2", 17*time.Second, 20*time.Second), exited("c3", 40*time.Second, 43*time.Second)}, ""},
		{"no createdAt", []runtimestate.Container{exited("c3", -1, 43*time.Second), exited("c2", -1, 20*time.Second), exited("c1", -1, 3*time.Second)}, "c3 gives neither createdAt nor startedAt"},
		{"no finishedAt", []runtimestate.Container{exited("c3", 40*time.Second, 43*time.Second), {ID: "c2", Name: "app", State: runtimestate.Exited, CreatedAt: t0.Add(17 * time.Second)}, exited("c1", 0, 3*time.Second)}, "c2 gives no finishedAt"},
	} {
		h, err := HistoryFrom(&runtimestate.Pod{Containers: tc.ctrs}, "app")
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || h != nil {
				t.Errorf("%s: history %+v, error %v; want an error with %q", tc.name, h, err, tc.wantErr)
			}
			continue
		}
		if err != nil || len(h) != 2 || h[0] != want[0] || h[1] != want[1] {
			t.Errorf("%s: history %+v, error %v; want %+v", tc.name, h, err, want)
			continue
		}
		if e := cfg.Replay(h, t0.Add(44*time.Second)); e.Delay != 20*time.Second {
			t.Errorf("%s: delay %v, want 20s", tc.name, e.Delay)
		}
	}
	// StartedAt stands in for CreatedAt.
	started := []runtimestate.Container{exited("c2", -1, 20*time.Second), exited("c1", -1, 3*time.Second)}
	started[0].StartedAt, started[1].StartedAt = t0.Add(17*time.Second), t0
	if h, err := HistoryFrom(&runtimestate.Pod{Containers: started}, "app"); err != nil || len(h) != 1 || h[0] != want[0] {
		t.Errorf("startedAt only: %+v %v", h, err)
	}
	// One instance: no history, no times needed.
	if h, err := HistoryFrom(&runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c1", Name: "app", State: runtimestate.Running}}}, "app"); err != nil || h != nil {
		t.Errorf("one instance: %+v %v", h, err)
	}
}
