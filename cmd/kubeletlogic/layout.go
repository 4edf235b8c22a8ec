package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// How the picture keeps every state visible and every label on it.
//
// A state is drawn at least minSpanW pixels wide, however short it was
// (the 5 ms AllContainersRestarting condition, the 79 ms
// RestartingAllContainers STATUS of a RestartAllContainers rule). A few
// such states in a row are drawn side by side, pushed right of their true
// place by at most a few pixels; more than that (the first minutes of a
// long crash loop) are drawn as one grey stretch whose states a note
// lists.
//
// A state's label goes, in this order of preference: inside its bar; for
// the last state of a bar, right of its end; inside its bar in the short
// form; on a tag beside it (◂ label right of it, label ▸ left of it) where
// the tag hides no other label, no mark's line and no short state; on a
// tag in the short form; inside its bar cut short with an ellipsis (the
// tooltip has it whole). A mark's label goes on one of the rows above its lane,
// else its short form. What still fits nowhere gets a note: a reference
// [n] beside it (or on a new row above the lane) and a line under the
// axis that says what it is and when. Nothing is left out unmarked.

// minSpanW is the narrowest a state is drawn, in pixels.
const minSpanW = 3.0

// maxPush is how far right of its true place a short state may be pushed
// to keep it visible before a run of them is drawn as one cluster.
const maxPush = 8.0

// note is a line under the axis for what did not fit where it belongs.
type note struct {
	ref  string // [n]
	text string
}

// addNote records a note and returns its reference.
func (w *svgWriter) addNote(text string) string {
	ref := fmt.Sprintf("[%d]", len(w.notes)+1)
	w.notes = append(w.notes, note{ref: ref, text: w.notePrefix + text})
	return ref
}

// inWindow tells whether [from, to] meets the picture's window.
func (w *svgWriter) inWindow(from, to time.Duration) bool {
	return to >= w.start && from <= w.end
}

// barSpan is a state as drawn: its extent in pixels, or a cluster of
// states too short to draw one by one.
type barSpan struct {
	sp     span
	x0, x1 float64
	group  []span // a cluster's states, in order
}

// layoutBar gives each state of one bar its drawn extent, clipped to the
// window, at least minSpanW wide. With sequential (a bar's states follow
// each other) a short state pushes the next ones right, by at most
// maxPush pixels; a longer run of short states becomes one cluster.
func (w *svgWriter) layoutBar(spans []span, sequential bool) []barSpan {
	var in []barSpan
	for _, sp := range spans {
		if !w.inWindow(sp.From, sp.To) {
			continue
		}
		x0, x1 := w.x(max(sp.From, w.start)), w.x(min(sp.To, w.end))
		in = append(in, barSpan{sp: sp, x0: x0, x1: x1})
	}
	if !sequential {
		for i := range in {
			in[i].x1 = max(in[i].x1, in[i].x0+minSpanW)
		}
		return in
	}
	var out []barSpan
	prev := -1.0
	for i := 0; i < len(in); {
		// A run of short states starting at i.
		j := i
		for j < len(in) && in[j].x1-in[j].x0 < minSpanW {
			j++
		}
		if j-i >= 2 && float64(j-i)*minSpanW-(in[j-1].x1-in[i].x0) > maxPush {
			c := barSpan{x0: max(in[i].x0, prev), x1: in[j-1].x1}
			c.x1 = max(c.x1, c.x0+minSpanW)
			c.sp = span{From: in[i].sp.From, To: in[j-1].sp.To, Class: "cluster"}
			for _, b := range in[i:j] {
				c.group = append(c.group, b.sp)
			}
			c.sp.Title = fmt.Sprintf("%d states %s–%s: %s", len(c.group), fmtSecs(c.sp.From), fmtSecs(c.sp.To), groupWords(c.group))
			out = append(out, c)
			prev = c.x1
			i = j
			continue
		}
		if j == i {
			j = i + 1
		}
		for _, b := range in[i:j] {
			b.x0 = max(b.x0, prev)
			b.x1 = max(b.x1, b.x0+minSpanW)
			out = append(out, b)
			prev = b.x1
		}
		i = j
	}
	return out
}

