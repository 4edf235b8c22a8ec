package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests here call svg.go's layout helpers (placeLabels, drawLane,
// drawRow, rect) with constructed inputs that sit exactly on one of their
// boundaries, which no whole picture is likely to hit: a label ending
// exactly 6 px before another, a state exactly 12 px wide, two marks
// exactly 24 px apart.
//
// Their window is 955 s long, drawn on the 955 px from plotX0 to plotX1:
// a whole second is a whole pixel, x = 205 + seconds, to the bit
// (boundaryAt checks it), so that integer positions and label widths
// that are integers (textWidth at size 10 of 5n characters) meet a
// boundary exactly.

// boundaryWriter is a writer whose window is 0 to 955 s.
func boundaryWriter() *svgWriter {
	return &svgWriter{start: 0, end: 955 * time.Second}
}

// boundaryAt is the time drawn at x px on boundaryWriter's axis.
func boundaryAt(t *testing.T, w *svgWriter, px int) time.Duration {
	t.Helper()
	at := time.Duration(px-plotX0) * time.Second
	if got := w.x(at); got != float64(px) {
		t.Fatalf("precondition: %s is drawn at x %v, not exactly %d", fmtSecs(at), got, px)
	}
	return at
}

// placedLabel finds the label placeLabels gave the mark of class at at.
func placedLabel(out []placed, class string, at time.Duration) (placed, bool) {
	for _, p := range out {
		if p.m.Class == class && p.m.At == at {
			return p, true
		}
	}
	return placed{}, false
}

// Two marks at one instant, near the right edge: the first one's label
// goes right of the mark's line (3 px from it), the second one's does not
// fit there and goes left of it (3 px from it too). Labels on one row
// keep 6 px apart, and these two are exactly 6 px apart: both fit on the
// row. The mark's line between them is the 6 px; one pixel more to the
// right and the second label would end 5 px before the first: a note.
func TestLabelLayoutMarkLabelsExactlySixPixelsApart(t *testing.T) {
	for _, tc := range []struct {
		exitPx int
		placed bool
	}{{1140, true}, {1139, true}, {1141, false}} {
		w := boundaryWriter()
		kill := mark{At: boundaryAt(t, w, 1140), Class: "sigkill", Label: "SIGKILL"}
		exit := mark{At: boundaryAt(t, w, tc.exitPx), Class: "exit", Label: "exit 137"}
		out := placeLabels(w, []mark{exit, kill}, 1, 11, "app")
		k, ok := placedLabel(out, "sigkill", kill.At)
		if !ok || k.row != 0 || !k.toRight || k.x0 != 1143 {
			t.Fatalf("exit at x %d: SIGKILL placed %+v (%v), want right of its mark on row 0, from x 1143", tc.exitPx, k, ok)
		}
		e, ok := placedLabel(out, "exit", exit.At)
		if !tc.placed {
			if ok || len(w.notes) != 1 {
				t.Errorf("exit at x %d: exit 137 placed %+v (%v), notes %v; want no room for it on the row (it would end %v px before SIGKILL's): a note", tc.exitPx, e, ok, w.notes, k.x0-(float64(tc.exitPx)-3))
			}
			continue
		}
		if !ok || e.row != 0 || e.toRight || e.x1 != float64(tc.exitPx)-3 {
			t.Errorf("exit at x %d: exit 137 placed %+v (%v); want it left of its mark on row 0, ending at x %d, %v px before SIGKILL's label", tc.exitPx, e, ok, tc.exitPx-3, k.x0-(float64(tc.exitPx)-3))
		}
		if len(w.notes) != 0 {
			t.Errorf("exit at x %d: notes %v, want none", tc.exitPx, w.notes)
		}
	}
}

