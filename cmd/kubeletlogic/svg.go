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
}

// svgWriter accumulates the elements.
type svgWriter struct {
	b   strings.Builder
	end time.Duration
	// late holds the lanes' mark labels, written after the pod's event
	// lines so that their white boxes hide the lines behind them.
	late strings.Builder
	// out is where printf writes: b, or late.
	out *strings.Builder
}

func (w *svgWriter) x(t time.Duration) float64 {
	if w.end <= 0 {
		return plotX0
	}
	return plotX0 + float64(t)/float64(w.end)*(plotX1-plotX0)
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
	w := &svgWriter{end: pic.End}
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
		y = drawPod(w, pp, y)
		y += 10
	}
	y = drawAxis(w, top, y)
	y += 26
	for _, l := range []string{
		"▼ start, restart N: StartContainer · ● exit N: the process ended by itself · ▽ a liveness or startup probe failed",
		"SIGTERM: StopContainer called, with its timeout · ✕ SIGKILL: that timeout ran out · dashed lines: what was done to the pod",
		"bars: each container's state as the pod's status gives it; preStop and terminating from the CRI calls",
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

// placeLabels puts mark labels on at most rows rows above a bar (row 0
// nearest), the most important first (SIGKILL, SIGTERM, exits, events,
// starts), the short form when the label fits nowhere, and leaves out
// what still does not fit (its mark stays, with a tooltip). A label on row
// r has its mark's line rising through the rows below it: no label of
// those rows may cross that line.
func placeLabels(w *svgWriter, marks []mark, rows int, size float64) []placed {
	prio := map[string]int{"sigkill": 0, "sigterm": 1, "exit": 2, "probe": 3, "reset": 4, "event": 5, "start": 6}
	idx := make([]int, len(marks))
	for i := range idx {
		idx[i] = i
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
		for r := 0; r < rows; r++ {
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
	for _, i := range idx {
		m := marks[i]
		if m.Label == "" {
			continue
		}
		// Rather the short label clear of other marks' lines, then the
		// label across one (it is drawn on a white box over the line).
		_ = try(m, m.Label, true) || (m.Short != "" && try(m, m.Short, true)) || try(m, m.Label, false) || (m.Short != "" && try(m, m.Short, false))
	}
	return out
}

func drawPod(w *svgWriter, pp podPicture, y float64) float64 {
	w.printf(`<g class="pod" data-pod="%s">`+"\n", esc(pp.Name))
	// The events' labels, above the lanes.
	evRows := 3
	evLabels := placeLabels(w, pp.Events, evRows, 11.5)
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

// visible returns the parts of [from, to) not covered by any of covers.
func visible(from, to time.Duration, covers []span) [][2]time.Duration {
	parts := [][2]time.Duration{{from, to}}
	for _, c := range covers {
		var next [][2]time.Duration
		for _, p := range parts {
			if c.To <= p[0] || c.From >= p[1] {
				next = append(next, p)
				continue
			}
			if c.From > p[0] {
				next = append(next, [2]time.Duration{p[0], c.From})
			}
			if c.To < p[1] {
				next = append(next, [2]time.Duration{c.To, p[1]})
			}
		}
		parts = next
	}
	return parts
}

// spanLabel writes a span's label in the widest part of it that is not
// covered, when the label (or its short form) fits there; it tells whether
// it did.
func (w *svgWriter) spanLabel(sp span, covers []span, yMid, size float64, colour string) bool {
	best, bestW := [2]time.Duration{}, -1.0
	for _, p := range visible(sp.From, sp.To, covers) {
		if pw := w.x(p[1]) - w.x(p[0]); pw > bestW {
			best, bestW = p, pw
		}
	}
	if bestW <= 0 {
		return false
	}
	label := sp.Label
	if textWidth(label, size)+8 > bestW {
		label = sp.Short
	}
	if label == "" || textWidth(label, size)+8 > bestW {
		return false
	}
	cx := (w.x(best[0]) + w.x(best[1])) / 2
	w.text(cx, yMid+size*0.36, size, colour, "middle", "", label)
	return true
}

// endLabel writes the label of a life's final state right of its end,
// when the state is too short to hold it and there is room.
func (w *svgWriter) endLabel(sp span, yMid, size float64) {
	x := w.x(sp.To) + 5
	if sp.Label == "" || x+textWidth(sp.Label, size) > svgWidth-8 {
		return
	}
	w.printf(`<text class="end" x="%.1f" y="%.1f" font-size="%g" fill="#111827">%s</text>`+"\n", x, yMid+size*0.36, size, esc(sp.Label))
}

func (w *svgWriter) rect(class string, sp span, y, h float64, fill, stroke string) {
	x0, x1 := w.x(sp.From), w.x(sp.To)
	if x1-x0 < 0.6 {
		x1 = x0 + 0.6
	}
	w.printf(`<rect class="%s" data-from="%s" data-to="%s" x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s" stroke="%s" stroke-width="0.6"><title>%s</title></rect>`+"\n",
		class, fmtSecs(sp.From), fmtSecs(sp.To), x0, y, x1-x0, h, fill, stroke, esc(sp.Title))
}

func drawLane(w *svgWriter, ln lane, y float64, gone time.Duration) float64 {
	const rows = 3
	labels := placeLabels(w, ln.Marks, rows, 11)
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
	w.printf(`<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="#f9fafb" stroke="#e5e7eb" stroke-width="0.6"/>`+"\n", plotX0, barY, w.x(gone)-plotX0, barH)
	for _, sp := range ln.Spans {
		f := fills[sp.Class]
		w.rect("span "+sp.Class, sp, barY, barH, f[0], "#ffffff")
	}
	for _, sp := range ln.Overlays {
		w.rect("overlay "+sp.Class, sp, barY, barH, fills[sp.Class][0], "#ffffff")
	}
	for i, sp := range ln.Spans {
		if !w.spanLabel(sp, ln.Overlays, barY+barH/2, 11, fills[sp.Class][1]) && i == len(ln.Spans)-1 {
			w.endLabel(sp, barY+barH/2, 11)
		}
	}
	for i, sp := range ln.Overlays {
		w.spanLabel(sp, ln.Overlays[i+1:], barY+barH/2, 11, fills[sp.Class][1])
	}
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
		if p.m.Class == "start" {
			weight = ""
		}
		w.label(p, barY-4-float64(p.row)*markRowH, 11, markColours[p.m.Class], weight)
	}
	w.printf("</g>\n")
	w.out = &w.b
	return barY + barH + 10
}

func drawRow(w *svgWriter, r row, y float64) float64 {
	w.printf(`<g class="row" data-row="%s">`+"\n", esc(r.Name))
	switch r.Kind {
	case "condition":
		y += 4
		w.text(16, y+condBarH-3, 11.5, "#374151", "", "", r.Name)
		for i, sp := range r.Spans {
			f := fills[sp.Class]
			switch sp.Class {
			case "True":
				w.rect("span True", sp, y, condBarH, f[0], "#ffffff")
			default:
				// False (or Unknown): low, a line at the bottom.
				w.rect("span "+sp.Class, sp, y+condBarH-2, 2, "#9ca3af", "#9ca3af")
			}
			yMid := y + condBarH/2
			if sp.Class != "True" {
				yMid--
			}
			if !w.spanLabel(sp, nil, yMid, 10, f[1]) && i == len(r.Spans)-1 {
				w.endLabel(sp, yMid, 10)
			}
		}
		y += condBarH + 2
	default:
		y += 5
		label := r.Name
		w.text(16, y+rowBarH-4, 12, "#111827", "", "", label)
		for i, sp := range r.Spans {
			f := fills[sp.Class]
			if f[0] == "" {
				f = fills["Unknown"]
			}
			stroke := "#ffffff"
			if r.Kind == "column" {
				stroke = "#94a3b8"
			}
			w.rect("span "+sp.Class, sp, y, rowBarH, f[0], stroke)
			if !w.spanLabel(sp, nil, y+rowBarH/2, 11, f[1]) && i == len(r.Spans)-1 {
				w.endLabel(sp, y+rowBarH/2, 11)
			}
		}
		y += rowBarH + 1
	}
	w.printf("</g>\n")
	return y
}

// tickStep picks the axis step: at most about 12 ticks.
func tickStep(end time.Duration) time.Duration {
	for _, s := range []time.Duration{
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
	step := tickStep(w.end)
	w.printf(`<g class="axis" data-x0="%d" data-x1="%d" data-end="%s">`+"\n", plotX0, plotX1, fmtSecs(w.end))
	for t := time.Duration(0); t <= w.end; t += step {
		x := w.x(t)
		w.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#9ca3af" stroke-width="0.5" stroke-dasharray="1,3"/>`+"\n", x, top, x, y)
	}
	y += 4
	w.printf(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#374151" stroke-width="1"/>`+"\n", plotX0, y, plotX1, y)
	for t := time.Duration(0); t <= w.end; t += step {
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
