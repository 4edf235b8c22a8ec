package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/internal/yamljson"
	"github.com/kubeletlogic/kubeletlogic/manifest"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/validation"
)

// inputError is bad input: it names the file, and the line where it knows
// it.
type inputError struct {
	file string
	line int // 0 when unknown
	msg  string
}

func (e *inputError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg)
	}
	return fmt.Sprintf("%s: %s", e.file, e.msg)
}

// readSource reads a file, or standard input for "-".
func readSource(e *env, name string) ([]byte, string, error) {
	if name == "-" {
		b, err := io.ReadAll(e.stdin)
		return b, "<stdin>", err
	}
	b, err := os.ReadFile(name)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, name, &inputError{file: name, msg: pe.Err.Error()}
		}
		return nil, name, err
	}
	return b, name, nil
}

// loadedPod is a pod read from a manifest, with where it came from.
type loadedPod struct {
	pod  *v1.Pod
	from string // "Job/report in sidecar-job.yaml"
}

// readPods reads every pod of data (a manifest file named file), fills in
// what the API server defaults, and validates each as the API server would.
func readPods(data []byte, file string) ([]loadedPod, error) {
	pods, _, err := readPodsSkipping(data, file)
	return pods, err
}

// readPodsNoting is readPods for a command: the objects of the file that
// hold no pod (a Service beside a Deployment, as kubectl apply -f takes
// them) are skipped, each named with its line in a note on standard error.
func readPodsNoting(e *env, cmd string, data []byte, file string) ([]loadedPod, error) {
	pods, notes, err := readPodsSkipping(data, file)
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "kubeletlogic %s: %s\n", cmd, n)
	}
	return pods, err
}

// readPodsSkipping is readPods that skips the objects holding no pod and
// says where each was.
func readPodsSkipping(data []byte, file string) ([]loadedPod, []string, error) {
	items, skipped, err := manifest.ReadSkipping(bytes.NewReader(data))
	if err != nil {
		return nil, nil, manifestError(data, file, err)
	}
	var notes []string
	for _, s := range skipped {
		doc := docOf(data, s.Document)
		line := doc.lineOfKey("kind")
		if s.Item >= 0 {
			line = doc.lineOfListItem("items", s.Item)
		}
		if line == 0 {
			line = doc.start
		}
		notes = append(notes, (&inputError{file: file, line: line, msg: sourceName(s) + " holds no pod: skipped"}).Error())
	}
	var out []loadedPod
	for _, it := range items {
		pod := it.Pod
		apidefaults.Pod(pod)
		apidefaults.Created(pod)
		if err := validation.Pod(pod); err != nil {
			doc := docOf(data, it.Source.Document)
			first := strings.SplitN(err.Error(), "\n", 2)[0]
			path, _, _ := strings.Cut(first, ":")
			line := doc.lineOfPath(prefixFor(it.Source.Kind) + path)
			msg := strings.ReplaceAll(err.Error(), "\n", "; ")
			return nil, nil, &inputError{file: file, line: line, msg: fmt.Sprintf("%s: the API server would reject this pod: %s", sourceName(it.Source), msg)}
		}
		from := it.Source.Kind
		if it.Source.Name != "" {
			from += "/" + it.Source.Name
		}
		if it.Source.Item >= 0 {
			from += fmt.Sprintf(" (List item %d)", it.Source.Item)
		}
		out = append(out, loadedPod{pod: pod, from: from + " in " + file})
	}
	return out, notes, nil
}

func sourceName(s manifest.Source) string {
	if s.Name != "" {
		return s.Kind + "/" + s.Name
	}
	return s.Kind
}

// prefixFor is the path of the pod spec inside a workload of kind.
func prefixFor(kind string) string {
	switch kind {
	case "Pod", "":
		return ""
	case "CronJob":
		return "spec.jobTemplate.spec.template."
	case "PodTemplate":
		return "template."
	}
	return "spec.template."
}

