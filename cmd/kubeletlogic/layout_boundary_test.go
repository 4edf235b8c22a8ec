package main

// The layout's and the timeline builder's rules at their exact
// boundaries, on constructed inputs: layout.go's layoutBar, labelBar,
// zoomHint and wrapWords, and timeline.go's buildPod, called directly (a
// whole picture that lands exactly on a boundary is a matter of luck).
// Where a boundary is a float equality the test checks first that its
// input does land on it, so that it cannot pass for the wrong reason.

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// secondPerPixel is a window in which one second is one pixel: 0s is
// drawn at plotX0, 955s at plotX1, and whole seconds at whole pixels.
func secondPerPixel() *svgWriter {
	return &svgWriter{start: 0, end: (plotX1 - plotX0) * time.Second}
}

// stateAt is a state from s seconds, d seconds long (0: an instant).
func stateAt(s, d float64) span {
	from := time.Duration(s * float64(time.Second))
	return span{From: from, To: from + time.Duration(d*float64(time.Second)), Class: "waiting", Label: "waiting"}
}

// A state exactly minSpanW wide is not short: it is drawn as it is and
// does not join the short states around it into a run. Two zero-long
// states, one exactly 3 px long, two zero-long states: each pair of
// zero-long states is pushed at most 6 px (under maxPush), so all five are
// drawn one by one. Were the 3 px state short, the five would be one run
// pushed 5×3-3 = 12 px, drawn as a cluster.
func TestLabelLayoutStateExactlyMinSpanWide(t *testing.T) {
	w := secondPerPixel()
	if w.x(103*time.Second)-w.x(100*time.Second) != minSpanW {
		t.Fatalf("test setup: 100s-103s is %v px wide, not exactly %v", w.x(103*time.Second)-w.x(100*time.Second), minSpanW)
	}
	spans := []span{stateAt(100, 0), stateAt(100, 0), stateAt(100, 3), stateAt(103, 0), stateAt(103, 0)}
	out := w.layoutBar(spans, true)
	if len(out) != 5 {
		t.Fatalf("%d drawn spans, want the 5 states one by one: %+v", len(out), out)
	}
	for i, b := range out {
		if b.group != nil {
			t.Errorf("span %d is a cluster of %d: %+v", i, len(b.group), b)
		}
		if b.x1-b.x0 < minSpanW {
			t.Errorf("span %d drawn %v px wide, under minSpanW", i, b.x1-b.x0)
		}
	}
	// The 3 px state keeps its width, pushed right of the two before it.
	if got := out[2]; got.x0 != 311 || got.x1 != 314 {
		t.Errorf("the 3 px state drawn %v-%v, want 311-314 (305 pushed by two minSpanW states)", got.x0, got.x1)
	}
	// Just under minSpanW it is short, and the five are one cluster.
	spans[2] = stateAt(100, 2.5)
	if out := w.layoutBar(spans, true); len(out) != 1 || len(out[0].group) != 5 {
		t.Errorf("with a 2.5 px middle state: %+v, want one cluster of 5", out)
	}
}

// A run of short states pushed exactly maxPush right is drawn one by one
// ("by at most maxPush pixels"); one pushed further is a cluster. Three
// states from 100s to 101s (1 px) are drawn 3 px each: the last ends 8 px
// right of its true end.
func TestLabelLayoutPushOfExactlyMaxPush(t *testing.T) {
	w := secondPerPixel()
	spans := []span{stateAt(100, 0), stateAt(100, 0), stateAt(100, 1)}
	out := w.layoutBar(spans, true)
	if len(out) != 3 {
		t.Fatalf("%d drawn spans, want the 3 states one by one: %+v", len(out), out)
	}
	if push := out[2].x1 - w.x(101*time.Second); push != maxPush {
		t.Errorf("last state pushed %v px, want exactly maxPush (%v): the test misses the boundary", push, maxPush)
	}
	for i, b := range out {
		if b.group != nil {
			t.Errorf("span %d is a cluster: %+v", i, b)
		}
	}
	// Zero-long, the three would be pushed 9 px: one cluster.
	spans[2] = stateAt(100, 0)
	if out := w.layoutBar(spans, true); len(out) != 1 || len(out[0].group) != 3 {
		t.Errorf("three zero-long states: %+v, want one cluster of 3", out)
	}
}