// A mark's label goes right of it unless it would come nearer than 8 px
// to the picture's right edge (1200 px): a label ending exactly at 1192
// stays right; one pixel further, it goes left of the mark. At size 10
// (a pod row's note references') "restart 10" is 62 px to the bit.
func TestLabelLayoutMarkLabelRightUpToTheMargin(t *testing.T) {
	const label = "restart 10"
	if textWidth(label, 10) != 62 {
		t.Fatalf("precondition: %q is %v px wide at size 10, not 62", label, textWidth(label, 10))
	}
	for _, tc := range []struct {
		px     int
		right  bool
		x0, x1 float64
	}{{1127, true, 1130, 1192}, {1126, true, 1129, 1191}, {1128, false, 1063, 1125}} {
		w := boundaryWriter()
		m := mark{At: boundaryAt(t, w, tc.px), Class: "start", Label: label}
		out := placeLabels(w, []mark{m}, 1, 10, "app")
		p, ok := placedLabel(out, "start", m.At)
		if !ok || p.toRight != tc.right || p.x0 != tc.x0 || p.x1 != tc.x1 {
			t.Errorf("mark at x %d: placed %+v (%v), want right %v, from x %v to %v", tc.px, p, ok, tc.right, tc.x0, tc.x1)
		}
	}
}

// A label on row r has its mark's line rising through the rows below it,
// not through its own row, where the line ends under the label's start:
// another label on that row may end nearer the line than 6 px. Here the
// liveness failure's whole label does not fit on row 0 (exit 1's label is
// in the way), and on row 1 SIGTERM (timeout 30s) ends 5.78 px left of
// the mark: the whole label goes on row 1, rather than the short one on
// row 0.
func TestLabelLayoutLabelRowKeepsNoRoomForItsOwnLine(t *testing.T) {
	w := boundaryWriter()
	term := mark{At: boundaryAt(t, w, 348), Class: "sigterm", Label: "SIGTERM (timeout 30s)", Short: "SIGTERM"}
	kill := mark{At: boundaryAt(t, w, 400), Class: "sigkill", Label: "SIGKILL"}
	exit := mark{At: boundaryAt(t, w, 560), Class: "exit", Label: "exit 1"}
	probe := mark{At: boundaryAt(t, w, 500), Class: "probe", Label: "liveness failed", Short: "failed"}
	out := placeLabels(w, []mark{term, kill, exit, probe}, 2, 11, "app")
	// The setting: SIGKILL and exit 1 on row 0; SIGTERM's label on row 1
	// (SIGKILL's is in its way on row 0), ending 5.78 px left of x 500.
	for _, want := range []struct {
		m   mark
		row int
	}{{kill, 0}, {exit, 0}, {term, 1}} {
		if p, ok := placedLabel(out, want.m.Class, want.m.At); !ok || p.row != want.row || p.m.Label != want.m.Label {
			t.Fatalf("precondition: %s placed %+v (%v), want %q on row %d", want.m.Class, p, ok, want.m.Label, want.row)
		}
	}
	if p, _ := placedLabel(out, "sigterm", term.At); p.x1 <= 493 || p.x1 > 497 {
		t.Fatalf("precondition: SIGTERM's label ends at x %v, not 3 to 7 px left of the mark at x 500", p.x1)
	}
	p, ok := placedLabel(out, "probe", probe.At)
	if !ok || p.row != 1 || p.m.Label != "liveness failed" {
		t.Errorf("liveness failed placed %+v (%v), want its whole label on row 1, beside SIGTERM's", p, ok)
	}
}

