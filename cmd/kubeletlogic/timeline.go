package main

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

func runTimeline(e *env) int {
	fs := newFlagSet(e, "timeline", "-f FILE|- [--script FILE] [--for 10m] [--delete-at 60s [--grace N]] [--remove-at 90s] [--resize [c:]cpu=500m] [--resize-pod cpu=300m] [--resize-at 30s] [--seed N] [--kubelet-version 1.37] [--gate Name=bool]... [--from 20s] [--to 40s] [-o svg|html]")
	f := addSimFlags(fs)
	var from, to durationFlag
	fs.Var(&from, "from", "draw from this time after the start (default 0s): with --to, zoom into a window of the simulation")
	fs.Var(&to, "to", "draw up to this time after the start (default: the end of the simulation)")
	out := fs.String("o", "svg", "output: svg (a picture) or html (a page with the picture, kubectl get pod -w and the CRI calls); both self-contained")
	if code := parseFlags(e, fs); code >= 0 {
		return code
	}
	if *out != "svg" && *out != "html" {
		fmt.Fprintf(e.stderr, "kubeletlogic timeline: -o %q: want svg or html\n", *out)
		return exitUsage
	}
	s, code := prepareSim(e, "timeline", f)
	if code >= 0 {
		return code
	}
	var win *window
	if from.set || to.set {
		// To the millisecond up, as the error messages print it.
		full := (axisEnd(s) + time.Millisecond - 1).Truncate(time.Millisecond)
		w := window{from: from.d, to: full, full: full}
		if to.set {
			w.to = to.d
		}
		if err := w.check(); err != nil {
			fmt.Fprintf(e.stderr, "kubeletlogic timeline: %v\n", err)
			return exitUsage
		}
		win = &w
	}
	pic := buildPicture(s, win)
	if *out == "html" {
		writeHTML(e.stdout, pic, s)
	} else {
		writeSVG(e.stdout, pic)
	}
	return exitOK
}

// picture is what the timeline draws: per pod, one lane per container,
// rows for the pod (kubectl's STATUS, the phase, the conditions), and the
// outside's actions, over one time axis.
type picture struct {
	Title string
	Lines []string // under the title: the node, the script, the actions
	// Start and End are the window the axis shows: 0 and the end of the
	// simulation, or --from and --to.
	Start, End time.Duration
	Pods       []podPicture
}

type podPicture struct {
	Name string
	// LanesEnd is where the containers' lanes end: when the kubelet is
	// done with a pod whose API object was deleted, else the picture's
	// end.
	LanesEnd   time.Duration
	Containers []lane
	Rows       []row
	Events     []mark // across every lane: the actions, the API object deleted
}

// lane is one container's life: its state bars and its marks.
type lane struct {
	Name, Kind string
	Spans      []span // what the status says, in order
	Overlays   []span // terminating, preStop: drawn over the spans
	Marks      []mark
}

// row is one line of the pod's part: kubectl's STATUS, the phase, or one
// condition.
type row struct {
	Name  string
	Kind  string // "column", "phase", "condition"
	Spans []span
}

// span is a stretch of time in one state.
type span struct {
	From, To time.Duration
	// Class is the state: waiting, running, ready, backoff, done, failed,
	// terminating, prestop; Pending, Running, Succeeded, Failed (phase);
	// True, False, Unknown (condition); column.
	Class string
	// Label is written on it when it fits, else Short, else nothing;
	// Title is the whole story, for a tooltip.
	Label, Short, Title string
	id                  string // the container instance, to split same-state runs
}

// mark is a moment: start, exit, probe (a failed liveness or startup
// probe), sigterm, sigkill, reset (a container's), or event (the pod's).
type mark struct {
	At    time.Duration
	Class string
	// Label is written beside it when there is room, else Short.
	Label, Short string
	Title        string
}

var reBackOff = regexp.MustCompile(`^back-off (\S+) `)

