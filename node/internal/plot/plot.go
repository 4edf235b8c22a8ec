// Package plot draws line charts as SVG text: the pictures of
// docs/beside-kwok.md (a crash-looping pod's restart count over time, the
// pods Running over time in a scale run), drawn from the series the
// benchmarks write. Plain Go writing SVG: no dependency, no fonts to
// embed (the text is drawn by the viewer's sans-serif font).
package plot

import (
	"fmt"
	"math"
	"strings"
)

// Point is one sample: X and Y in the chart's units.
type Point struct{ X, Y float64 }

// Series is one line of a chart.
type Series struct {
	// Name is the legend's text.
	Name string
	// Color is an SVG color ("#1f77b4"); empty picks one by index.
	Color string
	// Dash is an SVG stroke-dasharray ("6 3"); empty draws a solid line.
	Dash string
	// Step draws a step line: each value holds until the next point's X
	// (a count that changes at instants), instead of joining the points
	// straight.
	Step bool
	// Points are in order of X.
	Points []Point
}

// Mark is a vertical line across the plot at X, with a label.
type Mark struct {
	X     float64
	Label string
}

// Chart is one chart. Width and Height are the plot area's size in
// pixels (0: 790 by 370); the SVG adds the margins, the legend (under the
// plot, a line per series, so that it never hides a line) and the note.
// XMax and YMax fix the axes' ends (0: the data's, with some room above
// for Y, rounded up to a tick); the axes start at 0.
type Chart struct {
	// Title is the first line; Subtitle, when set, a smaller second.
	Title, Subtitle string
	XLabel, YLabel  string
	Width, Height   int
	XMax, YMax      float64
	// YStep, when not 0, is the step between Y's ticks (1 for a count
	// whose every value should be labelled).
	YStep  float64
	Series []Series
	Marks  []Mark
	// Note is a line of small text under the plot (where the data come
	// from).
	Note string
}

var palette = []string{"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"}

// The plot area's margins, in pixels (the top one with no subtitle; the
// bottom one holds the ticks' labels and the X label, the legend and the
// note come under it).
const (
	marginLeft   = 80
	marginRight  = 30
	marginTop    = 50
	marginBottom = 60
	legendLine   = 22
	fontSize     = 14
)

// Ticks is the tick values from 0 to at least max: 1, 2 or 5 times a
// power of ten apart, about n of them; the last is max rounded up to a
// tick.
func Ticks(max float64, n int) []float64 {
	if max <= 0 || n < 1 {
		return []float64{0, 1}
	}
	raw := max / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := p
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	var out []float64
	for i := 0; ; i++ {
		v := float64(i) * step
		out = append(out, v)
		if v >= max-step*1e-9 {
			return out
		}
	}
}

// SVG draws the chart.
func (c Chart) SVG() []byte {
	pw, ph := float64(c.Width), float64(c.Height)
	if pw == 0 {
		pw = 790
	}
	if ph == 0 {
		ph = 370
	}
	top := marginTop
	if c.Subtitle != "" {
		top += 20
	}
	w := marginLeft + int(pw) + marginRight
	legendTop := top + int(ph) + marginBottom
	h := legendTop + legendLine*len(c.Series) + 12
	if c.Note != "" {
		h += 22
	}
	xmax, ymax := c.XMax, c.YMax
	for _, s := range c.Series {
		for _, p := range s.Points {
			if c.XMax == 0 {
				xmax = math.Max(xmax, p.X)
			}
			if c.YMax == 0 {
				ymax = math.Max(ymax, p.Y)
			}
		}
	}
	if c.YMax == 0 {
		ymax *= 1.05
	}
	xt, yt := Ticks(xmax, 8), Ticks(ymax, 6)
	if c.YStep > 0 {
		yt = nil
		for i := 0; ; i++ {
			v := float64(i) * c.YStep
			yt = append(yt, v)
			if v >= ymax-c.YStep*1e-9 {
				break
			}
		}
	}
	if c.XMax == 0 {
		xmax = xt[len(xt)-1]
	}
	if c.YMax == 0 {
		ymax = yt[len(yt)-1]
	}
	px := func(x float64) float64 { return marginLeft + x/xmax*pw }
	py := func(y float64) float64 { return float64(top) + ph - y/ymax*ph }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif" font-size="%d">`+"\n", w, h, w, h, fontSize)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="28" font-size="17" font-weight="bold">%s</text>`+"\n", marginLeft, esc(c.Title))
	if c.Subtitle != "" {
		fmt.Fprintf(&b, `<text x="%d" y="50">%s</text>`+"\n", marginLeft, esc(c.Subtitle))
	}
	// Grid and ticks.
	for _, v := range xt {
		if v > xmax*(1+1e-9) {
			continue
		}
		x := px(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", x, top, x, float64(top)+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, float64(top)+ph+20, num(v))
	}
	for _, v := range yt {
		if v > ymax*(1+1e-9) {
			continue
		}
		y := py(v)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", marginLeft, y, marginLeft+pw, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", marginLeft-8, y+5, num(v))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", marginLeft, top, pw, ph)
	// Axis labels.
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", marginLeft+pw/2, float64(top)+ph+45, esc(c.XLabel))
	fmt.Fprintf(&b, `<text transform="translate(22 %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", float64(top)+ph/2, esc(c.YLabel))
	// Marks: a dotted line, its label left of it half way up.
	for _, m := range c.Marks {
		x := px(m.X)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#555" stroke-dasharray="2 3"/>`+"\n", x, top, x, float64(top)+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="12" fill="#555" text-anchor="end">%s</text>`+"\n", x-6, float64(top)+ph/2, esc(m.Label))
	}
	// Lines, clipped to the plot.
	fmt.Fprintf(&b, `<clipPath id="plot"><rect x="%d" y="%d" width="%.1f" height="%.1f"/></clipPath>`+"\n", marginLeft, top-2, pw+2, ph+4)
	for i, s := range c.Series {
		if len(s.Points) == 0 {
			continue
		}
		var pts []string
		for j, p := range s.Points {
			if s.Step && j > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.X), py(s.Points[j-1].Y)))
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.X), py(p.Y)))
		}
		dash := ""
		if s.Dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, s.Dash)
		}
		fmt.Fprintf(&b, `<polyline clip-path="url(#plot)" fill="none" stroke="%s" stroke-width="2.5"%s points="%s"/>`+"\n", color(s, i), dash, strings.Join(pts, " "))
	}
	// Legend: under the plot, a line per series.
	for i, s := range c.Series {
		y := float64(legendTop + legendLine*i + 10)
		dash := ""
		if s.Dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, s.Dash)
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="2.5"%s/>`+"\n", marginLeft, y-5, marginLeft+32, y-5, color(s, i), dash)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f">%s</text>`+"\n", marginLeft+40, y, esc(s.Name))
	}
	if c.Note != "" {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="#555">%s</text>`+"\n", marginLeft, h-12, esc(c.Note))
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func color(s Series, i int) string {
	if s.Color != "" {
		return s.Color
	}
	return palette[i%len(palette)]
}

// num is a tick label: no trailing zeros, thousands with a comma.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		s := fmt.Sprintf("%d", int64(v))
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		if neg {
			s = "-" + s
		}
		return s
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
