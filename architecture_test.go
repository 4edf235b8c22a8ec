package kubeletlogic_test

import (
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// docs/architecture.md and docs/layers.svg are made from the sources:
//
//	go test -run TestArchitecture -update-docs .
//
// rewrites the drawing of the layers and the table of mirrored kubelet
// files; without the flag the test fails when either is out of date.

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/layers.svg and the generated part of docs/architecture.md")

// toolingDirs hold the project's tooling, not the library: they are left
// out of the drawing and of the table, as are the modules nested in the
// repository (node/, with a go.mod of its own), which are not the library.
var toolingDirs = []string{"tooling"}

func isTooling(dir string) bool {
	for _, t := range toolingDirs {
		if dir == t || strings.HasPrefix(dir, t+"/") {
			return true
		}
	}
	for d := dir; d != "." && d != "/" && d != ""; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return true
		}
	}
	return false
}

// libraryImports maps each package of the module (its folder, "." for the
// root) outside the tooling to the module's packages its non-test files
// import.
func libraryImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, f := range repoFiles(t, ".go") {
		dir := filepath.ToSlash(filepath.Dir(f))
		if strings.HasSuffix(f, "_test.go") || isTooling(dir) || strings.HasPrefix(dir, "testdata") || strings.Contains(dir, "/testdata") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		for _, im := range file.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, modulePath+"/"); ok {
				out[dir] = append(out[dir], rest)
			}
		}
	}
	for dir, deps := range out {
		sort.Strings(deps)
		var uniq []string
		for i, d := range deps {
			if i == 0 || d != deps[i-1] {
				uniq = append(uniq, d)
			}
		}
		out[dir] = uniq
	}
	delete(out, ".") // the root package holds only documentation
	for dir := range out {
		if strings.HasPrefix(dir, "examples/") {
			delete(out, dir) // runnable examples, not a layer
		}
	}
	return out
}

// floors gives each package its floor: 0 for a package that imports none
// of the module's, else one above the highest it imports.
func floors(deps map[string][]string) map[string]int {
	fl := map[string]int{}
	var floor func(p string, seen map[string]bool) int
	floor = func(p string, seen map[string]bool) int {
		if f, ok := fl[p]; ok {
			return f
		}
		if seen[p] {
			return 0 // a cycle; the Go compiler refuses those anyway
		}
		seen[p] = true
		f := 0
		for _, d := range deps[p] {
			if g := floor(d, seen) + 1; g > f {
				f = g
			}
		}
		fl[p] = f
		return f
	}
	for p := range deps {
		floor(p, map[string]bool{})
	}
	return fl
}

// reduce leaves out each import that another path of imports implies.
func reduce(deps map[string][]string) map[string][]string {
	reach := func(from, to string, skip string) bool {
		seen := map[string]bool{}
		var walk func(p string) bool
		walk = func(p string) bool {
			for _, d := range deps[p] {
				if p == from && d == skip {
					continue
				}
				if d == to {
					return true
				}
				if !seen[d] {
					seen[d] = true
					if walk(d) {
						return true
					}
				}
			}
			return false
		}
		return walk(from)
	}
	out := map[string][]string{}
	for p, ds := range deps {
		out[p] = []string{}
		for _, d := range ds {
			if !reach(p, d, d) {
				out[p] = append(out[p], d)
			}
		}
	}
	return out
}

// missionPackages are the decision packages of the mission's top level.
var missionPackages = map[string]bool{"podactions": true, "restart": true, "termination": true, "phase": true, "conditions": true}

