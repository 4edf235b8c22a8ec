package sim

import (
	"regexp"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// restartedStatus is a status whose app restarted once, its last
// termination finished at fin.
func restartedStatus(fin time.Time, restarts int32) *StatusEntry {
	return &StatusEntry{Ready: "1/1", Column: "Running", Restarts: restarts, Status: v1.PodStatus{
		Phase: v1.PodRunning,
		ContainerStatuses: []v1.ContainerStatus{{Name: "app", RestartCount: restarts,
			LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 1, FinishedAt: metav1.NewTime(fin)}}}},
	}}
}

var cells = regexp.MustCompile(`\s{2,}`)

// TestWatchRestartsOfOldTimeline: a timeline written before RestartsColumn
// gets its RESTARTS cell as kubectl prints it (printers.go printPod: the
// count, and "(<age> ago)" of the newest finishedAt when the count is not
// 0), the age never below 0.
func TestWatchRestartsOfOldTimeline(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		fin      time.Duration
		restarts int32
		want     string
	}{
		{4 * time.Second, 1, "1 (6s ago)"},
		{12 * time.Second, 1, "1 (0s ago)"},
		{4 * time.Second, 0, "0"},
	} {
		tl := &Timeline{Start: start, Entries: []Entry{
			{At: 0, Pod: "p", Kind: KindAction, Message: "pod added to the kubelet"},
			{At: 10 * time.Second, Pod: "p", Kind: KindStatus, Status: restartedStatus(start.Add(tc.fin), tc.restarts)},
		}}
		lines := strings.Split(strings.TrimSpace(tl.Watch()), "\n")
		if len(lines) != 2 || cells.Split(lines[1], -1)[4] != tc.want {
			t.Errorf("finished at %s, %d restarts: watch\n%s\nwant RESTARTS %q", tc.fin, tc.restarts, tl.Watch(), tc.want)
		}
	}
}

// TestLastStatusFirstEntry: LastStatus finds a status that is the
// timeline's first entry, and the latest of several, from the end past
// other pods' entries.
func TestLastStatusFirstEntry(t *testing.T) {
	st := restartedStatus(time.Time{}, 0)
	tl := &Timeline{Entries: []Entry{{At: 3 * time.Second, Pod: "p", Kind: KindStatus, Status: st}}}
	at, got := tl.LastStatus("p")
	if got == nil || at != 3*time.Second || got.Phase != v1.PodRunning {
		t.Errorf("LastStatus = %s, %v", at, got)
	}
	done := restartedStatus(time.Time{}, 0)
	done.Status.Phase = v1.PodSucceeded
	tl.Entries = append(tl.Entries, Entry{At: 5 * time.Second, Pod: "p", Kind: KindStatus, Status: done},
		Entry{At: 6 * time.Second, Pod: "q", Kind: KindStatus, Status: st})
	at, got = tl.LastStatus("p")
	if got == nil || at != 5*time.Second || got.Phase != v1.PodSucceeded {
		t.Errorf("LastStatus of three entries = %s, %v", at, got)
	}
}

// TestLastStatusOfAPIPod: for a pod with API entries LastStatus is the
// last status written to the API, not the kubelet's own stored after it,
// and an API entry without a status (the object deleted) is passed over;
// for a static pod (no API entry of its own) it is the kubelet's.
func TestLastStatusOfAPIPod(t *testing.T) {
	status := func(phase v1.PodPhase) *StatusEntry {
		s := restartedStatus(time.Time{}, 0)
		s.Status.Phase = phase
		return s
	}
	tl := &Timeline{Entries: []Entry{
		{At: 1 * time.Second, Pod: "a", Kind: KindStatus, Status: status(v1.PodPending)},
		{At: 2 * time.Second, Pod: "a", Kind: KindAPI, Status: status(v1.PodRunning)},
		{At: 3 * time.Second, Pod: "a", Kind: KindStatus, Status: status(v1.PodSucceeded)},
		{At: 4 * time.Second, Pod: "a", Kind: KindAPI, Message: "API object deleted"},
		{At: 5 * time.Second, Pod: "b", Kind: KindAPI, Status: status(v1.PodFailed)},
		{At: 6 * time.Second, Pod: "s", Kind: KindStatus, Status: status(v1.PodRunning)},
	}}
	if at, got := tl.LastStatus("s"); got == nil || at != 6*time.Second || got.Phase != v1.PodRunning {
		t.Errorf("LastStatus(s) = %s, %v; want the kubelet's Running at 6s", at, got)
	}
	if at, got := tl.LastStatus("a"); got == nil || at != 2*time.Second || got.Phase != v1.PodRunning {
		t.Errorf("LastStatus(a) = %s, %v; want the API's Running at 2s", at, got)
	}
	if at, got := tl.LastStatus("c"); got != nil || at != 0 {
		t.Errorf("LastStatus of no pod = %s, %v", at, got)
	}
}