var (
	reManifest   = regexp.MustCompile(`^manifest: document (\d+)(?:, item (\d+))?(?:: ([A-Za-z]+)(?:/[^:\s]+)?)?: (.*)$`)
	reYAMLLine   = regexp.MustCompile(`^(?:error converting YAML to JSON: )?yaml: line (\d+): (.*)$`)
	reUnknown    = regexp.MustCompile(`^json: unknown field "([^"]+)"$`)
	reUnmarshal  = regexp.MustCompile(`^json: cannot unmarshal (\w+) into Go struct field [A-Za-z0-9_]+\.(\S+) of type (\S+)$`)
	reRuntimeCtr = regexp.MustCompile(`^(sandboxes|containers)\[(\d+)\]`)
)

// manifestError turns an error of package manifest into one that names the
// file, the line and the field.
func manifestError(data []byte, file string, err error) error {
	m := reManifest.FindStringSubmatch(err.Error())
	if m == nil {
		return &inputError{file: file, msg: strings.TrimPrefix(err.Error(), "manifest: ")}
	}
	docN, _ := strconv.Atoi(m[1])
	kind, rest := m[3], m[4]
	doc := docOf(data, docN)
	where := ""
	if kind != "" {
		where = kind + ": "
	}
	line, msg := doc.explain(rest)
	if line == 0 && kind != "" {
		line = doc.start
	}
	return &inputError{file: file, line: line, msg: where + msg}
}

// document is one YAML document of a file: its text and its first line in
// the file. kept says the YAML reader handed the document to the parser
// with the "---" line above start as its first line, so that the parser's
// line numbers count from that line.
type document struct {
	text  string
	start int
	kept  bool
}

// docOf returns document n of data as apimachinery's YAML reader splits it:
// at lines starting with "---", where a "---" met before any other line of
// a document is kept as its first line (so a third "---" in a row ends a
// document of its own, which package manifest counts, empty as it is).
func docOf(data []byte, n int) document {
	lines := strings.Split(string(data), "\n")
	var cur []string
	kept := false
	start, idx := 1, 0
	for i, l := range lines {
		if strings.HasPrefix(l, "---") {
			if len(cur) == 0 && !kept {
				kept = true
				start = i + 2
				continue
			}
			if idx == n {
				return document{text: strings.Join(cur, "\n"), start: start, kept: kept}
			}
			idx++
			cur, kept = nil, false
			continue
		}
		if len(cur) == 0 {
			start = i + 1
		}
		cur = append(cur, l)
	}
	if idx == n {
		return document{text: strings.Join(cur, "\n"), start: start, kept: kept}
	}
	return document{start: 1}
}

// explain turns a decoding error within the document into a line of the
// file and a message naming the field.
func (d document) explain(msg string) (int, string) {
	if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if d.kept {
			n--
		}
		return d.start + n - 1, "not valid YAML: " + m[2]
	}
	if m := reUnknown.FindStringSubmatch(msg); m != nil {
		line := d.lineOfKey(m[1])
		return line, fmt.Sprintf("unknown field %q (the Kubernetes API has no such field here; check its spelling and indentation)", m[1])
	}
	if m := reUnmarshal.FindStringSubmatch(msg); m != nil {
		return d.lineOfPath(m[2]), fmt.Sprintf("%s: want a value of type %s, got a %s", m[2], m[3], m[1])
	}
	if strings.HasPrefix(msg, "quantities must match") || strings.Contains(msg, "unable to parse quantity") {
		if path, val := badQuantity(d.text); path != "" {
			return d.lineOfPath(path), fmt.Sprintf("%s: %q is not a quantity (like 500m, 1, 128Mi)", path, val)
		}
		return 0, "a resource quantity does not parse (like 500m, 1, 128Mi): " + msg
	}
	return 0, strings.TrimPrefix(msg, "json: ")
}

// lineOfKey returns the file line of the first line of d whose key is key.
func (d document) lineOfKey(key string) int {
	return d.lineAfter(key, 0)
}

