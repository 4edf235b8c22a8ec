package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/internal/yamljson"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// scriptFile is what --script reads (YAML or JSON): what the containers'
// processes do run after run, the runtime's delays, and what the outside
// does when. Its containers and runtime are a sim.Script as they are;
// its actions are sim.Actions in a shape people write:
//
//	containers:
//	  proxy:
//	    runs:                  # one entry per run; the last repeats
//	    - exitAfter: 30s       # exits on its own, with exitCode
//	      exitCode: 1
//	    - termAfter: 200ms     # runs until stopped; exits 200 ms after SIGTERM
//	  app:
//	    runs:
//	    - ignoreSIGTERM: true  # only SIGKILL ends it
//	      preStop: 4s          # its exec or httpGet preStop hook runs 4 s
//	      postStart: 2s        # its exec or httpGet postStart hook runs 2 s
//	      postStartFails: true #   and then fails: the kubelet kills it
//	      readiness: [{at: 0s, result: Failure}, {at: 20s, result: Success}]
//	actions:
//	- {at: 60s, delete: true}              # kubectl delete (the pod's grace)
//	- {at: 60s, delete: true, gracePeriod: 5}
//	- {at: 90s, removeFinalizers: true}
//	- {at: 20s, killContainer: app}        # SIGKILL the running process
//	- {at: 30s, killSandbox: true}
//	- {at: 40s, remove: true}              # force-deleted (static: manifest removed)
//	- {at: 10s, addEphemeral: {name: debug, image: busybox}}
//	- {at: 30s, resize: {app: {requests: {cpu: 500m}, limits: {memory: 256Mi}}}}
//	runtime: {runPodSandbox: 289ms}        # the runtime's delays (see sim.RuntimeDelays)
//
// Durations are Go duration text ("90s", "1m30s") or a number of seconds
// (warned about: see checkScriptMeaning).
type scriptFile struct {
	Containers map[string]sim.Behaviour `json:"containers,omitempty"`
	Runtime    sim.RuntimeDelays        `json:"runtime,omitzero"`
	Actions    []scriptAction           `json:"actions,omitempty"`
	// notes are the warnings readScript found (see checkScriptMeaning).
	notes scriptNotes
}

// scriptAction is one sim.Action as a script file writes it.
type scriptAction struct {
	At sim.Duration `json:"at"`
	// Delete deletes the pod through the API, with GracePeriod seconds
	// (kubectl delete --grace-period) or, when it is absent, the pod's
	// terminationGracePeriodSeconds.
	Delete           bool                   `json:"delete,omitempty"`
	GracePeriod      *int64                 `json:"gracePeriod,omitempty"`
	Remove           bool                   `json:"remove,omitempty"`
	RemoveFinalizers bool                   `json:"removeFinalizers,omitempty"`
	KillContainer    string                 `json:"killContainer,omitempty"`
	KillSandbox      bool                   `json:"killSandbox,omitempty"`
	AddEphemeral     *v1.EphemeralContainer `json:"addEphemeral,omitempty"`
	// Resize resizes containers in place: by name, the requests and
	// limits to set (kubectl patch pod --subresource resize).
	Resize map[string]v1.ResourceRequirements `json:"resize,omitempty"`
}

// action is the sim.Action the script action stands for.
func (a scriptAction) action() sim.Action {
	out := sim.Action{At: a.At, Remove: a.Remove, RemoveFinalizers: a.RemoveFinalizers,
		KillContainer: a.KillContainer, KillSandbox: a.KillSandbox, AddEphemeral: a.AddEphemeral, Resize: a.Resize}
	if a.Delete {
		g := int64(-1)
		if a.GracePeriod != nil {
			g = *a.GracePeriod
		}
		out.Delete = &g
	}
	return out
}