// groupWords lists a cluster's states: each label once, in order of first
// appearance, with how many times it came.
func groupWords(g []span) string {
	var order []string
	n := map[string]int{}
	for _, sp := range g {
		l := sp.Label
		if l == "" {
			l = sp.Class
		}
		if n[l] == 0 {
			order = append(order, l)
		}
		n[l]++
	}
	var parts []string
	for _, l := range order {
		if n[l] > 1 {
			l = fmt.Sprintf("%s ×%d", l, n[l])
		}
		parts = append(parts, l)
	}
	return strings.Join(parts, ", ")
}

// labelTask is a state whose label is to be placed on its bar.
type labelTask struct {
	b      barSpan
	vis    [2]float64 // the widest part of it not covered, in pixels
	colour string     // of a label inside it
	last   bool       // the bar's last state: may be labelled right of its end
}

// widestVisible is the widest part of [x0, x1] that none of covers hides.
func widestVisible(x0, x1 float64, covers []barSpan) [2]float64 {
	parts := [][2]float64{{x0, x1}}
	for _, c := range covers {
		var next [][2]float64
		for _, p := range parts {
			if c.x1 <= p[0] || c.x0 >= p[1] {
				next = append(next, p)
				continue
			}
			if c.x0 > p[0] {
				next = append(next, [2]float64{p[0], c.x0})
			}
			if c.x1 < p[1] {
				next = append(next, [2]float64{c.x1, p[1]})
			}
		}
		parts = next
	}
	best := [2]float64{x0, x0}
	for _, p := range parts {
		if p[1]-p[0] > best[1]-best[0] {
			best = p
		}
	}
	return best
}