// lineOfPath returns the file line of a dotted field path, finding each
// key after the previous one (list indexes are skipped): later on the
// previous key's line (a flow mapping, {limits: {cpu: 1}}), else on a
// line below it.
func (d document) lineOfPath(path string) int {
	lines := strings.Split(d.text, "\n")
	at := 0
	found := 0
	rest := "" // the previous key's line after that key
	for _, seg := range strings.Split(path, ".") {
		seg, _, _ = strings.Cut(seg, "[")
		if seg == "" {
			continue
		}
		if i := flowKeyEnd(rest, seg); i >= 0 {
			rest = rest[i:]
			continue
		}
		if l := d.lineAfter(seg, at); l > 0 {
			at, found = l-d.start+1, l
			line := lines[l-d.start]
			rest = ""
			if i := flowKeyEnd(" "+strings.TrimLeft(line, " -{,"), seg); i >= 0 {
				rest = " " + strings.TrimLeft(line, " -{,")
				rest = rest[i:]
			}
		}
	}
	return found
}

// flowKeyEnd returns where the first key key of s ends (after its colon),
// or -1: " key:", "{key:", or JSON's "key":.
func flowKeyEnd(s, key string) int {
	best := -1
	for _, k := range []string{" " + key + ":", "{" + key + ":", `"` + key + `":`} {
		if i := strings.Index(s, k); i >= 0 && (best < 0 || i+len(k) < best) {
			best = i + len(k)
		}
	}
	return best
}

// lineAfter returns the file line of the first line after line from (of
// the document, 1-based) holding key as a YAML or JSON key.
func (d document) lineAfter(key string, from int) int {
	lines := strings.Split(d.text, "\n")
	for i := from; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		l = strings.TrimLeft(l, "- {,")
		if strings.HasPrefix(l, key+":") || strings.HasPrefix(l, `"`+key+`"`) ||
			strings.Contains(lines[i], " "+key+":") || strings.Contains(lines[i], "{"+key+":") || strings.Contains(lines[i], `"`+key+`":`) {
			return d.start + i
		}
	}
	return 0
}

// badQuantity finds, in a document, the first value under a resource map
// that does not parse as a quantity, and its path.
func badQuantity(text string) (string, string) {
	js, err := yamljson.ToJSON([]byte(text))
	if err != nil {
		return "", ""
	}
	var v any
	if json.Unmarshal(js, &v) != nil {
		return "", ""
	}
	var walk func(v any, path string, inResources bool) (string, string)
	walk = func(v any, path string, inResources bool) (string, string) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range keycheck.Sorted(x) {
				sub := path + "." + k
				quant := k == "limits" || k == "requests" || k == "overhead" || k == "sizeLimit"
				if k == "sizeLimit" {
					if s, ok := x[k].(string); ok {
						if _, err := resource.ParseQuantity(s); err != nil {
							return strings.TrimPrefix(sub, "."), s
						}
					}
				}
				if p, val := walk(x[k], sub, quant || inResources); p != "" {
					return p, val
				}
			}
		case []any:
			for i, e := range x {
				if p, val := walk(e, fmt.Sprintf("%s[%d]", path, i), false); p != "" {
					return p, val
				}
			}
		case string:
			if inResources {
				if _, err := resource.ParseQuantity(x); err != nil {
					return strings.TrimPrefix(path, "."), x
				}
			}
		}
		return "", ""
	}
	return walk(v, "", false)
}

// gateFlags are the flags that choose the kubelet: --kubelet-version and
// --gate. The version is one more input, passed like the gates: both end
// in one features.Set.
type gateFlags struct {
	version string
	gates   listFlag
}

func addGateFlags(fs *flag.FlagSet) *gateFlags {
	g := &gateFlags{}
	fs.StringVar(&g.version, "kubelet-version", "1.37", "the kubelet whose decisions to answer with: 1.35, 1.36 or 1.37 (v1.35.4, v1.36.3, v1.37.2)")
	fs.Var(&g.gates, "gate", "a kubelet feature gate changed from its default in that version, Name=true|false (repeatable)")
	return g
}

// set is the kubelet the flags choose.
func (g *gateFlags) set() (features.Set, error) {
	v, err := features.ParseVersion(g.version)
	if err != nil {
		return features.Set{}, fmt.Errorf("--kubelet-version: %v", err)
	}
	return parseGates(v, g.gates)
}