// stateSpan is the state one container status shows.
func stateSpan(cs *v1.ContainerStatus, kind string) span {
	s := span{id: runtimeID(cs.ContainerID)}
	switch st := cs.State; {
	case st.Waiting != nil && st.Waiting.Reason == "CrashLoopBackOff":
		s.Class, s.Label, s.Short = "backoff", "back-off", "back-off"
		if m := reBackOff.FindStringSubmatch(st.Waiting.Message); m != nil {
			s.Label = "back-off " + m[1]
		}
		s.Title = "waiting: CrashLoopBackOff: " + st.Waiting.Message
	case st.Waiting != nil:
		s.Class, s.Label, s.Short = "waiting", "waiting: "+st.Waiting.Reason, "waiting"
		s.Title = "waiting: " + st.Waiting.Reason
		if st.Waiting.Reason == "" {
			s.Label = "waiting"
		}
	case st.Running != nil && cs.Ready:
		s.Class, s.Label, s.Short, s.Title = "ready", "ready", "ready", "running and ready"
	case st.Running != nil:
		s.Class, s.Label, s.Short = "running", "running, not ready", "running"
		if kind == "init container" {
			// An init container is never ready: it runs to completion.
			s.Label = "running"
		} else if cs.Started == nil || !*cs.Started {
			s.Label = "running, not started"
		}
		s.Title = s.Label
	case st.Terminated != nil:
		t := st.Terminated
		s.Class = "done"
		if t.ExitCode != 0 {
			s.Class = "failed"
		}
		s.Label = fmt.Sprintf("exited %d", t.ExitCode)
		s.Short = fmt.Sprintf("exit %d", t.ExitCode)
		if t.Reason != "" {
			s.Label += " (" + t.Reason + ")"
		}
		s.Title = "terminated: " + s.Label
	default:
		s.Class, s.Label, s.Short, s.Title = "waiting", "no state", "", "no state"
	}
	if cs.RestartCount > 0 {
		s.Title += fmt.Sprintf("; %d restarts", cs.RestartCount)
	}
	return s
}

// usesAPI tells whether the pod's statuses are read from the API (every
// pod but a static one), as the watch view does.
func usesAPI(tl *sim.Timeline, pod string) bool {
	for _, e := range tl.Entries {
		if e.Pod == pod && e.Kind == sim.KindAPI {
			return true
		}
	}
	return false
}

// buildPicture derives what to draw from a simulation: container states
// and the pod's rows from the statuses the kubelet wrote (to the API, or
// its own for a static pod), marks and the terminating and preStop
// stretches from the CRI calls.
func buildPicture(s *simulation, win *window) *picture {
	pic := &picture{}
	var names []string
	for _, lp := range s.pods {
		names = append(names, podName(lp.pod))
	}
	pic.Title = fmt.Sprintf("Pods %s on a simulated kubelet %s", strings.Join(names, ", "), s.gates.Version())
	if len(s.pods) == 1 {
		pic.Title = fmt.Sprintf("Pod %s on a simulated kubelet %s", names[0], s.gates.Version())
	}
	var froms []string
	for _, lp := range s.pods {
		from := lp.from
		if rest, ok := strings.CutPrefix(from, "Pod/"+lp.pod.Name+" in "); ok {
			from = rest
		}
		froms = append(froms, from)
	}
	pic.Lines = append(pic.Lines, "from "+strings.Join(froms, "; "))
	pic.Lines = append(pic.Lines, scriptWords(s))
	if len(s.inputs) > 0 && len(s.inputs[0].Actions) > 0 {
		var as []string
		for _, a := range s.inputs[0].Actions {
			as = append(as, actionWords(a, s.inputs[0].Pod))
		}
		pic.Lines = append(pic.Lines, "then: "+strings.Join(as, "; "))
	}
	gates := "default feature gates"
	if d := s.gates.Diff(); len(d) > 0 {
		gates = "gates " + strings.Join(d, ", ")
	}
	pic.Lines = append(pic.Lines, fmt.Sprintf("kubelet %s, %s, seed %d; each bar is what the kubelet wrote to the pod's status", s.gates.Version(), gates, s.cfg.Seed))

	pic.End = axisEnd(s)
	if win != nil {
		pic.Start, pic.End = win.from, win.to
		pic.Lines = append(pic.Lines, fmt.Sprintf("window %s to %s (--from, --to) of a simulation drawn from 0s to %s: what happens outside it is not drawn",
			fmtSecs(win.from), fmtSecs(win.to), fmtSecs(win.full)))
	}
	for _, in := range s.inputs {
		pic.Pods = append(pic.Pods, buildPod(s, in, pic.Start, pic.End))
	}
	return pic
}

