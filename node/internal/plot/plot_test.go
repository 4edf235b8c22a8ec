package plot

import (
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
)

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		max  float64
		n    int
		want string
	}{
		{237, 6, "[0 50 100 150 200 250]"},
		{360, 8, "[0 50 100 150 200 250 300 350 400]"},
		{1000, 6, "[0 200 400 600 800 1000]"},
		{7, 6, "[0 2 4 6 8]"},
		{100, 5, "[0 20 40 60 80 100]"},
		{0, 6, "[0 1]"},
	} {
		if got := fmt.Sprint(Ticks(c.max, c.n)); got != c.want {
			t.Errorf("Ticks(%g, %d) = %s: want %s", c.max, c.n, got, c.want)
		}
	}
}

// svgDoc is what the test reads back of an SVG.
type svgDoc struct {
	Texts     []string `xml:"text"`
	Polylines []struct {
		Points string `xml:"points,attr"`
		Stroke string `xml:"stroke,attr"`
	} `xml:"polyline"`
}

// TestSVG: the SVG parses as XML; a step series holds each value until
// the next point (a horizontal then a vertical segment), a plain series
// joins its points; the axes' tick labels, the labels, the legend's names
// and the note are there, with text escaped.
func TestSVG(t *testing.T) {
	c := Chart{
		Title: "restarts <one pod>", XLabel: "time since creation (s)", YLabel: "restart count",
		Width: 790, Height: 370, XMax: 100, YMax: 4,
		Series: []Series{
			{Name: "kl & co", Step: true, Points: []Point{{0, 0}, {50, 1}, {100, 2}}},
			{Name: "plain", Color: "#000", Points: []Point{{0, 0}, {100, 4}}},
		},
		Marks: []Mark{{X: 50, Label: "deleted"}},
		Note:  "from a run",
	}
	out := c.SVG()
	var doc svgDoc
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	if len(doc.Polylines) != 2 {
		t.Fatalf("%d polylines: want 2", len(doc.Polylines))
	}
	// The plot: x 80..870 (790 px for 100 s), y 50..420 (370 px for 4).
	step := "80.0,420.0 475.0,420.0 475.0,327.5 870.0,327.5 870.0,235.0"
	if doc.Polylines[0].Points != step {
		t.Errorf("step series %q: want %q", doc.Polylines[0].Points, step)
	}
	if p := doc.Polylines[1]; p.Points != "80.0,420.0 870.0,50.0" || p.Stroke != "#000" {
		t.Errorf("plain series %+v: want the two points joined, stroke #000", p)
	}
	texts := strings.Join(doc.Texts, "|")
	for _, w := range []string{"restarts <one pod>", "time since creation (s)", "restart count", "kl & co", "plain", "deleted", "from a run",
		"|0|", "|20|", "|100|", "|4|"} {
		if !strings.Contains("|"+texts+"|", w) {
			t.Errorf("texts %q lack %q", texts, w)
		}
	}
	if !strings.Contains(string(out), "kl &amp; co") {
		t.Error("& not escaped")
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1000: "1,000", 20000: "20,000", 2.5: "2.5", -1500: "-1,500"} {
		if got := num(v); got != want {
			t.Errorf("num(%g) = %q: want %q", v, got, want)
		}
	}
}