// No label of the rows below a mark's label may come nearer its line
// (x-1 to x+1) than 6 px: when one does, the short label clear of the line
// is taken on row 0 rather than the whole one on row 1 across it. Left of
// the line: a label ending nearer than 6 px to x-1 blocks it, one 6.78 px
// off does not. Right of the line (a mark near the right edge, its labels
// put left of it): a label starting 5 px from x+1 blocks it, one exactly
// 6 px off does not.
func TestLabelLayoutMarkLineKeepsSixPixelsFromLabelsBelow(t *testing.T) {
	t.Run("left", func(t *testing.T) {
		// liveness failed at x 500: right of it, exit 1's label keeps
		// the whole label off row 0, not the short one; on row 0 left of
		// the mark a SIGTERM label ends at x 494.22 (4.78 px from the
		// line's x 499) or 492.22 (6.78 px).
		for _, tc := range []struct {
			termPx int
			whole  bool
		}{{348, false}, {346, true}} {
			w := boundaryWriter()
			term := mark{At: boundaryAt(t, w, tc.termPx), Class: "sigterm", Label: "SIGTERM (timeout 30s)", Short: "SIGTERM"}
			exit := mark{At: boundaryAt(t, w, 560), Class: "exit", Label: "exit 1"}
			probe := mark{At: boundaryAt(t, w, 500), Class: "probe", Label: "liveness failed", Short: "failed"}
			out := placeLabels(w, []mark{term, exit, probe}, 2, 11, "app")
			if p, ok := placedLabel(out, "sigterm", term.At); !ok || p.row != 0 || p.x1 != float64(tc.termPx)+3+textWidth(term.Label, 11) {
				t.Fatalf("precondition: SIGTERM placed %+v (%v), want its whole label on row 0, right of its mark", p, ok)
			}
			assertProbeLabel(t, out, probe, tc.whole, "SIGTERM at x "+strconv.Itoa(tc.termPx))
		}
	})
	t.Run("right", func(t *testing.T) {
		// liveness failed at x 1150: both its labels go left of it (the
		// short one would end past x 1192 on the right). SIGKILL's label
		// on row 0 keeps the whole one off row 0, not the short one; right
		// of the mark, a 4-letter label on row 0 starts at x 1156 (5 px
		// from the line's x 1151) or 1157 (6 px: the gap is "nearer than
		// 6", exactly 6 is clear).
		for _, tc := range []struct {
			exitPx int
			whole  bool
		}{{1153, false}, {1154, true}} {
			w := boundaryWriter()
			kill := mark{At: boundaryAt(t, w, 1000), Class: "sigkill", Label: "SIGKILL"}
			exit := mark{At: boundaryAt(t, w, tc.exitPx), Class: "exit", Label: "exit"}
			probe := mark{At: boundaryAt(t, w, 1150), Class: "probe", Label: "liveness failed", Short: "failed"}
			out := placeLabels(w, []mark{kill, exit, probe}, 2, 11, "app")
			if p, ok := placedLabel(out, "exit", exit.At); !ok || p.row != 0 || !p.toRight || p.x0 != float64(tc.exitPx)+3 {
				t.Fatalf("precondition: exit placed %+v (%v), want it right of its mark on row 0", p, ok)
			}
			assertProbeLabel(t, out, probe, tc.whole, "exit at x "+strconv.Itoa(tc.exitPx))
		}
	})
}

func assertProbeLabel(t *testing.T, out []placed, probe mark, whole bool, setting string) {
	t.Helper()
	p, ok := placedLabel(out, "probe", probe.At)
	switch {
	case !ok:
		t.Errorf("%s: liveness failed not placed", setting)
	case whole && (p.row != 1 || p.m.Label != probe.Label):
		t.Errorf("%s: liveness failed placed %q on row %d, want %q on row 1 (its line clear of the label below)", setting, p.m.Label, p.row, probe.Label)
	case !whole && (p.row != 0 || p.m.Label != probe.Short):
		t.Errorf("%s: liveness failed placed %q on row %d, want %q on row 0 (on row 1 its line would pass nearer than 6 px to the label below)", setting, p.m.Label, p.row, probe.Short)
	}
}

// unlabelledExits places SIGTERM (timeout 30s) at x 380 on a lane's only
// label row, then exits at the given pixels under its label (x 340 to
// 520): none of them has room for its label, and they go to notes. It
// returns the notes.
func unlabelledExits(t *testing.T, pxs []int) []note {
	t.Helper()
	w := boundaryWriter()
	marks := []mark{{At: boundaryAt(t, w, 380), Class: "sigterm", Label: "SIGTERM (timeout 30s)"}}
	for _, px := range pxs {
		marks = append(marks, mark{At: boundaryAt(t, w, px), Class: "exit", Label: "exit 1"})
	}
	out := placeLabels(w, marks, 1, 11, "app")
	for _, p := range out {
		if p.m.Class == "exit" {
			t.Fatalf("precondition: the exit at %s got a label: %+v", fmtSecs(p.m.At), p)
		}
	}
	return w.notes
}

