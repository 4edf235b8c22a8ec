package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Lifecycle hooks, as the kubelet runs them (pkg/kubelet/lifecycle/handlers.go
// handlerRunner.Run): an exec hook is one ExecSync call with timeout 0 (no
// timeout) that lasts as long as its command; an httpGet hook is a request
// from the kubelet, no CRI call; a sleep hook is the kubelet sleeping; a
// tcpSocket hook passes validation but cannot run ("invalid handler") and
// fails at once.

// postStartFailureReason is the reason-cache entry of a failed postStart
// hook (kuberuntime_container.go ErrPostStartHook).
const postStartFailureReason = "PostStartHookError"

// hookRun is one run of a lifecycle hook.
type hookRun struct {
	dur    time.Duration
	failed bool
	exec   bool
	// died: the container's process ended while an exec or httpGet hook
	// ran, which ends the hook with a failure.
	died bool
	msg  string // the kubelet's message for a failure
}

// postStartHook is how container c's postStart hook runs for an instance
// that behaves as r; ok is false when c has none.
func postStartHook(pod *v1.Pod, c *v1.Container, r Run) (h hookRun, ok bool) {
	if c == nil || c.Lifecycle == nil || c.Lifecycle.PostStart == nil {
		return h, false
	}
	hd := c.Lifecycle.PostStart
	podRef := fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
	switch {
	case hd.Exec != nil:
		h = hookRun{dur: r.PostStart.D(), failed: r.PostStartFails, exec: true}
		code := 1
		if d := r.ExitAfter.D(); d > 0 && d < h.dur {
			// The exec process dies with the container.
			h.dur, h.failed, h.died, code = d, true, true, 137
		}
		cmd := strings.Join(hd.Exec.Command, " ")
		h.msg = fmt.Sprintf("Exec lifecycle hook (%v) for Container %q in Pod %q failed - error: command '%s' exited with %d: , message: \"\"",
			hd.Exec.Command, c.Name, podRef, cmd, code)
	case hd.HTTPGet != nil:
		h = hookRun{dur: r.PostStart.D(), failed: r.PostStartFails}
		why := "the request failed (scripted: postStartFails)"
		if d := r.ExitAfter.D(); d > 0 && d < h.dur {
			h.dur, h.failed, h.died = d, true, true
			why = "the container exited while the request ran"
		}
		h.msg = fmt.Sprintf("HTTP lifecycle hook (%s) for Container %q in Pod %q failed - error: %s", hd.HTTPGet.Path, c.Name, podRef, why)
	case hd.Sleep != nil:
		h = hookRun{dur: time.Duration(hd.Sleep.Seconds) * time.Second}
	default:
		h = hookRun{failed: true, msg: "Cannot run handler: invalid handler (a tcpSocket lifecycle hook is not supported)"}
	}
	return h, true
}

// postStart runs container c's postStart hook after StartContainer, as
// startContainer does (kuberuntime_container.go, step 4): the sync waits
// for it; a failed hook kills the container with reason
// FailedPostStartHook (killContainer, its own grace, a preStop hook runs)
// and the start fails with PostStartHookError in the reason cache. It
// reports whether the start succeeded.
func (s *syncer) postStart(c *v1.Container, id string, run Run) bool {
	h, ok := postStartHook(s.pod, c, run)
	if !ok {
		return true
	}
	if h.exec {
		s.hookCall(Call{Method: "ExecSync", Name: c.Name, ID: id, Hook: "postStart", HookFailed: h.failed}, s.clock, s.clock+h.dur)
	}
	s.clock += h.dur
	if !h.failed {
		if h.dur > 0 {
			s.out.Messages = append(s.out.Messages, fmt.Sprintf("%s: postStart hook ran %s; the kubelet waited for it", c.Name, h.dur))
		}
		return true
	}
	s.out.Messages = append(s.out.Messages, fmt.Sprintf("%s: postStart hook failed after %s: event FailedPostStartHook \"PostStartHook failed\"; kill %s (reason FailedPostStartHook); start error %s", c.Name, h.dur, c.Name, postStartFailureReason))
	grace := termination.ContainerGracePeriod(s.pod, c, vocab.ReasonFailedPostStartHook, s.in.Kubelet.Features)
	s.stopInstance(c.Name, id, c, grace, nil, run, h.died)
	s.out.Memory.StartFailures[c.Name] = vocab.StartFailure{Reason: postStartFailureReason, Message: h.msg}
	return false
}

// hookCall lists an ExecSync call that ran from at to done (offsets from
// the start of the sync) without moving the sync's clock.
func (s *syncer) hookCall(c Call, at, done time.Duration) {
	c.At, c.Done = at, done
	s.out.Calls = append(s.out.Calls, c)
	s.out.ActedOnRuntime = true
}

// preStopExec is the ExecSync call of container c's preStop hook when it is
// an exec hook: from at, for dur, or until the container exits at exitAt
// (the command dies with it), whichever comes first.
func (s *syncer) preStopExec(c *v1.Container, name, id string, at, dur, exitAt time.Duration) (Call, bool) {
	if c == nil || c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Exec == nil {
		return Call{}, false
	}
	done := at + max(dur, 0)
	if exitAt >= at && exitAt < done {
		done = exitAt
	}
	return Call{Method: "ExecSync", Name: name, ID: id, Hook: "preStop", At: at, Done: done}, true
}

// preStopCall lists the ExecSync call of an exec preStop hook run by
// stopInstance.
func (s *syncer) preStopCall(c *v1.Container, name, id string, at, dur, exitAt time.Duration) {
	if hc, ok := s.preStopExec(c, name, id, at, dur, exitAt); ok {
		s.hookCall(hc, hc.At, hc.Done)
	}
}

// detail is the part of String particular to ExecSync and
// UpdateContainerResources calls.
func (c Call) detail() string {
	switch c.Method {
	case "ExecSync":
		if c.Hook == "" {
			return ""
		}
		out := fmt.Sprintf(" (%s hook, %s", c.Hook, c.Done-c.At)
		if c.HookFailed {
			out += ", failed"
		}
		return out + ")"
	case "UpdateContainerResources":
		if c.Resources == nil {
			return ""
		}
		return " " + c.Resources.String()
	}
	return ""
}

// checkHooks reports a script that scripts a postStart hook the pod does
// not have, or one that cannot be scripted (a sleep hook).
func (s Script) checkHooks(pod *v1.Pod) error {
	names := make([]string, 0, len(s.Containers))
	for name := range s.Containers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := containerByName(pod, name)
		for i, r := range s.Containers[name].Runs {
			if r.PostStart == 0 && !r.PostStartFails {
				continue
			}
			field := "postStart"
			if r.PostStart == 0 {
				field = "postStartFails"
			}
			switch {
			case c == nil:
				// An ephemeral container added later has no lifecycle
				// hooks (the API server rejects them).
				return fmt.Errorf("script: containers.%s.runs[%d].%s: %s has no postStart hook (not a container of the pod, or an ephemeral container, which has none)", name, i, field, name)
			case c.Lifecycle == nil || c.Lifecycle.PostStart == nil:
				return fmt.Errorf("script: containers.%s.runs[%d].%s: container %s has no postStart hook in its spec", name, i, field, name)
			case c.Lifecycle.PostStart.Sleep != nil:
				return fmt.Errorf("script: containers.%s.runs[%d].%s: container %s's postStart hook is a sleep: it runs for the seconds the spec gives and does not fail", name, i, field, name)
			}
		}
	}
	return nil
}
