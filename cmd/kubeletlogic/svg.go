package main

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// The picture's geometry, in SVG pixels.
const (
	svgWidth   = 1200
	plotX0     = 205 // the time axis starts here; container names go left of it
	plotX1     = svgWidth - 40
	fontFamily = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
	barH       = 22
	markRowH   = 13
	rowBarH    = 18
	condBarH   = 14
	// endRoom is the room kept right of a finished life, for the labels
	// of its final states.
	endRoom = 150
)

// Fill and text colours per state: light fills with dark text, so that a
// black-and-white print keeps every label legible.
var fills = map[string][2]string{
	"waiting":     {"#e5e7eb", "#374151"},
	"running":     {"#bbf7d0", "#14532d"},
	"ready":       {"#4ade80", "#052e16"},
	"backoff":     {"#fed7aa", "#7c2d12"},
	"done":        {"#cbd5e1", "#0f172a"},
	"failed":      {"#fca5a5", "#7f1d1d"},
	"terminating": {"#fde68a", "#78350f"},
	"prestop":     {"#c4b5fd", "#2e1065"},
	"Pending":     {"#e5e7eb", "#374151"},
	"Running":     {"#93c5fd", "#1e3a8a"},
	"Succeeded":   {"#86efac", "#14532d"},
	"Failed":      {"#fca5a5", "#7f1d1d"},
	"Unknown":     {"#e5e7eb", "#374151"},
	"column":      {"#f8fafc", "#0f172a"},
	"cluster":     {"#9ca3af", "#111827"},
	"True":        {"#0f766e", "#ffffff"},
	"False":       {"#ffffff", "#6b7280"},
}

var markColours = map[string]string{
	"start":   "#166534",
	"sigterm": "#b45309",
	"sigkill": "#dc2626",
	"exit":    "#7f1d1d",
	"reset":   "#6d28d9",
	"probe":   "#be185d",
	"event":   "#1f2937",
	"note":    "#111827",
}

// svgWriter accumulates the elements.
type svgWriter struct {
	b strings.Builder
	// start and end are the window the axis shows (--from, --to).
	start, end time.Duration
	// notes are what did not fit where it belongs (see layout.go);
	// notePrefix names the pod in them when the picture has several.
	notes      []note
	notePrefix string
	// late holds the lanes' mark labels, written after the pod's event
	// lines so that their white boxes hide the lines behind them.
	late strings.Builder
	// out is where printf writes: b, or late.
	out *strings.Builder
}

func (w *svgWriter) x(t time.Duration) float64 {
	if w.end <= w.start {
		return plotX0
	}
	return plotX0 + float64(t-w.start)/float64(w.end-w.start)*(plotX1-plotX0)
}

func (w *svgWriter) printf(format string, args ...any) {
	if w.out == nil {
		w.out = &w.b
	}
	fmt.Fprintf(w.out, format, args...)
}

// esc escapes text for XML.
func esc(s string) string { return html.EscapeString(s) }

// textWidth estimates how wide text is drawn at a font size (DejaVu Sans
// runs wide: 0.62 of the size per character on average).
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.62
}

func (w *svgWriter) text(x, y float64, size float64, fill, anchor, weight, s string) {
	extra := ""
	if weight != "" {
		extra = fmt.Sprintf(` font-weight="%s"`, weight)
	}
	if anchor != "" && anchor != "start" {
		extra += fmt.Sprintf(` text-anchor="%s"`, anchor)
	}
	w.printf(`<text x="%.1f" y="%.1f" font-size="%g" fill="%s"%s>%s</text>`+"\n", x, y, size, fill, extra, esc(s))
}