func noteTexts(notes []note) string {
	var s []string
	for _, n := range notes {
		s = append(s, n.ref+" "+n.text)
	}
	return strings.Join(s, "\n")
}

// Unlabelled marks closer than 24 px share a note: two exactly 24 px
// apart are not closer, and get a note each; 23 px apart, one.
func TestLabelLayoutUnlabelledMarksExactlyGapApart(t *testing.T) {
	if got, want := noteTexts(unlabelledExits(t, []int{400, 424})), "[1] app: 195.000s exit 1\n[2] app: 219.000s exit 1"; got != want {
		t.Errorf("exits 24 px apart: notes\n%s\nwant\n%s", got, want)
	}
	if got, want := noteTexts(unlabelledExits(t, []int{400, 423})), "[1] app: 195.000s exit 1, 218.000s exit 1"; got != want {
		t.Errorf("exits 23 px apart: notes\n%s\nwant\n%s", got, want)
	}
}

// A lane has at most 6 notes of unlabelled marks: the gap under which
// marks share a note doubles until it does. Six exits exactly 24 px apart
// get six notes; seven are more than six notes at 24 px, so the gap goes
// to 48 px, and the seven share one.
func TestLabelLayoutUnlabelledMarksAtMostSixNotes(t *testing.T) {
	pxs := []int{340, 364, 388, 412, 436, 460, 484}
	if notes := unlabelledExits(t, pxs[:6]); len(notes) != 6 {
		t.Errorf("six exits 24 px apart: notes\n%s\nwant six", noteTexts(notes))
	}
	want := "[1] app: 135.000s exit 1, 159.000s exit 1, 183.000s exit 1, 207.000s exit 1, 231.000s exit 1, 255.000s exit 1, 279.000s exit 1"
	if got := noteTexts(unlabelledExits(t, pxs)); got != want {
		t.Errorf("seven exits 24 px apart: notes\n%s\nwant\n%s", got, want)
	}
}

// A state drawn narrower than 6 px gets a dark edge (its fill's text
// colour) so that it stands out from its neighbours; one exactly 6 px
// wide is not narrower, and keeps the white edge of every other state.
func TestStateOutlineNarrowerThanSixPixels(t *testing.T) {
	for _, tc := range []struct {
		x1     float64
		stroke string
	}{{506, "#ffffff"}, {507, "#ffffff"}, {505.9, fills["running"][1]}, {503, fills["running"][1]}} {
		w := &svgWriter{}
		w.rect("span running", barSpan{sp: span{Class: "running"}, x0: 500, x1: tc.x1}, 100, barH)
		if want := `stroke="` + tc.stroke + `" stroke-width="0.6"`; !strings.Contains(w.b.String(), want) {
			t.Errorf("a state %v px wide: %s, want %s", tc.x1-500, w.b.String(), want)
		}
	}
}

// tagSetting is a bar of four states: A (x 205 to 585) and C (from n to
// 905) hold their labels inside; D (585 to 588) is 3 px wide, and its
// label goes on a tag beside it: right of it ("◂ label") where that tag
// covers nothing a tag must not hide, else left of it ("label ▸"). Between
// D and C, from 588 to n, is B: a state of its own (spans) or, with C
// starting at 588, an overlay over C (overlay). A tag must not hide a
// state or an overlay drawn narrower than 12 px; one exactly 12 px wide is
// not narrower (as a state narrower than minSpanW, or than 6 px for its
// dark edge: "narrower" is strict everywhere in the layout), and D's tag
// may cover it.
type tagSetting struct {
	bPx int // where B ends
}