// labelTaskOf is a state from x0 to x1 px, all of it visible.
func labelTaskOf(label, short string, x0, x1 float64) labelTask {
	return labelTask{b: barSpan{sp: span{From: time.Duration(x0-plotX0) * time.Second, To: time.Duration(x1-plotX0) * time.Second, Class: "waiting", Label: label, Short: short}, x0: x0, x1: x1},
		vis: [2]float64{x0, x1}, colour: "#111827"}
}

const labelSize = 10.0

// labelOneBar runs labelBar on one bar in a one-second-per-pixel window
// and returns what it wrote and the notes it made.
func labelOneBar(tasks []labelTask, blockers [][2]float64) (string, []note) {
	w := secondPerPixel()
	out, _ := w.barLabels("app", tasks, blockers, labelSize)
	return out, w.notes
}

var (
	reInlineLabel = regexp.MustCompile(`<text class="label inline" x="([-0-9.]+)"[^>]*>([^<]*)</text>`)
	reTagRect     = regexp.MustCompile(`<rect class="tag" x="([-0-9.]+)" y="[^"]*" width="([0-9.]+)"`)
	reTagText     = regexp.MustCompile(`<text class="label tag" x="([-0-9.]+)"[^>]*>([^<]*)</text>`)
)

// tagsWritten are the texts of the tags labelBar wrote, by text, with the
// x of their rectangle.
func tagsWritten(out string) map[string]float64 {
	tags := map[string]float64{}
	for _, m := range reTagText.FindAllStringSubmatch(out, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		tags[m[2]] = x - 2 // the text starts 2 px into its tag
	}
	return tags
}

// inlineWritten are the labels written inside their states.
func inlineWritten(out string) []string {
	var l []string
	for _, m := range reInlineLabel.FindAllStringSubmatch(out, -1) {
		l = append(l, m[2])
	}
	return l
}

// A tag clears what it must not hide by gap px on both sides: one that
// ends exactly gap (0.5 px) before a mark's line, or starts exactly gap
// after one, is clear of it and goes there.
func TestLabelLayoutTagExactlyGapFromABlocker(t *testing.T) {
	const label = "tttttttt" // 8 characters: too wide for the 20 px state, never cut
	// Right of the state, ending 0.5 px before a mark's line.
	tk := labelTaskOf(label, "", 300, 320)
	a := tk.vis[1] + 1.5
	b := a + textWidth("◂ "+label, labelSize) + 4
	if (b+0.5)-0.5 != b {
		t.Fatalf("test setup: %v+0.5-0.5 is not %v", b, b)
	}
	out, notes := labelOneBar([]labelTask{tk}, [][2]float64{{b + 0.5, b + 10.5}})
	if _, ok := tagsWritten(out)["◂ "+label]; !ok {
		t.Errorf("no tag right of the state ending exactly 0.5 px before the mark's line (tags %v, notes %v):\n%s", tagsWritten(out), notes, out)
	}
	// Left of it, starting 0.5 px after a mark's line; a line right of the
	// state keeps the tag from its right.
	tk = labelTaskOf(label, "", 600, 620)
	a = tk.vis[0] - 1.5 - (textWidth(label+" ▸", labelSize) + 4)
	if (a-0.5)+0.5 != a {
		t.Fatalf("test setup: %v-0.5+0.5 is not %v", a, a)
	}
	out, notes = labelOneBar([]labelTask{tk}, [][2]float64{{a - 10.5, a - 0.5}, {622, 700}})
	if _, ok := tagsWritten(out)[label+" ▸"]; !ok {
		t.Errorf("no tag left of the state starting exactly 0.5 px after the mark's line (tags %v, notes %v):\n%s", tagsWritten(out), notes, out)
	}
}

