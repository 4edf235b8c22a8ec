package podactions

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// String renders a as the lines a reviewer reads, one decision a line, for
// example:
//
//	start containers: app (#0)
//	kill app (c-123): liveness probe failed, will be restarted [LivenessProbe]
//
// The zero Actions renders as "keep the pod as it is".
func (a Actions) String() string { return string(a.AppendString(nil)) }

// AppendString appends String's text to b and returns the extended buffer,
// for a caller that reuses a buffer (the simulator writes a decision per
// sync and keeps the text only when it changed).
func (a Actions) AppendString(b []byte) []byte {
	start := len(b)
	newline := func() {
		if len(b) > start {
			b = append(b, '\n')
		}
	}
	line := func(format string, args ...any) {
		newline()
		b = fmt.Appendf(b, format, args...)
	}
	var num [20]byte
	switch {
	case a.KillPod && a.CreateSandbox:
		newline()
		b = append(b, "kill the pod and create sandbox attempt "...)
		b = append(b, strconv.AppendUint(num[:0], uint64(a.Attempt), 10)...)
		b = append(b, ": "...)
		b = append(b, a.SandboxMessage...)
	case a.CreateSandbox:
		newline()
		b = append(b, "create sandbox attempt "...)
		b = append(b, strconv.AppendUint(num[:0], uint64(a.Attempt), 10)...)
		b = append(b, ": "...)
		b = append(b, a.SandboxMessage...)
	case a.KillPod && a.SandboxMessage != "":
		line("kill the pod, no new sandbox: %s", a.SandboxMessage)
	case a.KillPod:
		line("kill the pod: no regular container runs or is left to start (running sidecars are stopped too)")
	}
	refs := func(what string, rs []Ref) {
		if len(rs) == 0 {
			return
		}
		// "start <what>: <name> (#<index>), ...", written in place.
		newline()
		b = append(b, "start "...)
		b = append(b, what...)
		b = append(b, ": "...)
		for i, r := range rs {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, r.Name...)
			b = append(b, " (#"...)
			b = strconv.AppendInt(b, int64(r.Index), 10)
			b = append(b, ')')
		}
	}
	refs("ephemeral containers", a.EphemeralContainersToStart)
	refs("init containers", a.InitContainersToStart)
	refs("containers", a.ContainersToStart)
	for _, k := range a.ContainersToKill {
		// "kill <name> (<id>): <cause>[, will be restarted][ [<reason>]]",
		// written in place (a line per kill on every sync that kills).
		newline()
		b = append(b, "kill "...)
		b = append(b, k.Name...)
		b = append(b, " ("...)
		b = append(b, k.ID...)
		b = append(b, "): "...)
		b = append(b, k.Cause...)
		if strings.HasSuffix(k.Message, ", will be restarted") {
			b = append(b, ", will be restarted"...)
		}
		if k.Reason != vocab.ReasonNone {
			b = append(b, " ["...)
			b = append(b, k.Reason...)
			b = append(b, ']')
		}
	}
	for _, r := range a.ContainersToReset {
		verb := "remove"
		if r.Kill {
			verb = "kill and remove"
		}
		why := "restart all containers"
		if r.Source {
			why += " (it triggered the restart)"
		}
		line("%s %s (%s): %s", verb, r.Name, r.ID, why)
	}
	updates := func(what string, us []Update) {
		for _, u := range us {
			line("resize %s of %s (%s) in place: %s", what, u.Name, u.ID, u.Current.diff(u.Desired, what == "memory"))
		}
	}
	updates("memory", a.MemoryUpdates)
	updates("cpu", a.CPUUpdates)
	if a.UpdatePodResources {
		line("resize the pod cgroup")
	}
	if a.UpdatePodLevelResources {
		line("resize pod-level resources")
	}
	if len(a.VolumesToUpsize) > 0 {
		line("grow emptyDir volumes: %s", strings.Join(a.VolumesToUpsize, ", "))
	}
	if len(a.VolumesToDownsize) > 0 {
		line("shrink emptyDir volumes: %s", strings.Join(a.VolumesToDownsize, ", "))
	}
	if len(b) == start {
		b = append(b, "keep the pod as it is"...)
	}
	return b
}

// diff renders the memory (or cpu) values that change from r to want.
func (r Resources) diff(want Resources, memory bool) string {
	var parts []string
	add := func(what string, from, to int64, unit string) {
		if from != to {
			parts = append(parts, fmt.Sprintf("%s %d%s -> %d%s", what, from, unit, to, unit))
		}
	}
	if memory {
		add("limit", r.MemoryLimit, want.MemoryLimit, "")
		add("request", r.MemoryRequest, want.MemoryRequest, "")
	} else {
		add("limit", r.CPULimit, want.CPULimit, "m")
		add("request", r.CPURequest, want.CPURequest, "m")
	}
	return strings.Join(parts, ", ")
}
