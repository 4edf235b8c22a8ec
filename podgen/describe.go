package podgen

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// String renders c as compact text: the gates that differ from v1.37.2,
// the pod's containers with what decisions read from them, the sandboxes
// and instances newest first (times as offsets from Epoch), and the probe
// results.
func (c Case) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gates: %v\n", c.Features)
	writePod(&b, c.Pod)
	writeState(&b, c.Pod, c.State)
	ids := make([]string, 0, len(c.Probes))
	for id := range c.Probes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p := c.Probes[id]
		fmt.Fprintf(&b, "probes %s:", id)
		for _, r := range []struct {
			kind string
			r    vocab.ProbeResult
		}{{"liveness", p.Liveness}, {"startup", p.Startup}, {"readiness", p.Readiness}} {
			if r.r != vocab.ProbeNoResult {
				fmt.Fprintf(&b, " %s=%s", r.kind, r.r)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// GoString is String, so that rapid's log of a drawn Case (which uses %#v)
// is readable.
func (c Case) GoString() string { return "\n" + c.String() }

func writePod(b *strings.Builder, pod *v1.Pod) {
	if pod == nil {
		b.WriteString("pod: nil\n")
		return
	}
	s := &pod.Spec
	fmt.Fprintf(b, "pod %s/%s restartPolicy=%s", pod.Namespace, pod.Name, s.RestartPolicy)
	if s.HostNetwork {
		b.WriteString(" hostNetwork")
	}
	if g := s.TerminationGracePeriodSeconds; g != nil {
		fmt.Fprintf(b, " grace=%d", *g)
	}
	if pod.DeletionTimestamp != nil {
		fmt.Fprintf(b, " deleted=%s", offset(pod.DeletionTimestamp.Time))
		if g := pod.DeletionGracePeriodSeconds; g != nil {
			fmt.Fprintf(b, "(grace %d)", *g)
		}
	}
	if s.Resources != nil {
		fmt.Fprintf(b, " resources=%s", resources(*s.Resources))
	}
	for _, v := range s.Volumes {
		if ed := v.EmptyDir; ed != nil {
			fmt.Fprintf(b, " emptyDir:%s", v.Name)
			if ed.Medium == v1.StorageMediumMemory {
				b.WriteString("(memory)")
			}
			if ed.SizeLimit != nil {
				fmt.Fprintf(b, "(limit %s)", ed.SizeLimit.String())
			}
		}
	}
	b.WriteString("\n")
	for i := range s.InitContainers {
		k := kindInit
		if restart.IsSidecar(&s.InitContainers[i]) {
			k = kindSidecar
		}
		writeContainer(b, &s.InitContainers[i], k)
	}
	for i := range s.Containers {
		writeContainer(b, &s.Containers[i], kindRegular)
	}
	for i := range s.EphemeralContainers {
		ec := &s.EphemeralContainers[i]
		writeContainer(b, (*v1.Container)(&ec.EphemeralContainerCommon), kindEphemeral)
	}
}

func writeContainer(b *strings.Builder, c *v1.Container, k kind) {
	fmt.Fprintf(b, "  %s (%s) %s hash=%d", c.Name, k, text(c.Image), containerhash.Of(c))
	if c.Command != nil || c.Args != nil || c.Env != nil || c.WorkingDir != "" {
		fmt.Fprintf(b, " command=%q args=%q", c.Command, c.Args)
		for _, e := range c.Env {
			fmt.Fprintf(b, " env %s=%q", e.Name, e.Value)
		}
		fmt.Fprintf(b, " workingDir=%q", c.WorkingDir)
	}
	if c.RestartPolicy != nil && k != kindSidecar {
		fmt.Fprintf(b, " restartPolicy=%s", *c.RestartPolicy)
	}
	for _, r := range c.RestartPolicyRules {
		if r.ExitCodes == nil {
			fmt.Fprintf(b, " [%s always]", r.Action)
			continue
		}
		fmt.Fprintf(b, " [%s if %s %v]", r.Action, r.ExitCodes.Operator, r.ExitCodes.Values)
	}
	for _, p := range []struct {
		kind string
		p    *v1.Probe
	}{{"liveness", c.LivenessProbe}, {"startup", c.StartupProbe}, {"readiness", c.ReadinessProbe}} {
		if p.p == nil {
			continue
		}
		fmt.Fprintf(b, " %sProbe", p.kind)
		if g := p.p.TerminationGracePeriodSeconds; g != nil {
			fmt.Fprintf(b, "(grace %d)", *g)
		}
	}
	if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
		fmt.Fprintf(b, " resources=%s", resources(c.Resources))
	}
	for _, p := range c.ResizePolicy {
		fmt.Fprintf(b, " resize(%s)=%s", p.ResourceName, p.RestartPolicy)
	}
	b.WriteString("\n")
}

func resources(rr v1.ResourceRequirements) string {
	var parts []string
	for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		req, hasReq := rr.Requests[r]
		lim, hasLim := rr.Limits[r]
		switch {
		case hasReq && hasLim:
			parts = append(parts, fmt.Sprintf("%s:%s/%s", r, req.String(), lim.String()))
		case hasReq:
			parts = append(parts, fmt.Sprintf("%s:%s", r, req.String()))
		case hasLim:
			parts = append(parts, fmt.Sprintf("%s:-/%s", r, lim.String()))
		}
	}
	return strings.Join(parts, ",")
}