// readScript reads a script file and checks it against the pods: every
// field known and of its type, every container named in some pod, every
// probe outcome for a probe the container has. Errors name the file, the
// line and the field.
func readScript(data []byte, file string, pods []loadedPod) (*scriptFile, error) {
	js, err := yamljson.ToJSON(data)
	doc := document{text: string(data), start: 1}
	if err != nil {
		line, msg := doc.explain(err.Error())
		return nil, &inputError{file: file, line: line, msg: msg}
	}
	fail := func(path []pathSeg, format string, args ...any) error {
		return &inputError{file: file, line: yamlLine(string(data), path), msg: pathString(path) + ": " + fmt.Sprintf(format, args...)}
	}
	var raw any
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, &inputError{file: file, msg: "not valid JSON or YAML: " + err.Error()}
	}
	if raw == nil {
		return &scriptFile{}, nil
	}
	if p, msg := checkShape(raw, reflect.TypeOf(scriptFile{}), nil); msg != "" {
		return nil, fail(p, "%s", msg)
	}
	var s scriptFile
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, &inputError{file: file, msg: strings.TrimPrefix(err.Error(), "json: ")}
	}

	// Every container named is a container of some pod.
	specs := map[string][]*v1.Container{}
	var names []string
	for _, lp := range pods {
		for _, c := range allContainers(lp.pod) {
			if _, ok := specs[c.Name]; !ok {
				names = append(names, c.Name)
			}
			specs[c.Name] = append(specs[c.Name], c)
		}
	}
	for _, a := range s.Actions {
		if e := a.AddEphemeral; e != nil {
			c := v1.Container(e.EphemeralContainerCommon)
			specs[e.Name] = append(specs[e.Name], &c)
		}
	}
	podNames := func() string {
		var ns []string
		for _, lp := range pods {
			ns = append(ns, lp.pod.Name)
		}
		return strings.Join(ns, ", ")
	}
	for _, name := range keycheck.Sorted(s.Containers) {
		at := []pathSeg{{key: "containers"}, {key: name}}
		cs, ok := specs[name]
		if !ok {
			return nil, fail(at, "%q is not a container of pod %s%s (its containers: %s)", name, podNames(), suggest(name, names), strings.Join(names, ", "))
		}
		for i, r := range s.Containers[name].Runs {
			run := append(at, pathSeg{key: "runs"}, pathSeg{index: i, isIndex: true})
			if msg := checkRun(r, cs); msg != "" {
				field, text, _ := strings.Cut(msg, ": ")
				return nil, fail(append(run, pathSeg{key: field}), "%s", text)
			}
			for _, pr := range []struct {
				field string
				steps []sim.ProbeStep
			}{{"liveness", r.Liveness}, {"readiness", r.Readiness}, {"startup", r.Startup}} {
				for j, st := range pr.steps {
					step := append(append([]pathSeg{}, run...), pathSeg{key: pr.field}, pathSeg{index: j, isIndex: true})
					if st.Result != vocab.ProbeSuccess && st.Result != vocab.ProbeFailure {
						return nil, fail(append(step, pathSeg{key: "result"}), "%q: want Success or Failure", st.Result)
					}
					if st.At < 0 {
						return nil, fail(append(step, pathSeg{key: "at"}), "%s: want an age of the run, 0s or later", st.At)
					}
				}
			}
		}
	}
	for i, a := range s.Actions {
		at := []pathSeg{{key: "actions"}, {index: i, isIndex: true}}
		kinds := 0
		for _, set := range []bool{a.Delete, a.Remove, a.RemoveFinalizers, a.KillContainer != "", a.KillSandbox, a.AddEphemeral != nil, a.Resize != nil} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			return nil, fail(at, "want exactly one of delete, remove, removeFinalizers, killContainer, killSandbox, addEphemeral, resize (it has %d)", kinds)
		}
		if a.At < 0 {
			return nil, fail(append(at, pathSeg{key: "at"}), "%s: want a time after the start, 0s or later", a.At)
		}
		if a.GracePeriod != nil && !a.Delete {
			return nil, fail(append(at, pathSeg{key: "gracePeriod"}), "only a delete has a grace period")
		}
		if a.GracePeriod != nil && *a.GracePeriod < 0 {
			return nil, fail(append(at, pathSeg{key: "gracePeriod"}), "%d: want 0 or more seconds", *a.GracePeriod)
		}
		if n := a.KillContainer; n != "" {
			if _, ok := specs[n]; !ok {
				return nil, fail(append(at, pathSeg{key: "killContainer"}), "%q is not a container of pod %s%s (its containers: %s)", n, podNames(), suggest(n, names), strings.Join(names, ", "))
			}
		}
		for _, n := range sortedKeysOf(a.Resize) {
			if _, ok := specs[n]; !ok {
				return nil, fail(append(at, pathSeg{key: "resize"}, pathSeg{key: n}), "%q is not a container of pod %s%s (its containers: %s)", n, podNames(), suggest(n, names), strings.Join(names, ", "))
			}
		}
		if e := a.AddEphemeral; e != nil && (e.Name == "" || e.Image == "") {
			return nil, fail(append(at, pathSeg{key: "addEphemeral"}), "an ephemeral container needs a name and an image")
		}
	}
	if err := checkScriptMeaning(&s, raw, data, file); err != nil {
		return nil, err
	}
	return &s, nil
}

