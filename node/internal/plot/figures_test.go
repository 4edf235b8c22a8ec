package plot

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFigures: Write writes a picture's data and SVG; Redraw draws the
// same SVG again from the data alone; the scale picture's series are
// KWOK's column then kl's, the deletion marked; the crash-loop picture
// labels every restart count (YStep 1).
func TestFigures(t *testing.T) {
	dir := t.TempDir()
	sc := Scale{Nodes: 100, Pods: 1000, DeletedS: 50, Date: "2026-12-03T21:43:43Z",
		Rows: [][]float64{{0, 0, 0}, {10, 100, 300}, {20, 1000, 1000}}}
	cl := CrashLoop{WatchedS: 60, Date: "2026-12-03T21:48:20Z", Series: map[string][]Point{
		"kwok": {{0, 0}, {60, 0}}, "kl": {{0, 0}, {4, 1}, {18, 2}, {41, 3}, {50, 7}, {60, 7}}, "capture": {{0, 0}, {5, 1}, {60, 1}}}}
	if err := Write(dir, ScaleName, sc); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, CrashLoopName, cl); err != nil {
		t.Fatal(err)
	}
	written := map[string][]byte{}
	for _, n := range []string{ScaleName, CrashLoopName} {
		b, err := os.ReadFile(filepath.Join(dir, n+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		written[n] = b
		os.Remove(filepath.Join(dir, n+".svg"))
	}
	done, err := Redraw(dir)
	if err != nil || strings.Join(done, ",") != CrashLoopName+","+ScaleName {
		t.Fatalf("Redraw: %v, %v", done, err)
	}
	for n, want := range written {
		got, _ := os.ReadFile(filepath.Join(dir, n+".svg"))
		if !bytes.Equal(got, want) {
			t.Errorf("%s.svg drawn again differs from the one written", n)
		}
	}
	c := sc.Chart()
	if len(c.Series) != 2 || !strings.HasPrefix(c.Series[0].Name, "KWOK") || c.Series[0].Points[1].Y != 100 || c.Series[1].Points[1].Y != 300 ||
		len(c.Marks) != 1 || c.Marks[0].X != 50 || !strings.Contains(c.Subtitle, "100 nodes and a Deployment of 1,000 pods") {
		t.Errorf("scale chart %+v: want KWOK's column first (100 at 10 s), kl's (300), the deletion at 50 s", c)
	}
	var doc svgDoc
	if err := xml.Unmarshal(written[CrashLoopName], &doc); err != nil {
		t.Fatal(err)
	}
	texts := "|" + strings.Join(doc.Texts, "|") + "|"
	for _, w := range []string{"|1|", "|3|", "|5|", "|7|", "real kubelet", "kubeletlogic-node", "KWOK", "2026-12-03"} {
		if !strings.Contains(texts, w) {
			t.Errorf("crash-loop picture's texts %q lack %q", texts, w)
		}
	}
	if cc := cl.Chart(); cc.Series[0].Points[1].X != 5 || cc.Series[1].Points[1].X != 4 || cc.Series[2].Points[1].X != 60 || !cc.Series[1].Step {
		t.Errorf("crash-loop chart series %+v: want capture, kl, kwok, as steps", cc.Series)
	}
	if _, err := Redraw(t.TempDir()); err != nil {
		t.Errorf("Redraw of an empty folder: %v", err)
	}
}
