package replay

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Probe results are read from the kubelet's log, never from the status under
// test. The kubelet's sync loop logs every update of its liveness, readiness
// and startup result managers ("SyncLoop (probe)", kubelet.go): a result
// manager sends an update when an instance gets its first result and each
// time the result changes, so the lines are the full timeline of results.
// The lines name the pod and the probe kind, not the container, so a kind is
// attributed only when exactly one container of the spec has a probe of that
// kind (true of every fixture; otherwise probeTimeline returns an error and
// the tests say so), to the newest instance of it that had started by then.
//
// What each line means:
//   - readiness: status="ready" is Success, "not ready" is Failure (the
//     readiness worker's initial value is Failure);
//   - liveness: only failures are logged (status="unhealthy");
//   - startup: "started" is Success; "unhealthy" is Failure when it
//     directly follows the prober's "Probe failed" line for a startup probe
//     (the failure threshold was reached), else the worker's initial value,
//     Unknown. The status treats both alike (not started); podactions kills
//     on Failure only.
//
// The ExecSync calls of exec probes are recorded by the CRI proxy too, but
// without their exit codes, so they cannot give the results.

var (
	probeSyncLine = regexp.MustCompile(`^I\d{4} (\d\d:\d\d:\d\d\.\d+) .*"SyncLoop \(probe\)" probe="(\w+)" status="([^"]+)"`)
	probeFailLine = regexp.MustCompile(`^I\d{4} (\d\d:\d\d:\d\d\.\d+) .*"Probe failed" probeType="(\w+)"`)
	killMsgLine   = regexp.MustCompile(`^I\d{4} (\d\d:\d\d:\d\d\.\d+) .*"Message for Container of pod" containerName="([^"]+)" containerStatusID=\{"Type":"\w+","ID":"([0-9a-f]+)"\}.* containerMessage="(.*)"$`)
)

// logTime reads the time of a kubelet log line (klog prints no date: the
// day is the fixture's).
func (f *fixture) logTime(hms string) (time.Time, bool) {
	day := f.Observations[0].Time.UTC().Format("2006-01-02")
	at, err := time.Parse("2006-01-02 15:04:05.999999", day+" "+hms)
	return at, err == nil
}

type probeEvent struct {
	At     time.Time
	Kind   string // liveness, readiness, startup
	ID     string // container instance
	Result vocab.ProbeResult
}

func hasProbe(c *v1.Container, kind string) bool {
	switch kind {
	case "liveness":
		return c.LivenessProbe != nil
	case "readiness":
		return c.ReadinessProbe != nil
	case "startup":
		return c.StartupProbe != nil
	}
	return false
}

// probeTimeline returns the probe results the kubelet's log records, in
// order (see above).
func (f *fixture) probeTimeline() ([]probeEvent, error) {
	inst := f.instances()
	var out []probeEvent
	var lastFail struct {
		at   time.Time
		kind string
	}
	for _, l := range f.KubeletLog {
		if m := probeFailLine.FindStringSubmatch(l); m != nil {
			at, _ := f.logTime(m[1])
			lastFail.at, lastFail.kind = at, strings.ToLower(m[2])
			continue
		}
		m := probeSyncLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		at, ok := f.logTime(m[1])
		if !ok {
			return nil, fmt.Errorf("unreadable time in %q", l)
		}
		kind, status := m[2], m[3]
		var names []string
		for _, c := range append(append([]v1.Container{}, f.Pod.Spec.InitContainers...), f.Pod.Spec.Containers...) {
			if hasProbe(&c, kind) {
				names = append(names, c.Name)
			}
		}
		if len(names) != 1 {
			return nil, fmt.Errorf("%s probe line at %s: %d containers have such a probe, cannot attribute it", kind, m[1], len(names))
		}
		var id string
		var started time.Time
		for _, c := range inst {
			if c.Name == names[0] && !c.StartedAt.IsZero() && !c.StartedAt.After(at) && c.StartedAt.After(started) {
				id, started = c.ID, c.StartedAt
			}
		}
		if id == "" {
			return nil, fmt.Errorf("%s probe line at %s: no instance of %s had started", kind, m[1], names[0])
		}
		ev := probeEvent{At: at, Kind: kind, ID: id}
		switch {
		case status == "ready" || status == "started":
			ev.Result = vocab.ProbeSuccess
		case kind == "startup" && lastFail.kind == "startup" && at.Sub(lastFail.at) < 10*time.Millisecond:
			ev.Result = vocab.ProbeFailure
		case kind == "startup":
			ev.Result = vocab.ProbeUnknown
		default:
			ev.Result = vocab.ProbeFailure
		}
		lastFail.kind = ""
		out = append(out, ev)
	}
	return out, nil
}

// probesAt returns the last result of each kind for each instance at t.
func probesAt(evs []probeEvent, t time.Time) map[string]map[string]vocab.ProbeResult {
	out := map[string]map[string]vocab.ProbeResult{}
	for _, e := range evs {
		if e.At.After(t) {
			break
		}
		if out[e.ID] == nil {
			out[e.ID] = map[string]vocab.ProbeResult{}
		}
		out[e.ID][e.Kind] = e.Result
	}
	return out
}

type killMessage struct {
	At      time.Time
	Name    string
	ID      string
	Message string
}

// killMessages returns the messages computePodActions gave its kills, as
// the kubelet logs them ("Message for Container of pod"). The capture keeps
// the lines holding "will be restarted" (kills for a probe failure or a
// changed definition), not those of kills for an unknown state.
func (f *fixture) killMessages() []killMessage {
	var out []killMessage
	for _, l := range f.KubeletLog {
		if m := killMsgLine.FindStringSubmatch(l); m != nil {
			at, _ := f.logTime(m[1])
			out = append(out, killMessage{At: at, Name: m[2], ID: m[3], Message: m[4]})
		}
	}
	return out
}

// loggedMessage says whether the capture keeps the log line of a kill with
// this message (see killMessages).
func loggedMessage(msg string) bool { return strings.Contains(msg, "will be restarted") }

// backOffAt returns the times at which the kubelet logged a sync that did not
// start name because of CrashLoopBackOff.
func (f *fixture) backOffAt(name string) []time.Time {
	var out []time.Time
	for _, l := range f.KubeletLog {
		if m, ok := parseSyncErr(l); ok && m.name == name && m.reason == "CrashLoopBackOff" {
			if at, ok := f.logTime(m.clock); ok {
				out = append(out, at)
			}
		}
	}
	return out
}

// imageFailureAt returns the times at which the kubelet logged a sync that
// did not start name because its image could not be had (ErrImagePull,
// ImagePullBackOff, ErrImageNeverPull, ...: the image manager's errors;
// podactions decides the start, the image manager refuses it).
func (f *fixture) imageFailureAt(name string) []time.Time {
	var out []time.Time
	for _, l := range f.KubeletLog {
		if m, ok := parseSyncErr(l); ok && m.name == name && imageFailure(m.reason) {
			if at, ok := f.logTime(m.clock); ok {
				out = append(out, at)
			}
		}
	}
	return out
}

// imageFailure says whether reason is one of the image manager's
// (pkg/kubelet/images/types.go).
func imageFailure(reason string) bool {
	switch reason {
	case "ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName", "ErrImageInspect":
		return true
	}
	return false
}