// A label fits in a room exactly 8 px wider than it (4 px either side):
// written inside its state, whole, not replaced by a tag; 1 px less and it
// does not.
func TestLabelLayoutLabelExactlyRoomLessEight(t *testing.T) {
	const label = "running, not started"
	tw := textWidth(label, labelSize)
	tk := labelTaskOf(label, "", 256, 256+tw+8)
	if tk.vis[1]-tk.vis[0] != tw+8 {
		t.Fatalf("test setup: room %v, not exactly %v", tk.vis[1]-tk.vis[0], tw+8)
	}
	out, _ := labelOneBar([]labelTask{tk}, nil)
	if got := inlineWritten(out); len(got) != 1 || got[0] != label {
		t.Errorf("inline labels %q, want %q whole in a room exactly %v+8 px wide:\n%s", got, label, tw, out)
	}
	if tags := tagsWritten(out); len(tags) != 0 {
		t.Errorf("tags %v for a label that fits inside", tags)
	}
	tk = labelTaskOf(label, "", 256, 256+tw+7)
	out, _ = labelOneBar([]labelTask{tk}, nil)
	for _, l := range inlineWritten(out) {
		if l == label {
			t.Errorf("%q written whole in a room 1 px under its width+8:\n%s", label, out)
		}
	}
}

// A label cut short keeps at least two thirds of it and 8 characters, and
// that shortest cut is tried too: "abcdefghijkl" (12 characters, two
// thirds 8) in a room for 9 characters but not 10 is written
// "abcdefgh…", not left to a note.
func TestLabelLayoutShortestCut(t *testing.T) {
	const label = "abcdefghijkl"
	room := textWidth("abcdefgh…", labelSize) + 8 + 1 // under a 10-character width+8
	if room >= textWidth("abcdefghi…", labelSize)+8 {
		t.Fatalf("test setup: room %v fits a longer cut", room)
	}
	tk := labelTaskOf(label, "", 400, 400+room)
	// A mark's line everywhere else: no tag anywhere.
	out, notes := labelOneBar([]labelTask{tk}, [][2]float64{{0, 2000}})
	if got := inlineWritten(out); len(got) != 1 || got[0] != "abcdefgh…" {
		t.Errorf("inline labels %q, want the shortest cut \"abcdefgh…\":\n%s", got, out)
	}
	if len(notes) != 0 {
		t.Errorf("notes %v for a label its shortest cut holds", notes)
	}
	// One character less room: nothing fits, a note says it.
	tk = labelTaskOf(label, "", 400, 400+room-textWidth("x", labelSize))
	if _, notes := labelOneBar([]labelTask{tk}, [][2]float64{{0, 2000}}); len(notes) != 1 {
		t.Errorf("notes %v in a room under the shortest cut, want 1", notes)
	}
}

// A tag may start exactly at the plot's left edge and end exactly 8 px
// before the picture's right edge: it is on the picture.
func TestLabelLayoutTagAtThePlotEdges(t *testing.T) {
	const label = "tttttttt"
	// Left: the state starts where a tag left of it starts exactly at
	// plotX0; a mark's line right of the state keeps the tag from there.
	tw := textWidth(label+" ▸", labelSize) + 4
	x0 := plotX0 + 1.5 + tw
	if x0-1.5-tw != plotX0 {
		t.Fatalf("test setup: a tag left of %v starts at %v, not plotX0", x0, x0-1.5-tw)
	}
	tk := labelTaskOf(label, "", x0, x0+20)
	out, notes := labelOneBar([]labelTask{tk}, [][2]float64{{x0 + 22, x0 + 100}})
	if x, ok := tagsWritten(out)[label+" ▸"]; !ok || x != plotX0 {
		t.Errorf("tags %v (notes %v), want %q at x %v, the plot's left edge:\n%s", tagsWritten(out), notes, label+" ▸", float64(plotX0), out)
	}
	// Right: the state ends where a tag right of it ends exactly at
	// svgWidth-8.
	tw = textWidth("◂ "+label, labelSize) + 4
	x1 := svgWidth - 8 - tw - 1.5
	if x1+1.5+tw != svgWidth-8 {
		t.Fatalf("test setup: a tag right of %v ends at %v, not svgWidth-8", x1, x1+1.5+tw)
	}
	tk = labelTaskOf(label, "", x1-20, x1)
	out, notes = labelOneBar([]labelTask{tk}, nil)
	if _, ok := tagsWritten(out)["◂ "+label]; !ok {
		t.Errorf("tags %v (notes %v), want %q ending exactly 8 px before the picture's right edge:\n%s", tagsWritten(out), notes, "◂ "+label, out)
	}
}

