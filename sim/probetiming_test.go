package sim

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/probe"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// probeFacts are what a timeline shows of one container's first instance
// and its probe worker: when the worker started (the pod's first SyncPod),
// the instance's startedAt (as the runtime has it, to the nanosecond: the
// StartContainer call's return) and when a stored status first
// showed it running and started, and the first committed non-initial
// result of the probe kind.
type probeFacts struct {
	workerStart, startedAt, seen, committed time.Time
	result                                  vocab.ProbeResult
	ok                                      bool
}

func probeFactsOf(tl *Timeline, pod, container, kind string, needStarted bool) probeFacts {
	var f probeFacts
	at := func(d time.Duration) time.Time { return tl.Start.Add(d) }
	if e, ok := tl.First(pod, func(e Entry) bool { return e.Kind == KindSync && e.Work == "sync" }); ok {
		f.workerStart = at(e.At)
	}
	if e, ok := tl.First(pod, func(e Entry) bool {
		if e.Kind != KindStatus || e.Status == nil {
			return false
		}
		for _, l := range [][]v1.ContainerStatus{e.Status.Status.InitContainerStatuses, e.Status.Status.ContainerStatuses} {
			for _, cs := range l {
				if cs.Name == container && cs.State.Running != nil && (!needStarted || (cs.Started != nil && *cs.Started)) {
					f.startedAt = cs.State.Running.StartedAt.Time
					return true
				}
			}
		}
		return false
	}); ok {
		f.seen = at(e.At)
	}
	// The runtime's startedAt: when StartContainer of that instance
	// returned (the status holds it cut to the second).
	if e, ok := tl.First(pod, func(e Entry) bool {
		return e.Kind == KindCRI && e.Call != nil && e.Call.Method == "StartContainer" && e.Call.Name == container
	}); ok {
		rt := at(e.At + e.Call.Done - e.Call.At)
		if !rt.Truncate(time.Second).Equal(f.startedAt) {
			return probeFacts{}
		}
		f.startedAt = rt
	}
	if e, ok := tl.First(pod, func(e Entry) bool {
		return e.Kind == KindProbe && e.Probe != nil && e.Probe.Container == container && e.Probe.Probe == kind && !e.Probe.Initial
	}); ok {
		f.committed, f.result = at(e.At), e.Probe.Result
	}
	f.ok = !f.workerStart.IsZero() && !f.seen.IsZero() && !f.committed.IsZero()
	return f
}

var execProbe = v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"check"}}}

// drawProbe draws a probe's timing fields, each sometimes left out.
func drawProbe(t *rapid.T, label string) *v1.Probe {
	p := &v1.Probe{ProbeHandler: execProbe}
	p.PeriodSeconds = rapid.Int32Range(0, 12).Draw(t, label+" period")
	p.FailureThreshold = rapid.Int32Range(0, 6).Draw(t, label+" failureThreshold")
	p.InitialDelaySeconds = rapid.SampledFrom([]int32{0, 0, 1, 2, 3, 5, 7, 10, 13, 30}).Draw(t, label+" initialDelay")
	p.TimeoutSeconds = rapid.Int32Range(0, 3).Draw(t, label+" timeout")
	return p
}

// TestLivenessKillMatchesProbeSchedule: for a liveness probe that always
// fails, the first kill in Simulate comes exactly when probe.ScheduleOf
// says, given what the timeline shows of the worker and the instance (a
// kubelet up for longer than a period: no random delay), over random
// periods, thresholds, initial delays, pod arrival times and runtime
// delays (which move the container's start within and across whole
// seconds).
func TestLivenessKillMatchesProbeSchedule(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lp := drawProbe(t, "liveness")
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "app", LivenessProbe: lp}}}}
		in := PodInput{Pod: pod, At: dur(t, "arrival", 3),
			Script: Script{
				Containers: map[string]Behaviour{"app": {Runs: []Run{{Liveness: []ProbeStep{{At: 0, Result: vocab.ProbeFailure}}}}}},
				Runtime:    RuntimeDelays{RunPodSandbox: dur(t, "RunPodSandbox", 3), StartContainer: dur(t, "StartContainer", 2)},
			}}
		tl, err := Simulate(Config{For: Duration(3 * time.Minute), Seed: rapid.Uint64().Draw(t, "seed")}, []PodInput{in})
		if err != nil {
			t.Fatal(err)
		}
		f := probeFactsOf(tl, "p", "app", "liveness", true)
		if !f.ok || f.result != vocab.ProbeFailure {
			t.Fatalf("no liveness failure in the timeline (%+v)\n%s", f, tl.Events())
		}
		timing := probe.TimingOf(pod.Spec.Containers[0].LivenessProbe)
		s := probe.ScheduleOf(timing, probe.Clock{Start: f.workerStart, KubeletUp: time.Hour}, probe.Instance{StartedAt: f.startedAt, Seen: f.seen})
		if !s.Fail.Equal(f.committed) {
			t.Fatalf("kill at %s in the simulation, ScheduleOf says %s (first probe %s; worker from %s, startedAt %s, seen %s)\n%s",
				f.committed.Sub(tl.Start), s.Fail.Sub(tl.Start), s.FirstProbe.Sub(tl.Start), f.workerStart.Sub(tl.Start), f.startedAt.Sub(tl.Start), f.seen.Sub(tl.Start), tl.Events())
		}
	})
}