func layersSVG(deps map[string][]string) string {
	fl := floors(deps)
	top := 0
	rows := map[int][]string{}
	for p, f := range fl {
		rows[f] = append(rows[f], p)
		if f > top {
			top = f
		}
	}
	const boxH, rowGap, charW, pad, gap, margin = 26, 70, 7.2, 14, 12, 20
	type box struct{ x, y, w float64 }
	boxes := map[string]box{}
	width := 0.0
	for f := 0; f <= top; f++ {
		sort.Strings(rows[f])
		w := 0.0
		for _, p := range rows[f] {
			w += float64(len(p))*charW + 2*pad + gap
		}
		if w > width {
			width = w
		}
	}
	width += 2*margin + 90
	height := float64(top+1)*(boxH+rowGap) - rowGap + 2*margin + 40
	place := func(f int) {
		w := 0.0
		for _, p := range rows[f] {
			w += float64(len(p))*charW + 2*pad + gap
		}
		x := 90 + margin + (width-90-2*margin-w)/2 + gap/2
		y := margin + float64(top-f)*(boxH+rowGap)
		for _, p := range rows[f] {
			bw := float64(len(p))*charW + 2*pad
			boxes[p] = box{x, y, bw}
			x += bw + gap
		}
	}
	for f := 0; f <= top; f++ {
		place(f)
	}
	// Fewer crossings: order each floor by the mean position of the
	// packages it is drawn joined to (the barycenter heuristic), a few
	// sweeps up and down.
	red := reduce(deps)
	importers := map[string][]string{}
	for p, ds := range red {
		for _, d := range ds {
			importers[d] = append(importers[d], p)
		}
	}
	mean := func(ps []string, self string) float64 {
		if len(ps) == 0 {
			return boxes[self].x + boxes[self].w/2
		}
		sum := 0.0
		for _, q := range ps {
			sum += boxes[q].x + boxes[q].w/2
		}
		return sum / float64(len(ps))
	}
	order := func(f int, by map[string][]string) {
		key := map[string]float64{}
		for _, p := range rows[f] {
			key[p] = mean(by[p], p)
		}
		sort.SliceStable(rows[f], func(i, j int) bool {
			if key[rows[f][i]] != key[rows[f][j]] {
				return key[rows[f][i]] < key[rows[f][j]]
			}
			return rows[f][i] < rows[f][j]
		})
		place(f)
	}
	for sweep := 0; sweep < 4; sweep++ {
		for f := 1; f <= top; f++ {
			order(f, red)
		}
		for f := top - 1; f >= 0; f-- {
			order(f, importers)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" font-size=\"12\">\n", width, height, width, height)
	fmt.Fprintf(&b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n")
	for f := 0; f <= top; f++ {
		y := margin + float64(top-f)*(boxH+rowGap)
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"%.0f\" fill=\"#666\">floor %d</text>\n", margin, y+17, f)
	}
	var names []string
	for p := range red {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		from := boxes[p]
		for _, d := range red[p] {
			to := boxes[d]
			x1, y1 := from.x+from.w/2, from.y+boxH
			x2, y2 := to.x+to.w/2, to.y
			fmt.Fprintf(&b, "<path d=\"M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f\" fill=\"none\" stroke=\"#7a8ca8\" stroke-width=\"1.2\" stroke-opacity=\"0.7\" marker-end=\"url(#a)\"/>\n",
				x1, y1, x1, y1+rowGap/2, x2, y2-rowGap/2, x2, y2)
		}
	}
	b.WriteString("<defs><marker id=\"a\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0 L8 4 L0 8 z\" fill=\"#7a8ca8\"/></marker></defs>\n")
	var all []string
	for p := range boxes {
		all = append(all, p)
	}
	sort.Strings(all)
	for _, p := range all {
		bx := boxes[p]
		fill, stroke := "#eef3fb", "#5b7bb0"
		switch {
		case missionPackages[p]:
			fill, stroke = "#fff1d6", "#c98a12"
		case strings.HasPrefix(p, "internal/"):
			fill, stroke = "#f2f2f2", "#999999"
		case strings.HasPrefix(p, "cmd/"):
			fill, stroke = "#e7f5e9", "#4c9a5a"
		}
		fmt.Fprintf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"5\" fill=\"%s\" stroke=\"%s\"/>\n", bx.x, bx.y, bx.w, boxH, fill, stroke)
		fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", bx.x+bx.w/2, bx.y+17, html.EscapeString(p))
	}
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"%.0f\" fill=\"#666\">An arrow: the upper package imports the lower one (an import that another path implies is not drawn). Orange: the mission's decisions; green: the command; grey: internal.</text>\n", margin, height-14)
	b.WriteString("</svg>\n")
	return b.String()
}

// The kubelet's source, for the table of mirrored files; the table is
// checked against it only where it is in the module cache.
const kubeletSource = "k8s.io/kubernetes@v1.37.2"

func kubeletDir() string {
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, _ := os.UserHomeDir()
			gopath = filepath.Join(home, "go")
		}
		cache = filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "pkg", "mod")
	}
	return filepath.Join(cache, kubeletSource, "pkg", "kubelet")
}