// checkRun returns "field: what is wrong" for a run that cannot mean what
// its writer meant, against the container's specs (one per pod that has
// a container of that name), or "".
func checkRun(r sim.Run, specs []*v1.Container) string {
	for _, d := range []struct {
		field string
		v     sim.Duration
	}{{"exitAfter", r.ExitAfter}, {"termAfter", r.TermAfter}, {"preStop", r.PreStop}} {
		if d.v < 0 {
			return fmt.Sprintf("%s: %s: want 0s or more", d.field, d.v)
		}
	}
	if msg := checkPostStart(r, specs); msg != "" {
		return msg
	}
	if r.ExitCode != 0 && r.ExitAfter == 0 {
		return fmt.Sprintf("exitCode: %d without exitAfter: the process never exits on its own (give exitAfter, or termExitCode for the exit on SIGTERM)", r.ExitCode)
	}
	if r.IgnoreSIGTERM && (r.TermAfter != 0 || r.TermExitCode != 0) {
		field := "termAfter"
		if r.TermAfter == 0 {
			field = "termExitCode"
		}
		return field + ": the process ignores SIGTERM (ignoreSIGTERM: true): only SIGKILL ends it, with exit code 137"
	}
	has := func(f func(c *v1.Container) bool) bool {
		for _, c := range specs {
			if f(c) {
				return true
			}
		}
		return false
	}
	if r.PreStop != 0 && !has(func(c *v1.Container) bool {
		return c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep == nil
	}) {
		if has(func(c *v1.Container) bool { return c.Lifecycle != nil && c.Lifecycle.PreStop != nil }) {
			return "preStop: the container's preStop hook is a sleep: it runs for the seconds the spec gives"
		}
		return "preStop: the container has no preStop hook in its spec"
	}
	for _, p := range []struct {
		field string
		steps []sim.ProbeStep
		probe func(c *v1.Container) *v1.Probe
	}{
		{"liveness", r.Liveness, func(c *v1.Container) *v1.Probe { return c.LivenessProbe }},
		{"readiness", r.Readiness, func(c *v1.Container) *v1.Probe { return c.ReadinessProbe }},
		{"startup", r.Startup, func(c *v1.Container) *v1.Probe { return c.StartupProbe }},
	} {
		if len(p.steps) > 0 && !has(func(c *v1.Container) bool { return p.probe(c) != nil }) {
			return fmt.Sprintf("%s: the container has no %sProbe in its spec", p.field, p.field)
		}
	}
	return ""
}

// pathSeg is one step of a field path: a key, or a list index.
type pathSeg struct {
	key     string
	index   int
	isIndex bool
}