// axisEnd is where the time axis ends: when every pod's life ended
// (terminal or deleted), endRoom pixels after the last thing that
// happened, for the labels of the final states; else when the simulation
// stopped.
func axisEnd(s *simulation) time.Duration {
	tl := s.tl
	var last time.Duration
	ended := true
	for _, in := range s.inputs {
		_, st := tl.LastStatus(in.Pod.Name)
		gone := false
		for _, e := range tl.Entries {
			if e.Pod == in.Pod.Name && e.Kind == sim.KindAPI && e.Status == nil {
				gone = true
			}
		}
		if !gone && (st == nil || (st.Phase != v1.PodSucceeded && st.Phase != v1.PodFailed)) {
			ended = false
		}
	}
	for _, e := range tl.Entries {
		switch e.Kind {
		case sim.KindCRI, sim.KindExit, sim.KindStatus, sim.KindAPI, sim.KindAction:
			last = max(last, e.At)
		}
	}
	for _, in := range s.inputs {
		for _, a := range in.Actions {
			last = max(last, a.At.D())
		}
	}
	if !ended {
		return max(tl.End, s.cfg.For.D())
	}
	// Room on the right for the final states' labels.
	room := float64(plotX1-plotX0) / float64(plotX1-plotX0-endRoom)
	return time.Duration(float64(max(last, time.Second)) * room)
}