// writeSVG draws the picture as a standalone SVG document.
func writeSVG(out io.Writer, pic *picture) {
	body, h := drawPicture(pic)
	fmt.Fprintf(out, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	writeSVGElement(out, body, h)
}

func writeSVGElement(out io.Writer, body string, h float64) {
	fmt.Fprintf(out, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="%s">`+"\n", svgWidth, h, svgWidth, h, fontFamily)
	fmt.Fprintf(out, `<rect x="0" y="0" width="%d" height="%.0f" fill="#ffffff"/>`+"\n", svgWidth, h)
	io.WriteString(out, body)
	io.WriteString(out, "</svg>\n")
}

// drawPicture returns the SVG elements and the picture's height.
func drawPicture(pic *picture) (string, float64) {
	w := &svgWriter{start: pic.Start, end: pic.End}
	y := 30.0
	w.text(16, y, 18, "#111827", "", "bold", pic.Title)
	y += 8
	for _, l := range pic.Lines {
		for _, part := range wrap(l, 12.5, svgWidth-32) {
			y += 18
			w.text(16, y, 12.5, "#374151", "", "", part)
		}
	}
	y += 14
	top := y
	for _, pp := range pic.Pods {
		if len(pic.Pods) > 1 {
			y += 18
			w.text(16, y, 14, "#111827", "", "bold", "Pod "+pp.Name)
			y += 4
		}
		if len(pic.Pods) > 1 {
			w.notePrefix = "pod " + pp.Name + ": "
		}
		y = drawPod(w, pp, y)
		y += 10
	}
	y = drawAxis(w, top, y)
	y += 26
	y = w.drawNotes(y)
	for _, l := range []string{
		"▼ start, restart N: StartContainer · ● exit N: the process ended by itself · ▽ a liveness or startup probe failed",
		"SIGTERM: StopContainer called, with its timeout · ✕ SIGKILL: that timeout ran out · dashed lines: what was done to the pod",
		"bars: each container's state as the pod's status gives it; preStop and terminating (term.) from the CRI calls",
		"a state too short to see is drawn 3 px wide with a dark edge; ◂ label: the label of the state left of it, label ▸: of the state right of it",
	} {
		w.text(16, y, 11.5, "#4b5563", "", "", l)
		y += 16
	}
	return w.b.String(), y
}

// label writes a placed label on a white box, which hides the lines of
// other marks behind it.
func (w *svgWriter) label(p placed, y, size float64, colour, weight string) {
	anchor, x := "start", p.x0
	if !p.toRight {
		anchor, x = "end", p.x1
	}
	w.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#ffffff"/>`+"\n", p.x0-1, y-size+1, p.x1-p.x0+2, size+1)
	w.text(x, y, size, colour, anchor, weight, p.m.Label)
}

// wrap breaks a line after "; " so that each part fits width.
func wrap(l string, size, width float64) []string {
	var out []string
	cur := ""
	for _, part := range strings.SplitAfter(l, "; ") {
		if cur != "" && textWidth(cur+part, size) > width {
			out = append(out, strings.TrimSuffix(cur, " "))
			cur = "    "
		}
		cur += part
	}
	return append(out, cur)
}

// placed is a label put on one of a lane's label rows.
type placed struct {
	m       mark
	row     int
	x0, x1  float64
	toRight bool
}

// placeLabels puts mark labels on rows above a bar (row 0 nearest), the
// most important first (SIGKILL, SIGTERM, exits, events, starts), the
// short form when the label fits nowhere. A label on row r has its mark's
// line rising through the rows below it: no label of those rows may cross
// that line. Marks outside the window are left out (the axis says what
// the window is). What fits nowhere on the first rows rows gets a note
// (see layout.go): its reference [n] goes on those rows, or on a new row
// above them; name is the lane's, for the note.
func placeLabels(w *svgWriter, marks []mark, rows int, size float64, name string) []placed {
	prio := map[string]int{"sigkill": 0, "sigterm": 1, "exit": 2, "probe": 3, "reset": 4, "event": 5, "start": 6, "note": 7}
	idx := make([]int, 0, len(marks))
	for i, m := range marks {
		if w.inWindow(m.At, m.At) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ma, mb := marks[idx[a]], marks[idx[b]]
		if prio[ma.Class] != prio[mb.Class] {
			return prio[ma.Class] < prio[mb.Class]
		}
		return ma.At < mb.At
	})
	var out []placed
	taken := make([][][2]float64, rows)
	free := func(r int, a, b float64) bool {
		for _, iv := range taken[r] {
			if a < iv[1]+6 && b > iv[0]-6 {
				return false
			}
		}
		return true
	}
	try := func(m mark, label string, strict bool) bool {
		x := w.x(m.At)
		tw := textWidth(label, size)
		a, b, right := x+3, x+3+tw, true
		if b > svgWidth-8 {
			a, b, right = x-3-tw, x-3, false
		}
		for r := 0; r < len(taken); r++ {
			if !free(r, a, b) {
				continue
			}
			below := true
			for q := 0; q < r; q++ {
				below = below && free(q, x-1, x+1)
			}
			if !below && strict {
				continue
			}
			taken[r] = append(taken[r], [2]float64{a, b})
			for q := 0; q < r; q++ {
				taken[q] = append(taken[q], [2]float64{x - 1, x + 1})
			}
			m.Label = label
			out = append(out, placed{m: m, row: r, x0: a, x1: b, toRight: right})
			return true
		}
		return false
	}
	var unplaced []mark
	for _, i := range idx {
		m := marks[i]
		if m.Label == "" {
			continue
		}
		if m.Class == "note" {
			// A note's reference: on a new row if need be.
			for !(try(m, m.Label, true) || try(m, m.Label, false)) {
				taken = append(taken, nil)
			}
			continue
		}
		// Rather the short label clear of other marks' lines, then the
		// label across one (it is drawn on a white box over the line).
		if !(try(m, m.Label, true) || (m.Short != "" && try(m, m.Short, true)) || try(m, m.Label, false) || (m.Short != "" && try(m, m.Short, false))) {
			unplaced = append(unplaced, m)
		}
	}
	// A note per run of neighbouring marks left without a label; its
	// reference goes where it fits, on a new row if need be.
	sort.SliceStable(unplaced, func(i, j int) bool { return unplaced[i].At < unplaced[j].At })
	// Marks closer than gap pixels share a note; gap grows until a lane
	// has at most 6 notes.
	gap := 24.0
	for {
		n := 0
		for i := range unplaced {
			if i == 0 || w.x(unplaced[i].At)-w.x(unplaced[i-1].At) >= gap {
				n++
			}
		}
		if n <= 6 {
			break
		}
		gap *= 2
	}
	for i := 0; i < len(unplaced); {
		j := i + 1
		for j < len(unplaced) && w.x(unplaced[j].At)-w.x(unplaced[j-1].At) < gap {
			j++
		}
		var parts []string
		for _, m := range unplaced[i:j] {
			parts = append(parts, fmtSecs(m.At)+" "+m.Label)
		}
		ref := w.addNote(name + ": " + strings.Join(parts, ", "))
		m := mark{At: unplaced[i].At, Class: "note", Label: ref, Title: ref + " " + name}
		for !(try(m, ref, true) || try(m, ref, false)) {
			taken = append(taken, nil)
		}
		i = j
	}
	return out
}

