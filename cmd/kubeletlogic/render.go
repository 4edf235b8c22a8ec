package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	serjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// writeText renders an explanation for a reader.
func writeText(w io.Writer, x *explanation) {
	var b bytes.Buffer
	writeTextRaw(&b, x)
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		nl := strings.HasSuffix(l, "\n")
		l = strings.TrimRight(l, " \n")
		if nl {
			l += "\n"
		}
		io.WriteString(w, l)
	}
}

func writeTextRaw(w io.Writer, x *explanation) {
	fmt.Fprintf(w, "Pod %s, from %s\n", x.Pod, x.From)
	gates := "its default feature gates"
	if len(x.Gates) > 0 {
		gates = "feature gates changed: " + strings.Join(x.Gates, ", ")
	}
	fmt.Fprintf(w, "kubelet %s with %s\n", x.KubeletVersion, gates)
	for _, wn := range x.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	fmt.Fprintf(w, "runtime: %s\n", x.Runtime)
	for _, a := range x.Assumed {
		fmt.Fprintf(w, "  assumed: %s\n", a)
	}
	at := x.At + " after the pod's start"
	if x.Now != nil {
		at += " (" + x.Now.Format("2006-01-02T15:04:05Z") + ")"
	}
	fmt.Fprintf(w, "time: %s\n", at)

	if x.Next.Function != "" {
		fmt.Fprintf(w, "\nNEXT: what the kubelet does on its next sync (%s)\n", x.Next.Function)
	} else {
		fmt.Fprintf(w, "\nNEXT: what the kubelet does on its next sync\n")
	}
	for _, l := range x.Next.Say {
		fmt.Fprintf(w, "  %s\n", l)
	}

	fmt.Fprintf(w, "\nSTATUS: what it writes to .status\n")
	fmt.Fprintf(w, "  phase %s: %s\n", x.Phase.Phase, x.Phase.Why)
	if x.Phase.HeldBack != "" {
		fmt.Fprintf(w, "  (%s)\n", x.Phase.HeldBack)
	}
	if x.Status.Reason != "" {
		fmt.Fprintf(w, "  reason %s: %s\n", x.Status.Reason, x.Status.Message)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  conditions:")
	for _, c := range x.Status.Conditions {
		why := c.Reason
		if c.Message != "" {
			why += ": " + c.Message
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", c.Type, c.Status, why)
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  containers:")
	kinds := map[string]string{}
	for _, o := range x.Containers {
		kinds[o.Name] = o.Kind
	}
	for _, l := range [][]v1.ContainerStatus{x.Status.InitContainerStatuses, x.Status.ContainerStatuses, x.Status.EphemeralContainerStatuses} {
		for i := range l {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", l[i].Name, kinds[l[i].Name], stateWords(&l[i]))
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "  kubectl get pods shows STATUS %s\n", x.KubectlStatus)

	fmt.Fprintf(w, "\nRESTARTS: what the kubelet does when a container exits\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, o := range x.Containers {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", o.Name, o.Kind, o.Policy)
		for _, r := range o.Rules {
			fmt.Fprintf(tw, "  \t\trule: %s\n", r)
		}
		fmt.Fprintf(tw, "  \t\tnow: %s\n", o.Now)
	}
	tw.Flush()
	if x.BackOff.None != "" {
		fmt.Fprintf(w, "  crash-loop back-off: does not apply: %s\n", x.BackOff.None)
	} else {
		fmt.Fprintf(w, "  crash-loop back-off: %s doubling to %s. A container that exits at once every time\n", x.BackOff.Initial, x.BackOff.Max)
		fmt.Fprintf(w, "  restarts at %s after its first start\n", strings.Join(x.BackOff.Restarts, ", "))
		fmt.Fprintf(w, "  (the earliest times: a real kubelet adds up to half the delay again, and its relist period)\n")
	}

	writeProbes(w, &x.Probes)
	writeResize(w, x.Resize)

	d := x.Deletion
	head := "IF DELETED NOW"
	if d.Static {
		head = "IF ITS MANIFEST IS REMOVED NOW"
	}
	if x.Next.Terminating {
		head = "BEING DELETED"
	}
	fmt.Fprintf(w, "\n%s: grace %ds (%s); %s\n", head, d.Grace, d.GraceFrom, d.Basis)
	if d.Ordered {
		fmt.Fprintln(w, "  native sidecars stop last, in reverse order, after the regular containers")
	}
	if len(d.Containers) > 0 {
		fmt.Fprintln(w, "  processes that ignore SIGTERM (the worst case) are killed at the timeout:")
	}
	for _, s := range d.Steps {
		if strings.HasPrefix(s, "sidecar ordering in force") {
			continue
		}
		fmt.Fprintf(w, "  %s\n", s)
	}
	for _, n := range d.Notes {
		fmt.Fprintf(w, "  (%s)\n", n)
	}
	for _, s := range d.Then {
		fmt.Fprintf(w, "  %s\n", s)
	}
	if d.MayDeleteNow != nil {
		fmt.Fprintf(w, "  now: %s\n", d.MayDeleteNow.Why)
	}
	writeAssumptions(w, x.Assumptions)
}

// stateWords renders one container status in words.
func stateWords(cs *v1.ContainerStatus) string {
	var parts []string
	switch s := cs.State; {
	case s.Running != nil:
		parts = append(parts, "running")
	case s.Terminated != nil:
		t := "terminated: exit " + fmt.Sprint(s.Terminated.ExitCode)
		if s.Terminated.Reason != "" {
			t += " (" + s.Terminated.Reason + ")"
		}
		parts = append(parts, t)
	case s.Waiting != nil:
		t := "waiting"
		if s.Waiting.Reason != "" {
			t += ": " + s.Waiting.Reason
		}
		parts = append(parts, t)
	default:
		parts = append(parts, "no state")
	}
	if cs.Started != nil && *cs.Started {
		parts = append(parts, "started")
	}
	if cs.Ready {
		parts = append(parts, "ready")
	} else if cs.State.Running != nil {
		parts = append(parts, "not ready")
	}
	if cs.RestartCount > 0 {
		parts = append(parts, fmt.Sprintf("%d restarts", cs.RestartCount))
	}
	if t := cs.LastTerminationState.Terminated; t != nil {
		l := "last: exit " + fmt.Sprint(t.ExitCode)
		if t.Reason != "" {
			l += " (" + t.Reason + ")"
		}
		parts = append(parts, l)
	}
	return strings.Join(parts, ", ")
}

// document is what -o json and -o yaml print: the explanations, one per pod.
type machineDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      any    `json:"items"`
}

func (d *machineDoc) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (d *machineDoc) DeepCopyObject() runtime.Object   { c := *d; return &c }

// writeMachine prints v (a list of explanations or check reports) as JSON
// or YAML, in a List.
func writeMachine(w io.Writer, format string, items any) error {
	doc := &machineDoc{APIVersion: "kubeletlogic/v1alpha1", Kind: "List", Items: items}
	if format == "json" {
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	return serjson.NewSerializerWithOptions(serjson.DefaultMetaFactory, nil, nil, serjson.SerializerOptions{Yaml: true}).Encode(doc, w)
}