// labelBar writes the labels of one bar's states (see the comment at the
// top of this file), centred on y 0 (the caller translates them). blockers
// are what a tag must not hide (marks, short states); name is the bar's,
// for the notes. It returns the references of the notes it made, as marks
// for the rows above the bar (placeLabels).
//
// The states whose label fits inside them keep room for it; the others,
// the narrowest first (the shortest states are the ones the eye misses),
// get a tag beside them where it leaves that room; then the labels inside
// are written where they are clear of the tags.
func (w *svgWriter) labelBar(name string, tasks []labelTask, blockers [][2]float64, size float64) []mark {
	const yMid = 0.0
	var taken [][2]float64 // labels and tags written
	clear := func(a, b float64, ivs [][2]float64, gap float64) bool {
		for _, iv := range ivs {
			if a < iv[1]+gap && b > iv[0]-gap {
				return false
			}
		}
		return true
	}
	// room is the widest part of [a, b] clear of what is taken.
	room := func(a, b float64) [2]float64 {
		var covers []barSpan
		for _, iv := range taken {
			covers = append(covers, barSpan{x0: iv[0] - 3, x1: iv[1] + 3})
		}
		return widestVisible(a, b, covers)
	}
	fits := func(label string, iv [2]float64) bool {
		return label != "" && textWidth(label, size)+8 <= iv[1]-iv[0]
	}
	// cut is the label cut short with an ellipsis to fit the room of
	// the state, keeping at least two thirds of it and 8 characters; ""
	// when that does not fit.
	cut := func(t labelTask, label string) string {
		r := room(t.vis[0], t.vis[1])
		rs := []rune(label)
		for n := len(rs) - 1; n >= max(8, (2*len(rs)+2)/3); n-- {
			if c := string(rs[:n]) + "…"; fits(c, r) {
				return c
			}
		}
		return ""
	}
	// The states that will hold their label, its short form, or the label
	// cut short, inside.
	inside := map[int]string{}
	for i, t := range tasks {
		switch {
		case t.b.group != nil:
		case fits(t.b.sp.Label, t.vis):
			inside[i] = t.b.sp.Label
		case fits(t.b.sp.Short, t.vis):
			inside[i] = t.b.sp.Short
		case cut(t, t.b.sp.Label) != "":
			inside[i] = cut(t, t.b.sp.Label)
		}
	}
	// free tells whether [a, b] can hold a tag: on the picture, clear of
	// the blockers, the other tags, and leaving each label inside its room.
	free := func(a, b float64) bool {
		if a < plotX0 || b > svgWidth-8 || !clear(a, b, blockers, 0.5) || !clear(a, b, taken, 3) {
			return false
		}
		taken = append(taken, [2]float64{a, b})
		defer func() { taken = taken[:len(taken)-1] }()
		for i, l := range inside {
			if !fits(l, room(tasks[i].vis[0], tasks[i].vis[1])) {
				return false
			}
		}
		return true
	}
	inline := func(t labelTask, label string) bool {
		r := room(t.vis[0], t.vis[1])
		if !fits(label, r) {
			return false
		}
		tw := textWidth(label, size)
		// The middle of the state if it is clear, else of its clear part.
		cx := (t.vis[0] + t.vis[1]) / 2
		if !clear(cx-tw/2, cx+tw/2, taken, 3) {
			cx = (r[0] + r[1]) / 2
		}
		w.printf(`<text class="label inline" x="%.1f" y="%.1f" font-size="%g" fill="%s" text-anchor="middle">%s</text>`+"\n", cx, yMid+size*0.36, size, t.colour, esc(label))
		taken = append(taken, [2]float64{cx - tw/2, cx + tw/2})
		return true
	}
	tag := func(t labelTask, label string, right bool) bool {
		if label == "" {
			return false
		}
		text := "◂ " + label
		if !right {
			text = label + " ▸"
		}
		tw := textWidth(text, size) + 4
		// Beside the part of it that shows (an overlay may hide the rest).
		x0, x1 := t.vis[0], t.vis[1]
		if x1 <= x0 {
			x0, x1 = t.b.x0, t.b.x1
		}
		a := x1 + 1.5
		if !right {
			a = x0 - 1.5 - tw
		}
		if !free(a, a+tw) {
			return false
		}
		w.tagAt(a, tw, yMid, size, "label tag", text)
		taken = append(taken, [2]float64{a, a + tw})
		return true
	}
	end := func(t labelTask) bool {
		x := t.b.x1 + 5
		tw := textWidth(t.b.sp.Label, size)
		if !t.last || t.b.sp.Label == "" || !free(x, x+tw) {
			return false
		}
		w.printf(`<text class="label end" x="%.1f" y="%.1f" font-size="%g" fill="#111827">%s</text>`+"\n", x, yMid+size*0.36, size, esc(t.b.sp.Label))
		taken = append(taken, [2]float64{x, x + tw})
		return true
	}
	var rest []int
	for i := range tasks {
		if _, ok := inside[i]; !ok || inside[i] != tasks[i].b.sp.Label {
			rest = append(rest, i)
		}
	}
	sort.SliceStable(rest, func(i, j int) bool {
		a, b := tasks[rest[i]].b, tasks[rest[j]].b
		return a.x1-a.x0 < b.x1-b.x0
	})
	var unplaced []labelTask
	for _, i := range rest {
		t := tasks[i]
		l, s := t.b.sp.Label, t.b.sp.Short
		if s == l {
			s = ""
		}
		delete(inside, i) // its own room is not to be kept from itself
		if t.b.group != nil || !(end(t) || inline(t, s) || tag(t, l, true) || tag(t, l, false) || tag(t, s, true) || tag(t, s, false) || inline(t, cut(t, l))) {
			if l != "" || t.b.group != nil {
				unplaced = append(unplaced, t)
			}
		}
	}
	for i := range tasks {
		if l, ok := inside[i]; ok && !inline(tasks[i], l) {
			// Cannot happen (free keeps the room), but never silently.
			unplaced = append(unplaced, tasks[i])
		}
	}
	inside = nil // written: taken holds them now
	// Notes: one per run of neighbouring states that got no label.
	var refs []mark
	sort.SliceStable(unplaced, func(i, j int) bool { return unplaced[i].b.x0 < unplaced[j].b.x0 })
	for i := 0; i < len(unplaced); {
		j := i + 1
		for j < len(unplaced) && unplaced[j].b.x0-unplaced[j-1].b.x1 < 16 {
			j++
		}
		var parts []string
		var from, to time.Duration = unplaced[i].b.sp.From, unplaced[j-1].b.sp.To
		for _, t := range unplaced[i:j] {
			if t.b.group != nil {
				parts = append(parts, fmt.Sprintf("%s–%s: %d states: %s%s", fmtSecs(t.b.sp.From), fmtSecs(t.b.sp.To), len(t.b.group), groupWords(t.b.group), w.zoomHint(t.b.sp.From, t.b.sp.To)))
				continue
			}
			parts = append(parts, fmt.Sprintf("%s–%s: %s", fmtSecs(t.b.sp.From), fmtSecs(t.b.sp.To), t.b.sp.Label))
		}
		text := name + " " + strings.Join(parts, "; ")
		if len(parts) > 3 {
			// Many: each label once, with its count, and how to see them.
			var all []span
			for _, t := range unplaced[i:j] {
				if t.b.group != nil {
					all = append(all, t.b.group...)
				} else {
					all = append(all, t.b.sp)
				}
			}
			text = fmt.Sprintf("%s %s–%s: %d states: %s%s", name, fmtSecs(from), fmtSecs(to), len(all), groupWords(all), w.zoomHint(from, to))
		}
		ref := w.addNote(text)
		refs = append(refs, mark{At: (max(from, w.start) + min(to, w.end)) / 2, Class: "note", Label: ref, Title: text})
		i = j
	}
	return refs
}