func drawPod(w *svgWriter, pp podPicture, y float64) float64 {
	w.printf(`<g class="pod" data-pod="%s">`+"\n", esc(pp.Name))
	// The events' labels, above the lanes.
	evRows := 3
	evLabels := placeLabels(w, pp.Events, evRows, 11.5, "pod "+pp.Name+" events")
	used := 0
	for _, p := range evLabels {
		used = max(used, p.row+1)
	}
	evTop := y
	y += float64(used)*14 + 4
	lanesTop := y

	for _, ln := range pp.Containers {
		y = drawLane(w, ln, y, pp.LanesEnd)
	}
	y += 4
	w.printf(`<line x1="16" y1="%.1f" x2="%d" y2="%.1f" stroke="#d1d5db" stroke-width="1"/>`+"\n", y, plotX1, y)
	y += 10
	w.text(16, y+4, 12, "#111827", "", "bold", "the pod")
	y += 10
	for _, r := range pp.Rows {
		y = drawRow(w, r, y)
	}
	bottom := y

	// The events: dashed lines across the lanes and rows, labelled above.
	labelY := func(row int) float64 { return evTop + float64(used-row)*14 - 2 }
	for _, m := range pp.Events {
		if !w.inWindow(m.At, m.At) {
			continue
		}
		x := w.x(m.At)
		top := lanesTop - 2
		for _, p := range evLabels {
			if p.m.At == m.At && p.m.Title == m.Title {
				top = labelY(p.row) - 10
			}
		}
		w.printf(`<g class="event" data-at="%s"><title>%s</title>`, fmtSecs(m.At), esc(m.Title))
		w.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.2" stroke-dasharray="5,3"/>`, x, top, x, bottom, markColours["event"])
		w.printf("</g>\n")
	}
	w.b.WriteString(w.late.String())
	w.late.Reset()
	for _, p := range evLabels {
		w.label(p, labelY(p.row), 11.5, markColours["event"], "bold")
	}
	w.printf("</g>\n")
	return bottom
}

