package replay

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// settle is how long an observation (status and runtime view together) must
// have stayed unchanged before its status is compared: the kubelet writes a
// status after its PLEG relist (every 1 s) and a sync, so a pair seen for a
// shorter time may pair a new runtime state with the status of the previous
// one.
const settle = 1500 * time.Millisecond

// statusProbes returns the readiness and startup results the kubelet held at
// t, from its log (probeTimeline), never from the status under test.
func statusProbes(evs []probeEvent, t time.Time) map[string]vocab.ProbeResults {
	out := map[string]vocab.ProbeResults{}
	for id, res := range probesAt(evs, t) {
		p := vocab.ProbeResults{Readiness: res["readiness"], Startup: res["startup"]}
		if p != (vocab.ProbeResults{}) {
			out[id] = p
		}
	}
	return out
}

// normStatus applies the normalisations of the status comparison:
//   - condition lastTransitionTime and lastProbeTime, and startTime, are
//     the status manager's bookkeeping (not generateAPIPodStatus): cleared;
//   - the pod-level status.resources, which the kubelet reads from the pod's
//     cgroups (podstatus does not model it; this kubelet writes {}): cleared;
//   - container statuses' resources, allocatedResources, user and
//     volumeMounts come from the runtime's and the node's details the
//     runtime view does not carry: cleared;
//   - imageID is compared (the runtime view carries imageRef).
func normStatus(s v1.PodStatus) v1.PodStatus {
	s = *s.DeepCopy()
	s.StartTime = nil
	s.Resources = nil
	for i := range s.Conditions {
		s.Conditions[i].LastTransitionTime = metav1.Time{}
		s.Conditions[i].LastProbeTime = metav1.Time{}
	}
	for _, l := range []*[]v1.ContainerStatus{&s.InitContainerStatuses, &s.ContainerStatuses, &s.EphemeralContainerStatuses} {
		for i := range *l {
			cs := &(*l)[i]
			cs.Resources = nil
			cs.AllocatedResources = nil
			cs.User = nil
			cs.VolumeMounts = nil
		}
	}
	return s
}

// TestReplayStatus checks podstatus.Compute against every settled status the
// kubelet reported while the pod was running (before its manifest was
// removed). In the API-server fixtures the replayed pod is the allocated
// one (allocationAt), its status carries the conditions of the API object
// (apiConditions), and PodResizePending comes from the allocation manager's
// log; statuses not generated for the pod they sit on are counted, not
// compared (harnessWrote, staleGeneration).
func TestReplayStatus(t *testing.T) {
	gates := features.V1_37()
	for _, f := range loadFixtures(t) {
		t.Run(f.Scenario, func(t *testing.T) {
			evs, err := f.probeTimeline()
			if err != nil {
				t.Fatalf("probe results: %v", err)
			}
			removed := f.removedAt()
			hs := f.harnessStatuses()
			attempts := f.resizeAttempts()
			skipped, inHook := 0, 0
			// prev is the last status before the current one that
			// differs from it (the status the kubelet held when it
			// generated the current one); since is the last poll that did
			// not yet see the current status: the current one was
			// generated after it.
			var prev, last *v1.PodStatus
			var since, lastUntil time.Time
			compared, ctrs, probed := 0, 0, 0
			for i, o := range f.Observations {
				if o.Status == nil {
					last = nil
					lastUntil = o.Until
					continue
				}
				cur := o.Status
				if last == nil || diffJSON(*last, *cur) != "" {
					prev, since = last, lastUntil
				}
				last, lastUntil = cur, o.Until
				settled := o.Until.Sub(o.Time) >= settle
				before := removed.IsZero() || o.Until.Before(removed)
				if settled && before && len(o.Runtime.Sandboxes) > 0 && f.inPostStartHook(o) {
					inHook++
				} else if settled && before && len(o.Runtime.Sandboxes) > 0 && (harnessWrote(hs, cur) || f.staleGeneration(cur, f.podAt(o).Generation)) {
					skipped++
				} else if settled && before && len(o.Runtime.Sandboxes) > 0 {
					pod, pending := f.allocationAt(f.podAt(o), attempts, o.Time)
					pod = pod.DeepCopy()
					opts := podstatus.Options{
						Features:         gates,
						Now:              o.Time,
						Probes:           statusProbes(evs, o.Time),
						RuntimeType:      "containerd",
						HostIPs:          hostIPs(cur),
						StartFailures:    reasonCache(f, since),
						ResizeConditions: append(pending, resizeInProgress(cur)...),
					}
					if prev != nil {
						pod.Status = *prev.DeepCopy()
						opts.Cached = prev.DeepCopy()
					}
					if cs, ok := f.apiConditions(i, hs, gates); ok {
						pod.Status = withConditions(pod.Status, cs, gates)
					}
					got := podstatus.Compute(pod, o.Runtime, opts)
					if d := diffJSON(normStatus(*cur), normStatus(got.Status)); d != "" {
						f.errorf(t, "step %d (%s, settled %s): status (-kubelet +podstatus):\n%s",
							i, o.Time.Format("15:04:05.000"), o.Until.Sub(o.Time).Round(time.Millisecond), d)
					}
					compared++
					for _, cs := range append(append([]v1.ContainerStatus{}, cur.InitContainerStatuses...), cur.ContainerStatuses...) {
						ctrs++
						if spec := f.containerSpec(cs.Name); spec != nil && (spec.ReadinessProbe != nil || spec.StartupProbe != nil) && cs.State.Running != nil {
							probed++
						}
					}
				}
			}
			t.Logf("%d settled statuses compared (%d container statuses, of which %d running with a readiness or startup probe: ready/started from the log's probe results)", compared, ctrs, probed)
			if skipped > 0 {
				t.Logf("%d settled statuses not generated for the pod they sit on, not compared: a status with the harness's condition PATCH in it, or written for the generation before the harness's resize or DELETE", skipped)
			}
			if inHook > 0 {
				t.Logf("%d statuses seen while a postStart hook ran, not compared: the sync that runs the hook generated its status before it created the container", inHook)
			}
			if compared == 0 {
				t.Errorf("no settled status to compare")
			}
		})
	}
}