// mirrorTable finds, in the library's comments, each paragraph that says
// it mirrors (or follows) the kubelet and the kubelet files it names, and
// gives the rows "kubelet file | library files".
func mirrorTable(t *testing.T, kubelet string) string {
	t.Helper()
	// The kubelet's files by path under pkg/kubelet and by base name (a
	// base name that several folders use resolves only to the top
	// folder's file, else by a path that names its folder).
	byPath := map[string]bool{}
	byBase := map[string][]string{}
	err := filepath.WalkDir(kubelet, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(kubelet, path)
		rel = filepath.ToSlash(rel)
		byPath[rel] = true
		byBase[filepath.Base(rel)] = append(byBase[filepath.Base(rel)], rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(name string) string {
		name = strings.TrimPrefix(name, "pkg/kubelet/")
		if byPath[name] {
			return name
		}
		if strings.Contains(name, "/") {
			// kuberuntime/helpers.go written from a parent folder's view.
			for p := range byPath {
				if strings.HasSuffix(p, "/"+name) {
					return p
				}
			}
			return ""
		}
		if c := byBase[name]; len(c) == 1 {
			return c[0]
		}
		return ""
	}
	fileRef := regexp.MustCompile(`(?:pkg/kubelet/)?(?:[a-z0-9_]+/)*[a-z0-9_]+\.go\b`)
	rows := map[string]map[string]bool{}
	for _, f := range repoFiles(t, ".go") {
		dir := filepath.ToSlash(filepath.Dir(f))
		if strings.HasSuffix(f, "_test.go") || isTooling(dir) || dir == "." || strings.HasPrefix(dir, "cmd") || strings.HasPrefix(dir, "examples") || strings.HasPrefix(dir, "testdata") || filepath.Base(f) == "doc.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Paragraphs of comments: runs of // lines.
		var para []string
		flush := func() {
			text := strings.Join(para, " ")
			para = para[:0]
			if !strings.Contains(text, "mirror") && !strings.Contains(text, "kubelet") {
				return
			}
			for _, m := range fileRef.FindAllString(text, -1) {
				if k := resolve(m); k != "" && !strings.HasSuffix(k, "_test.go") {
					if rows[k] == nil {
						rows[k] = map[string]bool{}
					}
					rows[k][filepath.ToSlash(f)] = true
				}
			}
		}
		for _, line := range strings.Split(string(src), "\n") {
			l := strings.TrimSpace(line)
			if strings.HasPrefix(l, "//") {
				para = append(para, strings.TrimPrefix(l, "//"))
				continue
			}
			flush()
		}
		flush()
	}
	var ks []string
	for k := range rows {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	b.WriteString("| kubelet v1.37.2, `pkg/kubelet/` | library file |\n|---|---|\n")
	for _, k := range ks {
		var fs []string
		for f := range rows[k] {
			fs = append(fs, "["+f+"](../"+f+")")
		}
		sort.Strings(fs)
		fmt.Fprintf(&b, "| `%s` | %s |\n", k, strings.Join(fs, ", "))
	}
	return b.String()
}

const (
	tableBegin = "<!-- mirror table: generated by go test -run TestArchitecture -update-docs . -->\n"
	tableEnd   = "<!-- end of the mirror table -->\n"
)

func TestArchitecture(t *testing.T) {
	deps := libraryImports(t)
	if len(deps) < 20 {
		t.Fatalf("%d library packages found, want 20 or more", len(deps))
	}
	svg := layersSVG(deps)
	const svgFile = "docs/layers.svg"
	if *updateDocs {
		if err := os.WriteFile(svgFile, []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if got, err := os.ReadFile(svgFile); err != nil || string(got) != svg {
		t.Errorf("%s is not the drawing of today's imports (%v); run go test -run TestArchitecture -update-docs .", svgFile, err)
	}

	const mdFile = "docs/architecture.md"
	md, err := os.ReadFile(mdFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	i, j := strings.Index(text, tableBegin), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: the markers of the mirror table are missing", mdFile)
	}
	current := text[i+len(tableBegin) : j]
	kubelet := kubeletDir()
	if _, err := os.Stat(kubelet); err != nil {
		t.Logf("the kubelet source is not in the module cache (%v): the mirror table is checked only for its library files", err)
		for _, m := range regexp.MustCompile(`\]\(\.\./([^)]+)\)`).FindAllStringSubmatch(current, -1) {
			if _, err := os.Stat(m[1]); err != nil {
				t.Errorf("%s: the mirror table names %s: %v", mdFile, m[1], err)
			}
		}
		return
	}
	table := mirrorTable(t, kubelet)
	if strings.Count(table, "\n") < 20 {
		t.Errorf("the mirror table has %d lines, want 20 or more:\n%s", strings.Count(table, "\n"), table)
	}
	if *updateDocs {
		text = text[:i+len(tableBegin)] + table + text[j:]
		if err := os.WriteFile(mdFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if current != table {
		t.Errorf("%s: the mirror table is not what the library's comments say; run go test -run TestArchitecture -update-docs .", mdFile)
	}
}