// rect draws a state as laid out (see layoutBar): a state narrower than
// a label gets a dark outline, so that it stands out from its neighbours.
func (w *svgWriter) rect(class string, b barSpan, y, h float64) {
	f, ok := fills[b.sp.Class]
	if !ok {
		f = fills["Unknown"]
	}
	fill, stroke := f[0], "#ffffff"
	switch {
	case strings.HasSuffix(class, " column"):
		stroke = "#94a3b8"
	case h <= 2:
		// A condition's False: a line.
		fill, stroke = "#9ca3af", "#9ca3af"
	}
	if b.x1-b.x0 < 6 {
		stroke = f[1]
	}
	w.printf(`<rect class="%s" data-from="%s" data-to="%s" x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s" stroke="%s" stroke-width="0.6"><title>%s</title></rect>`+"\n",
		class, fmtSecs(b.sp.From), fmtSecs(b.sp.To), b.x0, y, b.x1-b.x0, h, fill, stroke, esc(b.sp.Title))
}

func drawLane(w *svgWriter, ln lane, y float64, gone time.Duration) float64 {
	const rows = 3
	spans := w.layoutBar(ln.Spans, true)
	overlays := w.layoutBar(ln.Overlays, false)
	// The states' labels: what a tag must not hide are the marks' lines
	// across the bar and the states drawn narrower than a label.
	var blockers [][2]float64
	for _, m := range ln.Marks {
		switch m.Class {
		case "exit", "sigterm", "sigkill", "reset":
			if w.inWindow(m.At, m.At) {
				blockers = append(blockers, [2]float64{w.x(m.At) - 4, w.x(m.At) + 4})
			}
		}
	}
	var tasks []labelTask
	for i, b := range spans {
		if b.x1-b.x0 < 12 {
			blockers = append(blockers, [2]float64{b.x0, b.x1})
		}
		tasks = append(tasks, labelTask{b: b, vis: widestVisible(b.x0, b.x1, overlays), colour: fills[b.sp.Class][1], last: i == len(spans)-1 && b.sp.To <= w.end})
	}
	for i, b := range overlays {
		if b.x1-b.x0 < 12 {
			blockers = append(blockers, [2]float64{b.x0, b.x1})
		}
		tasks = append(tasks, labelTask{b: b, vis: widestVisible(b.x0, b.x1, overlays[i+1:]), colour: fills[b.sp.Class][1]})
	}
	barLabels, refs := w.barLabels(ln.Name, tasks, blockers, 11)
	labels := placeLabels(w, append(append([]mark(nil), ln.Marks...), refs...), rows, 11, ln.Name)
	used := 0
	for _, p := range labels {
		used = max(used, p.row+1)
	}
	y += 6
	barY := y + float64(used)*markRowH + 4
	w.printf(`<g class="lane" data-container="%s" data-kind="%s">`+"\n", esc(ln.Name), esc(ln.Kind))
	// The name, left of the axis.
	w.text(16, barY+barH/2-1, 13.5, "#111827", "", "bold", ln.Name)
	w.text(16, barY+barH/2+13, 11, "#6b7280", "", "", ln.Kind)
	// A faint track, so that a container's time before its first status
	// reads as "not there yet".
	if gone > w.start {
		w.printf(`<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="#f9fafb" stroke="#e5e7eb" stroke-width="0.6"/>`+"\n", plotX0, barY, w.x(min(gone, w.end))-plotX0, barH)
	}
	for _, b := range spans {
		w.rect("span "+b.sp.Class, b, barY, barH)
	}
	for _, b := range overlays {
		w.rect("overlay "+b.sp.Class, b, barY, barH)
	}
	w.printf(`<g class="bar-labels" transform="translate(0 %.1f)">`+"\n%s</g>\n", barY+barH/2, barLabels)
	// The marks, then their labels.
	byMark := map[int]placed{}
	for _, p := range labels {
		for i, m := range ln.Marks {
			if m.At == p.m.At && m.Class == p.m.Class && m.Title == p.m.Title {
				byMark[i] = p
			}
		}
	}
	for i, m := range ln.Marks {
		if !w.inWindow(m.At, m.At) {
			continue
		}
		x := w.x(m.At)
		c := markColours[m.Class]
		p, hasLabel := byMark[i]
		labelY := barY - 4 - float64(p.row)*markRowH
		w.printf(`<g class="mark %s" data-container="%s" data-at="%s"><title>%s</title>`, m.Class, esc(ln.Name), fmtSecs(m.At), esc(m.Title))
		switch m.Class {
		case "start":
			w.printf(`<path d="M%.1f %.1f l-4 -6 h8 z" fill="%s"/>`, x, barY, c)
		case "reset":
			w.printf(`<path d="M%.1f %.1f l-4 -6 h8 z M%.1f %.1f v%d" fill="%s" stroke="%s" stroke-width="1.2"/>`, x, barY, x, barY, barH, c, c)
		case "probe":
			w.printf(`<path d="M%.1f %.1f l4 -6 h-8 z" fill="#ffffff" stroke="%s" stroke-width="1.5"/>`, x, barY-1, c)
		case "exit":
			w.printf(`<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f" stroke="%s" stroke-width="1.5"/>`, x, barY-3, x, barY+barH+3, c)
			w.printf(`<circle cx="%.2f" cy="%.1f" r="3" fill="%s"/>`, x, barY-3, c)
		case "sigterm":
			top := barY - 3
			if hasLabel {
				top = labelY - 9
			}
			w.printf(`<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f" stroke="%s" stroke-width="2"/>`, x, top, x, barY+barH+3, c)
		case "sigkill":
			top := barY - 3
			if hasLabel {
				top = labelY - 9
			}
			w.printf(`<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f" stroke="%s" stroke-width="2.5"/>`, x, top, x, barY+barH+3, c)
			w.printf(`<path d="M%.1f %.1f l8 8 m0 -8 l-8 8" stroke="%s" stroke-width="2.2"/>`, x-4, barY+barH/2-4, c)
		}
		w.printf("</g>\n")
	}
	w.printf("</g>\n")
	// The labels go on top of everything (see svgWriter.late).
	w.out = &w.late
	w.printf(`<g class="labels" data-container="%s">`+"\n", esc(ln.Name))
	for _, p := range labels {
		weight := "bold"
		if p.m.Class == "start" || p.m.Class == "note" {
			weight = ""
		}
		ly := barY - 4 - float64(p.row)*markRowH
		if p.m.Class == "note" {
			// A reference to a note on the bar below: a leader down to it.
			x := w.x(p.m.At)
			w.printf(`<line class="leader" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#6b7280" stroke-width="0.8" stroke-dasharray="1,1.5"/>`+"\n", x, ly+1, x, barY+barH/2)
		}
		w.label(p, ly, 11, markColours[p.m.Class], weight)
	}
	w.printf("</g>\n")
	w.out = &w.b
	return barY + barH + 10
}