// tagAt writes text on a small white tag from x a, tw wide.
func (w *svgWriter) tagAt(a, tw, yMid, size float64, class, text string) {
	w.printf(`<rect class="tag" x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="2" fill="#ffffff" stroke="#6b7280" stroke-width="0.6"/>`, a, yMid-size/2-2, tw, size+3)
	w.printf(`<text class="%s" x="%.1f" y="%.1f" font-size="%g" fill="#111827">%s</text>`+"\n", class, a+2, yMid+size*0.36, size, esc(text))
}

// zoomHint says which --from and --to show [from, to] wider, when that
// is a small part of the window drawn.
func (w *svgWriter) zoomHint(from, to time.Duration) string {
	from, to = max(from, w.start), min(to, w.end)
	if to-from > (w.end-w.start)/3 {
		return ""
	}
	return fmt.Sprintf(" (to see them: --from %s --to %s)", zoomDur(from, false), zoomDur(to, true))
}

// zoomDur prints a time for --from/--to: whole seconds, rounded outwards.
func zoomDur(d time.Duration, up bool) string {
	s := d.Truncate(time.Second)
	if up && s < d {
		s += time.Second
	}
	return s.String()
}

// drawNotes writes the notes under the axis and returns the y under them.
func (w *svgWriter) drawNotes(y float64) float64 {
	if len(w.notes) == 0 {
		return y
	}
	w.printf(`<g class="notes">` + "\n")
	w.text(16, y, 11.5, "#111827", "", "bold", "Notes: what did not fit where it belongs ([n] on the picture marks the place)")
	y += 16
	for _, n := range w.notes {
		for i, part := range wrapWords(n.ref+" "+n.text, 11.5, svgWidth-48) {
			if i > 0 {
				part = "    " + strings.TrimSpace(part)
			}
			w.printf(`<text class="note" data-ref="%s" x="%.1f" y="%.1f" font-size="11.5" fill="#374151">%s</text>`+"\n", n.ref, 24.0, y, esc(part))
			y += 15
		}
	}
	w.printf("</g>\n")
	return y + 6
}

// window is the part of the simulation timeline draws (--from, --to).
type window struct {
	from, to time.Duration
	full     time.Duration // where the whole picture's axis ends
}

func (w window) check() error {
	switch {
	case w.from >= w.full:
		return fmt.Errorf("--from %s is not inside the simulation, which is drawn from 0s to %s", fmtSecs(w.from), fmtSecs(w.full))
	case w.to > w.full:
		return fmt.Errorf("--to %s is after the end of the simulation, which is drawn from 0s to %s (a longer --for simulates longer, unless the pods' lives ended)", fmtSecs(w.to), fmtSecs(w.full))
	case w.from >= w.to:
		return fmt.Errorf("--from %s is not before --to %s: the window is empty", fmtSecs(w.from), fmtSecs(w.to))
	}
	return nil
}

// barLabels runs labelBar and returns what it wrote, for the caller to
// place once it knows where the bar goes, and the notes' references.
func (w *svgWriter) barLabels(name string, tasks []labelTask, blockers [][2]float64, size float64) (string, []mark) {
	saved := w.out
	var buf strings.Builder
	w.out = &buf
	refs := w.labelBar(name, tasks, blockers, size)
	w.out = saved
	return buf.String(), refs
}

// wrapWords breaks a line between words so that each part fits width.
func wrapWords(l string, size, width float64) []string {
	var out []string
	cur := ""
	for _, word := range strings.SplitAfter(l, " ") {
		if cur != "" && textWidth(cur+word, size) > width {
			out = append(out, strings.TrimSuffix(cur, " "))
			cur = ""
		}
		cur += word
	}
	return append(out, cur)
}