// parseGates reads the --gate values (each Name=true|false, or several
// joined by commas) onto the defaults of kubelet v; a misspelt gate gets
// the nearest valid name.
func parseGates(v features.Version, specs []string) (features.Set, error) {
	var known []string
	for _, g := range v.Gates() {
		known = append(known, string(g))
	}
	set, err := features.ForVersion(v)
	if err != nil {
		return set, err
	}
	for _, spec := range specs {
		for _, kv := range strings.Split(spec, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			name, val, ok := strings.Cut(kv, "=")
			name, val = strings.TrimSpace(name), strings.TrimSpace(val)
			if !ok {
				return set, fmt.Errorf("--gate %q: want Name=true or Name=false", kv)
			}
			g := features.Gate(name)
			if !v.Has(g) {
				return set, fmt.Errorf("--gate %q: kubelet %s has no gate %q that changes a decision here%s", kv, v, name, suggest(name, known))
			}
			on, err := strconv.ParseBool(val)
			if err != nil || (val != "true" && val != "false") {
				return set, fmt.Errorf("--gate %q: the value must be true or false", kv)
			}
			if set, err = set.With(g, on); err != nil {
				return set, fmt.Errorf("--gate %q: %v", kv, err)
			}
		}
	}
	return set, nil
}

// readRuntime reads a runtime state file and checks that every container
// instance names a container of the pod.
func readRuntime(data []byte, file string, pod *v1.Pod) (*runtimestate.Pod, error) {
	st, err := runtimestate.FromYAML(data)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "runtimestate: ")
		doc := document{text: string(data), start: 1}
		if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
			line, text := doc.explain(msg)
			return nil, &inputError{file: file, line: line, msg: text}
		}
		if m := reRuntimeCtr.FindStringSubmatch(msg); m != nil {
			i, _ := strconv.Atoi(m[2])
			return nil, &inputError{file: file, line: doc.lineOfListItem(m[1], i), msg: msg}
		}
		line, text := doc.explain(msg)
		return nil, &inputError{file: file, line: line, msg: text}
	}
	names := keycheck.ContainerNames(pod)
	doc := document{text: string(data), start: 1}
	for i, c := range st.Containers {
		if _, _, ok := restart.KindOf(&pod.Spec, c.Name); !ok {
			return nil, &inputError{file: file, line: doc.lineOfListItem("containers", i),
				msg: fmt.Sprintf("containers[%d] (%s): %q is not a container of pod %s%s (its containers: %s)", i, c.ID, c.Name, pod.Name, suggest(c.Name, names), strings.Join(names, ", "))}
		}
	}
	for i, c := range st.Containers {
		if c.SandboxID == "" {
			continue
		}
		found := false
		for _, s := range st.Sandboxes {
			found = found || s.ID == c.SandboxID
		}
		if !found {
			return nil, &inputError{file: file, line: doc.lineOfListItem("containers", i),
				msg: fmt.Sprintf("containers[%d] (%s): sandboxID %q is not one of the sandboxes listed", i, c.ID, c.SandboxID)}
		}
	}
	// The crash-loop back-off is replayed from the instances' times.
	for i, c := range st.Containers {
		if _, err := restart.HistoryFrom(st, c.Name); err != nil {
			return nil, &inputError{file: file, line: doc.lineOfListItem("containers", i),
				msg: strings.TrimPrefix(err.Error(), "restart: ") + "; give createdAt and finishedAt"}
		}
	}
	return st, nil
}

// lineOfListItem returns the file line of item i of the top-level list key.
// Its items are the dashes as indented as the first: a list inside an item
// (a pod's containers in a List) holds no item of it.
func (d document) lineOfListItem(key string, i int) int {
	lines := strings.Split(d.text, "\n")
	in, n, indent := false, -1, -1
	for j, l := range lines {
		if strings.HasPrefix(l, key+":") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if l != "" && l[0] != ' ' && l[0] != '-' && l[0] != '#' {
			break
		}
		t := strings.TrimLeft(l, " ")
		if strings.HasPrefix(t, "- ") || strings.TrimSpace(t) == "-" {
			if indent < 0 {
				indent = len(l) - len(t)
			}
			if len(l)-len(t) != indent {
				continue
			}
			n++
			if n == i {
				return d.start + j
			}
		}
	}
	return d.lineOfKey(key)
}