func buildPod(s *simulation, in sim.PodInput, start, end time.Duration) podPicture {
	tl, pod := s.tl, in.Pod
	pp := podPicture{Name: podName(pod)}
	// pixels is how wide a stretch of time is drawn.
	pixels := func(d time.Duration) float64 { return float64(d) / float64(end-start) * (plotX1 - plotX0) }
	api := usesAPI(tl, pod.Name)
	gone := end
	for _, e := range tl.Entries {
		if e.Pod == pod.Name && e.Kind == sim.KindAPI && e.Status == nil && strings.HasPrefix(e.Message, "API object deleted") {
			gone = e.At
			pp.Events = append(pp.Events, mark{At: e.At, Class: "event", Label: "API object deleted", Title: "the API object is deleted"})
		}
		if e.Pod == pod.Name && e.Kind == sim.KindAPI && strings.Contains(e.Message, "finalizers hold it") {
			pp.Events = append(pp.Events, mark{At: e.At, Class: "event", Label: "finalizers hold the object", Title: e.Message})
		}
	}
	for _, a := range in.Actions {
		pp.Events = append(pp.Events, mark{At: a.At.D(), Class: "event", Label: actionLabel(a, pod), Title: actionWords(a, pod)})
	}
	// The containers may outlive the API object (a force delete): their
	// lanes go on, from the kubelet's own statuses, as long as it acts.
	lanesEnd := gone
	for _, e := range tl.Entries {
		if e.Pod == pod.Name && e.At > gone && (e.Kind == sim.KindStatus || e.Kind == sim.KindCRI || e.Kind == sim.KindExit) {
			lanesEnd = max(lanesEnd, e.At)
		}
	}

	// The containers, in spec order; ephemeral ones as they appear.
	order := map[string]int{}
	for _, c := range pod.Spec.InitContainers {
		kind := "init container"
		if restart.IsSidecar(&c) {
			kind = "native sidecar"
		}
		order[c.Name] = len(pp.Containers)
		pp.Containers = append(pp.Containers, lane{Name: c.Name, Kind: kind})
	}
	for _, c := range pod.Spec.Containers {
		order[c.Name] = len(pp.Containers)
		pp.Containers = append(pp.Containers, lane{Name: c.Name, Kind: "container"})
	}
	laneOf := func(name string) *lane {
		i, ok := order[name]
		if !ok {
			order[name] = len(pp.Containers)
			pp.Containers = append(pp.Containers, lane{Name: name, Kind: "ephemeral"})
			i = order[name]
		}
		return &pp.Containers[i]
	}

	// States from the statuses.
	rows := []*row{{Name: "kubectl STATUS", Kind: "column"}, {Name: "phase", Kind: "phase"}}
	conds := map[v1.PodConditionType]*row{}
	condOrder := []v1.PodConditionType{v1.PodScheduled, v1.PodReadyToStartContainers, v1.PodInitialized, v1.ContainersReady, v1.PodReady}
	for _, c := range condOrder {
		conds[c] = &row{Name: string(c), Kind: "condition"}
	}
	runningUntil := map[string]time.Duration{}
	push := func(l *[]span, sp span, at, end time.Duration) {
		sp.From, sp.To = at, end
		if n := len(*l); n > 0 {
			prev := &(*l)[n-1]
			if prev.Class == sp.Class && prev.Label == sp.Label && prev.id == sp.id {
				return
			}
			prev.To = at
		}
		*l = append(*l, sp)
	}
	for _, e := range tl.Entries {
		if e.Pod != pod.Name || e.Status == nil {
			continue
		}
		fromAPI := api && e.Kind == sim.KindAPI && e.At <= gone
		if !fromAPI && !(e.Kind == sim.KindStatus && (!api || e.At >= gone)) {
			continue
		}
		st := e.Status.Status
		for _, l := range [][]v1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
			for i := range l {
				cs := &l[i]
				ln := laneOf(cs.Name)
				sp := stateSpan(cs, ln.Kind)
				id := runtimeID(cs.ContainerID)
				push(&ln.Spans, sp, e.At, lanesEnd)
				if cs.State.Running != nil {
					runningUntil[id] = -1
				} else if v, ok := runningUntil[id]; ok && v < 0 {
					runningUntil[id] = e.At
				}
				if t := cs.LastTerminationState.Terminated; t != nil {
					if v, ok := runningUntil[runtimeID(t.ContainerID)]; ok && v < 0 {
						runningUntil[runtimeID(t.ContainerID)] = e.At
					}
				}
			}
		}
		// A running instance the status no longer lists at all.
		for id, v := range runningUntil {
			if v < 0 && !listed(st, id) {
				runningUntil[id] = e.At
			}
		}
		if api && !fromAPI {
			// The pod's rows are what kubectl shows: gone with the object.
			continue
		}
		col := span{Class: "column", Label: e.Status.Column, Short: e.Status.Column, Title: "kubectl get pod: STATUS " + e.Status.Column + ", READY " + e.Status.Ready}
		push(&rows[0].Spans, col, e.At, gone)
		ph := string(st.Phase)
		if ph == "" {
			ph = "Pending"
		}
		push(&rows[1].Spans, span{Class: ph, Label: ph, Short: ph, Title: "phase " + ph}, e.At, gone)
		seen := map[v1.PodConditionType]bool{}
		for _, c := range st.Conditions {
			r, ok := conds[c.Type]
			if !ok {
				r = &row{Name: string(c.Type), Kind: "condition"}
				conds[c.Type] = r
				condOrder = append(condOrder, c.Type)
			}
			seen[c.Type] = true
			title := string(c.Type) + " " + string(c.Status)
			if c.Reason != "" {
				title += ": " + c.Reason
			}
			if c.Message != "" {
				title += ": " + c.Message
			}
			push(&r.Spans, span{Class: string(c.Status), Label: string(c.Status), Short: string(c.Status), Title: title}, e.At, gone)
		}
		for _, t := range condOrder {
			if r := conds[t]; !seen[t] && len(r.Spans) > 0 && r.Spans[len(r.Spans)-1].Class != "absent" {
				push(&r.Spans, span{Class: "absent"}, e.At, gone)
			}
		}
	}
	for _, r := range rows {
		pp.Rows = append(pp.Rows, *r)
	}
	for _, t := range condOrder {
		r := conds[t]
		var keep []span
		for _, sp := range r.Spans {
			if sp.Class != "absent" {
				keep = append(keep, sp)
			}
		}
		r.Spans = keep
		if len(keep) > 0 {
			pp.Rows = append(pp.Rows, *r)
		}
	}

	// Marks and the stop stretches from the CRI calls.
	created := map[string][]string{} // container -> instance IDs in creation order
	restarts := map[string]int{}     // instance ID -> restart count
	var syncAt time.Duration
	syncTerminating := false
	type exitAt struct {
		name, id string
		code     int32
		at       time.Duration
	}
	var exits []exitAt
	stopped := map[string]bool{} // instances ended by StopContainer
	for _, e := range tl.Entries {
		if e.Pod != pod.Name || e.At > lanesEnd {
			continue
		}
		if e.Kind == sim.KindSync {
			if w, _, _ := strings.Cut(e.Message, ":"); w == "sync" || w == "terminating" || w == "terminated" {
				syncAt, syncTerminating = e.At, w == "terminating"
			}
			continue
		}
		if e.Kind == sim.KindExit {
			var name, id string
			var code int32
			if _, err := fmt.Sscanf(e.Message, "%s %s exited with code %d", &name, &id, &code); err == nil {
				at := e.At
				if e.Exit != nil {
					at = e.Exit.Ended
				}
				exits = append(exits, exitAt{name: name, id: id, code: code, at: at})
			}
			continue
		}
		if e.Kind == sim.KindProbe && e.Probe != nil && e.Probe.Result == vocab.ProbeFailure && (e.Probe.Probe == "liveness" || e.Probe.Probe == "startup") {
			ln := laneOf(e.Probe.Container)
			ln.Marks = append(ln.Marks, mark{At: e.At, Class: "probe", Label: e.Probe.Probe + " failed", Short: "failed",
				Title: fmt.Sprintf("%s: %s probe of %s: failure threshold reached: the kubelet kills the container; whether and when it starts again follows its restartPolicy and the crash-loop back-off", fmtSecs(e.At), e.Probe.Probe, e.Probe.ID)})
			continue
		}
		if e.Kind != sim.KindCRI || e.Call == nil {
			continue
		}
		c := e.Call
		switch c.Method {
		case "CreateContainer":
			created[c.Name] = append(created[c.Name], c.ID)
			restarts[c.ID] = c.RestartCount
		case "StartContainer":
			label := "start"
			if n := restarts[c.ID]; n > 0 {
				label = fmt.Sprintf("restart %d", n)
			}
			ln := laneOf(c.Name)
			ln.Marks = append(ln.Marks, mark{At: e.At, Class: "start", Label: label, Title: fmt.Sprintf("%s: StartContainer %s", fmtSecs(e.At), c.ID)})
		case "RemoveContainer":
			if c.KeepLogs {
				ln := laneOf(c.Name)
				ln.Marks = append(ln.Marks, mark{At: e.At, Class: "reset", Label: "removed: restart all", Short: "reset",
					Title: fmt.Sprintf("%s: RemoveContainer %s, its logs kept: a RestartAllContainers reset", fmtSecs(e.At), c.ID)})
			}
		case "StopContainer":
			stopped[c.ID] = true
			ln := laneOf(c.Name)
			exit := e.At + c.Ended() - c.At
			timeout := int64(0)
			if c.Timeout != nil {
				timeout = *c.Timeout
			}
			hook := preStopOf(pod, in.Script, c.Name, instanceIndex(created[c.Name], c.ID))
			killStart := e.At
			if syncTerminating {
				killStart = syncAt
			}
			if hook > 0 {
				var from, to time.Duration
				if syncTerminating {
					from, to = syncAt, syncAt+min(hook, e.At-syncAt)
				} else {
					from, to = max(syncAt, e.At-hook), e.At
					killStart = from
				}
				if to > from {
					ln.Overlays = append(ln.Overlays, span{From: from, To: to, Class: "prestop", Label: "preStop " + roundDur(to-from), Short: "preStop",
						Title: fmt.Sprintf("preStop hook %s–%s", fmtSecs(from), fmtSecs(to))})
				}
			}
			termEnd := exit
			if v, ok := runningUntil[c.ID]; ok && v > termEnd {
				termEnd = v
			}
			term := span{From: killStart, To: termEnd, Class: "terminating", Label: "terminating", Short: "term.",
				Title: fmt.Sprintf("terminating %s–%s", fmtSecs(killStart), fmtSecs(termEnd))}
			ln.Overlays = append([]span{term}, ln.Overlays...)
			how := fmt.Sprintf("exits %s after", roundDur(exit-e.At))
			if c.Killed {
				how = "still running at the timeout"
			}
			ln.Marks = append(ln.Marks, mark{At: e.At, Class: "sigterm", Label: fmt.Sprintf("SIGTERM (timeout %ds)", timeout), Short: "SIGTERM",
				Title: fmt.Sprintf("%s: StopContainer %s timeout %ds: SIGTERM; %s", fmtSecs(e.At), c.ID, timeout, how)})
			if c.Killed {
				ln.Marks = append(ln.Marks, mark{At: exit, Class: "sigkill", Label: "SIGKILL",
					Title: fmt.Sprintf("%s: the %ds timeout of StopContainer %s ran out: SIGKILL", fmtSecs(exit), timeout, c.ID)})
			}
		}
	}
	// Exits of the process's own (a crash, a job done, a kill from
	// outside): SIGTERM and SIGKILL marks tell the others.
	for _, x := range exits {
		if stopped[x.id] {
			continue
		}
		ln := laneOf(x.name)
		m := mark{At: x.at, Class: "exit", Label: fmt.Sprintf("exit %d", x.code),
			Title: fmt.Sprintf("%s: %s exited with code %d", fmtSecs(x.at), x.id, x.code)}
		// No label when the exited state that follows, as drawn in the
		// window, is long enough to carry its own.
		for _, sp := range ln.Spans {
			if sp.From >= x.at && sp.id == x.id && (sp.Class == "done" || sp.Class == "failed") {
				if pixels(min(sp.To, end)-max(sp.From, start)) >= textWidth(sp.Short, 11)+8 {
					m.Label = ""
				}
				break
			}
		}
		ln.Marks = append(ln.Marks, m)
	}
	pp.LanesEnd = lanesEnd
	return pp
}

