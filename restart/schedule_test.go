package restart

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

func starts(rs []ScheduledRestart) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Start.String())
	}
	return fmt.Sprint(out)
}

func TestSchedule(t *testing.T) {
	def, _ := NewBackOffConfig(features.V1_37(), BackOffSettings{})
	reduced, _ := NewBackOffConfig(func() features.Set {
		s, _ := features.V1_37().With(features.ReduceDefaultCrashLoopBackOffDecay, true)
		return s
	}(), BackOffSettings{})
	for _, tc := range []struct {
		name   string
		cfg    BackOffConfig
		runFor time.Duration
		want   string
	}{
		{"defaults, exits at once", def, 0, "[0s 10s 30s 1m10s 2m30s 5m10s 10m10s 15m10s]"},
		{"reduced decay: 1 s start, cap still 300 s", reduced, 0, "[0s 1s 3s 7s 15s 31s 1m3s 2m7s]"},
		{"runs 5 s each time", def, 5 * time.Second, "[5s 20s 45s 1m30s 2m55s 5m40s 10m45s 15m50s]"},
		// Running longer than BackOffResetAfter between exits starts over.
		{"runs 11 min each time", def, 11 * time.Minute, "[11m0s 22m0s 33m0s 44m0s 55m0s 1h6m0s 1h17m0s 1h28m0s]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := starts(tc.cfg.Schedule(8, tc.runFor)); got != tc.want {
				t.Errorf("starts %s, want %s", got, tc.want)
			}
		})
	}
	if def.String() != "initial 10s, max 5m0s" {
		t.Errorf("String() = %q", def)
	}
	if def.Schedule(0, 0) != nil {
		t.Error("Schedule(0) not nil")
	}
}

// Schedule agrees with Decide stepped restart by restart: at each exit the
// kubelet refuses the start until Start, then starts and advances the
// record as Schedule says.
func TestScheduleMatchesDecide(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		max := time.Duration(rapid.IntRange(1, 300).Draw(t, "max s")) * time.Second
		f, _ := features.V1_37().With(features.ReduceDefaultCrashLoopBackOffDecay, rapid.Bool().Draw(t, "reduced"))
		cfg, err := NewBackOffConfig(f, BackOffSettings{MaxContainerRestartPeriod: &max})
		if err != nil {
			t.Fatal(err)
		}
		runFor := time.Duration(rapid.SampledFrom([]int{0, 1, 7, 200, 700}).Draw(t, "run s")) * time.Second
		n := rapid.IntRange(1, 12).Draw(t, "n")
		epoch := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app"}}}}
		var e BackOffEntry
		for _, r := range cfg.Schedule(n, runFor) {
			exit := epoch.Add(r.Exit)
			st := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c", Name: "app", State: runtimestate.Exited, FinishedAt: exit}}}
			d := cfg.Decide(pod, &pod.Spec.Containers[0], st, e.GC(exit), exit)
			if r.Wait == 0 {
				if !d.Start {
					t.Fatalf("%v: Decide refuses at the exit until %v", r, d.Until)
				}
			} else {
				if d.Start || !d.Until.Equal(epoch.Add(r.Start)) {
					t.Fatalf("%v: Decide at the exit: start %v until %v", r, d.Start, d.Until.Sub(epoch))
				}
				at := epoch.Add(r.Start)
				if d = cfg.Decide(pod, &pod.Spec.Containers[0], st, e.GC(at), at); !d.Start {
					t.Fatalf("%v: Decide refuses at Start", r)
				}
			}
			if d.Entry.Delay != r.Delay {
				t.Fatalf("%v: delay after %v, Decide %v", r, r.Delay, d.Entry.Delay)
			}
			e = d.Entry
		}
	})
}

func TestEntryFromStatus(t *testing.T) {
	cfg, _ := NewBackOffConfig(features.V1_37(), BackOffSettings{})
	t0 := metav1.NewTime(time.Date(2026, 11, 30, 10, 0, 40, 0, time.UTC))
	crash := func(msg string, n int32) *v1.ContainerStatus {
		return &v1.ContainerStatus{Name: "app", RestartCount: n,
			State:                v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: msg}},
			LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{StartedAt: t0, FinishedAt: t0}}}
	}
	for _, tc := range []struct {
		name  string
		cs    *v1.ContainerStatus
		delay time.Duration
		src   EntrySource
	}{
		// A runtime history the runtime garbage-collected would give 10 s;
		// the message says what the kubelet holds.
		{"message wins over restartCount", crash("back-off 20s restarting failed container=app pod=p_ns(u)", 1), 20 * time.Second, FromMessage},
		{"message at the cap", crash("back-off 5m0s restarting failed container=app pod=p_ns(u)", 9), 5 * time.Minute, FromMessage},
		{"no message: from restartCount 3", crash("", 3), 40 * time.Second, FromRestartCount},
		{"restartCount past the cap", crash("", 30), 5 * time.Minute, FromRestartCount},
		{"never restarted", &v1.ContainerStatus{Name: "app"}, 0, NoEntry},
		{"nil", nil, 0, NoEntry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, src := cfg.EntryFromStatus(tc.cs)
			if e.Delay != tc.delay || src != tc.src {
				t.Errorf("delay %v from %q, want %v from %q", e.Delay, src, tc.delay, tc.src)
			}
			if src != NoEntry && !e.LastUpdate.Equal(t0.Time) {
				t.Errorf("LastUpdate %v, want the last start %v", e.LastUpdate, t0)
			}
		})
	}
}
