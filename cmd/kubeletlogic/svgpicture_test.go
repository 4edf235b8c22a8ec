package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// livenessFailure writes a pod whose liveness probe fails from the start
// (period 5 s, threshold 2: the kubelet restarts app at 10 s) and its
// script, and returns the timeline's arguments for them.
func livenessFailure(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	pod, script := filepath.Join(dir, "live.yaml"), filepath.Join(dir, "script.yaml")
	files := map[string]string{
		pod:    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: live\nspec:\n  containers:\n  - name: app\n    image: nginx\n    livenessProbe:\n      exec: {command: [\"true\"]}\n      periodSeconds: 5\n      failureThreshold: 2\n",
		script: "containers:\n  app:\n    runs:\n    - liveness: [{at: 0s, result: Failure}]\n    - {}\n",
	}
	for f, s := range files {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"timeline", "-f", pod, "--script", script, "--for", "40s"}
}

var (
	reProbeMark = regexp.MustCompile(`<g class="mark probe" data-container="app" data-at="10.000s"><title>[^<]*</title><path d="M([0-9.]+) ([0-9.]+) l4 -6 h-8 z" fill="#ffffff" stroke="#be185d" stroke-width="1.5"/></g>`)
	reLaneBarY  = regexp.MustCompile(`<rect class="span [a-z]+" data-from="[^"]*" data-to="[^"]*" x="[0-9.]+" y="([0-9.]+)"`)
)

// probeMark returns the x and y of the probe mark of livenessFailure's
// picture and the y of app's bar.
func probeMark(t *testing.T, out string) (x, y, barY float64) {
	t.Helper()
	m := reProbeMark.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no probe mark at 10s on app:\n%s", out)
	}
	x, _ = strconv.ParseFloat(m[1], 64)
	y, _ = strconv.ParseFloat(m[2], 64)
	b := reLaneBarY.FindStringSubmatch(out)
	if b == nil {
		t.Fatalf("no state drawn on app's bar:\n%s", out)
	}
	barY, _ = strconv.ParseFloat(b[1], 64)
	return x, y, barY
}

// A liveness failure is drawn as the legend says: a ▽ whose tip sits on the
// container's bar, at the failure's time, labelled "liveness failed".
func TestTimelineProbeMark(t *testing.T) {
	out, errOut, code := runCmd(livenessFailure(t), "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	pic := readPic(t, out)
	x, y, barY := probeMark(t, out)
	if want := pic.xOf(10 * time.Second); fmt.Sprintf("%.1f", x) != fmt.Sprintf("%.1f", want) {
		t.Errorf("probe mark at x %.1f, want %.1f (10s)", x, want)
	}
	if y != barY-1 {
		t.Errorf("probe mark's tip at y %.1f, want %.1f (1 above the bar at %.1f)", y, barY-1, barY)
	}
	if !strings.Contains(out, fmt.Sprintf(`<text x="%.1f" `, x+3)) || !strings.Contains(out, `font-weight="bold">liveness failed</text>`) {
		t.Errorf("no label \"liveness failed\" right of the mark (x %.1f):\n%s", x+3, out)
	}
}

// A mark's label that would run past 8 px from the picture's right edge
// is put left of its mark: it ends 3 px before the mark, on a white box as
// wide as the text and 1 px either side.
func TestTimelineLabelLeftAtTheRightEdge(t *testing.T) {
	args := append(livenessFailure(t), "--from", "0s", "--to", "10050ms")
	out, errOut, code := runCmd(args, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	x, _, _ := probeMark(t, out)
	const label = "liveness failed"
	tw := textWidth(label, 11)
	if x+3+tw <= svgWidth-8 {
		t.Fatalf("the mark at x %.1f leaves room on its right: the case tests nothing", x)
	}
	want := fmt.Sprintf(`<rect x="%.1f" y="[0-9.]+" width="%.1f" height="12.0" fill="#ffffff"/>`+"\n"+
		`<text x="%.1f" y="[0-9.]+" font-size="11" fill="#be185d" font-weight="bold" text-anchor="end">%s</text>`,
		x-3-tw-1, tw+2, x-3, label)
	if !regexp.MustCompile(want).MatchString(out) {
		t.Errorf("no label ending 3 px left of the mark at %.1f on its box; want\n%s\nin\n%s", x, want, out)
	}
}

// No mark label ends within 8 px of the picture's right edge: at --to
// 10.73s "liveness failed" right of the mark would end at 1200.3 px, past
// the 1200 px picture; it is shortened to "failed" instead.
func TestTimelineLabelKeepsOffTheRightEdge(t *testing.T) {
	args := append(livenessFailure(t), "--from", "0s", "--to", "10730ms")
	out, errOut, code := runCmd(args, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	x, _, _ := probeMark(t, out)
	if x+3+textWidth("liveness failed", 11) <= svgWidth-8 {
		t.Fatalf("the mark at x %.1f leaves room on its right: the case tests nothing", x)
	}
	pic := readPic(t, out)
	n := 0
	for _, tb := range texts(pic.root) {
		if tb.n.attr("fill") != "#be185d" {
			continue
		}
		n++
		if tb.right > svgWidth-8 {
			t.Errorf("label %q ends at %.1f, past %d", tb.n.Text, tb.right, svgWidth-8)
		}
	}
	if n != 1 {
		t.Errorf("%d probe labels, want 1", n)
	}
}

// Past 12 hours the axis ticks every 2 hours.
func TestTimelineTicksPastTwelveHours(t *testing.T) {
	args := livenessFailure(t)
	args = append(args[:5], "--for", "13h")
	out, errOut, code := runCmd(args, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ticks []string
	for _, m := range regexp.MustCompile(`<text x="[0-9.]+" y="[0-9.]+" font-size="11.5" fill="#374151" text-anchor="middle">([^<]*)</text>`).FindAllStringSubmatch(out, -1) {
		ticks = append(ticks, m[1])
	}
	if got, want := strings.Join(ticks, " "), "0s 2h 4h 6h 8h 10h 12h"; got != want {
		t.Errorf("ticks %q, want %q", got, want)
	}
}

// A row whose last state begins just before the end of the simulation
// (Ready turning True at 19.279s of 19.4s) has its label right of the
// bar's end, where the room past the axis is for.
func TestTimelineRowLabelPastTheEnd(t *testing.T) {
	out, errOut, code := runCmd([]string{"timeline", "-f", ex + "init-sidecar-app.yaml", "--script", ex + "scripts/init-sidecar-app.yaml", "--for", "19400ms"}, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, row := range []string{"ContainersReady", "Ready"} {
		_, g, ok := strings.Cut(out, `<g class="row" data-row="`+row+`">`)
		if !ok {
			t.Fatalf("no row %s", row)
		}
		g, _, _ = strings.Cut(g, `<g class="row"`)
		want := fmt.Sprintf(`<text class="label end" x="%.1f" y="3.6" font-size="10" fill="#111827">True</text>`, plotX1+5.0)
		if !strings.Contains(g, want) {
			t.Errorf("row %s: no %s:\n%s", row, want, g)
		}
	}
}

// A window that starts where the deleted pod's lanes end (the kubelet's
// last CRI call for it) draws no faint track on them: there is nothing
// of the containers left to show, not even a zero-wide track.
func TestTimelineNoTrackAfterTheLanesEnd(t *testing.T) {
	args := []string{"-f", ex + "delete-prestop-sidecar.yaml", "--script", ex + "scripts/delete-prestop-sidecar.yaml"}
	d := simulateJSON(t, args)
	var end time.Duration
	for _, e := range d.Timeline.Entries {
		if e.Kind == sim.KindCRI || e.Kind == sim.KindExit || e.Kind == sim.KindStatus {
			end = max(end, e.At)
		}
	}
	const track = `fill="#f9fafb" stroke="#e5e7eb"`
	for _, tc := range []struct {
		from   time.Duration
		tracks int
	}{{end - time.Nanosecond, 2}, {end, 0}} {
		out, errOut, code := runCmd(append(append([]string{"timeline"}, args...), "--from", tc.from.String()), "")
		if code != exitOK {
			t.Fatalf("--from %s: exit %d: %s", tc.from, code, errOut)
		}
		if n := strings.Count(out, track); n != tc.tracks {
			t.Errorf("--from %s (the lanes end at %s): %d tracks, want %d", tc.from, end, n, tc.tracks)
		}
	}
}

// A tag ("◂ label") never covers a state drawn narrower than 12 px on its
// bar: in init-sidecar-app over 10 minutes, proxy's two short states
// (running, not started; running, not ready) are 3 px each, side by side;
// the second one's tag goes right of it, the first one's label to a note.
func TestTimelineTagsKeepOffNarrowStates(t *testing.T) {
	out, errOut, code := runCmd([]string{"timeline", "-f", ex + "init-sidecar-app.yaml", "--script", ex + "scripts/init-sidecar-app.yaml", "--for", "10m"}, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	root := parseSVG(t, out)
	narrow := 0
	for _, ln := range root.find(func(n *xmlNode) bool { return n.hasClass("lane") }) {
		var spans [][2]float64
		for _, r := range ln.find(func(n *xmlNode) bool { return n.XMLName.Local == "rect" && n.hasClass("span") }) {
			x, _ := strconv.ParseFloat(r.attr("x"), 64)
			w, _ := strconv.ParseFloat(r.attr("width"), 64)
			if w < 12 {
				spans = append(spans, [2]float64{x, x + w})
			}
		}
		narrow += len(spans)
		for _, tag := range ln.find(func(n *xmlNode) bool { return n.XMLName.Local == "rect" && n.hasClass("tag") }) {
			x, _ := strconv.ParseFloat(tag.attr("x"), 64)
			w, _ := strconv.ParseFloat(tag.attr("width"), 64)
			for _, s := range spans {
				if x < s[1] && x+w > s[0] {
					t.Errorf("lane %s: a tag from %.1f to %.1f covers the state drawn from %.1f to %.1f", ln.attr("data-container"), x, x+w, s[0], s[1])
				}
			}
		}
	}
	if narrow < 2 {
		t.Fatalf("%d narrow states: the case tests nothing", narrow)
	}
}

// Five actions at 10s: three are labelled on the three rows above the
// lanes, each dashed line rising to its label (14 px apart); the other
// two go to a note and their lines start 2 px above the lanes, 14 px
// below the line of the label on the nearest row; their note keeps the
// script's order.
func TestTimelineEventLinesWithoutLabel(t *testing.T) {
	args := livenessFailure(t)
	script := filepath.Join(t.TempDir(), "actions.yaml")
	acts := "actions:\n- at: 10s\n  restartKubelet: 5s\n"
	for _, c := range "abcd" {
		acts += fmt.Sprintf("- at: 10s\n  setCondition: {type: example.com/%c, status: \"True\"}\n", c)
	}
	if err := os.WriteFile(script, []byte(acts), 0o644); err != nil {
		t.Fatal(err)
	}
	args[4] = script
	out, errOut, code := runCmd(args, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var tops []float64
	for _, m := range regexp.MustCompile(`<g class="event" data-at="10.000s"><title>[^<]*</title><line x1="[0-9.]+" y1="([0-9.]+)"`).FindAllStringSubmatch(out, -1) {
		y, _ := strconv.ParseFloat(m[1], 64)
		tops = append(tops, y)
	}
	sort.Float64s(tops)
	if len(tops) != 5 {
		t.Fatalf("%d event lines at 10s, want 5", len(tops))
	}
	r0 := tops[2]
	want := []float64{r0 - 28, r0 - 14, r0, r0 + 14, r0 + 14}
	for i := range want {
		if tops[i] != want[i] {
			t.Fatalf("event lines start at %v, want %v", tops, want)
		}
	}
	// The note lists them as the script does, same time as they are.
	pic := readPic(t, out)
	if note := pic.notes["[1]"]; note != " [1] pod live events: 10.000s set condition example.com/c True, 10.000s set condition example.com/d True" {
		t.Errorf("note [1]: %q", note)
	}
}

// A liveness probe failing from the start, over 10 minutes: the kills
// crowd the early part of app's lane, and some SIGTERM marks get no label
// of their own. Every SIGTERM line still crosses the whole bar, from 3 px
// above it (higher when labelled) to 3 px below.
func TestTimelineSIGTERMLinesWithoutLabel(t *testing.T) {
	args := livenessFailure(t)
	script := filepath.Join(t.TempDir(), "always.yaml")
	if err := os.WriteFile(script, []byte("containers:\n  app:\n    runs:\n    - liveness: [{at: 0s, result: Failure}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args[4], args[6] = script, "10m"
	out, errOut, code := runCmd(args, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, _, barY := probeMark(t, out)
	unlabelled := 0
	for _, m := range regexp.MustCompile(`<g class="mark sigterm"[^>]*><title>[^<]*</title><line x1="[0-9.]+" y1="([0-9.]+)" x2="[0-9.]+" y2="([0-9.]+)"`).FindAllStringSubmatch(out, -1) {
		y1, _ := strconv.ParseFloat(m[1], 64)
		y2, _ := strconv.ParseFloat(m[2], 64)
		if y1 > barY-3 || y2 != barY+barH+3 {
			t.Errorf("a SIGTERM line from y %.1f to %.1f, want from %.1f or above to %.1f", y1, y2, barY-3, barY+barH+3.0)
		}
		if y1 == barY-3 {
			unlabelled++
		}
	}
	if unlabelled == 0 {
		t.Fatalf("every SIGTERM labelled: the case tests nothing")
	}
}

// The same for SIGKILL: app ignores SIGTERM and has 1 s of grace, so each
// liveness kill ends in a SIGKILL; over 10 minutes one of them gets no
// label of its own, and its line still crosses the whole bar.
func TestTimelineSIGKILLLinesWithoutLabel(t *testing.T) {
	dir := t.TempDir()
	pod, script := filepath.Join(dir, "pod.yaml"), filepath.Join(dir, "script.yaml")
	files := map[string]string{
		pod:    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: live\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n  - name: app\n    image: nginx\n    livenessProbe:\n      exec: {command: [\"true\"]}\n      periodSeconds: 5\n      failureThreshold: 2\n",
		script: "containers:\n  app:\n    runs:\n    - liveness: [{at: 0s, result: Failure}]\n      ignoreSIGTERM: true\n",
	}
	for f, s := range files {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runCmd([]string{"timeline", "-f", pod, "--script", script, "--for", "10m"}, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, _, barY := probeMark(t, out)
	unlabelled := 0
	for _, m := range regexp.MustCompile(`<g class="mark sigkill"[^>]*><title>[^<]*</title><line x1="[0-9.]+" y1="([0-9.]+)" x2="[0-9.]+" y2="([0-9.]+)"`).FindAllStringSubmatch(out, -1) {
		y1, _ := strconv.ParseFloat(m[1], 64)
		y2, _ := strconv.ParseFloat(m[2], 64)
		if y1 > barY-3 || y2 != barY+barH+3 {
			t.Errorf("a SIGKILL line from y %.1f to %.1f, want from %.1f or above to %.1f", y1, y2, barY-3, barY+barH+3.0)
		}
		if y1 == barY-3 {
			unlabelled++
		}
	}
	if unlabelled == 0 {
		t.Fatalf("every SIGKILL labelled: the case tests nothing")
	}
}

// Crowded lanes, drawn exactly (testdata/golden; go test -update rewrites
// them): a container killed by its liveness probe again and again, so
// that its marks' labels fill the rows and the rest go to notes, grouped
// by how far apart they are.
func TestGoldenCrowdedTimelines(t *testing.T) {
	const d = "testdata/sim/"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"timeline-liveness-fails-10m.svg", []string{"-f", d + "liveness-pod.yaml", "--script", d + "liveness-fails.yaml", "--for", "10m"}},
		{"timeline-liveness-fails-30m.svg", []string{"-f", d + "liveness-pod.yaml", "--script", d + "liveness-fails.yaml", "--for", "30m"}},
		{"timeline-liveness-fails-45m.svg", []string{"-f", d + "liveness-pod.yaml", "--script", d + "liveness-fails.yaml", "--for", "45m"}},
		{"timeline-liveness-sigkill-3m.svg", []string{"-f", d + "liveness-pod-grace-1.yaml", "--script", d + "liveness-fails-ignore-term.yaml", "--for", "3m"}},
		{"timeline-liveness-sigkill-1h.svg", []string{"-f", d + "liveness-pod-grace-1.yaml", "--script", d + "liveness-fails-ignore-term.yaml", "--for", "1h"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCmd(append([]string{"timeline"}, tc.args...), "")
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d; stderr: %s", code, errOut)
			}
			golden(t, tc.name, out)
		})
	}
}
