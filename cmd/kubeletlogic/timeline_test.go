package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// pictureCases are the simulations the label tests draw: every example,
// an init container in a crash loop, and zoomed windows.
func pictureCases(t *testing.T) []struct {
	name       string
	args, zoom []string
} {
	dir := t.TempDir()
	initCrash := filepath.Join(dir, "init-crash.yaml")
	if err := os.WriteFile(initCrash, []byte("containers:\n  migrate:\n    runs:\n    - {exitAfter: 1s, exitCode: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type pc = struct {
		name       string
		args, zoom []string
	}
	var out []pc
	for _, c := range simCases {
		out = append(out, pc{c.name, c.args, nil})
	}
	crash := []string{"-f", ex + "init-sidecar-app.yaml", "--script", initCrash, "--for", "2m"}
	out = append(out,
		pc{"init-crash-2m", crash, nil},
		// With the default --for 10m, main drew no "restart 2".
		pc{"init-crash-10m", []string{"-f", ex + "init-sidecar-app.yaml", "--script", initCrash}, nil},
		pc{"init-crash-zoom", crash, []string{"--from", "10s", "--to", "20s"}},
		pc{"restartall-42-zoom", simArgs(t, "restartall-42"), []string{"--from", "24s", "--to", "25s"}},
		pc{"crashloop-zoom", simArgs(t, "crashloop"), []string{"--from", "1m", "--to", "4m"}},
		pc{"delete-zoom", simArgs(t, "delete-prestop-sidecar"), []string{"--from", "80s", "--to", "95s"}},
	)
	return out
}

// textBox is a text of the picture with its extent.
type textBox struct {
	n           *xmlNode
	left, right float64
	y           string // its y attribute, for texts on one line
}

func boxOf(n *xmlNode) textBox {
	x, _ := strconv.ParseFloat(n.attr("x"), 64)
	size, _ := strconv.ParseFloat(n.attr("font-size"), 64)
	w := textWidth(n.Text, size)
	b := textBox{n: n, left: x, right: x + w, y: n.attr("y")}
	switch n.attr("text-anchor") {
	case "middle":
		b.left, b.right = x-w/2, x+w/2
	case "end":
		b.left, b.right = x-w, x
	}
	return b
}

func texts(n *xmlNode) []textBox {
	var out []textBox
	for _, t := range n.find(func(n *xmlNode) bool { return n.XMLName.Local == "text" }) {
		out = append(out, boxOf(t))
	}
	return out
}

var reRef = regexp.MustCompile(`^\[\d+\]$`)

// picture is a drawn timeline read back.
type readPicture struct {
	root               *xmlNode
	notes              map[string]string // [n] -> its whole text
	x0, x1, start, end float64
}

func readPic(t *testing.T, out string) *readPicture {
	root := parseSVG(t, out)
	p := &readPicture{root: root, notes: map[string]string{}}
	for _, n := range root.find(func(n *xmlNode) bool { return n.hasClass("note") && n.XMLName.Local == "text" }) {
		ref := n.attr("data-ref")
		p.notes[ref] += " " + strings.TrimSpace(n.Text)
	}
	axes := root.find(func(n *xmlNode) bool { return n.hasClass("axis") })
	if len(axes) != 1 {
		t.Fatalf("%d axes", len(axes))
	}
	p.x0, _ = strconv.ParseFloat(axes[0].attr("data-x0"), 64)
	p.x1, _ = strconv.ParseFloat(axes[0].attr("data-x1"), 64)
	p.start, _ = strconv.ParseFloat(strings.TrimSuffix(axes[0].attr("data-start"), "s"), 64)
	p.end, _ = strconv.ParseFloat(strings.TrimSuffix(axes[0].attr("data-end"), "s"), 64)
	return p
}

func (p *readPicture) xOf(d time.Duration) float64 {
	return p.x0 + (d.Seconds()-p.start)/(p.end-p.start)*(p.x1-p.x0)
}

var reRange = regexp.MustCompile(`(\d+\.\d{3})s–(\d+\.\d{3})s`)

// labelled tells whether one of want is written by a state drawn from x a
// to b, from time from to time to: inside or beside it among near (a
// label, or a tag "◂ label" or "label ▸"), or in the note of a reference
// [n] among refs whose note names a stretch of time that holds the
// state's. A want ending in "*" is a prefix.
func (p *readPicture) labelled(a, b float64, from, to string, near, refs []textBox, want ...string) bool {
	match := func(s, w string) bool {
		if p, ok := strings.CutSuffix(w, "*"); ok {
			return strings.HasPrefix(s, p)
		}
		return w != "" && s == w
	}
	for _, tb := range near {
		if tb.right < a-12 || tb.left > b+12 {
			continue
		}
		s := strings.TrimSuffix(strings.TrimPrefix(tb.n.Text, "◂ "), " ▸")
		for _, w := range want {
			// A label cut short: its first characters and an ellipsis.
			if c, ok := strings.CutSuffix(s, "…"); ok && len([]rune(c)) >= 4 && strings.HasPrefix(strings.TrimSuffix(w, "*"), c) {
				return true
			}
			if match(s, w) {
				return true
			}
		}
	}
	f, _ := strconv.ParseFloat(strings.TrimSuffix(from, "s"), 64)
	t, _ := strconv.ParseFloat(strings.TrimSuffix(to, "s"), 64)
	for _, tb := range refs {
		if !reRef.MatchString(tb.n.Text) {
			continue
		}
		note := p.notes[tb.n.Text]
		covers := false
		for _, m := range reRange.FindAllStringSubmatch(note, -1) {
			nf, _ := strconv.ParseFloat(m[1], 64)
			nt, _ := strconv.ParseFloat(m[2], 64)
			covers = covers || (nf <= f+0.0005 && t <= nt+0.0005)
		}
		if !covers {
			continue
		}
		for _, w := range want {
			if w != "" && strings.Contains(note, strings.TrimSuffix(w, "*")) {
				return true
			}
		}
	}
	return false
}

// statusesAt are the statuses the simulation wrote at exactly at.
func statusesAt(tl *sim.Timeline, pod string, at string) []*sim.StatusEntry {
	var found []*sim.StatusEntry
	for _, e := range tl.Entries {
		if e.Pod == pod && e.Status != nil && secs(e.At) == at {
			found = append(found, e.Status)
		}
	}
	return found
}

// Every state the picture draws is at least minSpanW wide and carries its
// label (inside, beside on a tag, right of the end, or in a note whose
// reference is by it); every start, SIGTERM, SIGKILL and exit of the
// simulation has its label on the lane or in a note; the labels written on
// one line do not overlap. Checked on every example, on an init container
// in a crash loop (whose "restart 2" main dropped), and on zoomed windows.
func TestTimelineLabelsEverything(t *testing.T) {
	for _, c := range pictureCases(t) {
		t.Run(c.name, func(t *testing.T) {
			d := simulateJSON(t, c.args)
			tl, pod := d.Timeline, d.Pods[0].Pod
			out, errOut, code := runCmd(append(append([]string{"timeline"}, c.args...), c.zoom...), "")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			p := readPic(t, out)
			kinds := map[string]string{}
			for _, ic := range pod.Spec.InitContainers {
				kinds[ic.Name] = "init container"
				if ic.RestartPolicy != nil && *ic.RestartPolicy == v1.ContainerRestartPolicyAlways {
					kinds[ic.Name] = "native sidecar"
				}
			}
			for _, mc := range pod.Spec.Containers {
				kinds[mc.Name] = "container"
			}

			// wantOf is what a lane or row shows of a status.
			wantOf := func(group *xmlNode, st *sim.StatusEntry) []string {
				if name := group.attr("data-container"); name != "" {
					for _, l := range [][]v1.ContainerStatus{st.Status.InitContainerStatuses, st.Status.ContainerStatuses, st.Status.EphemeralContainerStatuses} {
						for i := range l {
							if l[i].Name == name {
								sp := stateSpan(&l[i], kinds[name])
								return []string{sp.Label, sp.Short}
							}
						}
					}
					return nil
				}
				switch row := group.attr("data-row"); row {
				case "kubectl STATUS":
					return []string{st.Column}
				case "phase":
					ph := string(st.Status.Phase)
					if ph == "" {
						ph = "Pending"
					}
					return []string{ph}
				default:
					for _, cond := range st.Status.Conditions {
						if string(cond.Type) == row {
							return []string{string(cond.Status)}
						}
					}
					return nil
				}
			}
			// The label a state should carry, from the simulation's
			// status at its start.
			wantState := func(group *xmlNode, r *xmlNode) []string {
				from := r.attr("data-from")
				switch {
				case r.hasClass("cluster"):
					return nil // checked below: a note lists its states
				case r.hasClass("terminating"):
					return []string{"terminating", "term."}
				case r.hasClass("prestop"):
					return []string{"preStop*"}
				}
				sts := statusesAt(tl, pod.Name, from)
				if len(sts) == 0 {
					t.Errorf("%s: a state from %s, when the simulation wrote no status", group.attr("class"), from)
					return nil
				}
				var want []string
				for _, st := range sts {
					want = append(want, wantOf(group, st)...)
				}
				if len(want) == 0 {
					t.Errorf("%s%s: a state from %s, when no status then shows it", group.attr("data-container"), group.attr("data-row"), from)
				}
				return want
			}
			groups := p.root.find(func(n *xmlNode) bool { return n.hasClass("lane") || n.hasClass("row") })
			if len(groups) == 0 {
				t.Fatal("no lane and no row")
			}
			rects := 0
			type drawnState struct {
				from float64
				ok   bool
				want []string
			}
			laneStates := map[string][]drawnState{}
			for _, g := range groups {
				// Mark labels and references of a lane are drawn after it.
				refs := texts(g)
				if name := g.attr("data-container"); name != "" {
					for _, l := range p.root.find(func(n *xmlNode) bool { return n.hasClass("labels") && n.attr("data-container") == name }) {
						refs = append(refs, texts(l)...)
					}
				}
				near := texts(g)
				for _, r := range g.find(func(n *xmlNode) bool {
					return n.XMLName.Local == "rect" && (n.hasClass("span") || n.hasClass("overlay"))
				}) {
					rects++
					x, _ := strconv.ParseFloat(r.attr("x"), 64)
					w, _ := strconv.ParseFloat(r.attr("width"), 64)
					what := fmt.Sprintf("%s%s %s %s-%s", g.attr("data-container"), g.attr("data-row"), r.attr("class"), r.attr("data-from"), r.attr("data-to"))
					if w < minSpanW-0.005 {
						t.Errorf("%s is drawn %.2f px wide, less than %v", what, w, minSpanW)
					}
					if x < p.x0-0.01 || x+w > p.x1+minSpanW+0.01 {
						t.Errorf("%s is drawn from x %.1f to %.1f, outside the axis %.0f-%.0f", what, x, x+w, p.x0, p.x1)
					}
					if r.hasClass("cluster") {
						if !p.labelled(x, x+w, r.attr("data-from"), r.attr("data-to"), nil, refs, "states: ") {
							t.Errorf("%s: a cluster of short states without a note", what)
						}
						continue
					}
					want := wantState(g, r)
					ok := p.labelled(x, x+w, r.attr("data-from"), r.attr("data-to"), near, refs, want...)
					if want != nil && !ok {
						t.Errorf("%s has no label %q (nor a note)", what, want)
					}
					if name := g.attr("data-container"); name != "" && r.hasClass("span") {
						f, _ := strconv.ParseFloat(strings.TrimSuffix(r.attr("data-from"), "s"), 64)
						laneStates[name] = append(laneStates[name], drawnState{f, ok, want})
					}
				}
			}
			if rects == 0 {
				t.Fatal("no state drawn")
			}

			// The marks: each start, stop and kill of the window, and each
			// exit of the process's own, labelled.
			from, to := time.Duration(p.start*float64(time.Second)), time.Duration(p.end*float64(time.Second))
			laneLabels := func(name string) []textBox {
				var out []textBox
				for _, l := range p.root.find(func(n *xmlNode) bool { return n.hasClass("labels") && n.attr("data-container") == name }) {
					out = append(out, texts(l)...)
				}
				return out
			}
			markLabelled := func(name string, at time.Duration, want ...string) bool {
				x := p.xOf(at)
				for _, tb := range laneLabels(name) {
					if (tb.left > x+2.5 && tb.left < x+3.5) || (tb.right > x-3.5 && tb.right < x-2.5) {
						for _, w := range want {
							if tb.n.Text == w {
								return true
							}
						}
						if reRef.MatchString(tb.n.Text) && strings.Contains(p.notes[tb.n.Text], secs(at)+" "+want[0]) {
							return true
						}
					}
				}
				// A reference for a run of marks names each of them.
				for _, tb := range laneLabels(name) {
					if reRef.MatchString(tb.n.Text) && tb.left < x+40 && tb.right > x-40 && strings.Contains(p.notes[tb.n.Text], secs(at)+" "+want[0]) {
						return true
					}
				}
				return false
			}
			createdRestarts := map[string]int{}
			stopped := map[string]bool{}
			for _, e := range tl.Entries {
				if e.Kind == sim.KindCRI && e.Call != nil && e.Call.Method == "CreateContainer" {
					createdRestarts[e.Call.ID] = e.Call.RestartCount
				}
				if e.Kind == sim.KindCRI && e.Call != nil && e.Call.Method == "StopContainer" {
					stopped[e.Call.ID] = true
				}
			}
			for _, e := range tl.Entries {
				if e.Pod != pod.Name || e.At < from || e.At > to {
					continue
				}
				switch {
				case e.Kind == sim.KindCRI && e.Call != nil && e.Call.Method == "StartContainer":
					want := "start"
					if n := createdRestarts[e.Call.ID]; n > 0 {
						want = fmt.Sprintf("restart %d", n)
					}
					if !markLabelled(e.Call.Name, e.At, want) {
						t.Errorf("%s: StartContainer %s at %s has no label %q", e.Call.Name, e.Call.ID, secs(e.At), want)
					}
				case e.Kind == sim.KindCRI && e.Call != nil && e.Call.Method == "StopContainer":
					want := fmt.Sprintf("SIGTERM (timeout %ds)", *e.Call.Timeout)
					if !markLabelled(e.Call.Name, e.At, want, "SIGTERM") {
						t.Errorf("%s: StopContainer at %s has no label %q", e.Call.Name, secs(e.At), want)
					}
					if at := e.At + e.Call.Ended() - e.Call.At; e.Call.Killed && at <= to && !markLabelled(e.Call.Name, at, "SIGKILL") {
						t.Errorf("%s: SIGKILL at %s has no label", e.Call.Name, secs(at))
					}
				case e.Kind == sim.KindExit && e.Exit != nil && !stopped[e.Exit.ID]:
					want := fmt.Sprintf("exit %d", e.Exit.ExitCode)
					if markLabelled(e.Exit.Container, e.At, want) {
						continue
					}
					// Or the exited state that follows says it.
					ok := false
					for _, ds := range laneStates[e.Exit.Container] {
						if ds.from >= e.At.Seconds()-0.0005 {
							ok = ds.ok && len(ds.want) > 0 && strings.HasPrefix(ds.want[0], fmt.Sprintf("exited %d", e.Exit.ExitCode))
							break
						}
					}
					if !ok {
						t.Errorf("%s: exit %d at %s has no label, nor has the exited state after it", e.Exit.Container, e.Exit.ExitCode, secs(e.At))
					}
				}
			}

			// Labels on one line do not overlap.
			var lines = map[string][]textBox{}
			for _, g := range p.root.find(func(n *xmlNode) bool {
				return n.hasClass("bar-labels") || n.hasClass("labels") || n.hasClass("pod")
			}) {
				for i := range g.Nodes {
					n := &g.Nodes[i]
					if n.XMLName.Local == "text" {
						key := fmt.Sprintf("%p %s", g, n.attr("y"))
						lines[key] = append(lines[key], boxOf(n))
					}
				}
			}
			for _, l := range lines {
				for i := range l {
					for j := i + 1; j < len(l); j++ {
						if l[i].left < l[j].right-1 && l[j].left < l[i].right-1 {
							t.Errorf("labels %q and %q overlap (%.0f-%.0f and %.0f-%.0f)", l[i].n.Text, l[j].n.Text, l[i].left, l[i].right, l[j].left, l[j].right)
						}
					}
				}
			}
		})
	}
}

// --from and --to draw a window: the axis shows it, every state is
// clipped to it, nothing outside it is drawn, and a mark inside it is at
// its time's x on the window's scale.
func TestTimelineZoom(t *testing.T) {
	args := append(append([]string{"timeline"}, simArgs(t, "restartall-42")...), "--from", "24s", "--to", "25s")
	out, errOut, code := runCmd(args, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p := readPic(t, out)
	if p.start != 24 || p.end != 25 {
		t.Fatalf("axis from %vs to %vs, want 24s to 25s", p.start, p.end)
	}
	var ticks []string
	for _, a := range p.root.find(func(n *xmlNode) bool { return n.hasClass("axis") }) {
		for _, tb := range texts(a) {
			if tb.n.Text[0] >= '0' && tb.n.Text[0] <= '9' {
				ticks = append(ticks, tb.n.Text)
			}
		}
	}
	if len(ticks) < 4 || ticks[0] != "24s" || ticks[len(ticks)-1] != "25s" {
		t.Errorf("axis ticks %v, want 24s … 25s with steps between", ticks)
	}
	if !strings.Contains(out, "window 24.000s to 25.000s") {
		t.Error("the header does not say which window is drawn")
	}
	for _, r := range p.root.find(func(n *xmlNode) bool {
		return n.XMLName.Local == "rect" && (n.hasClass("span") || n.hasClass("overlay"))
	}) {
		from, _ := strconv.ParseFloat(strings.TrimSuffix(r.attr("data-from"), "s"), 64)
		to, _ := strconv.ParseFloat(strings.TrimSuffix(r.attr("data-to"), "s"), 64)
		x, _ := strconv.ParseFloat(r.attr("x"), 64)
		w, _ := strconv.ParseFloat(r.attr("width"), 64)
		if to < 24 || from > 25 {
			t.Errorf("a state %s-%s outside the window is drawn", r.attr("data-from"), r.attr("data-to"))
		}
		if x < p.x0-0.01 || x+w > p.x1+minSpanW+0.01 {
			t.Errorf("state %s-%s drawn from x %.1f to %.1f, outside the axis", r.attr("data-from"), r.attr("data-to"), x, x+w)
		}
	}
	d := simulateJSON(t, simArgs(t, "restartall-42"))
	inside := 0
	for _, m := range p.root.find(func(n *xmlNode) bool { return n.hasClass("mark") }) {
		at, _ := strconv.ParseFloat(strings.TrimSuffix(m.attr("data-at"), "s"), 64)
		if at < 24 || at > 25 {
			t.Errorf("mark %s at %vs, outside the window, is drawn", m.attr("class"), at)
		}
	}
	for _, e := range d.Timeline.Entries {
		if e.Kind != sim.KindCRI || e.Call == nil || e.Call.Method != "StartContainer" || e.At < 24*time.Second || e.At > 25*time.Second {
			continue
		}
		inside++
		found := false
		for _, m := range p.root.find(func(n *xmlNode) bool {
			return n.hasClass("mark") && n.hasClass("start") && n.attr("data-at") == secs(e.At)
		}) {
			for _, path := range m.find(func(n *xmlNode) bool { return n.XMLName.Local == "path" }) {
				var x, y float64
				fmt.Sscanf(path.attr("d"), "M%f %f", &x, &y)
				if d := x - p.xOf(e.At); d > 0.06 || d < -0.06 {
					t.Errorf("start of %s at x %.2f, want %.2f", e.Call.ID, x, p.xOf(e.At))
				}
				found = true
			}
		}
		if !found {
			t.Errorf("no start mark for %s at %s in the window", e.Call.ID, secs(e.At))
		}
	}
	if inside == 0 {
		t.Error("no StartContainer in the window: the test checks nothing")
	}

	for _, tc := range []struct {
		zoom []string
		want string
	}{
		{[]string{"--from", "30s", "--to", "30s"}, "not before --to"},
		{[]string{"--from", "40s", "--to", "30s"}, "not before --to"},
		{[]string{"--from", "2m"}, "not inside the simulation"},
		{[]string{"--to", "11m"}, "after the end of the simulation"},
		{[]string{"--from", "30"}, "no unit"},
		{[]string{"--from", "-1s"}, "0s or later"},
	} {
		out, errOut, code := runCmd(append(append([]string{"timeline"}, simArgs(t, "restartall-42")...), tc.zoom...), "")
		if code != exitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, %d bytes out; want exit %d and %q", tc.zoom, code, errOut, len(out), exitUsage, tc.want)
		}
	}
}

// simArgs are the arguments of the simCases entry name.
func simArgs(t *testing.T, name string) []string {
	for _, c := range simCases {
		if c.name == name {
			return c.args
		}
	}
	t.Fatalf("no simulation case %s", name)
	return nil
}

// The containers' lanes go on after the API object is gone, from the
// kubelet's own statuses, including one written at the very instant the
// object went: app, started at 0.300s and removed (kubectl delete --force)
// at 0.368s, is drawn running and ready from the kubelet's status of
// 0.368s until it exits, not waiting in ContainerCreating till its end.
func TestTimelineStatusAtTheRemoval(t *testing.T) {
	out, errOut, code := runCmd([]string{"timeline", "-f", ex + "crashloop.yaml", "--remove-at", "368ms", "--for", "20s"}, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "<title>running and ready</title>") {
		t.Errorf("app's lane has no running and ready span from the kubelet's status at the removal:\n%s", out)
	}
}
