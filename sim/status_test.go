package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// TestWatchRowOnEveryChange: kubectl get -w prints a row for every change
// of the object, also when the cells stay the same; a status write that
// only changes the phase (the terminal phase written after the containers
// stopped, STATUS Completed both times) gets its row.
func TestWatchRowOnEveryChange(t *testing.T) {
	entry := func(at time.Duration, phase v1.PodPhase, column string) Entry {
		return Entry{At: at, Pod: "job", Kind: KindAPI, API: APIStatus, Message: "status written",
			Status: &StatusEntry{Ready: "0/1", Column: column, Restarts: 0, RestartsColumn: "0", Status: v1.PodStatus{Phase: phase}}}
	}
	tl := &Timeline{Entries: []Entry{
		{At: 0, Pod: "job", Kind: KindAction, Message: "pod added to the kubelet"},
		entry(0, v1.PodPending, "Pending"),
		entry(time.Second, v1.PodRunning, "Completed"),
		entry(2*time.Second, v1.PodSucceeded, "Completed"),
		entry(3*time.Second, v1.PodSucceeded, "Completed"), // no change: no row
	}}
	rows := strings.Split(strings.TrimSpace(tl.Watch()), "\n")[1:]
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3 (Pending, Completed while Running, Completed once Succeeded):\n%s", len(rows), tl.Watch())
	}
	if !strings.HasPrefix(rows[2], "2.000s") {
		t.Errorf("the phase change to Succeeded has no row of its own:\n%s", tl.Watch())
	}
}

// TestFieldDocsNameTheirFields: in the structs of this package, a comment
// over a group of fields (no blank line between them) that opens with
// names ("A is ...", "A, B and C are ...") names only fields of its group,
// and, when it lists several, names every exported field of the group.
func TestFieldDocsNameTheirFields(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	opening := regexp.MustCompile(`^([A-Z]\w*(?:, [A-Z]\w*)*(?:,? and [A-Z]\w*)?) (?:are|is)\b`)
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			fields := st.Fields.List
			for i := 0; i < len(fields); i++ {
				if fields[i].Doc == nil || len(fields[i].Names) == 0 {
					continue
				}
				doc := fields[i].Doc.Text()
				group := map[string]bool{}
				for j := i; j < len(fields); j++ {
					if j > i && (fields[j].Doc != nil || fset.Position(fields[j].Pos()).Line != fset.Position(fields[j-1].End()).Line+1) {
						break
					}
					for _, id := range fields[j].Names {
						group[id.Name] = true
					}
				}
				m := opening.FindStringSubmatch(doc)
				if m == nil {
					continue
				}
				listed := regexp.MustCompile(`[A-Z]\w*`).FindAllString(m[1], -1)
				named := map[string]bool{}
				for _, n := range listed {
					named[n] = true
					if !group[n] {
						t.Errorf("%s %s: the comment over fields %v names %s, not one of them:\n%s", name, ts.Name.Name, keys(group), n, doc)
					}
				}
				if len(listed) > 1 {
					words := map[string]bool{}
					for _, w := range regexp.MustCompile(`\w+`).FindAllString(doc, -1) {
						words[w] = true
					}
					for g := range group {
						if ast.IsExported(g) && !words[g] {
							t.Errorf("%s %s: the comment over fields %v lists %v and does not name %s:\n%s", name, ts.Name.Name, keys(group), listed, g, doc)
						}
					}
				}
				checked++
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no field comment checked")
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