// resizeInProgress returns the PodResizeInProgress condition of s: the
// status manager sets it when the allocation manager admits a resize and
// clears it once the runtime reports the allocated resources; the capture
// does not record those moments (no log line at --v=2), so it is taken from
// the status under test. podstatus only places it.
func resizeInProgress(s *v1.PodStatus) []v1.PodCondition {
	for _, c := range s.Conditions {
		if c.Type == v1.PodResizeInProgress {
			return []v1.PodCondition{c}
		}
	}
	return nil
}

func hostIPs(s *v1.PodStatus) []string {
	var out []string
	for _, ip := range s.HostIPs {
		out = append(out, ip.IP)
	}
	return out
}

// diffJSON compares two values as the API serialises them (so that a nil and
// an empty list, or two time zones, do not differ) and, when they differ,
// returns the differing lines of their indented JSON as "-want +got".
// (The library module does not require go-cmp.)
func diffJSON(want, got any) string {
	wb, _ := json.MarshalIndent(want, "", "  ")
	gb, _ := json.MarshalIndent(got, "", "  ")
	if string(wb) == string(gb) {
		return ""
	}
	wl, gl := strings.Split(string(wb), "\n"), strings.Split(string(gb), "\n")
	var b strings.Builder
	i, j := 0, 0
	for i < len(wl) || j < len(gl) {
		switch {
		case i < len(wl) && j < len(gl) && wl[i] == gl[j]:
			i++
			j++
		default:
			// resynchronise on the next common line
			ni, nj := -1, -1
			for di := 0; ni < 0 && i+di <= len(wl); di++ {
				for dj := 0; j+dj <= len(gl); dj++ {
					if i+di < len(wl) && j+dj < len(gl) && wl[i+di] == gl[j+dj] {
						ni, nj = i+di, j+dj
						break
					}
				}
			}
			if ni < 0 {
				ni, nj = len(wl), len(gl)
			}
			for ; i < ni; i++ {
				b.WriteString("- " + wl[i] + "\n")
			}
			for ; j < nj; j++ {
				b.WriteString("+ " + gl[j] + "\n")
			}
		}
	}
	return b.String()
}

