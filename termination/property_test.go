package termination

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// drawKill draws a pod with preStop hooks, a runtime state of it, and Plan
// options.
func drawKill(t *rapid.T) (*v1.Pod, *runtimestate.Pod, Options) {
	c := podgen.Cases(podgen.CaseOptions{}).Draw(t, "case")
	pod := c.Pod
	durations := rapid.SampledFrom([]time.Duration{0, 300 * time.Millisecond, 999 * time.Millisecond, time.Second,
		4*time.Second + 900*time.Millisecond, 10 * time.Second, time.Minute})
	opts := Options{Features: c.Features, PreStop: map[string]time.Duration{}, ExitAfter: map[string]time.Duration{}}
	visit := func(cs []v1.Container) {
		for i := range cs {
			if rapid.Bool().Draw(t, "hook "+cs[i].Name) {
				cs[i].Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"sleep"}}}}
				opts.PreStop[cs[i].Name] = durations.Draw(t, "preStop "+cs[i].Name)
			}
			if rapid.Bool().Draw(t, "exits "+cs[i].Name) {
				opts.ExitAfter[cs[i].Name] = durations.Draw(t, "exitAfter "+cs[i].Name)
			}
		}
	}
	visit(pod.Spec.InitContainers)
	visit(pod.Spec.Containers)
	if rapid.Bool().Draw(t, "override") {
		g := rapid.SampledFrom([]int64{0, 1, 2, 5, 20}).Draw(t, "override value")
		opts.GracePeriodOverride = &g
	}
	return pod, c.State, opts
}

// TestPlanProperties checks the bounds the issue asks for, in the form the
// kubelet actually keeps them.
func TestPlanProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod, st, opts := drawKill(t)
		tl := Plan(pod, st, opts)
		var latest time.Duration
		maxGrace := int64(0)
		regularExit := time.Duration(0)
		for _, c := range tl.Containers {
			if c.Error != "" {
				if specByName(pod, c.Name) != nil {
					t.Fatalf("%s: error for a container in the spec: %s", c.Name, c.Error)
				}
				continue
			}
			g := max(c.Stop.Grace, 0)
			maxGrace = max(maxGrace, g)
			// Without ordering a container is killed at most grace + 2 s
			// after the kill starts; with ordering, truncating the hook's
			// and the wait's fractions of a second allows up to (but not
			// including) one more second.
			bound := time.Duration(g+MinimumGracePeriodSeconds) * time.Second
			if tl.Ordered {
				bound += time.Second - time.Nanosecond
			}
			if c.Deadline() > bound {
				t.Fatalf("%s: killed at %v, grace %ds (ordered %v)\n%s", c.Name, c.Deadline(), g, tl.Ordered, tl)
			}
			if c.Stop.Timeout < MinimumGracePeriodSeconds || c.Exit > c.Deadline() || c.Exit < c.StopCall {
				t.Fatalf("%s: timeout %d, stop %v, exit %v\n%s", c.Name, c.Stop.Timeout, c.StopCall, c.Exit, tl)
			}
			latest = max(latest, c.Exit)
			if isRegular(pod, c.Name) {
				regularExit = max(regularExit, c.Exit)
			}
		}
		if tl.SandboxStop != latest {
			t.Fatalf("StopPodSandbox at %v, last container ended at %v\n%s", tl.SandboxStop, latest, tl)
		}
		bound := time.Duration(maxGrace+MinimumGracePeriodSeconds)*time.Second + time.Second
		if tl.SandboxStop >= bound {
			t.Fatalf("pod kill took %v, grace %ds\n%s", tl.SandboxStop, maxGrace, tl)
		}
		// No sidecar gets its stop call before every regular container has
		// stopped, unless the time it had left for waiting ran out.
		for _, c := range tl.Containers {
			if c.Error != "" || !isSidecarName(pod, c.Name) || !c.Stop.Waited {
				continue
			}
			limit := c.PreStopEnd + time.Duration(c.Stop.Grace-c.Stop.PreStopDeducted)*time.Second
			if c.StopCall < regularExit && c.StopCall != limit {
				t.Fatalf("%s: stopped at %v before the regular containers ended (%v), wait limit %v\n%s", c.Name, c.StopCall, regularExit, limit, tl)
			}
		}
	})
}

func isRegular(pod *v1.Pod, name string) bool {
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return true
		}
	}
	return false
}

func isSidecarName(pod *v1.Pod, name string) bool {
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return restart.IsSidecar(&pod.Spec.InitContainers[i])
		}
	}
	return false
}

// TestTruncationBound shows the bound is nearly reached: the sidecar is
// killed 2.9 s after its 5 s grace period (its 4.9 s hook counts as 4 s, the
// wait for the app, still running, as 1 s).
func TestTruncationBound(t *testing.T) {
	pod, st := factPod(5, true)
	always := v1.ContainerRestartPolicyAlways
	pod.Spec.InitContainers[1].RestartPolicy = &always
	pod.Spec.InitContainers[1].Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 5}}}
	tl := Plan(pod, st, Options{PreStop: map[string]time.Duration{"app": 4 * time.Second, "sidecar": 4*time.Second + 900*time.Millisecond}})
	sc := find(t, tl, "sidecar")
	if sc.Deadline() != 7*time.Second+900*time.Millisecond {
		t.Errorf("sidecar deadline %v, want 7.9s\n%s", sc.Deadline(), tl)
	}
}

// TestWorkerProperties: the grace period never grows while terminating,
// terminated pods never go back, and UpdatePod never changes its input.
func TestWorkerProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := podgen.Features(podgen.FeatureOptions{}).Draw(t, "gates")
		pod := podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
		now := podgen.Epoch
		var s *WorkerState
		for i := range rapid.IntRange(1, 8).Draw(t, "steps") {
			now = now.Add(time.Second)
			before := copyState(s)
			switch rapid.IntRange(0, 2).Draw(t, "step") {
			case 0:
				var kill *KillRequest
				if rapid.Bool().Draw(t, "kill") {
					g := rapid.Int64Range(-1, 40).Draw(t, "override")
					kill = &KillRequest{GracePeriodOverride: &g, Evict: rapid.Bool().Draw(t, "evict")}
				}
				typ := rapid.SampledFrom([]UpdateType{UpdateSync, UpdateUpdate, UpdateCreate, UpdateKill}).Draw(t, "type")
				r := UpdatePod(s, Update{Type: typ, Pod: pod, Kill: kill}, now, f)
				if s != nil && *s != *before {
					t.Fatalf("step %d: UpdatePod changed its input", i)
				}
				if s != nil && s.GracePeriod != 0 && r.State.GracePeriod > s.GracePeriod {
					t.Fatalf("step %d: grace grew from %d to %d", i, s.GracePeriod, r.State.GracePeriod)
				}
				if r.GracePeriodOverride != nil && *r.GracePeriodOverride < 1 {
					t.Fatalf("step %d: override %d", i, *r.GracePeriodOverride)
				}
				if r.State != nil {
					s = r.State
				}
			case 1:
				s = AcknowledgeTerminating(s)
			case 2:
				if n := Complete(s, SyncResult{Terminal: rapid.Bool().Draw(t, "terminal"), Err: rapid.Bool().Draw(t, "err")}, false, now, f); n != nil {
					s = n
				}
			}
			if before != nil && before.WorkType() > s.WorkType() {
				t.Fatalf("step %d: went back from %v to %v", i, before.WorkType(), s.WorkType())
			}
			if before != nil && before.Finished && !s.Finished {
				t.Fatalf("step %d: unfinished", i)
			}
		}
	})
}
