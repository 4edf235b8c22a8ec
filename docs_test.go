package kubeletlogic_test

import (
	"encoding/json"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The documentation's references resolve: every "#fact-N" anchor names a
// fact of docs/real-cluster-facts.md, every fact a captured fixture names
// exists, every relative link of a Markdown file reaches a file (and, with
// an anchor into a Markdown file, one of its headings), and every Go doc
// link ([Name], [pkg.Name], [pkg.Type.Method]) in the module's packages
// names a symbol that exists.

const modulePath = "github.com/kubeletlogic/kubeletlogic"

// repoFiles lists the repository's files with one of the given suffixes,
// leaving out what is generated or fetched (vendor/, the differential
// suite's kubelet copies .v1.*/, tooling/mutation/out/) and hidden folders.
func repoFiles(t *testing.T, suffixes ...string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || name == "vendor" || path == filepath.Join("mutation", "out") || strings.HasSuffix(path, filepath.Join("mutation", "out"))) {
				return filepath.SkipDir
			}
			return nil
		}
		for _, s := range suffixes {
			if strings.HasSuffix(name, s) {
				out = append(out, path)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// headingAnchors gives the anchors GitHub makes for a Markdown file's
// headings: lower case, punctuation other than '-' and '_' dropped,
// spaces made '-', a repeated anchor suffixed -1, -2, …
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && !strings.ContainsRune("–—…’“”·→", r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	// Explicit anchors: <a id="..."></a>.
	for _, m := range regexp.MustCompile(`<a (?:id|name)="([^"]+)"`).FindAllStringSubmatch(text, -1) {
		anchors[m[1]] = true
	}
	return anchors
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var s string
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestFactReferences(t *testing.T) {
	const facts = "docs/real-cluster-facts.md"
	text, err := os.ReadFile(facts)
	if err != nil {
		t.Fatal(err)
	}
	anchors := headingAnchors(string(text))
	n := 0
	ref := regexp.MustCompile(`#fact-([0-9]+)\b`)
	for _, f := range repoFiles(t, ".go", ".md", ".sh", ".txt") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
			n++
			if !anchors["fact-"+m[1]] {
				t.Errorf("%s: fact %s is not a heading of %s", f, m[1], facts)
			}
		}
	}
	if n < 40 {
		t.Errorf("%d references to a fact found, want the code's 40 or more (did the walk miss files?)", n)
	}
	fixtures, _ := filepath.Glob("testdata/captured/*.json")
	if len(fixtures) == 0 {
		t.Fatal("no captured fixture found")
	}
	for _, f := range fixtures {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx struct{ Facts []string }
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, fact := range fx.Facts {
			if !anchors["fact-"+fact] {
				t.Errorf("%s: fact %s is not a heading of %s", f, fact, facts)
			}
		}
	}
}

func TestMarkdownLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, f := range repoFiles(t, ".md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Links inside code (fenced blocks, `spans`) are not links.
		text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(b), "")
		text = regexp.MustCompile("`[^`\n]*`").ReplaceAllString(text, "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
			}
			st, err := os.Stat(dest)
			if err != nil {
				t.Errorf("%s: link %s: %v", f, target, err)
				continue
			}
			checked++
			if anchor == "" || st.IsDir() || !strings.HasSuffix(dest, ".md") {
				continue
			}
			d, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !headingAnchors(string(d))[anchor] {
				t.Errorf("%s: link %s: no heading #%s in %s", f, target, anchor, dest)
			}
		}
	}
	if checked == 0 {
		t.Error("no Markdown link checked")
	}
}

// goPackage is what the doc-link check knows of one package of the module.
type goPackage struct {
	dir     string
	doc     *doc.Package
	symbols map[string]bool // Name, Type.Method, Type.Field
}

func loadPackages(t *testing.T) map[string]*goPackage {
	t.Helper()
	pkgs := map[string]*goPackage{}
	dirs := map[string]bool{}
	for _, f := range repoFiles(t, ".go") {
		if !strings.HasSuffix(f, "_test.go") {
			dirs[filepath.Dir(f)] = true
		}
	}
	for dir := range dirs {
		// Directories with a go.mod of their own are other modules.
		if sub := dir; sub != "." {
			inOther := false
			for d := sub; d != "." && d != "/"; d = filepath.Dir(d) {
				if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
					inOther = true
					break
				}
			}
			if inOther {
				continue
			}
		}
		fset := token.NewFileSet()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var files []*ast.File
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		if len(files) == 0 {
			continue
		}
		path := modulePath
		if dir != "." {
			path += "/" + filepath.ToSlash(dir)
		}
		p, err := doc.NewFromFiles(fset, files, path, doc.AllDecls|doc.PreserveAST)
		if err != nil {
			t.Fatal(err)
		}
		gp := &goPackage{dir: dir, doc: p, symbols: map[string]bool{}}
		add := func(names ...string) {
			for _, n := range names {
				gp.symbols[n] = true
			}
		}
		for _, v := range append(append([]*doc.Value{}, p.Consts...), p.Vars...) {
			add(v.Names...)
		}
		for _, f := range p.Funcs {
			add(f.Name)
		}
		for _, ty := range p.Types {
			add(ty.Name)
			for _, v := range append(append([]*doc.Value{}, ty.Consts...), ty.Vars...) {
				add(v.Names...)
			}
			for _, f := range ty.Funcs {
				add(f.Name)
			}
			for _, m := range ty.Methods {
				add(ty.Name + "." + m.Name)
			}
			if st, ok := ty.Decl.Specs[0].(*ast.TypeSpec).Type.(*ast.StructType); ok {
				for _, fl := range st.Fields.List {
					for _, n := range fl.Names {
						add(ty.Name + "." + n.Name)
					}
				}
			}
		}
		pkgs[path] = gp
	}
	return pkgs
}