func drawRow(w *svgWriter, r row, y float64) float64 {
	colour := func(class string) string {
		if f, ok := fills[class]; ok {
			return f[1]
		}
		return fills["Unknown"][1]
	}
	var tasks []labelTask
	var blockers [][2]float64
	spans := w.layoutBar(r.Spans, true)
	for i, b := range spans {
		if b.x1-b.x0 < 12 {
			blockers = append(blockers, [2]float64{b.x0, b.x1})
		}
		tasks = append(tasks, labelTask{b: b, vis: [2]float64{b.x0, b.x1}, colour: colour(b.sp.Class), last: i == len(spans)-1 && b.sp.To <= w.end})
	}
	size := 11.0
	if r.Kind == "condition" {
		size = 10
	}
	barLabels, refs := w.barLabels(r.Name, tasks, blockers, size)
	// The references to notes go on rows above the bar.
	labels := placeLabels(w, refs, 1, 10, r.Name)
	used := 0
	for _, p := range labels {
		used = max(used, p.row+1)
	}
	y += float64(used) * 12
	w.printf(`<g class="row" data-row="%s">`+"\n", esc(r.Name))
	yMid := 0.0
	switch r.Kind {
	case "condition":
		y += 4
		w.text(16, y+condBarH-3, 11.5, "#374151", "", "", r.Name)
		for _, b := range spans {
			switch b.sp.Class {
			case "True", "cluster":
				w.rect("span "+b.sp.Class, b, y, condBarH)
			default:
				// False (or Unknown): low, a line at the bottom.
				w.rect("span "+b.sp.Class, b, y+condBarH-2, 2)
			}
		}
		yMid = y + condBarH/2 - 0.5
		y += condBarH + 2
	default:
		y += 5
		w.text(16, y+rowBarH-4, 12, "#111827", "", "", r.Name)
		for _, b := range spans {
			w.rect("span "+b.sp.Class, b, y, rowBarH)
		}
		yMid = y + rowBarH/2
		y += rowBarH + 1
	}
	w.printf(`<g class="bar-labels" transform="translate(0 %.1f)">`+"\n%s</g>\n", yMid, barLabels)
	for _, p := range labels {
		ly := yMid - size/2 - 4 - float64(p.row)*12
		x := w.x(p.m.At)
		w.printf(`<line class="leader" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#6b7280" stroke-width="0.8" stroke-dasharray="1,1.5"/>`+"\n", x, ly+1, x, yMid)
		w.label(p, ly, 10, markColours["note"], "")
	}
	w.printf("</g>\n")
	return y
}

