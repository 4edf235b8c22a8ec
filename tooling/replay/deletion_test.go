package replay

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// TestReplayAPIDeletion replays the pods deleted through the API server
// (fixtures captured with -api):
//
//   - the terminal phase the kubelet wrote once the containers had stopped
//     is podstatus.Compute's phase for that runtime state with PodIsTerminal
//     (the kubelet's SyncTerminatingPod after the kill);
//   - the kubelet's own final delete (deletionGracePeriodSeconds turning 0)
//     came only when termination.CanBeDeleted allows it for the API object
//     seen just before: a deletionTimestamp and a terminal phase in the
//     API's status (podIsFinished is taken as true: the kubelet had stopped
//     everything; whether it had also unmounted volumes is not observed);
//   - with a finalizer, the object stayed (with the finalizer) until the
//     harness removed it.
func TestReplayAPIDeletion(t *testing.T) {
	gates := features.V1_37()
	n := 0
	for _, f := range loadFixtures(t) {
		if len(f.Observations) == 0 || f.Observations[0].API == nil {
			continue
		}
		n++
		t.Run(f.Scenario, func(t *testing.T) {
			removed := f.removedAt()
			if removed.IsZero() {
				t.Fatalf("pod never deleted")
			}
			apiPod := func(o observation) *v1.Pod {
				p := f.podAt(o).DeepCopy()
				p.DeletionTimestamp = o.API.DeletionTimestamp
				p.DeletionGracePeriodSeconds = o.API.DeletionGracePeriodSeconds
				p.Finalizers = o.API.Finalizers
				p.Status = *o.API.Status.DeepCopy()
				return p
			}
			terminalSeen, finalDelete := false, false
			for i, o := range f.Observations {
				if o.API == nil || o.API.Gone {
					continue
				}
				ph := o.API.Status.Phase
				if !terminalSeen && o.API.DeletionTimestamp != nil && (ph == v1.PodSucceeded || ph == v1.PodFailed) {
					terminalSeen = true
					var prev *v1.PodStatus
					if i > 0 && f.Observations[i-1].API != nil {
						prev = &f.Observations[i-1].API.Status
					}
					got := podstatus.Compute(apiPod(o), o.Runtime, podstatus.Options{
						Features: gates, Cached: prev, PodIsTerminal: true, Now: o.Time, RuntimeType: "containerd",
					})
					if got.Status.Phase != ph {
						t.Errorf("step %d: API phase %s, podstatus (PodIsTerminal) %s", i, ph, got.Status.Phase)
					}
				}
				if g := o.API.DeletionGracePeriodSeconds; g != nil && *g == 0 && !finalDelete {
					finalDelete = true
					if i == 0 || f.Observations[i-1].API == nil {
						t.Fatalf("step %d: final delete with no earlier API object", i)
					}
					before := f.Observations[i-1]
					if !termination.CanBeDeleted(apiPod(before), nil, &termination.WorkerState{Finished: true}).Delete {
						t.Errorf("step %d: the kubelet deleted the pod, CanBeDeleted says no for the object before (phase %s)", i, before.API.Status.Phase)
					}
				}
			}
			if !terminalSeen {
				// A pod the API already showed terminal when it was
				// DELETEd: the API server deletes it at once
				// (CheckGracefulDelete gives grace 0, sim.APIDeleteGrace)
				// and the kubelet writes nothing after the delete.
				if ph, ok := terminalBefore(f, removed); ok {
					terminalSeen = true
					ans := deleteAnswer(f)
					if ans == nil || ans.DeletionGracePeriodSeconds == nil {
						t.Fatalf("pod %s before its DELETE, no DELETE answer with a grace period", ph)
					}
					if got, want := *ans.DeletionGracePeriodSeconds, sim.APIDeleteGrace(f.Pod, ph, -1); got != want {
						t.Errorf("pod %s before its DELETE: the API server answered grace %d, APIDeleteGrace %d", ph, got, want)
					}
				}
			}
			if !terminalSeen {
				t.Errorf("no terminal phase seen after the delete")
			}
			if !finalDelete {
				// Without a finalizer the object may vanish before a poll
				// sees grace 0.
				for _, o := range f.Observations {
					if o.API != nil && o.API.Gone {
						finalDelete = true
					}
				}
				if !finalDelete {
					t.Errorf("the kubelet never deleted the pod")
				}
			}
			if len(f.Pod.Finalizers) > 0 {
				var freed event
				for _, e := range f.Events {
					if len(e.What) > 18 && e.What[:18] == "finalizers removed" {
						freed = e
					}
				}
				for i, o := range f.Observations {
					if o.API != nil && o.API.Gone && !freed.Time.IsZero() && o.Time.Before(freed.Time) {
						t.Errorf("step %d: object gone before its finalizers were removed", i)
					}
				}
			}
		})
	}
	if n == 0 {
		t.Errorf("no fixture captured with an API server")
	}
}

// terminalBefore gives the phase of the last API object the capture saw
// before removed (a poll, or an object the harness's own request got),
// when that phase is terminal.
func terminalBefore(f *fixture, removed time.Time) (v1.PodPhase, bool) {
	var last *apiObject
	var lastAt time.Time
	for _, o := range f.Observations {
		if o.API != nil && !o.API.Gone && !o.Time.After(removed) && !o.Time.Before(lastAt) {
			last, lastAt = o.API, o.Time
		}
	}
	for _, e := range f.Events {
		if e.Object != nil && !e.Object.Gone && !e.Time.After(removed) && !e.Time.Before(lastAt) {
			last, lastAt = e.Object, e.Time
		}
	}
	if last == nil {
		return "", false
	}
	ph := last.Status.Phase
	return ph, ph == v1.PodSucceeded || ph == v1.PodFailed
}

// deleteAnswer is the object the API server answered the harness's
// DELETE with (nil when none was recorded).
func deleteAnswer(f *fixture) *apiObject {
	for _, e := range f.Events {
		if strings.HasPrefix(e.What, "DELETE answered ") {
			return e.Object
		}
	}
	return nil
}
