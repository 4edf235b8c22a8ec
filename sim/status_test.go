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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// TestConfigSourceRule: the rule PodInput.Pod's doc gives for static pods
// is the one Simulate follows: a pod without the config.source annotation
// and one with "api" get an API object, one with "file" does not.
func TestConfigSourceRule(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "simulate.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "PodInput" {
			for _, fl := range ts.Type.(*ast.StructType).Fields.List {
				if len(fl.Names) > 0 && fl.Names[0].Name == "Pod" && fl.Doc != nil {
					doc = strings.Join(strings.Fields(fl.Doc.Text()), " ")
				}
			}
		}
		return true
	})
	for _, want := range []string{`annotation is present and is not "api"`, "without the annotation is an API pod"} {
		if !strings.Contains(doc, want) {
			t.Errorf("PodInput.Pod's doc does not say %q:\n%s", want, doc)
		}
	}
	for _, tc := range []struct {
		annotations map[string]string
		api         bool
	}{{nil, true}, {map[string]string{"kubernetes.io/config.source": "api"}, true}, {map[string]string{"kubernetes.io/config.source": "file"}, false}} {
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Annotations: tc.annotations},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "nginx"}}}}
		tl, err := Simulate(Config{For: 5 * Second}, []PodInput{{Pod: pod}})
		if err != nil {
			t.Fatal(err)
		}
		_, hasAPI := tl.First("p", func(e Entry) bool { return e.Kind == KindAPI })
		if hasAPI != tc.api {
			t.Errorf("annotations %v: API object %v, want %v", tc.annotations, hasAPI, tc.api)
		}
	}
}

// TestCallTimes: a call's At and Done count from the start of what holds
// it, as Call's doc says: in a Timeline from the simulation's start (the
// call's At is its entry's At), in a SyncOutput from the sync's start.
func TestCallTimes(t *testing.T) {
	var doc string
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "sync.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Call" {
			for _, fl := range ts.Type.(*ast.StructType).Fields.List {
				if len(fl.Names) > 0 && fl.Names[0].Name == "At" && fl.Doc != nil {
					doc = strings.Join(strings.Fields(fl.Doc.Text()), " ")
				}
			}
		}
		return true
	})
	for _, want := range []string{"in SyncOutput.Calls from the start of the sync", "in a Timeline entry from the start of the simulation"} {
		if !strings.Contains(doc, want) {
			t.Errorf("Call.At's doc does not say %q:\n%s", want, doc)
		}
	}

	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "nginx"}}}}
	script := Script{Containers: map[string]Behaviour{"app": {Runs: []Run{{ExitAfter: 2 * Second, ExitCode: 1}}}}}
	tl, err := Simulate(Config{For: 40 * Second}, []PodInput{{Pod: pod, At: 3 * Second, Script: script}})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, e := range tl.Entries {
		if e.Kind != KindCRI {
			continue
		}
		calls++
		if e.Call == nil || e.Call.At != e.At || e.Call.Done < e.Call.At {
			t.Errorf("entry at %s: call %+v", e.At, e.Call)
		}
	}
	if calls < 5 {
		t.Errorf("%d CRI calls: the crash loop did not run", calls)
	}
	out := Sync(SyncInput{Pod: pod, Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)})
	for _, c := range out.Calls {
		if c.At < 0 || c.Done > out.Duration {
			t.Errorf("sync call %+v outside the sync's %s", c, out.Duration)
		}
	}
}