// runtimeID is the runtime's ID in a status's containerID
// ("containerd://ID").
func runtimeID(s string) string {
	if _, id, ok := strings.Cut(s, "://"); ok {
		return id
	}
	return s
}

// listed tells whether a status lists the container instance id.
func listed(st v1.PodStatus, id string) bool {
	for _, l := range [][]v1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
		for _, cs := range l {
			if runtimeID(cs.ContainerID) == id {
				return true
			}
		}
	}
	return false
}

func instanceIndex(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return 0
}

// preStopOf is how long the preStop hook of the container's instance
// number k runs: a sleep hook its seconds, another hook what the script
// says; 0 without a hook.
func preStopOf(pod *v1.Pod, script sim.Script, name string, k int) time.Duration {
	for _, c := range keycheck.Containers(pod) {
		if c.Name != name || c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
			continue
		}
		if s := c.Lifecycle.PreStop.Sleep; s != nil {
			return time.Duration(s.Seconds) * time.Second
		}
		runs := script.Containers[name].Runs
		if len(runs) == 0 {
			return 0
		}
		return runs[min(k, len(runs)-1)].PreStop.D()
	}
	return 0
}

// actionLabel is an action's short label on the picture.
func actionLabel(a sim.Action, pod *v1.Pod) string {
	switch {
	case (a.Delete != nil || a.Remove) && phase.IsStaticPod(pod):
		return "manifest removed (static pod)"
	case a.Delete != nil:
		g := *a.Delete
		if g < 0 {
			g = 30
			if pod.Spec.TerminationGracePeriodSeconds != nil {
				g = *pod.Spec.TerminationGracePeriodSeconds
			}
		}
		return fmt.Sprintf("kubectl delete (grace %ds)", g)
	case a.Remove:
		return "removed (kubectl delete --force)"
	case a.RemoveFinalizers:
		return "finalizers removed"
	case a.KillContainer != "":
		return "SIGKILL " + a.KillContainer + " (outside)"
	case a.KillSandbox:
		return "sandbox killed"
	case a.AddEphemeral != nil:
		return "kubectl debug: " + a.AddEphemeral.Name
	}
	return a.String()
}

// scriptWords is the script in one line, for the picture.
func scriptWords(s *simulation) string {
	if s.scriptName == "" {
		return "no script: every container runs until it is stopped and exits at once on SIGTERM; every probe succeeds"
	}
	var parts []string
	seen := map[string]bool{}
	for _, lp := range s.pods {
		for _, c := range keycheck.Containers(lp.pod) {
			if b, ok := s.script.Containers[c.Name]; ok && !seen[c.Name] {
				seen[c.Name] = true
				parts = append(parts, c.Name+" "+describeBehaviour(b))
			}
		}
	}
	if len(parts) == 0 {
		return "script " + s.scriptName
	}
	return "script: " + strings.Join(parts, "; ")
}

// roundDur prints a duration to the tenth of a second, or whole seconds
// from 10 s.
func roundDur(d time.Duration) string {
	if d >= 10*time.Second {
		return d.Round(time.Second).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