// A label written inside its state keeps its whole width from the tags
// placed after it: A's short label "run" (the narrowest state, labelled
// first) is neither hidden by B's tag reaching over its left part from the
// left, nor by C's reaching over its right part from the right. B's tag
// goes left of B instead; C's has no room (a mark's line right of C) and
// C gets a note.
func TestLabelLayoutInlineLabelKeepsItsRoom(t *testing.T) {
	tasks := []labelTask{
		labelTaskOf("bbbbbbbb", "", 305, 345),
		labelTaskOf("running, not ready", "run", 400, 430),
		labelTaskOf("cccccccc", "", 485, 525),
	}
	out, notes := labelOneBar(tasks, [][2]float64{{530, 540}})
	if got := inlineWritten(out); len(got) != 1 || got[0] != "run" {
		t.Fatalf("inline labels %q, want A's \"run\":\n%s", got, out)
	}
	tags := tagsWritten(out)
	if _, ok := tags["bbbbbbbb ▸"]; !ok || len(tags) != 1 {
		t.Errorf("tags %v, want only B's left of it (\"bbbbbbbb ▸\"):\n%s", tags, out)
	}
	if len(notes) != 1 || !strings.Contains(notes[0].text, "cccccccc") {
		t.Errorf("notes %v, want one for C", notes)
	}
	// Nothing written hides anything else written.
	var ivs [][2]float64
	for _, m := range reInlineLabel.FindAllStringSubmatch(out, -1) {
		cx, _ := strconv.ParseFloat(m[1], 64)
		tw := textWidth(m[2], labelSize)
		ivs = append(ivs, [2]float64{cx - tw/2, cx + tw/2})
	}
	for _, m := range reTagRect.FindAllStringSubmatch(out, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		w, _ := strconv.ParseFloat(m[2], 64)
		ivs = append(ivs, [2]float64{x, x + w})
	}
	for i := range ivs {
		for j := i + 1; j < len(ivs); j++ {
			if ivs[i][0] < ivs[j][1] && ivs[j][0] < ivs[i][1] {
				t.Errorf("%v and %v overlap:\n%s", ivs[i], ivs[j], out)
			}
		}
	}
}

// Unlabelled states less than 16 px apart share a note; 16 px apart or
// more, each gets its own. The threshold is strict as the code writes it
// ("neighbouring" is closer than 16 px): exactly 16 px apart is two notes.
func TestLabelLayoutNotesExactly16Apart(t *testing.T) {
	notesFor := func(gap float64) []note {
		tasks := []labelTask{
			labelTaskOf("waiting: ContainerCreating", "", 290, 300),
			labelTaskOf("waiting: PodInitializing", "", 300+gap, 310+gap),
		}
		_, notes := labelOneBar(tasks, [][2]float64{{0, 2000}})
		return notes
	}
	if n := notesFor(16); len(n) != 2 {
		t.Errorf("states exactly 16 px apart: notes %v, want 2", n)
	}
	if n := notesFor(15.5); len(n) != 1 {
		t.Errorf("states 15.5 px apart: notes %v, want 1", n)
	}
}