// tickStep picks the axis step: at most about 12 ticks.
func tickStep(end time.Duration) time.Duration {
	for _, s := range []time.Duration{
		time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
		100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
		time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour,
	} {
		if end/s <= 12 {
			return s
		}
	}
	return 2 * time.Hour
}

// tickLabel prints an axis time the way durations are read: 45s, 1m,
// 1m30s, 2h.
func tickLabel(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	if strings.HasSuffix(s, "m") || strings.HasSuffix(s, "h") {
		return s
	}
	return d.String()
}

// drawAxis draws the grid from top to y and the time axis below; it
// returns the y under the axis.
func drawAxis(w *svgWriter, top, y float64) float64 {
	step := tickStep(w.end - w.start)
	first := (w.start + step - 1) / step * step
	w.printf(`<g class="axis" data-x0="%d" data-x1="%d" data-start="%s" data-end="%s">`+"\n", plotX0, plotX1, fmtSecs(w.start), fmtSecs(w.end))
	for t := first; t <= w.end; t += step {
		x := w.x(t)
		w.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#9ca3af" stroke-width="0.5" stroke-dasharray="1,3"/>`+"\n", x, top, x, y)
	}
	y += 4
	w.printf(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#374151" stroke-width="1"/>`+"\n", plotX0, y, plotX1, y)
	for t := first; t <= w.end; t += step {
		x := w.x(t)
		w.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#374151" stroke-width="1"/>`+"\n", x, y, x, y+5)
		w.text(x, y+18, 11.5, "#374151", "middle", "", tickLabel(t))
	}
	w.text(16, y+18, 11.5, "#374151", "", "", "time after creation")
	w.printf("</g>\n")
	return y + 18
}

// writeHTML writes a page: the picture, then kubectl get pod -w and the CRI
// calls, with no external resource.
func writeHTML(out io.Writer, pic *picture, s *simulation) {
	body, h := drawPicture(pic)
	fmt.Fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", esc(pic.Title))
	fmt.Fprintf(out, "<style>\nbody { font-family: %s; margin: 16px; color: #111827; }\n", fontFamily)
	io.WriteString(out, "svg { max-width: 100%; height: auto; }\npre { font-family: \"DejaVu Sans Mono\", Menlo, Consolas, monospace; font-size: 12px; background: #f9fafb; border: 1px solid #e5e7eb; padding: 8px; overflow-x: auto; }\n")
	io.WriteString(out, "h2 { font-size: 15px; margin-top: 20px; }\n@page { size: landscape; margin: 10mm; }\n@media print { body { margin: 0; } svg { width: 100%; } pre { white-space: pre-wrap; border: none; break-inside: avoid; } h2 { break-after: avoid; } }\n</style>\n</head>\n<body>\n")
	writeSVGElement(out, body, h)
	var hdr strings.Builder
	writeSimHeader(&hdr, s)
	fmt.Fprintf(out, "<h2>What was simulated</h2>\n<pre>%s</pre>\n", esc(hdr.String()))
	fmt.Fprintf(out, "<h2>kubectl get pod -w</h2>\n<pre>%s</pre>\n", esc(s.tl.Watch()))
	fmt.Fprintf(out, "<h2>CRI calls</h2>\n<pre>%s</pre>\n", esc(s.tl.Calls()))
	io.WriteString(out, "</body>\n</html>\n")
}