// TestLivenessKillWithinJitterWindow: a kubelet that started less than a
// period before the pod draws a random first delay; the kill then lies in
// the window [earliest, earliest + period) that EarliestProbe gives.
func TestLivenessKillWithinJitterWindow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lp := drawProbe(t, "liveness")
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "app", LivenessProbe: lp}}}}
		in := PodInput{Pod: pod, Script: Script{Containers: map[string]Behaviour{"app": {Runs: []Run{{Liveness: []ProbeStep{{At: 0, Result: vocab.ProbeFailure}}}}}}}}
		up := dur(t, "kubelet uptime", 1)
		tl, err := Simulate(Config{For: Duration(3 * time.Minute), KubeletUptime: up + Duration(time.Millisecond), Seed: rapid.Uint64().Draw(t, "seed")}, []PodInput{in})
		if err != nil {
			t.Fatal(err)
		}
		f := probeFactsOf(tl, "p", "app", "liveness", true)
		if !f.ok {
			t.Fatalf("no liveness failure\n%s", tl.Events())
		}
		timing := probe.TimingOf(lp)
		inst := probe.Instance{StartedAt: f.startedAt, Seen: f.seen}
		lo := probe.Commit(timing, probe.EarliestProbe(timing, inst), timing.FailureThreshold, 0)
		hi := lo.Add(timing.Period)
		if f.committed.Before(lo) || !f.committed.Before(hi) {
			t.Fatalf("kill at %s, outside [%s, %s]\n%s", f.committed.Sub(tl.Start), lo.Sub(tl.Start), hi.Sub(tl.Start), tl.Events())
		}
	})
}

// TestStartupProbeScheduleOnSidecar: a native sidecar's startup probe that
// succeeds commits Success when ScheduleOf says, and the app container is
// created only after it; one that always fails kills the sidecar when
// ScheduleOf says.
func TestStartupProbeScheduleOnSidecar(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sp := drawProbe(t, "startup")
		always := v1.ContainerRestartPolicyAlways
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: v1.PodSpec{
			InitContainers: []v1.Container{{Name: "proxy", Image: "proxy", RestartPolicy: &always, StartupProbe: sp}},
			Containers:     []v1.Container{{Name: "app", Image: "app"}}}}
		fails := rapid.Bool().Draw(t, "startup fails")
		var run Run
		if fails {
			run.Startup = []ProbeStep{{At: 0, Result: vocab.ProbeFailure}}
		}
		in := PodInput{Pod: pod, At: dur(t, "arrival", 3), Script: Script{Containers: map[string]Behaviour{"proxy": {Runs: []Run{run}}}}}
		tl, err := Simulate(Config{For: Duration(5 * time.Minute), Seed: rapid.Uint64().Draw(t, "seed")}, []PodInput{in})
		if err != nil {
			t.Fatal(err)
		}
		f := probeFactsOf(tl, "p", "proxy", "startup", false)
		if !f.ok {
			t.Fatalf("no startup result\n%s", tl.Events())
		}
		s := probe.ScheduleOf(probe.TimingOf(sp), probe.Clock{Start: f.workerStart, KubeletUp: time.Hour}, probe.Instance{StartedAt: f.startedAt, Seen: f.seen})
		want, res := s.Succeed, vocab.ProbeSuccess
		if fails {
			want, res = s.Fail, vocab.ProbeFailure
		}
		if f.result != res || !want.Equal(f.committed) {
			t.Fatalf("startup %s at %s in the simulation, ScheduleOf says %s at %s\n%s", f.result, f.committed.Sub(tl.Start), res, want.Sub(tl.Start), tl.Events())
		}
		app, ok := tl.First("p", func(e Entry) bool {
			return e.Kind == KindCRI && e.Call != nil && e.Call.Method == "CreateContainer" && e.Call.Name == "app"
		})
		if fails && ok {
			t.Fatalf("app created at %s though the sidecar never started\n%s", app.At, tl.Events())
		}
		if !fails && (!ok || tl.Start.Add(app.At).Before(f.committed)) {
			t.Fatalf("app created at %s (found %v), before the sidecar's startup probe succeeded at %s\n%s", app.At, ok, f.committed.Sub(tl.Start), tl.Events())
		}
	})
}