// syncErrLine matches the kubelet's log line for a SyncPod that failed
// (pod_workers.go), such as
//
//	E1129 11:03:32.978947 16864 pod_workers.go:1338] "Error syncing pod, skipping" err="failed to \"StartContainer\" for \"app\" with CrashLoopBackOff: \"back-off 10s restarting failed container=app pod=...\"" ...
//
// err is a quoted Go string; inside it, the sync result's error
// (container/sync_result.go: "failed to %q for %q with %v: %q") quotes its
// message again, so a message holding quotes (an image name in
// ErrImagePull) appears with two levels of escapes.
var (
	syncErrLine = regexp.MustCompile(`^E\d{4} (\d\d:\d\d:\d\d\.\d+) .*"Error syncing pod, skipping" err=("(?:[^"\\]|\\.)*")`)
	syncErrText = regexp.MustCompile(`^failed to "StartContainer" for "([^"]+)" with (\w+): (".*")$`)
)

// syncErr is one failed start logged by the kubelet: the log line's clock
// time, the container, the reason and the message as the reason cache
// holds them (unescaped).
type syncErrEntry struct{ clock, name, reason, message string }

func parseSyncErr(l string) (syncErrEntry, bool) {
	m := syncErrLine.FindStringSubmatch(l)
	if m == nil {
		return syncErrEntry{}, false
	}
	text, err := strconv.Unquote(m[2])
	if err != nil {
		return syncErrEntry{}, false
	}
	n := syncErrText.FindStringSubmatch(text)
	if n == nil {
		return syncErrEntry{}, false
	}
	msg, err := strconv.Unquote(n[3])
	if err != nil {
		return syncErrEntry{}, false
	}
	return syncErrEntry{clock: m[1], name: n[1], reason: n[2], message: msg}, true
}

// reasonCache returns the kubelet's reason cache at t, an input of the
// status (vocab.StartFailure) the runtime view does not hold. It is read
// from the kubelet's log of its SyncPod results, not from the status: an
// entry is the last start failure logged for a container before t, unless
// a CreateContainer call for it succeeded after that failure (a successful
// start removes the entry). TestReplayStatus passes as t the last poll that
// did not see the status under test: the kubelet generates a status at the
// start of a sync and logs that sync's failure after it, so a failure logged
// after that poll may postdate the status.
func reasonCache(f *fixture, t time.Time) map[string]vocab.StartFailure {
	type entry struct {
		at time.Time
		sf vocab.StartFailure
	}
	last := map[string]entry{}
	day := t.UTC().Format("2006-01-02")
	for _, l := range f.KubeletLog {
		m, ok := parseSyncErr(l)
		if !ok {
			continue
		}
		at, err := time.Parse("2006-01-02 15:04:05.999999", day+" "+m.clock)
		if err != nil || !at.Before(t) {
			continue
		}
		last[m.name] = entry{at, vocab.StartFailure{Reason: m.reason, Message: m.message}}
	}
	out := map[string]vocab.StartFailure{}
	for name, e := range last {
		cleared := false
		for _, c := range f.CRICalls {
			if c.Method == "CreateContainer" && c.Name == name && c.Error == "" && c.Time.After(e.at) && c.Time.Before(t) {
				cleared = true
			}
		}
		if !cleared {
			out[name] = e.sf
		}
	}
	return out
}

// inPostStartHook reports whether an exec postStart hook (the kubelet's
// ExecSync of a container's lifecycle.postStart.exec command) ran during
// observation o. The kubelet runs the hook inside the sync's
// startContainer (kuberuntime_container.go) and waits for it: that sync
// generated the status the poll sees before it created the container, and
// no other sync of the pod runs until the hook returned, so the status
// stays unchanged however long the hook takes (poststart-slow: both
// containers waiting ContainerCreating for 2.8 s while the runtime showed
// the first one running).
func (f *fixture) inPostStartHook(o observation) bool {
	hooks := map[string][]string{}
	for _, c := range f.podAt(o).Spec.Containers {
		if c.Lifecycle != nil && c.Lifecycle.PostStart != nil && c.Lifecycle.PostStart.Exec != nil {
			hooks[c.Name] = c.Lifecycle.PostStart.Exec.Command
		}
	}
	if len(hooks) == 0 {
		return false
	}
	names := map[string]string{}
	for _, c := range f.CRICalls {
		if c.Method == "CreateContainer" {
			names[c.Response] = c.Name
		}
	}
	for _, c := range f.CRICalls {
		cmd, ok := hooks[names[c.ID]]
		if c.Method != "ExecSync" || !ok || strings.Join(cmd, "\x00") != strings.Join(c.Cmd, "\x00") {
			continue
		}
		if c.Time.Before(o.Until) && c.Done.After(o.Time) {
			return true
		}
	}
	return false
}
