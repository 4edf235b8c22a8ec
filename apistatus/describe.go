package apistatus

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// String renders the statuses one container a line, in the kubelet's
// order: init containers, regular containers, ephemeral containers.
func (s Statuses) String() string {
	var b strings.Builder
	if s.RestartingAllContainers {
		b.WriteString("restarting all containers\n")
	}
	for _, l := range []struct {
		kind string
		list []v1.ContainerStatus
	}{{"init", s.InitContainerStatuses}, {"container", s.ContainerStatuses}, {"ephemeral", s.EphemeralContainerStatuses}} {
		for i := range l.list {
			fmt.Fprintf(&b, "%s %s\n", l.kind, Describe(&l.list[i]))
		}
	}
	return b.String()
}

// Describe renders one container status on one line: name, state, last
// state, restart count, ready, started and container ID.
func Describe(cs *v1.ContainerStatus) string {
	if cs == nil {
		return "<nil>"
	}
	started := "nil"
	if cs.Started != nil {
		started = fmt.Sprint(*cs.Started)
	}
	out := fmt.Sprintf("%s: %s; last %s; restarts %d; ready %t; started %s", cs.Name, describeState(cs.State), describeState(cs.LastTerminationState), cs.RestartCount, cs.Ready, started)
	if cs.ContainerID != "" {
		out += "; id " + cs.ContainerID
	}
	return out
}

func describeState(s v1.ContainerState) string {
	var parts []string
	if w := s.Waiting; w != nil {
		p := "waiting"
		if w.Reason != "" {
			p += " " + w.Reason
		}
		if w.Message != "" {
			p += fmt.Sprintf(" (%s)", w.Message)
		}
		parts = append(parts, p)
	}
	if r := s.Running; r != nil {
		parts = append(parts, "running since "+r.StartedAt.UTC().Format("15:04:05"))
	}
	if t := s.Terminated; t != nil {
		p := fmt.Sprintf("terminated exit %d", t.ExitCode)
		if t.Reason != "" {
			p += " " + t.Reason
		}
		if t.Message != "" {
			p += fmt.Sprintf(" (%s)", t.Message)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " + ")
}
