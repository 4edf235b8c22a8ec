package main

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A state an overlay hides whole gets its tag beside its end, as any
// state: in the delete-prestop-sidecar picture zoomed to 80s-95s, proxy's
// "ready" (0.368s-90.156s) lies under the terminating overlay, and its
// "◂ ready" tag goes right of where ready ends, not at the window's left
// edge on the overlay.
func TestTimelineTagOfAHiddenStateBesideItsEnd(t *testing.T) {
	args := append(append([]string{"timeline"}, simArgs(t, "delete-prestop-sidecar")...), "--from", "80s", "--to", "95s")
	out, errOut, code := runCmd(args, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	root := parseSVG(t, out)
	end := -1.0
	var y float64
	for _, r := range root.find(func(n *xmlNode) bool {
		return n.XMLName.Local == "rect" && n.hasClass("span") && n.hasClass("ready") && n.attr("data-from") == "0.368s" && n.attr("data-to") == "90.156s"
	}) {
		x, _ := strconv.ParseFloat(r.attr("x"), 64)
		w, _ := strconv.ParseFloat(r.attr("width"), 64)
		y, _ = strconv.ParseFloat(r.attr("y"), 64)
		end = x + w
	}
	if end < 0 {
		t.Fatalf("no ready state 0.368s-90.156s drawn:\n%s", out)
	}
	found := false
	for _, g := range root.find(func(n *xmlNode) bool { return n.hasClass("bar-labels") }) {
		if g.attr("transform") != "translate(0 "+strconv.FormatFloat(y+11, 'f', 1, 64)+")" {
			continue
		}
		for _, tx := range g.find(func(n *xmlNode) bool { return n.hasClass("tag") && n.XMLName.Local == "text" }) {
			if strings.TrimSpace(tx.Text) != "◂ ready" {
				continue
			}
			found = true
			if x, _ := strconv.ParseFloat(tx.attr("x"), 64); x < end {
				t.Errorf("proxy's \"◂ ready\" tag at x %.1f, left of where ready ends (%.1f)", x, end)
			}
		}
	}
	if !found {
		t.Errorf("no \"◂ ready\" tag on proxy's bar:\n%s", out)
	}
}

// The window's ends are checked against the end of the drawing as the
// error message prints it (restartall-42: 0s to 59.867s): --to there is
// the whole picture, --from there is outside it.
func TestTimelineWindowAtTheEnd(t *testing.T) {
	base := append([]string{"timeline"}, simArgs(t, "restartall-42")...)
	_, errOut, code := runCmd(append(base, "--from", "2m"), "")
	if want := "which is drawn from 0s to 59.867s"; code != exitUsage || !strings.Contains(errOut, want) {
		t.Fatalf("--from 2m: exit %d, stderr %q; want %q (the test's end of the drawing)", code, errOut, want)
	}
	out, errOut, code := runCmd(append(base, "--to", "59.867s"), "")
	if code != exitOK || !strings.HasPrefix(out, "<?xml") {
		t.Errorf("--to 59.867s, the end of the drawing: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCmd(append(base, "--from", "59.867s"), "")
	if want := "kubeletlogic timeline: --from 59.867s is not inside the simulation, which is drawn from 0s to 59.867s\n"; code != exitUsage || errOut != want {
		t.Errorf("--from 59.867s: exit %d, stderr %q; want exit %d, %q", code, errOut, exitUsage, want)
	}
}

// A window that ends just after a state changes leaves short states at
// the end of a bar: restartall-42 to 24.360s ends with trainer's failed
// (24.346s-24.351s) and waiting, each drawn at least minSpanW wide.
func TestTimelineWindowEndingInShortStates(t *testing.T) {
	out, errOut, code := runCmd(append(append([]string{"timeline"}, simArgs(t, "restartall-42")...), "--to", "24.36s"), "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	root := parseSVG(t, out)
	for _, from := range []string{"24.346s", "24.351s"} {
		n := 0
		for _, r := range root.find(func(n *xmlNode) bool {
			return n.XMLName.Local == "rect" && n.hasClass("span") && n.attr("data-from") == from
		}) {
			n++
			if w, _ := strconv.ParseFloat(r.attr("width"), 64); w < minSpanW {
				t.Errorf("state %s from %s drawn %.2f px wide, want at least %v", r.attr("class"), from, w, minSpanW)
			}
		}
		if n == 0 {
			t.Errorf("no state from %s drawn", from)
		}
	}
}

// A note's zoom hint is the window that shows its stretch, given when the
// stretch (within the window drawn) is at most a third of the window:
// --from its start in whole seconds down, --to its end in whole seconds up
// (an end on a whole second is kept: two-pods' web 0.000s–30.000s reads
// --to 30s). Over 2h of crashloop the first note's 86 states span the
// whole picture: no hint; nor for the 1046 states over the window 30h-60h.
func TestTimelineZoomHintRoundsOutwards(t *testing.T) {
	re := regexp.MustCompile(`(\d+\.\d{3})s–(\d+\.\d{3})s: \d+ states: [^;]*`)
	hint := regexp.MustCompile(`\(to see them: --from (\S+) --to (\S+)\)$`)
	hints, none := 0, 0
	crash := simArgs(t, "crashloop")
	for _, args := range [][]string{
		{"-f", "testdata/sim/two-pods.yaml", "--script", "testdata/sim/two-pods-script.yaml"},
		crash,
		append(append([]string{}, crash...), "--for", "60m"),
		append(append([]string{}, crash...), "--for", "60m", "--from", "10m", "--to", "60m"),
		append(append([]string{}, crash...), "--for", "2h"),
		append(append([]string{}, crash...), "--for", "60h", "--from", "30h", "--to", "60h"),
	} {
		out, errOut, code := runCmd(append([]string{"timeline"}, args...), "")
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		p := readPic(t, out)
		for ref, n := range p.notes {
			for _, m := range re.FindAllStringSubmatch(n, -1) {
				from, _ := strconv.ParseFloat(m[1], 64)
				to, _ := strconv.ParseFloat(m[2], 64)
				from, to = math.Max(from, p.start), math.Min(to, p.end)
				h := hint.FindStringSubmatch(strings.TrimSpace(m[0]))
				if want := to-from <= (p.end-p.start)/3; (h != nil) != want {
					t.Errorf("%v: note %s: stretch %.3fs-%.3fs in a window %gs-%gs: hint %v, want %v:%s", args, ref, from, to, p.start, p.end, h != nil, want, n)
				}
				if h == nil {
					none++
					continue
				}
				hints++
				hf, err1 := time.ParseDuration(h[1])
				ht, err2 := time.ParseDuration(h[2])
				if err1 != nil || err2 != nil {
					t.Errorf("%v: note %s: hint --from %s --to %s does not parse", args, ref, h[1], h[2])
					continue
				}
				if want := math.Floor(from); hf.Seconds() != want {
					t.Errorf("%v: note %s: stretch from %.3fs, hint --from %s, want %gs:%s", args, ref, from, h[1], want, n)
				}
				if want := math.Ceil(to); ht.Seconds() != want {
					t.Errorf("%v: note %s: stretch to %.3fs, hint --to %s, want %gs:%s", args, ref, to, h[2], want, n)
				}
			}
		}
	}
	if hints == 0 || none == 0 {
		t.Errorf("%d notes with a zoom hint, %d without: the test checks less than it says", hints, none)
	}
}

// Every state is drawn at least minSpanW wide, a cluster of states too:
// sidecar-job's kubectl STATUS row starts with Pending, Init:0/1 and
// PodInitializing within 0.447s of a 10m picture, drawn as one cluster.
func TestTimelineStatesAtLeastMinSpanWide(t *testing.T) {
	cases := [][]string{{"-f", ex + "sidecar-job.yaml"}}
	for _, c := range pictureCases(t) {
		cases = append(cases, append(append([]string{}, c.args...), c.zoom...))
	}
	clusters := 0
	for _, args := range cases {
		out, errOut, code := runCmd(append([]string{"timeline"}, args...), "")
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		for _, r := range parseSVG(t, out).find(func(n *xmlNode) bool { return n.XMLName.Local == "rect" && n.hasClass("span") }) {
			if r.hasClass("cluster") {
				clusters++
			}
			if w, _ := strconv.ParseFloat(r.attr("width"), 64); w < minSpanW-0.005 {
				t.Errorf("%v: %s %s-%s drawn %.2f px wide, under %v", args, r.attr("class"), r.attr("data-from"), r.attr("data-to"), w, minSpanW)
			}
		}
	}
	if clusters == 0 {
		t.Error("no cluster drawn: the test checks less than it says")
	}
}

// widestVisible returns the widest part a state shows between what covers
// it, wherever that part lies: the first of two here, the last there; of
// two equally wide, the first (a label keeps to the state's start).
func TestWidestVisible(t *testing.T) {
	for _, tc := range []struct {
		covers []barSpan
		want   [2]float64
	}{
		{nil, [2]float64{0, 100}},
		{[]barSpan{{x0: 60, x1: 70}}, [2]float64{0, 60}},
		{[]barSpan{{x0: 30, x1: 40}}, [2]float64{40, 100}},
		{[]barSpan{{x0: 10, x1: 20}, {x0: 50, x1: 95}}, [2]float64{20, 50}},
		{[]barSpan{{x0: 45, x1: 55}}, [2]float64{0, 45}},
		{[]barSpan{{x0: -5, x1: 105}}, [2]float64{0, 0}},
	} {
		if got := widestVisible(0, 100, tc.covers); got != tc.want {
			t.Errorf("widestVisible(0, 100, %v) = %v, want %v", tc.covers, got, tc.want)
		}
	}
}

// TestGoldenTimelineZoom compares zoomed pictures, and pictures with
// clusters and notes, with testdata/golden, as TestGoldenSimulate does
// the whole pictures of the examples: where each label, tag, cluster and
// note goes in a window is part of what the picture says.
func TestGoldenTimelineZoom(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"timeline-crashloop-zoom.svg", append(simArgs(t, "crashloop"), "--from", "1m", "--to", "4m")},
		{"timeline-delete-prestop-sidecar-zoom.svg", append(simArgs(t, "delete-prestop-sidecar"), "--from", "80s", "--to", "95s")},
		{"timeline-restartall-42-zoom.svg", append(simArgs(t, "restartall-42"), "--from", "24s", "--to", "25s")},
		{"timeline-sidecar-job-no-script.svg", []string{"-f", ex + "sidecar-job.yaml"}},
		{"timeline-two-pods-10m.svg", []string{"-f", "testdata/sim/two-pods.yaml", "--script", "testdata/sim/two-pods-script.yaml"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCmd(append([]string{"timeline"}, c.args...), "")
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d; stderr: %s", code, errOut)
			}
			golden(t, c.name, out)
		})
	}
}

// The window is [--from, --to], both ends in: delete-prestop-sidecar's
// SIGTERM to app at 85.000s is drawn in the window 76s-85s.
func TestTimelineWindowHoldsItsEnd(t *testing.T) {
	out, errOut, code := runCmd(append(append([]string{"timeline"}, simArgs(t, "delete-prestop-sidecar")...), "--from", "76s", "--to", "85s"), "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if len(parseSVG(t, out).find(func(n *xmlNode) bool {
		return n.hasClass("mark") && n.hasClass("sigterm") && n.attr("data-at") == "85.000s"
	})) == 0 {
		t.Errorf("no SIGTERM mark at 85.000s, the window's end:\n%s", out)
	}
}

