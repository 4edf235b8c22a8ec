package restart

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func TestNewBackOffConfig(t *testing.T) {
	d := func(s int) *time.Duration { x := time.Duration(s) * time.Second; return &x }
	def := features.V1_37()
	reduced, _ := def.With(features.ReduceDefaultCrashLoopBackOffDecay, true)
	noMax, _ := def.With(features.KubeletCrashLoopBackOffMax, false)
	reducedNoMax, _ := reduced.With(features.KubeletCrashLoopBackOffMax, false)
	for _, tc := range []struct {
		name    string
		f       features.Set
		s       BackOffSettings
		want    BackOffConfig
		wantErr bool
	}{
		{"defaults", def, BackOffSettings{}, BackOffConfig{10 * time.Second, 300 * time.Second}, false},
		{"reduced decay, max defaulted to 300s", reduced, BackOffSettings{}, BackOffConfig{time.Second, 300 * time.Second}, false},
		{"reduced decay without max gate", reducedNoMax, BackOffSettings{}, BackOffConfig{time.Second, 60 * time.Second}, false},
		{"configured max", def, BackOffSettings{d(100)}, BackOffConfig{10 * time.Second, 100 * time.Second}, false},
		{"configured max below initial lowers initial", def, BackOffSettings{d(2)}, BackOffConfig{2 * time.Second, 2 * time.Second}, false},
		{"max above 300s refused", def, BackOffSettings{d(301)}, BackOffConfig{}, true},
		{"max below 1s refused", def, BackOffSettings{d(0)}, BackOffConfig{}, true},
		{"max set without gate refused", noMax, BackOffSettings{d(100)}, BackOffConfig{}, true},
		{"gate off", noMax, BackOffSettings{}, BackOffConfig{10 * time.Second, 300 * time.Second}, false},
	} {
		got, err := NewBackOffConfig(tc.f, tc.s)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v, error %v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}

// A container that exits 3 s after each start: the first restart is
// immediate, then 10 s, 20 s, 40 s …, capped at 300 s.
func TestDecideCrashLoop(t *testing.T) {
	cfg, _ := NewBackOffConfig(features.V1_37(), BackOffSettings{})
	pod := &v1.Pod{}
	pod.Name, pod.Namespace, pod.UID = "web", "default", "u1"
	c := &v1.Container{Name: "app", Image: "busybox"}
	var entry BackOffEntry
	now := t0
	var waits []time.Duration
	for i := 0; i < 8; i++ {
		finished := now.Add(3 * time.Second)
		st := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "x", Name: "app", State: runtimestate.Exited, ExitCode: 1, FinishedAt: finished}}}
		// The kubelet syncs every second until it may start.
		now = finished
		for {
			d := cfg.Decide(pod, c, st, entry, now)
			if d.Start {
				entry = d.Entry
				break
			}
			if d.Reason != "CrashLoopBackOff" || !strings.HasPrefix(d.Message, "back-off "+d.Delay.String()+" restarting failed container=app pod=web_default(u1)") {
				t.Fatalf("refusal text: %+v", d)
			}
			if !d.Until.Equal(finished.Add(d.Delay)) {
				t.Fatalf("until %v, want %v", d.Until, finished.Add(d.Delay))
			}
			now = now.Add(time.Second)
		}
		waits = append(waits, now.Sub(finished))
	}
	want := []time.Duration{0, 10, 20, 40, 80, 160, 300, 300}
	for i := range want {
		if waits[i] != want[i]*time.Second {
			t.Fatalf("waits %v, want %v (seconds)", waits, want)
		}
	}
}

func TestBackOffResets(t *testing.T) {
	cfg := BackOffConfig{Initial: 10 * time.Second, Max: 300 * time.Second}
	e := BackOffEntry{Delay: 160 * time.Second, LastUpdate: t0}
	// Ran for more than 10 minutes: the record is expired at the exit.
	if e.InBackOff(t0.Add(601*time.Second), t0.Add(602*time.Second)) {
		t.Error("expired record must not hold back")
	}
	if got := cfg.Next(e, t0.Add(601*time.Second), t0.Add(602*time.Second)); got.Delay != 10*time.Second {
		t.Errorf("after expiry Next = %v, want the initial delay", got)
	}
	if got := cfg.Next(e, t0.Add(600*time.Second), t0.Add(602*time.Second)); got.Delay != 300*time.Second {
		t.Errorf("exactly 600 s is not expired: got %v", got)
	}
	if !e.GC(t0.Add(601 * time.Second)).IsZero() {
		t.Error("GC must drop a record older than 600 s")
	}
	if e.GC(t0.Add(600*time.Second)) != e {
		t.Error("GC must keep a record of exactly 600 s")
	}
}