// lane draws the setting as a container's lane; with overlay, B is a
// preStop overlay over C. It returns what drawLane wrote.
func (s tagSetting) lane(t *testing.T, overlay bool) string {
	t.Helper()
	w := boundaryWriter()
	at := func(px int) time.Duration { return boundaryAt(t, w, px) }
	ln := lane{Name: "app", Kind: "container"}
	ln.Spans = []span{
		{From: 0, To: at(585), Class: "running", Label: "running", Short: "running"},
		{From: at(585), To: at(588), Class: "failed", Label: "exited 1", Short: "exited 1"},
	}
	b := span{From: at(588), To: at(s.bPx), Class: "waiting", Label: "waiting", Short: "waiting"}
	c := span{From: at(s.bPx), To: at(905), Class: "running", Label: "running", Short: "running"}
	if overlay {
		b = span{From: at(600), To: at(600 + s.bPx - 588), Class: "prestop", Label: "preStop 12s", Short: "preStop"}
		c.From = at(588)
		ln.Overlays = []span{b}
		ln.Spans = append(ln.Spans, c)
		s.checkWidth(t, w.layoutBar(ln.Overlays, false)[0])
	} else {
		ln.Spans = append(ln.Spans, b, c)
		s.checkWidth(t, w.layoutBar(ln.Spans, true)[2])
	}
	drawLane(w, ln, 100, w.end)
	return w.b.String()
}

// row draws the setting as a pod row (kubectl's STATUS column) and
// returns what drawRow wrote.
func (s tagSetting) row(t *testing.T) string {
	t.Helper()
	w := boundaryWriter()
	at := func(px int) time.Duration { return boundaryAt(t, w, px) }
	r := row{Name: "kubectl STATUS", Kind: "column", Spans: []span{
		{From: 0, To: at(585), Class: "column", Label: "Running", Short: "Running"},
		{From: at(585), To: at(588), Class: "column", Label: "Error", Short: "Error"},
		{From: at(588), To: at(s.bPx), Class: "column", Label: "CrashLoopBackOff", Short: "CrashLoopBackOff"},
		{From: at(s.bPx), To: at(905), Class: "column", Label: "Running", Short: "Running"},
	}}
	s.checkWidth(t, w.layoutBar(r.Spans, true)[2])
	drawRow(w, r, 100)
	return w.b.String()
}

func (s tagSetting) checkWidth(t *testing.T, b barSpan) {
	t.Helper()
	if b.x1-b.x0 != float64(s.bPx-588) {
		t.Fatalf("precondition: B is drawn from x %v to %v, not exactly %d px wide", b.x0, b.x1, s.bPx-588)
	}
}

// tagSide says on which side of D its label's tag went: "right", "left",
// or what was written when neither.
func tagSide(out, label string) string {
	right := strings.Contains(out, `">◂ `+label+`</text>`)
	left := strings.Contains(out, `">`+label+` ▸</text>`)
	switch {
	case right && !left:
		return "right"
	case left && !right:
		return "left"
	}
	return out
}

// On a container's lane, a state exactly 12 px wide does not keep a tag
// off it (D's tag goes right of D, over it); one 11 px wide does (D's tag
// goes left).
func TestLabelLayoutTagsMayCoverStatesTwelvePixelsWide(t *testing.T) {
	for _, tc := range []struct {
		bPx  int
		side string
	}{{600, "right"}, {599, "left"}} {
		if got := tagSide(tagSetting{tc.bPx}.lane(t, false), "exited 1"); got != tc.side {
			t.Errorf("a state %d px wide right of D: D's tag %s, want %s", tc.bPx-588, got, tc.side)
		}
	}
}

// On a container's lane, an overlay (preStop, terminating) drawn
// narrower than 12 px keeps a tag off it as a state does (D's tag goes
// left of D); one exactly 12 px wide does not (D's tag goes right, over
// it).
func TestLabelLayoutTagsKeepOffOverlaysNarrowerThanTwelvePixels(t *testing.T) {
	for _, tc := range []struct {
		bPx  int
		side string
	}{{600, "right"}, {599, "left"}, {595, "left"}} {
		if got := tagSide(tagSetting{tc.bPx}.lane(t, true), "exited 1"); got != tc.side {
			t.Errorf("an overlay %d px wide right of D: D's tag %s, want %s", tc.bPx-588, got, tc.side)
		}
	}
}