// docTexts gives every doc comment of a package with where it is.
func docTexts(p *doc.Package) map[string]string {
	out := map[string]string{"package " + p.Name: p.Doc}
	vals := func(vs []*doc.Value) {
		for _, v := range vs {
			out[strings.Join(v.Names, ",")] = v.Doc
		}
	}
	vals(p.Consts)
	vals(p.Vars)
	for _, f := range p.Funcs {
		out[f.Name] = f.Doc
	}
	for _, ty := range p.Types {
		out[ty.Name] = ty.Doc
		vals(ty.Consts)
		vals(ty.Vars)
		for _, f := range ty.Funcs {
			out[f.Name] = f.Doc
		}
		for _, m := range ty.Methods {
			out[ty.Name+"."+m.Name] = m.Doc
		}
	}
	return out
}

func TestDocLinks(t *testing.T) {
	pkgs := loadPackages(t)
	if len(pkgs) < 20 {
		t.Fatalf("%d packages found, want the module's 20 or more", len(pkgs))
	}
	// A bracketed word that looks like a doc link but was left as text:
	// the parser could not resolve it.
	unresolved := regexp.MustCompile(`\[\*?([A-Za-z_][A-Za-z0-9_]*(?:[./][A-Za-z_][A-Za-z0-9_]*)*)\]`)
	var paths []string
	for path := range pkgs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	links := 0
	for _, path := range paths {
		p := pkgs[path]
		parser := p.doc.Parser()
		for where, text := range docTexts(p.doc) {
			if text == "" {
				continue
			}
			d := parser.Parse(text)
			var walk func(x any)
			walk = func(x any) {
				switch x := x.(type) {
				case *comment.Paragraph:
					for _, t := range x.Text {
						walk(t)
					}
				case *comment.List:
					for _, it := range x.Items {
						for _, b := range it.Content {
							walk(b)
						}
					}
				case *comment.Heading:
					for _, t := range x.Text {
						walk(t)
					}
				case *comment.Link:
					for _, t := range x.Text {
						walk(t)
					}
				case comment.Plain:
					for _, mm := range unresolved.FindAllStringSubmatch(string(x), -1) {
						if strings.ContainsAny(mm[1][:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || strings.Contains(mm[1], ".") || strings.Contains(mm[1], "/") {
							t.Errorf("%s: %s: doc link [%s] does not resolve", p.dir, where, mm[1])
						}
					}
				case *comment.DocLink:
					links++
					if x.ImportPath == "" || x.ImportPath == path {
						return // the parser checked it against this package
					}
					target, ok := pkgs[x.ImportPath]
					if !ok {
						if strings.HasPrefix(x.ImportPath, modulePath) {
							t.Errorf("%s: %s: doc link to %s: no such package in the module", p.dir, where, x.ImportPath)
						}
						return // another module's package
					}
					sym := x.Name
					if x.Recv != "" {
						sym = x.Recv + "." + x.Name
					}
					if sym != "" && !target.symbols[sym] {
						t.Errorf("%s: %s: doc link [%s.%s]: %s has no %s", p.dir, where, target.doc.Name, sym, x.ImportPath, sym)
					}
				}
			}
			for _, b := range d.Content {
				walk(b)
			}
		}
	}
	if links == 0 {
		t.Error("no doc link found in the module's packages")
	}
	// The root package's question-to-function table is a code block, so
	// its names are no links: check each qualified one exists.
	byName := map[string]*goPackage{}
	for _, p := range pkgs {
		byName[p.doc.Name] = p
	}
	root := pkgs[modulePath]
	qualified := regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*(?:\.[A-Z][A-Za-z0-9_]*)?)`)
	checked := 0
	for _, b := range root.doc.Parser().Parse(root.doc.Doc).Content {
		code, ok := b.(*comment.Code)
		if !ok {
			continue
		}
		for _, m := range qualified.FindAllStringSubmatch(code.Text, -1) {
			p, ok := byName[m[1]]
			if !ok {
				continue
			}
			checked++
			if !p.symbols[m[2]] {
				t.Errorf("root package doc, question table: %s.%s does not exist", m[1], m[2])
			}
		}
	}
	if checked < 20 {
		t.Errorf("%d names checked in the root package's question table, want 20 or more", checked)
	}
	t.Logf("%d doc links in %d packages", links, len(pkgs))
}