// zoomHint points to a window for a stretch that is at most a third of
// the one drawn: 10s-20s of a 0s-30s window is exactly a third and gets a
// hint; a nanosecond longer, none. (At exactly a third the side is a
// choice: the code's "more than a third is not small" keeps the hint.)
func TestLabelLayoutZoomHintExactlyAThird(t *testing.T) {
	w := &svgWriter{start: 0, end: 30 * time.Second}
	if got, want := w.zoomHint(10*time.Second, 20*time.Second), " (to see them: --from 10s --to 20s)"; got != want {
		t.Errorf("zoomHint(10s, 20s) in 0s-30s = %q, want %q", got, want)
	}
	if got := w.zoomHint(10*time.Second, 20*time.Second+1); got != "" {
		t.Errorf("zoomHint(10s, 20.000000001s) in 0s-30s = %q, want none", got)
	}
}

// A note line exactly as wide as the wrap width fits on one line.
func TestLabelLayoutNoteLineExactlyWrapWidth(t *testing.T) {
	const l = "[1] app 1.000s–2.000s: waiting"
	width := textWidth(l, 11.5)
	if got := wrapWords(l, 11.5, width); len(got) != 1 || got[0] != l {
		t.Errorf("wrapWords at exactly its width = %q, want it whole", got)
	}
	if got := wrapWords(l, 11.5, width-0.1); len(got) != 2 {
		t.Errorf("wrapWords 0.1 px under its width = %q, want two parts", got)
	}
}

// The timeline builder's inputs: a pod web with one container app.

func boundaryPod(preStopSeconds int64) *v1.Pod {
	c := v1.Container{Name: "app", Image: "app"}
	if preStopSeconds > 0 {
		c.Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: preStopSeconds}}}
	}
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: v1.PodSpec{Containers: []v1.Container{c}}}
}

func appRunning(id string) v1.ContainerStatus {
	return v1.ContainerStatus{Name: "app", ContainerID: "containerd://" + id, Ready: true, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}
}

func appExited(id string, code int32) v1.ContainerStatus {
	return v1.ContainerStatus{Name: "app", ContainerID: "containerd://" + id,
		State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: code, Reason: "Completed", ContainerID: "containerd://" + id}}}
}

func appWaiting(reason string) v1.ContainerStatus {
	return v1.ContainerStatus{Name: "app", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: reason}}}
}

// statusEntry is a status stored (KindStatus) or written to the API
// (KindAPI).
func statusEntry(kind sim.EntryKind, at time.Duration, column string, phase v1.PodPhase, cs ...v1.ContainerStatus) sim.Entry {
	return sim.Entry{At: at, Pod: "web", Kind: kind, Message: "status " + column,
		Status: &sim.StatusEntry{Column: column, Status: v1.PodStatus{Phase: phase, ContainerStatuses: cs}}}
}

func stopEntry(at, done time.Duration, id string) sim.Entry {
	timeout := int64(30)
	return sim.Entry{At: at, Pod: "web", Kind: sim.KindCRI, Message: "StopContainer app",
		Call: &sim.Call{At: at, Done: done, Method: "StopContainer", Name: "app", ID: id, Timeout: &timeout}}
}

func syncEntry(at time.Duration, message, work string) sim.Entry {
	return sim.Entry{At: at, Pod: "web", Kind: sim.KindSync, Message: message, Work: work}
}

func exitEntry(at time.Duration, id string, code int32) sim.Entry {
	return sim.Entry{At: at, Pod: "web", Kind: sim.KindExit, Message: "app " + id + " exited with code " + strconv.Itoa(int(code)),
		Exit: &sim.ExitEntry{Container: "app", ID: id, ExitCode: code, Ended: at}}
}

func buildBoundaryPod(pod *v1.Pod, start, end time.Duration, entries ...sim.Entry) podPicture {
	return buildPod(&simulation{tl: &sim.Timeline{Entries: entries}}, sim.PodInput{Pod: pod}, start, end)
}

func overlaysOf(l lane, class string) []span {
	var out []span
	for _, o := range l.Overlays {
		if o.Class == class {
			out = append(out, o)
		}
	}
	return out
}