func TestBackOffKey(t *testing.T) {
	pod := &v1.Pod{}
	pod.Name, pod.Namespace, pod.UID = "web", "default", "u1"
	c := &v1.Container{Name: "app", Image: "busybox"}
	k := BackOffKey(pod, c)
	if k == "" || strings.ToLower(k) != k {
		t.Fatalf("key %q", k)
	}
	c2 := c.DeepCopy()
	c2.Resources.Limits = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
	c3 := c.DeepCopy()
	c3.Image = "busybox:2"
	c4 := c.DeepCopy()
	c4.Command = []string{"sh"}
	if BackOffKey(pod, c2) == k || BackOffKey(pod, c3) == k {
		t.Error("image or resources change must change the key")
	}
	if BackOffKey(pod, c4) != k {
		t.Error("command does not take part in the key")
	}
	if BackOffKey(nil, nil) == "" {
		t.Error("nil inputs still give a key")
	}
}

func TestReplayAndHistory(t *testing.T) {
	cfg := BackOffConfig{Initial: 10 * time.Second, Max: 300 * time.Second}
	st := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c3", Name: "app", State: runtimestate.Exited, ExitCode: 1, CreatedAt: t0.Add(40 * time.Second), FinishedAt: t0.Add(43 * time.Second)},
		{ID: "c2", Name: "app", State: runtimestate.Exited, ExitCode: 1, CreatedAt: t0.Add(17 * time.Second), FinishedAt: t0.Add(20 * time.Second)},
		{ID: "c1", Name: "app", State: runtimestate.Exited, ExitCode: 1, CreatedAt: t0, FinishedAt: t0.Add(3 * time.Second)},
	}}
	h, err := HistoryFrom(st, "app")
	if err != nil || len(h) != 2 || !h[0].At.Equal(t0.Add(17*time.Second)) || !h[1].FinishedAt.Equal(t0.Add(20*time.Second)) {
		t.Fatalf("history %+v", h)
	}
	e := cfg.Replay(h, t0.Add(44*time.Second))
	if e.Delay != 20*time.Second {
		t.Fatalf("after two restarts delay %v, want 20s", e.Delay)
	}
	pod := &v1.Pod{}
	d := cfg.Decide(pod, &v1.Container{Name: "app"}, st, e, t0.Add(50*time.Second))
	if d.Start || !d.Until.Equal(t0.Add(63*time.Second)) {
		t.Errorf("decision %+v, want wait until +63s", d)
	}
	// A long pause between restarts lets the periodic clean-up forget.
	late := []Restart{{FinishedAt: t0, At: t0.Add(time.Second)}, {FinishedAt: t0.Add(2 * time.Second), At: t0.Add(700 * time.Second)}}
	if e := cfg.Replay(late, t0.Add(701*time.Second)); e.Delay != 10*time.Second {
		t.Errorf("after GC the delay restarts at 10s, got %v", e.Delay)
	}
}

func TestDecideWithoutExitedInstance(t *testing.T) {
	cfg := BackOffConfig{Initial: 10 * time.Second, Max: 300 * time.Second}
	e := BackOffEntry{Delay: 40 * time.Second, LastUpdate: t0}
	st := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c", Name: "app", State: runtimestate.Created}}}
	d := cfg.Decide(&v1.Pod{}, &v1.Container{Name: "app"}, st, e, t0)
	if !d.Start || d.Entry != e {
		t.Errorf("no exited instance: start and keep the record, got %+v", d)
	}
	if d := cfg.Decide(nil, nil, nil, e, t0); !d.Start {
		t.Error("nil inputs start")
	}
}
