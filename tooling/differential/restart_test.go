//go:build kubeletlogic_overlay

package differential

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/flowcontrol"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"k8s.io/kubernetes/pkg/kubelet/status"
	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
)

// Cases per run of the restart decisions, each under its own random gate
// set (and, for back-off, its own node configuration).
const restartCases = 20000

func specContainers(pod *v1.Pod) []*v1.Container {
	var out []*v1.Container
	for i := range pod.Spec.InitContainers {
		out = append(out, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}

// exitCodes draws exit codes that hit the rules of the pod often.
func exitCodes(t *rapid.T, pod *v1.Pod, st *runtimestate.Pod) []int32 {
	codes := []int32{0, 1, rapid.Int32().Draw(t, "anyCode")}
	for _, c := range st.Containers {
		codes = append(codes, int32(c.ExitCode))
	}
	for _, c := range specContainers(pod) {
		for _, r := range c.RestartPolicyRules {
			if r.ExitCodes != nil {
				codes = append(codes, r.ExitCodes.Values...)
			}
		}
	}
	return codes
}

// apiStatus draws a previous API pod status for pod: an optional
// AllContainersRestarting condition and, per container, an optional
// terminated or running state.
func apiStatus(t *rapid.T, pod *v1.Pod) *v1.PodStatus {
	s := &v1.PodStatus{}
	switch rapid.IntRange(0, 3).Draw(t, "condition") {
	case 1:
		s.Conditions = append(s.Conditions, v1.PodCondition{Type: v1.AllContainersRestarting, Status: v1.ConditionTrue})
	case 2:
		s.Conditions = append(s.Conditions, v1.PodCondition{Type: v1.AllContainersRestarting, Status: v1.ConditionFalse})
	}
	statusFor := func(c *v1.Container) (v1.ContainerStatus, bool) {
		cs := v1.ContainerStatus{Name: c.Name}
		switch rapid.IntRange(0, 2).Draw(t, "state "+c.Name) {
		case 0:
			return cs, false
		case 1:
			cs.State.Running = &v1.ContainerStateRunning{}
		case 2:
			codes := []int32{0, 1, 42}
			for _, r := range c.RestartPolicyRules {
				if r.ExitCodes != nil {
					codes = append(codes, r.ExitCodes.Values...)
				}
			}
			cs.State.Terminated = &v1.ContainerStateTerminated{ExitCode: rapid.SampledFrom(codes).Draw(t, "code "+c.Name)}
		}
		return cs, true
	}
	for i := range pod.Spec.InitContainers {
		if cs, ok := statusFor(&pod.Spec.InitContainers[i]); ok {
			s.InitContainerStatuses = append(s.InitContainerStatuses, cs)
		}
	}
	for i := range pod.Spec.Containers {
		if cs, ok := statusFor(&pod.Spec.Containers[i]); ok {
			s.ContainerStatuses = append(s.ContainerStatuses, cs)
		}
	}
	return s
}

func TestDifferentialRestartDecisions(t *testing.T) {
	check(t, restartCases, []string{"ShouldContainerBeRestarted", "ContainerShouldRestart", "MatchRule", "IsContainerRestartable", "AllContainersCouldRestart", "IsInitContainerFailed", "ShouldAllContainersRestart", "AllContainersRestartCleanedUp", "RestartingAllContainers"}, func(rt *rapid.T, f features.Set) {
		c := podgen.Cases(podgen.CaseOptions{Gates: &f}).Draw(rt, "case")
		ks := kubeletconv.PodStatus(c.State)
		spec := &c.Pod.Spec
		for _, ctr := range specContainers(c.Pod) {
			if got, want := restart.ShouldContainerBeRestarted(ctr, c.Pod, c.State, f), kubecontainer.ShouldContainerBeRestarted(logr.Discard(), ctr, c.Pod, ks); got != want {
				rt.Fatalf("ShouldContainerBeRestarted(%s) = %v, kubelet %v", ctr.Name, got, want)
			}
			compared(rt, "ShouldContainerBeRestarted")
			for _, code := range exitCodes(rt, c.Pod, c.State) {
				if got, want := restart.ContainerShouldRestart(ctr, spec, code, f), podutil.ContainerShouldRestart(*ctr, *spec, code); got != want {
					rt.Fatalf("ContainerShouldRestart(%s, %d) = %v, kubelet %v", ctr.Name, code, got, want)
				}
				compared(rt, "ContainerShouldRestart")
				gr, gok := restart.MatchRule(ctr, code)
				wr, wok := podutil.FindMatchingContainerRestartRule(*ctr, code)
				if gok != wok || gr.Action != wr.Action || (gr.ExitCodes == nil) != (wr.ExitCodes == nil) {
					rt.Fatalf("MatchRule(%s, %d) = %+v %v, kubelet %+v %v", ctr.Name, code, gr, gok, wr, wok)
				}
				compared(rt, "MatchRule")
			}
			if got, want := restart.IsContainerRestartable(spec, ctr), podutil.IsContainerRestartable(*spec, *ctr); got != want {
				rt.Fatalf("IsContainerRestartable(%s) = %v, kubelet %v", ctr.Name, got, want)
			}
			compared(rt, "IsContainerRestartable")
		}

		if got, want := restart.AllContainersCouldRestart(spec), podutil.AllContainersCouldRestart(spec); got != want {
			rt.Fatalf("AllContainersCouldRestart = %v, kubelet %v", got, want)
		}
		compared(rt, "AllContainersCouldRestart")

		for i := range c.State.Containers {
			inst := &c.State.Containers[i]
			if got, want := restart.IsInitContainerFailed(inst), kuberuntime.KLIsInitContainerFailed(kubeletconv.Container(inst)); got != want {
				rt.Fatalf("IsInitContainerFailed(%s) = %v, kubelet %v", inst.ID, got, want)
			}
			compared(rt, "IsInitContainerFailed")
		}

		prev := apiStatus(rt, c.Pod)
		if got, want := restart.ShouldAllContainersRestart(c.Pod, c.State, prev), kubecontainer.ShouldAllContainersRestart(c.Pod, ks, prev); got != want {
			rt.Fatalf("ShouldAllContainersRestart = %v, kubelet %v", got, want)
		}
		compared(rt, "ShouldAllContainersRestart")
		if got, want := restart.AllContainersRestartCleanedUp(c.Pod, c.State), kubecontainer.AllContainersRestartCleanedUp(c.Pod, ks); got != want {
			rt.Fatalf("AllContainersRestartCleanedUp = %v, kubelet %v", got, want)
		}
		compared(rt, "AllContainersRestartCleanedUp")

		// The kubelet's chain: the condition generateAPIPodStatus adds
		// (gate on and some RestartAllContainers rule in the pod), read
		// back by Kubelet.SyncPod.
		phase := rapid.SampledFrom([]v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed}).Draw(rt, "phase")
		want := false
		if f.Enabled(features.RestartAllContainersOnContainerExits) && podutil.AllContainersCouldRestart(spec) {
			want = status.GenerateAllContainersRestartingCondition(c.Pod, ks, prev, phase).Status == v1.ConditionTrue
		}
		if got := restart.RestartingAllContainers(c.Pod, c.State, prev, phase, f); got != want {
			rt.Fatalf("RestartingAllContainers(phase %s) = %v, kubelet %v", phase, got, want)
		}
		compared(rt, "RestartingAllContainers")
	})
}

func TestDifferentialContainerHash(t *testing.T) {
	check(t, 10000, []string{"containerhash.Of"}, func(rt *rapid.T, f features.Set) {
		var c v1.Container
		if rapid.Bool().Draw(rt, "fromPod") {
			pod := podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod")
			all := specContainers(pod)
			c = *all[rapid.IntRange(0, len(all)-1).Draw(rt, "idx")]
		} else {
			// Any strings, including invalid UTF-8 and characters JSON escapes.
			c = v1.Container{
				Name:  rapid.OneOf(rapid.String(), rapid.StringOf(rapid.RuneFrom([]rune("<>&\"\\\u2028\u2029\x00\n\té")))).Draw(rt, "name"),
				Image: string(rapid.SliceOf(rapid.Byte()).Draw(rt, "image")),
			}
		}
		if got, want := containerhash.Of(&c), kubecontainer.HashContainer(&c); got != want {
			rt.Fatalf("Of(name %q, image %q) = %#x, kubelet %#x", c.Name, c.Image, got, want)
		}
		compared(rt, "containerhash.Of")
	})
}

func TestDifferentialBackOffKey(t *testing.T) {
	check(t, 10000, []string{"BackOffKey"}, func(rt *rapid.T, f features.Set) {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod")
		for _, c := range specContainers(pod) {
			if got, want := restart.BackOffKey(pod, c), kuberuntime.GetBackoffKey(pod, c); got != want {
				rt.Fatalf("BackOffKey(%s) = %s, kubelet %s", c.Name, got, want)
			}
			compared(rt, "BackOffKey")
		}
	})
}

// maxString renders a configured maximum for failure messages.
func maxString(d *time.Duration) string {
	if d == nil {
		return "unset"
	}
	return fmt.Sprintf("%v (%dns)", *d, int64(*d))
}

// customMax reports whether s configures a maximum other than the default,
// for the report's line of cases that ran with one.
func customMax(s restart.BackOffSettings) bool {
	return s.MaxContainerRestartPeriod != nil && *s.MaxContainerRestartPeriod != restart.DefaultMaxBackOff
}

// TestDifferentialBackOffConfig compares NewBackOffConfig with the kubelet
// for random node configurations: the configured maximum (unset, or any
// duration inside, at the edges of and outside what the kubelet accepts)
// goes through the kubelet's own defaulting and validation
// (kubeletNodeConfig); both sides must accept or refuse it alike, and when
// accepted, give the kubelet's newCrashLoopBackOff.
func TestDifferentialBackOffConfig(t *testing.T) {
	check(t, 10000, []string{"NewBackOffConfig", "NewBackOffConfig (max set, not 300s)"}, func(rt *rapid.T, f features.Set) {
		var max *time.Duration
		if rapid.IntRange(0, 9).Draw(rt, "unset") != 0 {
			d := drawMaxRestartPeriod(rt, false)
			max = &d
		}
		s := restart.BackOffSettings{MaxContainerRestartPeriod: max}
		got, err := restart.NewBackOffConfig(f, s)
		kc, kerr := kubeletNodeConfig(f, max)
		if (err != nil) != (kerr != nil) {
			rt.Fatalf("maxContainerRestartPeriod %s: NewBackOffConfig error %v; the kubelet's configuration validation: %v", maxString(max), err, kerr)
		}
		if err == nil {
			wantMax, wantInitial := kubelet.KLNewCrashLoopBackOff(kc)
			if got.Max != wantMax || got.Initial != wantInitial {
				rt.Fatalf("maxContainerRestartPeriod %s: got %+v, kubelet initial %v max %v", maxString(max), got, wantInitial, wantMax)
			}
		}
		compared(rt, "NewBackOffConfig")
		if customMax(s) {
			compared(rt, "NewBackOffConfig (max set, not 300s)")
		}
	})
}

// kubeletBackOff builds the kubelet's crash-loop back-off for a node with
// gates f and configuration s, as NewMainKubelet does: newCrashLoopBackOff
// over the configuration the kubelet's pipeline makes of s
// (kubeletNodeConfig), with its 600 s expiry, over a fake clock at start.
func kubeletBackOff(rt *rapid.T, f features.Set, s restart.BackOffSettings, start time.Time) (*flowcontrol.Backoff, *testingclock.FakeClock) {
	kc, err := kubeletNodeConfig(f, s.MaxContainerRestartPeriod)
	if err != nil {
		rt.Fatalf("the kubelet refuses the drawn configuration (max %s): %v", maxString(s.MaxContainerRestartPeriod), err)
	}
	boMax, boInitial := kubelet.KLNewCrashLoopBackOff(kc)
	clock := testingclock.NewFakeClock(start)
	bo := flowcontrol.NewFakeBackOff(boInitial, boMax, clock)
	// As NewMainKubelet sets it (pkg/kubelet/kubelet.go).
	bo.HasExpiredFunc = func(eventTime, lastUpdate time.Time, _ time.Duration) bool {
		return eventTime.Sub(lastUpdate) > 600*time.Second
	}
	return bo, clock
}

// TestDifferentialBackOff drives one container through a random history of
// exits, start attempts and clean-ups on a node with a random configuration,
// handing each step to the kubelet's doBackOff (over a fake clock) and to
// restart.Decide, and compares every verdict, refusal text, expiry time and
// delay.
func TestDifferentialBackOff(t *testing.T) {
	check(t, restartCases, []string{"BackOffConfig.Decide", "BackOffConfig.Decide (max set, not 300s)"}, func(rt *rapid.T, f features.Set) {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod")
		all := specContainers(pod)
		ctr := all[rapid.IntRange(0, len(all)-1).Draw(rt, "container")]
		settings := drawBackOffSettings(rt, f)
		cfg, err := restart.NewBackOffConfig(f, settings)
		if err != nil {
			rt.Fatal(err)
		}
		bo, clock := kubeletBackOff(rt, f, settings, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		key := kuberuntime.GetBackoffKey(pod, ctr)

		var entry restart.BackOffEntry
		st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}
		finished := clock.Now()
		steps := rapid.IntRange(1, 25).Draw(rt, "steps")
		decided := false
		for i := 0; i < steps; i++ {
			// Time passes: short (inside the delays), or long (past the
			// 600 s reset), in whole or fractional seconds.
			adv := rapid.OneOf(
				rapid.Int64Range(0, 20_000),
				rapid.Int64Range(0, 700_000),
				rapid.SampledFrom([]int64{1000, 10_000, 600_000, 600_001, 599_999}),
			).Draw(rt, "advanceMs")
			clock.Step(time.Duration(adv) * time.Millisecond)
			now := clock.Now()
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0: // the running instance exits now (or a bit before)
				finished = now.Add(-time.Duration(rapid.Int64Range(0, 5000).Draw(rt, "exitAgoMs")) * time.Millisecond)
				st.Containers = append([]runtimestate.Container{{
					ID: "c" + string(rune('a'+i)), Name: ctr.Name, State: runtimestate.Exited, ExitCode: 1,
					CreatedAt: time.Unix(int64(i), 0), FinishedAt: finished,
				}}, st.Containers...)
			case 1: // housekeeping
				bo.GC()
				entry = entry.GC(now)
			default: // the kubelet wants to start the container
				ks := kubeletconv.PodStatus(st)
				inBackOff, msg, kerr := kuberuntime.KLDoBackOff(pod, ctr, ks, bo)
				d := cfg.Decide(pod, ctr, st, entry, now)
				if d.Start == inBackOff {
					rt.Fatalf("step %d (max %s): Decide start=%v, kubelet in back-off=%v (%s)", i, maxString(settings.MaxContainerRestartPeriod), d.Start, inBackOff, msg)
				}
				if !d.Start {
					var be *kubecontainer.BackoffError
					be, _ = kerr.(*kubecontainer.BackoffError)
					if be == nil || be.Error() != d.Reason || !be.BackoffTime().Equal(d.Until) || msg != d.Message {
						rt.Fatalf("step %d (max %s): refusal %+v, kubelet %q %v", i, maxString(settings.MaxContainerRestartPeriod), d, msg, kerr)
					}
				}
				entry = d.Entry
				if got, want := entry.Delay, bo.Get(key); got != want {
					rt.Fatalf("step %d (max %s): delay %v, kubelet %v", i, maxString(settings.MaxContainerRestartPeriod), got, want)
				}
				decided = true
			}
		}
		if decided {
			compared(rt, "BackOffConfig.Decide")
			if customMax(settings) {
				compared(rt, "BackOffConfig.Decide (max set, not 300s)")
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }

// TestDifferentialBackOffReplay lets a container crash over and over on a
// node with a random configuration, the kubelet starting it again as soon
// as doBackOff allows (syncing every second, cleaning up before each sync),
// then compares Replay of the recorded restarts with the kubelet's record.
func TestDifferentialBackOffReplay(t *testing.T) {
	check(t, 10000, []string{"BackOffConfig.Replay", "BackOffConfig.Replay (max set, not 300s)"}, func(rt *rapid.T, f features.Set) {
		pod := podgen.Pod(podgen.PodOptions{NoEphemeral: true}).Draw(rt, "pod")
		ctr := &pod.Spec.Containers[0]
		settings := drawBackOffSettings(rt, f)
		cfg, err := restart.NewBackOffConfig(f, settings)
		if err != nil {
			rt.Fatal(err)
		}
		bo, clock := kubeletBackOff(rt, f, settings, podgen.Epoch)
		key := kuberuntime.GetBackoffKey(pod, ctr)
		st := &runtimestate.Pod{}
		var history []restart.Restart
		runs := rapid.IntRange(1, 12).Draw(rt, "runs")
		for i := 0; i < runs; i++ {
			// The instance runs for a while (sometimes past the 600 s
			// reset), then exits.
			clock.Step(time.Duration(rapid.SampledFrom([]int64{0, 1, 3, 30, 599, 601, 900}).Draw(rt, "runSeconds")) * time.Second)
			finished := clock.Now()
			st.Containers = append([]runtimestate.Container{{ID: fmt.Sprintf("c%d", i), Name: ctr.Name, State: runtimestate.Exited,
				ExitCode: 1, CreatedAt: podgen.Epoch.Add(time.Duration(i) * time.Millisecond), FinishedAt: finished}}, st.Containers...)
			// Sync every second until the kubelet starts it again.
			for {
				bo.GC()
				in, _, _ := kuberuntime.KLDoBackOff(pod, ctr, kubeletconv.PodStatus(st), bo)
				if !in {
					history = append(history, restart.Restart{FinishedAt: finished, At: clock.Now()})
					break
				}
				clock.Step(time.Second)
			}
		}
		clock.Step(time.Duration(rapid.SampledFrom([]int64{0, 10, 601}).Draw(rt, "idleSeconds")) * time.Second)
		bo.GC()
		if got, want := cfg.Replay(history, clock.Now()).Delay, bo.Get(key); got != want {
			rt.Fatalf("Replay(%d restarts, max %s) delay %v, kubelet %v", len(history), maxString(settings.MaxContainerRestartPeriod), got, want)
		}
		compared(rt, "BackOffConfig.Replay")
		if customMax(settings) {
			compared(rt, "BackOffConfig.Replay (max set, not 300s)")
		}
	})
}