func pathString(p []pathSeg) string {
	var b strings.Builder
	for _, s := range p {
		if s.isIndex {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

var (
	durationType = reflect.TypeOf(sim.Duration(0))
	scriptPkg    = reflect.TypeOf(scriptFile{}).PkgPath()
	probePkg     = reflect.TypeOf(vocab.ProbeResult("")).PkgPath()
)

// checkShape walks a decoded JSON value against the Go type it is to be
// decoded into, and returns the path of the first value that does not fit
// and what is wrong with it (unknown field, wrong type, bad duration), or
// "". Types outside this command and package sim (the Kubernetes API's)
// are left to the decoder.
func checkShape(v any, t reflect.Type, path []pathSeg) ([]pathSeg, string) {
	at := func(s pathSeg) []pathSeg { return append(append([]pathSeg{}, path...), s) }
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil {
		return nil, ""
	}
	if t == durationType {
		b, _ := json.Marshal(v)
		var d sim.Duration
		if err := d.UnmarshalJSON(b); err != nil {
			return path, fmt.Sprintf("%s is not a duration (like 90s, 1m30s, 200ms, or a number of seconds)", b)
		}
		return nil, ""
	}
	switch t.PkgPath() {
	case "", scriptPkg, durationType.PkgPath(), probePkg:
	default:
		return nil, ""
	}
	want := func(what string) ([]pathSeg, string) {
		b, _ := json.Marshal(v)
		return path, fmt.Sprintf("want %s, got %s", what, b)
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return want("a mapping of fields")
		}
		fields := map[string]reflect.StructField{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			fields[name] = f
			names = append(names, name)
		}
		for _, k := range keycheck.Sorted(m) {
			f, ok := fields[k]
			if !ok {
				if sg := suggest(k, names); sg != "" {
					return at(pathSeg{key: k}), "unknown field" + sg
				}
				return at(pathSeg{key: k}), "unknown field (the fields here: " + strings.Join(names, ", ") + ")"
			}
			if p, msg := checkShape(m[k], f.Type, at(pathSeg{key: k})); msg != "" {
				return p, msg
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return want("a mapping")
		}
		for _, k := range keycheck.Sorted(m) {
			if p, msg := checkShape(m[k], t.Elem(), at(pathSeg{key: k})); msg != "" {
				return p, msg
			}
		}
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return want("a list")
		}
		for i, e := range l {
			if p, msg := checkShape(e, t.Elem(), at(pathSeg{index: i, isIndex: true})); msg != "" {
				return p, msg
			}
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return want("true or false")
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return want("text")
		}
	case reflect.Int32, reflect.Int64, reflect.Int, reflect.Uint32, reflect.Uint64:
		f, ok := v.(float64)
		if !ok || f != float64(int64(f)) {
			return want("a whole number")
		}
		if t.Kind() == reflect.Int32 && (f < -(1<<31) || f >= 1<<31) {
			return want("a 32-bit whole number")
		}
	}
	return nil, ""
}

// yamlLine returns the line of a field path in a block-style YAML text
// (the line of the deepest part of the path it finds; 0 when none).
func yamlLine(text string, path []pathSeg) int {
	lines := strings.Split(text, "\n")
	// content returns a line's indentation, with the list dashes that
	// start it counted as indentation, and what follows.
	content := func(l string) (int, string, int) {
		i := 0
		dash := -1
		for i < len(l) {
			switch {
			case l[i] == ' ':
				i++
			case l[i] == '-' && (i+1 == len(l) || l[i+1] == ' '):
				if dash < 0 {
					dash = i
				}
				i++
			default:
				return i, l[i:], dash
			}
		}
		return i, "", dash
	}
	blank := func(s string) bool { return s == "" || strings.HasPrefix(s, "#") }
	found, from, parent := 0, 0, -1
	for _, seg := range path {
		hit := -1
		if seg.isIndex {
			n, col := -1, -1
			for i := from; i < len(lines); i++ {
				ind, rest, dash := content(lines[i])
				if blank(rest) && dash < 0 {
					continue
				}
				if dash < 0 && ind <= parent {
					break
				}
				if dash >= 0 && (col < 0 || dash == col) && dash >= parent {
					col = dash
					n++
					if n == seg.index {
						hit = i
						parent = dash
						break
					}
				} else if dash >= 0 && dash < col {
					break
				}
			}
		} else {
			for i := from; i < len(lines); i++ {
				ind, rest, _ := content(lines[i])
				if blank(rest) {
					continue
				}
				if ind <= parent && i > from {
					break
				}
				if ind > parent && (strings.HasPrefix(rest, seg.key+":") || strings.HasPrefix(rest, strconv.Quote(seg.key)+":")) {
					hit = i
					parent = ind
					break
				}
			}
		}
		if hit < 0 {
			break
		}
		found, from = hit+1, hit
		if !seg.isIndex {
			from = hit + 1
		}
	}
	return found
}

// allContainers are the pod's containers of every kind, in spec order.
func allContainers(pod *v1.Pod) []*v1.Container {
	var out []*v1.Container
	for i := range pod.Spec.InitContainers {
		out = append(out, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	for i := range pod.Spec.EphemeralContainers {
		c := v1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon)
		out = append(out, &c)
	}
	return out
}

// describeRun says in words what one run of a container does.
func describeRun(r sim.Run) string {
	var parts []string
	if r.ExitAfter > 0 {
		parts = append(parts, fmt.Sprintf("exits %d after %s", r.ExitCode, r.ExitAfter))
	} else {
		parts = append(parts, "runs until stopped")
	}
	switch {
	case r.IgnoreSIGTERM:
		parts = append(parts, "ignores SIGTERM")
	case r.TermAfter > 0 || r.TermExitCode != 0:
		when := r.TermAfter.String() + " after SIGTERM"
		if r.TermAfter == 0 {
			when = "at once on SIGTERM"
		}
		parts = append(parts, fmt.Sprintf("exits %d %s", r.TermExitCode, when))
	}
	if r.PreStop > 0 {
		parts = append(parts, "preStop hook runs "+r.PreStop.String())
	}
	parts = append(parts, describeHooks(r)...)
	for _, p := range []struct {
		name  string
		steps []sim.ProbeStep
	}{{"liveness", r.Liveness}, {"readiness", r.Readiness}, {"startup", r.Startup}} {
		if len(p.steps) == 0 {
			continue
		}
		var ss []string
		for _, s := range p.steps {
			verb := "fails"
			if s.Result == vocab.ProbeSuccess {
				verb = "succeeds"
			}
			ss = append(ss, fmt.Sprintf("%s from %s", verb, time.Duration(s.At)))
		}
		parts = append(parts, p.name+" "+strings.Join(ss, ", "))
	}
	return strings.Join(parts, ", ")
}

// describeBehaviour says what a container does, run after run.
func describeBehaviour(b sim.Behaviour) string {
	switch len(b.Runs) {
	case 0:
		return "runs until stopped"
	case 1:
		return describeRun(b.Runs[0]) + ", every run"
	}
	var parts []string
	for i, r := range b.Runs {
		label := fmt.Sprintf("run %d", i+1)
		if i == len(b.Runs)-1 {
			label = fmt.Sprintf("run %d on", i+1)
		}
		parts = append(parts, label+": "+describeRun(r))
	}
	return strings.Join(parts, "; ")
}