// The status the kubelet writes to the API at the very instant it deletes
// the object (its last one, written before the deletion) is the object's:
// kubectl's STATUS and the phase end with it. (e.At <= gone.)
func TestTimelineAPIStatusAtTheDeletionInstant(t *testing.T) {
	pp := buildBoundaryPod(boundaryPod(0), 0, 10*time.Second,
		statusEntry(sim.KindAPI, 0, "Pending", v1.PodPending, appWaiting("ContainerCreating")),
		statusEntry(sim.KindStatus, time.Second, "Running", v1.PodRunning, appRunning("c1")),
		statusEntry(sim.KindAPI, time.Second, "Running", v1.PodRunning, appRunning("c1")),
		statusEntry(sim.KindStatus, 5*time.Second, "Completed", v1.PodSucceeded, appExited("c1", 0)),
		statusEntry(sim.KindAPI, 5*time.Second, "Completed", v1.PodSucceeded, appExited("c1", 0)),
		sim.Entry{At: 5 * time.Second, Pod: "web", Kind: sim.KindAPI, Message: "kubelet deleted the API object (grace 0)", API: sim.APIDeleted},
		sim.Entry{At: 5 * time.Second, Pod: "web", Kind: sim.KindAPI, Message: "API object deleted", API: sim.APIGone},
	)
	ends := map[string]string{}
	for _, r := range pp.Rows {
		if last := r.Spans[len(r.Spans)-1]; last.From == 5*time.Second {
			ends[r.Name] = last.Label
		}
	}
	if ends["kubectl STATUS"] != "Completed" || ends["phase"] != "Succeeded" {
		t.Errorf("rows ending at 5s %v, want kubectl STATUS Completed and phase Succeeded, the status written at the deletion", ends)
	}
}

