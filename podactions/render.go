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
func (a Actions) String() string {
	var b strings.Builder
	line := func(format string, args ...any) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, format, args...)
	}
	switch {
	case a.KillPod && a.CreateSandbox:
		line("kill the pod and create sandbox attempt %d: %s", a.Attempt, a.SandboxMessage)
	case a.CreateSandbox:
		line("create sandbox attempt %d: %s", a.Attempt, a.SandboxMessage)
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
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("start ")
		b.WriteString(what)
		b.WriteString(": ")
		for i, r := range rs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(r.Name)
			b.WriteString(" (#")
			var num [20]byte
			b.Write(strconv.AppendInt(num[:0], int64(r.Index), 10))
			b.WriteByte(')')
		}
	}
	refs("ephemeral containers", a.EphemeralContainersToStart)
	refs("init containers", a.InitContainersToStart)
	refs("containers", a.ContainersToStart)
	for _, k := range a.ContainersToKill {
		text := string(k.Cause)
		if strings.HasSuffix(k.Message, ", will be restarted") {
			text += ", will be restarted"
		}
		if k.Reason != vocab.ReasonNone {
			text += " [" + string(k.Reason) + "]"
		}
		line("kill %s (%s): %s", k.Name, k.ID, text)
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
	if b.Len() == 0 {
		return "keep the pod as it is"
	}
	return b.String()
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