// Every tag is on the picture, clear of its right edge: in crashloop's
// 600s-1000s app's "Running" goes left of its state ("Running ▸"), where
// right of it ("◂ Running") would run off the picture.
func TestTimelineTagsOnThePicture(t *testing.T) {
	for _, zoom := range [][]string{{"--from", "600s", "--to", "1000s"}, {"--from", "1m", "--to", "4m"}, nil} {
		out, errOut, code := runCmd(append(append([]string{"timeline"}, simArgs(t, "crashloop")...), zoom...), "")
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", zoom, code, errOut)
		}
		for _, r := range parseSVG(t, out).find(func(n *xmlNode) bool { return n.XMLName.Local == "rect" && n.hasClass("tag") }) {
			x, _ := strconv.ParseFloat(r.attr("x"), 64)
			w, _ := strconv.ParseFloat(r.attr("width"), 64)
			if x < plotX0-0.05 || x+w > svgWidth-8+0.05 {
				t.Errorf("%v: a tag from x %.1f to %.1f, off the plot (%v to %v)", zoom, x, x+w, plotX0, svgWidth-8)
			}
		}
	}
}

// A label cut short keeps at least two thirds of it: in crashloop's 30s-8m
// kubectl STATUS "CrashLoopBackOff" at 439.972s-480.000s has room for 10
// of its 16 characters, under two thirds (11): it gets a note, not
// "CrashLoopB…".
func TestTimelineCutLabelKeepsTwoThirds(t *testing.T) {
	out, errOut, code := runCmd(append(append([]string{"timeline"}, simArgs(t, "crashloop")...), "--from", "30s", "--to", "8m"), "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p := readPic(t, out)
	for _, tb := range texts(p.root) {
		if s, ok := strings.CutSuffix(tb.n.Text, "…"); ok && strings.HasPrefix("CrashLoopBackOff", s) && 3*len(s) < 2*len("CrashLoopBackOff") {
			t.Errorf("CrashLoopBackOff cut to %q, under two thirds of it", tb.n.Text)
		}
	}
	found := false
	for _, n := range p.notes {
		found = found || strings.Contains(n, "kubectl STATUS 439.972s–480.000s: CrashLoopBackOff")
	}
	if !found {
		t.Errorf("no note for kubectl STATUS CrashLoopBackOff at 439.972s-480.000s: %v", p.notes)
	}
}