// runningUntil is -1 while an instance is shown running, else the instant
// the statuses stopped showing it running; 0s is such an instant, not
// "still running": a later status does not move it. App's c1, shown running
// then exited by statuses both at 0s (runtime delays 0), stopped at 0s
// and exited at once, is terminating 0s-0s, not until a status at 2s
// that lists it exited (a), lists it as the last termination of c2 (b),
// or no longer lists it (c).
func TestTimelineRunningUntilZero(t *testing.T) {
	for _, tc := range []struct {
		name  string
		later sim.Entry
	}{
		{"listed_exited", statusEntry(sim.KindStatus, 2*time.Second, "Completed", v1.PodSucceeded, appExited("c1", 0))},
		{"last_termination", statusEntry(sim.KindStatus, 2*time.Second, "Running", v1.PodRunning, func() v1.ContainerStatus {
			cs := appRunning("c2")
			cs.LastTerminationState = appExited("c1", 0).State
			return cs
		}())},
		{"no_longer_listed", statusEntry(sim.KindStatus, 2*time.Second, "Pending", v1.PodPending, appWaiting("ContainerCreating"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pp := buildBoundaryPod(boundaryPod(0), 0, 10*time.Second,
				statusEntry(sim.KindStatus, 0, "Running", v1.PodRunning, appRunning("c1")),
				stopEntry(0, 0, "c1"),
				statusEntry(sim.KindStatus, 0, "Completed", v1.PodRunning, appExited("c1", 0)),
				tc.later,
			)
			term := overlaysOf(pp.Containers[0], "terminating")
			if len(term) != 1 || term[0].From != 0 || term[0].To != 0 {
				t.Errorf("terminating overlays %+v, want one 0s-0s", term)
			}
		})
	}
}

// The kubelet's acts after a force delete extend the container's lane to
// the last of them, and that last one is drawn: a StopContainer at 6s,
// 1s after the API object went, is the lane's end and has its SIGTERM mark.
func TestTimelineEntryAtTheLanesEnd(t *testing.T) {
	pp := buildBoundaryPod(boundaryPod(0), 0, 10*time.Second,
		statusEntry(sim.KindAPI, 0, "Pending", v1.PodPending, appWaiting("ContainerCreating")),
		statusEntry(sim.KindStatus, time.Second, "Running", v1.PodRunning, appRunning("c1")),
		statusEntry(sim.KindAPI, time.Second, "Running", v1.PodRunning, appRunning("c1")),
		sim.Entry{At: 5 * time.Second, Pod: "web", Kind: sim.KindAPI, Message: "API object deleted", API: sim.APIGone},
		stopEntry(6*time.Second, 6*time.Second, "c1"),
	)
	if pp.LanesEnd != 6*time.Second {
		t.Fatalf("lanes end at %v, want 6s", pp.LanesEnd)
	}
	found := false
	for _, m := range pp.Containers[0].Marks {
		found = found || (m.Class == "sigterm" && m.At == 6*time.Second)
	}
	if !found {
		t.Errorf("no SIGTERM mark at 6s, the lanes' end: %+v", pp.Containers[0].Marks)
	}
	if len(overlaysOf(pp.Containers[0], "terminating")) != 1 {
		t.Errorf("overlays %+v, want a terminating one", pp.Containers[0].Overlays)
	}
}

// A preStop hook that took no time (skipped: StopContainer in the very
// instant of its terminating sync) is not drawn: no zero-long "preStop 0s"
// overlay. One that ran 1s is.
func TestTimelineZeroLongPreStopNotDrawn(t *testing.T) {
	pp := buildBoundaryPod(boundaryPod(5), 0, 10*time.Second,
		statusEntry(sim.KindStatus, 0, "Running", v1.PodRunning, appRunning("c1")),
		syncEntry(3*time.Second, "terminating: the pod is deleted", "terminating"),
		stopEntry(3*time.Second, 3*time.Second, "c1"),
	)
	if p := overlaysOf(pp.Containers[0], "prestop"); len(p) != 0 {
		t.Errorf("preStop overlays %+v for a StopContainer at its sync's instant, want none", p)
	}
	pp = buildBoundaryPod(boundaryPod(5), 0, 10*time.Second,
		statusEntry(sim.KindStatus, 0, "Running", v1.PodRunning, appRunning("c1")),
		syncEntry(3*time.Second, "terminating: the pod is deleted", "terminating"),
		stopEntry(4*time.Second, 4*time.Second, "c1"),
	)
	if p := overlaysOf(pp.Containers[0], "prestop"); len(p) != 1 || p[0].From != 3*time.Second || p[0].To != 4*time.Second {
		t.Errorf("preStop overlays %+v, want 3s-4s", p)
	}
}

// exitMark is the exit mark on app's lane.
func exitMark(t *testing.T, pp podPicture) mark {
	t.Helper()
	for _, m := range pp.Containers[0].Marks {
		if m.Class == "exit" {
			return m
		}
	}
	t.Fatalf("no exit mark: %+v", pp.Containers[0].Marks)
	return mark{}
}

// An exit mark has no label when the exited state that follows carries
// its own, including a state that starts at the exit's very instant (the
// status written as the process ended).
func TestTimelineExitedStateAtTheExitInstant(t *testing.T) {
	pp := buildBoundaryPod(boundaryPod(0), 0, 10*time.Second,
		statusEntry(sim.KindStatus, 0, "Running", v1.PodRunning, appRunning("c1")),
		exitEntry(2*time.Second, "c1", 0),
		statusEntry(sim.KindStatus, 2*time.Second, "Completed", v1.PodSucceeded, appExited("c1", 0)),
	)
	if m := exitMark(t, pp); m.Label != "" {
		t.Errorf("exit mark labelled %q beside an 8s exited state of its own", m.Label)
	}
}

// The exited state carries its own label when it is at least the label's
// width+8 wide, as a label fits its state in the layout (fits): at exactly
// textWidth("exit 0")+8 = 48.92 px the exit mark has no label; 1ms
// narrower, it has. The window 0s-955s draws a second per pixel.
func TestTimelineExitedSpanExactlyLabelWide(t *testing.T) {
	end := 955 * time.Second
	d := 48920 * time.Millisecond
	want := textWidth("exit 0", 11) + 8
	if float64(d)/float64(end)*(plotX1-plotX0) != want {
		t.Fatalf("test setup: %v is drawn %v px, not exactly %v", d, float64(d)/float64(end)*(plotX1-plotX0), want)
	}
	for _, tc := range []struct {
		d     time.Duration
		label string
	}{{d, ""}, {d - time.Millisecond, "exit 0"}} {
		at := end - tc.d
		pp := buildBoundaryPod(boundaryPod(0), 0, end,
			statusEntry(sim.KindStatus, 0, "Running", v1.PodRunning, appRunning("c1")),
			exitEntry(at, "c1", 0),
			statusEntry(sim.KindStatus, at, "Completed", v1.PodSucceeded, appExited("c1", 0)),
		)
		if m := exitMark(t, pp); m.Label != tc.label {
			t.Errorf("exited state %v long: exit mark labelled %q, want %q", tc.d, m.Label, tc.label)
		}
	}
}

// Which sync-kind lines say a sync function ran: "sync", "terminating" and
// "terminated" do; a sync's own messages ("kill app: ...") and the
// kubelet's stop and start lines do not. A terminating sync at 3s with a
// message of its own, app's 1s preStop hook, StopContainer at 5s (after
// waiting its turn): preStop 3s-4s, terminating from 3s; the same with a
// "kubelet stopped" line at 4s and no hook: terminating from 3s. A
// "terminated" line ends the terminating sync: a StopContainer after it
// is terminating from its own instant.
func TestTimelineSyncLineClassification(t *testing.T) {
	t.Run("own_message", func(t *testing.T) {
		pp := buildBoundaryPod(boundaryPod(1), 0, 10*time.Second,
			statusEntry(sim.KindStatus, 0, "Running", v1.PodRunning, appRunning("c1")),
			syncEntry(3*time.Second, "terminating: the pod is deleted", "terminating"),
			syncEntry(3*time.Second, "kill app: the pod is deleted", ""),
			stopEntry(5*time.Second, 5*time.Second, "c1"),
		)
		if p := overlaysOf(pp.Containers[0], "prestop"); len(p) != 1 || p[0].From != 3*time.Second || p[0].To != 4*time.Second {
			t.Errorf("preStop overlays %+v, want 3s-4s", p)
		}
		if term := overlaysOf(pp.Containers[0], "terminating"); len(term) != 1 || term[0].From != 3*time.Second {
			t.Errorf("terminating overlays %+v, want one from 3s", term)
		}
	})
	t.Run("kubelet_stopped_line", func(t *testing.T) {
		pp := buildBoundaryPod(boundaryPod(0), 0, 10*time.Second,
			statusEntry(sim.KindStatus, 0, "Running", v1.PodRunning, appRunning("c1")),
			syncEntry(3*time.Second, "terminating: the pod is deleted", "terminating"),
			syncEntry(4*time.Second, "kubelet stopped (starts again in 1s): its memory of the pod is lost; the containers keep running", "kubelet stopped"),
			stopEntry(5*time.Second, 5*time.Second, "c1"),
		)
		if term := overlaysOf(pp.Containers[0], "terminating"); len(term) != 1 || term[0].From != 3*time.Second {
			t.Errorf("terminating overlays %+v, want one from 3s", term)
		}
	})
	t.Run("terminated_line", func(t *testing.T) {
		pp := buildBoundaryPod(boundaryPod(0), 0, 10*time.Second,
			statusEntry(sim.KindStatus, 0, "Running", v1.PodRunning, appRunning("c1")),
			syncEntry(time.Second, "terminating: the pod is deleted", "terminating"),
			syncEntry(2*time.Second, "terminated", "terminated"),
			stopEntry(5*time.Second, 5*time.Second, "c1"),
		)
		if term := overlaysOf(pp.Containers[0], "terminating"); len(term) != 1 || term[0].From != 5*time.Second {
			t.Errorf("terminating overlays %+v, want one from 5s", term)
		}
	})
}