// On a pod row, as on a lane, a state exactly 12 px wide does not keep a
// tag off it; one 11 px wide does.
func TestLabelLayoutRowTagsMayCoverStatesTwelvePixelsWide(t *testing.T) {
	for _, tc := range []struct {
		bPx  int
		side string
	}{{600, "right"}, {599, "left"}} {
		if got := tagSide(tagSetting{tc.bPx}.row(t), "Error"); got != tc.side {
			t.Errorf("a state %d px wide right of D: D's tag %s, want %s", tc.bPx-588, got, tc.side)
		}
	}
}

// A lane's last state may be labelled right of its end when it ends in
// the window, at its very end too (To == the window's end: x 1160). The
// room there, up to 8 px from the picture's edge, is 27 px: a label of 3
// characters at size 11 (no state of the program's is labelled that
// short; drawLane takes any). A state going on past the window is cut by
// it, and its label goes on a tag instead.
func TestLabelLayoutLastStateEndingAtTheWindowEnd(t *testing.T) {
	for _, tc := range []struct {
		to  time.Duration
		end bool
	}{{955 * time.Second, true}, {955*time.Second - time.Nanosecond, true}, {955*time.Second + time.Nanosecond, false}} {
		w := boundaryWriter()
		ln := lane{Name: "app", Kind: "container", Spans: []span{
			{From: 0, To: boundaryAt(t, w, 1140), Class: "running", Label: "running", Short: "running"},
			{From: boundaryAt(t, w, 1140), To: tc.to, Class: "failed", Label: "OOM", Short: "OOM"},
		}}
		drawLane(w, ln, 100, w.end)
		out := w.b.String()
		endLabel := strings.Contains(out, `<text class="label end" x="1165.0" y="4.0" font-size="11" fill="#111827">OOM</text>`)
		if endLabel != tc.end {
			t.Errorf("last state to %s (window to %s): label right of its end %v, want %v:\n%s", fmtSecs(tc.to), fmtSecs(w.end), endLabel, tc.end, out)
		}
		if !tc.end && tagSide(out, "OOM") != "left" {
			t.Errorf("last state to %s (window to %s): no tag left of it:\n%s", fmtSecs(tc.to), fmtSecs(w.end), out)
		}
	}
}

var reRowRef = regexp.MustCompile(`<text x="[0-9.]+" y="([0-9.]+)" font-size="10" fill="#111827">(\[[0-9]+\])</text>`)

// The references to a pod row's notes go on lines above its bar, 12 px
// apart: two references too close for one line, the second one 12 px
// above the first. The row: three 4 px states labelled Error at x 205,
// 225 and 245 (each one's tag would cover the next, or leave the plot),
// then Running; the third gets a tag right of it, the first two a note
// each (16 px apart: not one note), whose references at x 207 and 227
// need two lines.
func TestRowNoteReferencesOnTwoLines(t *testing.T) {
	w := boundaryWriter()
	at := func(px int) time.Duration { return boundaryAt(t, w, px) }
	r := row{Name: "kubectl STATUS", Kind: "column"}
	for _, px := range []int{205, 225, 245} {
		r.Spans = append(r.Spans, span{From: at(px), To: at(px + 4), Class: "column", Label: "Error", Short: "Error"})
	}
	r.Spans = append(r.Spans, span{From: at(249), To: at(905), Class: "column", Label: "Running", Short: "Running"})
	drawRow(w, r, 100)
	out := w.b.String()
	if len(w.notes) != 2 {
		t.Fatalf("precondition: notes %v, want two", w.notes)
	}
	y := map[string]float64{}
	for _, m := range reRowRef.FindAllStringSubmatch(out, -1) {
		y[m[2]], _ = strconv.ParseFloat(m[1], 64)
	}
	if len(y) != 2 || y["[1]"] == 0 || y["[2]"] == 0 {
		t.Fatalf("references %v, want [1] and [2]:\n%s", y, out)
	}
	if d := y["[1]"] - y["[2]"]; d != 12 {
		t.Errorf("[2] is %v px above [1], want 12 (one line of references up):\n%s", d, out)
	}
}
