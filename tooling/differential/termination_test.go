//go:build kubeletlogic_overlay

package differential

import (
	"errors"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"k8s.io/kubernetes/pkg/kubelet/status"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// terminationCases: cases per run of each test, each under its own random
// gate set (no gate changes a termination decision in v1.37.2; random
// gates show that).
const terminationCases = 10200

// graceValue draws an optional grace value, edge values often.
func graceValue(t *rapid.T, label string) *int64 {
	if rapid.IntRange(0, 3).Draw(t, label+" set") == 0 {
		return nil
	}
	v := rapid.SampledFrom([]int64{-1, 0, 1, 2, 3, 5, 20, 30, 60, 3600}).Draw(t, label)
	return &v
}

func TestDifferentialTerminationGrace(t *testing.T) {
	reasons := []vocab.KillReason{vocab.ReasonStartupProbe, vocab.ReasonLivenessProbe,
		vocab.ReasonFailedPostStartHook, vocab.ReasonRestartAllContainers, vocab.ReasonUnknown, "Other"}
	check(t, terminationCases, []string{"ContainerGracePeriod", "EffectiveGracePeriod", "CanBeDeleted", "HasSidecars"}, func(rt *rapid.T, f features.Set) {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod")
		if rapid.Bool().Draw(rt, "redraw deletion grace") {
			pod.DeletionGracePeriodSeconds = graceValue(rt, "deletionGrace")
		}
		if rapid.IntRange(0, 4).Draw(rt, "redraw spec grace") == 0 {
			pod.Spec.TerminationGracePeriodSeconds = graceValue(rt, "specGrace")
		}
		for _, c := range specContainers(pod) {
			for _, r := range reasons {
				got := termination.ContainerGracePeriod(pod, c, r, f)
				want := kuberuntime.KLTerminationSetTerminationGracePeriod(pod, c, string(r))
				if got != want {
					rt.Fatalf("ContainerGracePeriod(%s, %s) = %d, kubelet %d", c.Name, r, got, want)
				}
				compared(rt, "ContainerGracePeriod")
			}
		}
		prev := rapid.SampledFrom([]int64{0, 0, 1, 2, 5, 20, 30}).Draw(rt, "previous")
		override := graceValue(rt, "override")
		g, s := termination.EffectiveGracePeriod(prev, pod, override, f)
		wg, ws := kubelet.KLTerminationEffectiveGracePeriod(prev, pod, override)
		if g != wg || s != ws {
			rt.Fatalf("EffectiveGracePeriod(%d, override %v) = %d %v, kubelet %d %v", prev, override, g, s, wg, ws)
		}
		compared(rt, "EffectiveGracePeriod")
		pod.Status.Phase = rapid.SampledFrom([]v1.PodPhase{"", v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed, v1.PodUnknown}).Draw(rt, "phase")
		if rapid.IntRange(0, 4).Draw(rt, "mirror") == 0 {
			pod.Annotations = map[string]string{termination.MirrorPodAnnotation: ""}
		}
		finished := rapid.Bool().Draw(rt, "finished")
		if got, want := termination.CanBeDeleted(pod, nil, &termination.WorkerState{Finished: finished}).Delete, status.KLTerminationCanBeDeleted(pod, finished); got != want {
			rt.Fatalf("CanBeDeleted(phase %q, finished %v) = %v, kubelet %v", pod.Status.Phase, finished, got, want)
		}
		compared(rt, "CanBeDeleted")
		if got, want := termination.HasSidecars(pod), kubetypes.HasRestartableInitContainer(pod); got != want {
			rt.Fatalf("HasSidecars = %v, kubelet %v", got, want)
		}
		compared(rt, "HasSidecars")
	})
}

func TestDifferentialTerminationOrdering(t *testing.T) {
	check(t, terminationCases, []string{"NewOrdering", "NewOrdering (no sidecars: none)"}, func(rt *rapid.T, f features.Set) {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod")
		var running []string
		for _, c := range append(specContainers(pod), &v1.Container{Name: "stranger"}) {
			if n := rapid.IntRange(0, 2).Draw(rt, "instances "+c.Name); n > 0 {
				for range n {
					running = append(running, c.Name)
				}
			}
		}
		for _, e := range pod.Spec.EphemeralContainers {
			if rapid.Bool().Draw(rt, "running "+e.Name) {
				running = append(running, e.Name)
			}
		}
		o := termination.NewOrdering(pod, running, f)
		if !kubetypes.HasRestartableInitContainer(pod) {
			if o != nil {
				rt.Fatalf("NewOrdering = %v for a pod without sidecars", o)
			}
			compared(rt, "NewOrdering (no sidecars: none)")
			return
		}
		want := kuberuntime.KLTerminationNewOrdering(pod, running)
		got := map[string][]string{}
		for _, w := range o.Waits {
			got[w.Name] = o.WaitNames(w.Name)
		}
		if !reflect.DeepEqual(got, want.WaitsFor) {
			rt.Fatalf("WaitsFor = %v, kubelet %v", got, want.WaitsFor)
		}
		gotClosed := map[string]bool{}
		for _, s := range o.Signals {
			gotClosed[s.Name] = s.Given
		}
		if !reflect.DeepEqual(gotClosed, want.Closed) {
			rt.Fatalf("signals given = %v, kubelet %v", gotClosed, want.Closed)
		}
		compared(rt, "NewOrdering")
	})
}

func drawWorkerState(t *rapid.T, now time.Time) *termination.WorkerState {
	if rapid.IntRange(0, 3).Draw(t, "unknown") == 0 {
		return nil
	}
	s := &termination.WorkerState{}
	switch rapid.IntRange(0, 2).Draw(t, "workType") {
	case 1:
		s.TerminatingAt = now.Add(-time.Minute)
	case 2:
		s.TerminatingAt, s.TerminatedAt = now.Add(-time.Minute), now.Add(-time.Second)
	}
	s.StartedTerminating = rapid.Bool().Draw(t, "startedTerminating")
	s.Deleted = rapid.Bool().Draw(t, "deleted")
	s.Evicted = rapid.Bool().Draw(t, "evicted")
	s.Finished = rapid.IntRange(0, 3).Draw(t, "finished") == 0
	s.RestartRequested = rapid.Bool().Draw(t, "restartRequested")
	s.ObservedRuntime = rapid.Bool().Draw(t, "observedRuntime")
	s.GracePeriod = rapid.SampledFrom([]int64{0, 0, 1, 2, 5, 30}).Draw(t, "gracePeriod")
	return s
}

func toKLState(s *termination.WorkerState) *kubelet.KLTermWorkerState {
	if s == nil {
		return nil
	}
	return &kubelet.KLTermWorkerState{
		TerminatingAt: s.TerminatingAt, TerminatedAt: s.TerminatedAt, StartedTerminating: s.StartedTerminating,
		Deleted: s.Deleted, Evicted: s.Evicted, Finished: s.Finished, RestartRequested: s.RestartRequested,
		ObservedRuntime: s.ObservedRuntime, GracePeriod: s.GracePeriod,
	}
}

func TestDifferentialTerminationUpdatePod(t *testing.T) {
	now := time.Date(2026, 11, 29, 15, 43, 2, 0, time.UTC)
	types := []termination.UpdateType{termination.UpdateSync, termination.UpdateUpdate, termination.UpdateCreate, termination.UpdateKill}
	klTypes := map[termination.UpdateType]kubetypes.SyncPodType{
		termination.UpdateSync: kubetypes.SyncPodSync, termination.UpdateUpdate: kubetypes.SyncPodUpdate,
		termination.UpdateCreate: kubetypes.SyncPodCreate, termination.UpdateKill: kubetypes.SyncPodKill,
	}
	check(t, terminationCases, []string{"UpdatePod"}, func(rt *rapid.T, f features.Set) {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod")
		pod.Status.Phase = rapid.SampledFrom([]v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed}).Draw(rt, "phase")
		prev := drawWorkerState(rt, now)
		u := termination.Update{Type: rapid.SampledFrom(types).Draw(rt, "type"), Pod: pod}
		kl := kubelet.KLTermUpdate{}
		if rapid.IntRange(0, 3).Draw(rt, "runtimeOnly") == 0 {
			u.RuntimeOnly = true
			kl.RunningPod = &kubecontainer.Pod{ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}
			if prev != nil && rapid.Bool().Draw(rt, "knownPod") {
				kl.KnownPod = pod
			} else {
				u.Pod = nil
			}
		} else {
			kl.Pod = pod
		}
		if rapid.Bool().Draw(rt, "kill") {
			u.Kill = &termination.KillRequest{
				GracePeriodOverride: graceValue(rt, "override"),
				Evict:               rapid.Bool().Draw(rt, "evict"),
				HasStatusFunc:       rapid.Bool().Draw(rt, "statusFunc"),
			}
			kl.HasKill, kl.Override, kl.Evict, kl.HasStatusFunc = true, u.Kill.GracePeriodOverride, u.Kill.Evict, u.Kill.HasStatusFunc
		}
		switch rapid.IntRange(0, 2).Draw(rt, "cache") {
		case 1:
			u.Cached = podgen.RuntimeState(pod, podgen.StateOptions{}).Draw(rt, "cached")
			kl.Cached = kubeletconv.PodStatus(u.Cached)
		case 2:
			u.CacheErr = true
			kl.CacheErr = errors.New("cache error")
		}
		kl.UpdateType = klTypes[u.Type]

		got := termination.UpdatePod(prev, u, now, f)
		want := kubelet.KLTerminationUpdatePod(pod.UID, toKLState(prev), kl, now)

		if (got.State != nil) != want.Known {
			rt.Fatalf("state known = %v, kubelet %v", got.State != nil, want.Known)
		}
		if got.State != nil && !reflect.DeepEqual(*toKLState(got.State), want.State) {
			rt.Fatalf("state = %+v, kubelet %+v", *toKLState(got.State), want.State)
		}
		if hasPending := got.Outcome == termination.Queued; hasPending != want.HasPending {
			rt.Fatalf("outcome %q, kubelet queued %v", got.Outcome, want.HasPending)
		}
		if !reflect.DeepEqual(got.GracePeriodOverride, want.Override) {
			rt.Fatalf("override = %v, kubelet %v", ptrStr(got.GracePeriodOverride), ptrStr(want.Override))
		}
		if got.KillCompleted != want.KillCompleted {
			rt.Fatalf("kill completed = %v, kubelet %v", got.KillCompleted, want.KillCompleted)
		}
		if got.StatusFuncKept != want.StatusFuncKept {
			rt.Fatalf("status func kept = %v, kubelet %v", got.StatusFuncKept, want.StatusFuncKept)
		}
		compared(rt, "UpdatePod")
	})
}

func ptrStr(p *int64) any {
	if p == nil {
		return "nil"
	}
	return *p
}
