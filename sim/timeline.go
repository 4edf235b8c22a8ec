package sim

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Watch renders the timeline as `kubectl get pod -w` shows it: a row
// (NAME, READY, STATUS, RESTARTS, AGE) each time the pod's status changes,
// as kubectl prints a row for every change of the object even when the
// cells stay the same (a phase change behind the same STATUS, a
// condition), from the statuses the kubelet wrote to the API (the
// kubelet's own for a static pod), then a row when the object is deleted.
// AT is the simulation's clock, which kubectl does not print.
func (t *Timeline) Watch() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	fmt.Fprintln(w, "AT\tNAME\tREADY\tSTATUS\tRESTARTS\tAGE")
	last := map[string]string{}
	created := map[string]time.Duration{}
	api := map[string]bool{}
	for _, e := range t.Entries {
		if e.Kind == KindAPI {
			api[e.Pod] = true
		}
	}
	for _, e := range t.Entries {
		if e.Kind == KindAction && e.Message == "pod added to the kubelet" {
			created[e.Pod] = e.At
		}
		want := KindStatus
		if api[e.Pod] {
			want = KindAPI
		}
		if e.Kind != want {
			continue
		}
		age := duration.HumanDuration(e.At - created[e.Pod])
		if e.Status == nil {
			if e.Kind == KindAPI && strings.HasPrefix(e.Message, "API object deleted") {
				fmt.Fprintf(w, "%s\t%s\t\t(deleted)\t\t%s\n", fmtAt(e.At), e.Pod, age)
			}
			continue
		}
		restarts := e.Status.RestartsColumn
		if restarts == "" { // a timeline written before RestartsColumn
			restarts = fmt.Sprint(e.Status.Restarts)
			if ago, ok := lastRestart(e.Status.Status); ok && e.Status.Restarts > 0 {
				d := t.Start.Add(e.At).Sub(ago)
				if d < 0 {
					d = 0
				}
				restarts = fmt.Sprintf("%d (%s ago)", e.Status.Restarts, duration.HumanDuration(d))
			}
		}
		// kubectl -w prints a row for every change of the object, even
		// one that leaves the printed cells as they were (a phase change
		// behind the same STATUS, a condition, a ready flag): a row per
		// status that differs from the last one shown.
		row := statusKey(e.Status)
		if last[e.Pod] == row {
			continue
		}
		last[e.Pod] = row
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", fmtAt(e.At), e.Pod, e.Status.Ready, e.Status.Column, restarts, age)
	}
	w.Flush()
	return b.String()
}

// statusKey identifies a status and the generation it was written for.
func statusKey(s *StatusEntry) string {
	b, _ := json.Marshal(s.Status)
	return fmt.Sprintf("%d %s", s.Generation, b)
}

// lastRestart is kubectl's time of the newest restart: the latest
// finishedAt of a container's last termination state.
func lastRestart(st v1.PodStatus) (time.Time, bool) {
	var t time.Time
	for _, l := range [][]v1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses} {
		for _, cs := range l {
			if lt := cs.LastTerminationState.Terminated; lt != nil && lt.FinishedAt.After(t) {
				t = lt.FinishedAt.Time
			}
		}
	}
	return t, !t.IsZero()
}

// Calls renders the CRI calls: when, which pod, what.
func (t *Timeline) Calls() string {
	var b strings.Builder
	for _, e := range t.Entries {
		if e.Kind == KindCRI {
			fmt.Fprintf(&b, "%9s  %s  %s\n", fmtAt(e.At), e.Pod, e.Message)
		}
	}
	return b.String()
}

// Events renders every entry, one per line.
func (t *Timeline) Events() string {
	var b strings.Builder
	for _, e := range t.Entries {
		fmt.Fprintf(&b, "%9s  %-6s %s  %s\n", fmtAt(e.At), e.Kind, e.Pod, e.Message)
	}
	return b.String()
}

// String is the watch view followed by the CRI calls.
func (t *Timeline) String() string {
	return t.Watch() + "\nCRI calls:\n" + t.Calls()
}

// fmtAt prints a time of the simulation to the millisecond.
func fmtAt(d time.Duration) string {
	return fmt.Sprintf("%.3fs", d.Seconds())
}

// LastStatus returns the last status the kubelet wrote for the named pod
// (to the API; the kubelet's own for a static pod) and when, or nil.
func (t *Timeline) LastStatus(pod string) (time.Duration, *v1.PodStatus) {
	api := false
	for _, e := range t.Entries {
		if e.Pod == pod && e.Kind == KindAPI {
			api = true
		}
	}
	for i := len(t.Entries) - 1; i >= 0; i-- {
		e := t.Entries[i]
		if e.Pod != pod || e.Status == nil || (api && e.Kind != KindAPI) || (!api && e.Kind != KindStatus) {
			continue
		}
		st := e.Status.Status
		return e.At, &st
	}
	return 0, nil
}

// First returns the first entry of the named pod for which match is true.
func (t *Timeline) First(pod string, match func(Entry) bool) (Entry, bool) {
	for _, e := range t.Entries {
		if e.Pod == pod && match(e) {
			return e, true
		}
	}
	return Entry{}, false
}

// MarshalJSON writes the entry with its time as duration text ("1m0.5s").
func (e Entry) MarshalJSON() ([]byte, error) {
	type plain Entry
	return json.Marshal(struct {
		At Duration `json:"at"`
		plain
	}{Duration(e.At), plain(e)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Entry) UnmarshalJSON(b []byte) error {
	type plain Entry
	var v struct {
		At Duration `json:"at"`
		plain
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = Entry(v.plain)
	e.At = v.At.D()
	return nil
}

// MarshalJSON writes the call with its times as duration text.
func (c Call) MarshalJSON() ([]byte, error) {
	type plain Call
	return json.Marshal(struct {
		At      Duration `json:"at"`
		Done    Duration `json:"done"`
		PreStop Duration `json:"preStop,omitempty"`
		Waited  Duration `json:"waited,omitempty"`
		plain
	}{Duration(c.At), Duration(c.Done), Duration(c.PreStop), Duration(c.Waited), plain(c)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Call) UnmarshalJSON(b []byte) error {
	type plain Call
	var v struct {
		At      Duration `json:"at"`
		Done    Duration `json:"done"`
		PreStop Duration `json:"preStop,omitempty"`
		Waited  Duration `json:"waited,omitempty"`
		plain
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Call(v.plain)
	c.At, c.Done, c.PreStop, c.Waited = v.At.D(), v.Done.D(), v.PreStop.D(), v.Waited.D()
	return nil
}