func writeState(b *strings.Builder, pod *v1.Pod, st *runtimestate.Pod) {
	if st == nil {
		b.WriteString("state: nil\n")
		return
	}
	for _, s := range st.Sandboxes {
		fmt.Fprintf(b, "sandbox %s attempt=%d ready=%t mode=%q", s.ID, s.Attempt, s.Ready, s.NetworkMode)
		switch {
		case s.NoNetworkStatus:
			b.WriteString(" no-network-status")
		case s.NoIP:
			b.WriteString(" no-ip")
		case s.IP != "":
			fmt.Fprintf(b, " ip=%s", strings.Join(append([]string{s.IP}, s.AdditionalIPs...), ","))
		}
		fmt.Fprintf(b, " created=%s\n", offset(s.CreatedAt))
	}
	for _, c := range st.Containers {
		fmt.Fprintf(b, "  %s %s in %s %s restarts=%d", c.ID, c.Name, c.SandboxID, c.State, c.RestartCount)
		if c.State == runtimestate.Exited {
			fmt.Fprintf(b, " exit=%d", c.ExitCode)
			if c.Reason != "" {
				fmt.Fprintf(b, "(%s)", c.Reason)
			}
		}
		var spec *v1.Container
		if pod != nil {
			for _, e := range specEntries(pod) {
				if e.c.Name == c.Name {
					spec = e.c
				}
			}
		}
		switch {
		case spec == nil:
			b.WriteString(" not-in-spec")
		case c.HashMissing:
			b.WriteString(" hash-missing")
		case c.Hash == 0:
			b.WriteString(" hash-from-spec")
		case c.Hash != containerhash.Of(spec):
			fmt.Fprintf(b, " hash=%d(image %s)", c.Hash, text(c.Image))
		}
		fmt.Fprintf(b, " created=%s", offset(c.CreatedAt))
		if !c.StartedAt.IsZero() {
			fmt.Fprintf(b, " started=%s", offset(c.StartedAt))
		}
		if !c.FinishedAt.IsZero() {
			fmt.Fprintf(b, " finished=%s", offset(c.FinishedAt))
		}
		if r := c.Resources; r != nil {
			b.WriteString(" reported=")
			for _, q := range []struct {
				name string
				q    interface{ String() string }
				set  bool
			}{
				{"cpu", r.CPURequest, r.CPURequest != nil}, {"cpuLimit", r.CPULimit, r.CPULimit != nil},
				{"mem", r.MemoryRequest, r.MemoryRequest != nil}, {"memLimit", r.MemoryLimit, r.MemoryLimit != nil},
			} {
				if q.set {
					fmt.Fprintf(b, "%s:%s,", q.name, q.q.String())
				}
			}
		}
		b.WriteString("\n")
	}
}

// offset renders ts as its distance from Epoch, e.g. "T+1h2m3s".
func offset(ts time.Time) string {
	return "T+" + ts.Sub(Epoch).String()
}

// text returns s as it is when it is plain printable ASCII without quotes
// or spaces, and Go-quoted otherwise (odd images carry control characters
// and invalid UTF-8).
func text(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.Quote(s)
		}
	}
	return s
}
