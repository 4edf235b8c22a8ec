package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/internal/nearest"
	"github.com/kubeletlogic/kubeletlogic/internal/yamljson"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// The script format's version: the apiVersion and kind a script file may
// give. ReadScript accepts ScriptAPIVersion (the only version so far) and
// a file that gives neither field, which it reads as that version.
const (
	ScriptAPIVersion = "kubeletlogic/v1alpha1"
	ScriptKind       = "Script"
)

// ScriptFile is the script file format that `kubeletlogic simulate
// --script` reads (YAML or JSON): what the containers' processes do run
// after run, the runtime's delays, and what the outside does when. Its
// containers and runtime are a Script as they are; its actions are Actions
// in a shape people write:
//
//	apiVersion: kubeletlogic/v1alpha1   # optional; the only version so far
//	kind: Script                        # optional
//	containers:
//	  proxy:
//	    runs:                  # one entry per run; the last repeats
//	    - exitAfter: 30s       # exits on its own, with exitCode
//	      exitCode: 1
//	    - termAfter: 200ms     # runs until stopped; exits 200 ms after SIGTERM
//	      termSpread: 1s       #   plus a random part of 1 s (a trap after `sleep 1`)
//	  app:
//	    runs:
//	    - ignoreSIGTERM: true  # only SIGKILL ends it
//	      preStop: 4s          # its exec or httpGet preStop hook runs 4 s
//	      postStart: 2s        # its exec or httpGet postStart hook runs 2 s
//	      postStartFails: true #   and then fails: the kubelet kills it
//	      readiness: [{at: 0s, result: Failure}, {at: 20s, result: Success}]
//	      liveness: [{at: 30s, result: Success, takes: 5s}] # outlives timeoutSeconds: fails
//	actions:
//	- {at: 60s, delete: true}              # kubectl delete (the pod's grace)
//	- {at: 60s, delete: true, gracePeriod: 5}
//	- {at: 90s, removeFinalizers: true}
//	- {at: 20s, killContainer: app}        # SIGKILL the running process
//	- {at: 30s, killSandbox: true}
//	- {at: 40s, remove: true}              # force-deleted (static: manifest removed)
//	- {at: 10s, addEphemeral: {name: debug, image: busybox}}
//	- {at: 30s, resize: {app: {requests: {cpu: 500m}, limits: {memory: 256Mi}}}}
//	- {at: 35s, resizePod: {requests: {cpu: 300m}, limits: {cpu: 300m}}}  # spec.resources
//	- {at: 15s, setCondition: {type: example.com/gate, status: "True"}}
//	- {at: 50s, restartKubelet: 5s}        # the kubelet down 5 s, then again
//	- {at: 70s, evict: {gracePeriod: 10}}  # the kubelet evicts it ({} : a hard threshold's 1 s)
//	runtime: {runPodSandbox: 289ms}        # the runtime's delays (see RuntimeDelays)
//	images:                                # how images behave (see Image); others are present
//	  registry.example/app:1:
//	    missing: true                      # not on the node at first
//	    pulls: [{took: 50ms, fails: true}, {took: 15s}]  # each pull; the last repeats
//
// Durations are Go duration text ("90s", "1m30s") or a number of seconds
// (a warning: see ReadScript). ReadScript reads one; PodScript and
// ScriptAction.Action turn it into a PodInput's Script and Actions.
type ScriptFile struct {
	// APIVersion and Kind are the format's version (ScriptAPIVersion,
	// ScriptKind); both may be left out.
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`

	// Containers are the behaviours by container name, as
	// Script.Containers.
	Containers map[string]Behaviour `json:"containers,omitempty"`
	// Runtime are the runtime's delays, as Script.Runtime.
	Runtime RuntimeDelays `json:"runtime,omitzero"`
	// Images are how the images behave on the node, as Script.Images.
	Images map[string]Image `json:"images,omitempty"`
	// Actions are what the outside does, each at its time.
	Actions []ScriptAction `json:"actions,omitempty"`

	// text is the file read, to find the line of a field; warnings are
	// what ReadScript found acceptable but worth saying.
	text     string
	warnings []ScriptError
}

// ScriptAction is one Action as a script file writes it.
type ScriptAction struct {
	At Duration `json:"at"`
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
	// ResizePod resizes the pod-level resources (spec.resources) in
	// place: the pod-level requests and limits to set (resizePod:
	// {requests: {cpu: 300m}, limits: {cpu: 300m}}). With resize in the
	// same action it is one request to the API server.
	ResizePod *v1.ResourceRequirements `json:"resizePod,omitempty"`
	// OtherRequests are the summed requests of the node's other pods from
	// then on (otherRequests: {cpu: 1500m}; {} when they are gone): a
	// resize that does not fit next to them is deferred.
	OtherRequests *v1.ResourceList `json:"otherRequests,omitempty"`
	// SetCondition sets a condition in the pod's status as another API
	// client does (a readiness gate's): {type: example.com/gate, status:
	// "True"} (quote the status: YAML reads a bare True as a boolean).
	SetCondition *v1.PodCondition `json:"setCondition,omitempty"`
	// RestartKubelet restarts the kubelet process: it is down this long
	// (restartKubelet: 5s).
	RestartKubelet *Duration `json:"restartKubelet,omitempty"`
	// Evict is the kubelet evicting the pod under node pressure:
	// {gracePeriod: 30, message: "..."} ({} for a hard threshold's 1 s).
	Evict *Eviction `json:"evict,omitempty"`
}

// Action returns the Action a stands for.
func (a ScriptAction) Action() Action {
	out := Action{At: a.At, Remove: a.Remove, RemoveFinalizers: a.RemoveFinalizers,
		KillContainer: a.KillContainer, KillSandbox: a.KillSandbox, AddEphemeral: a.AddEphemeral, Resize: a.Resize, ResizePod: a.ResizePod,
		OtherRequests: a.OtherRequests, SetCondition: a.SetCondition, RestartKubelet: a.RestartKubelet, Evict: a.Evict}
	if a.Delete {
		g := int64(-1)
		if a.GracePeriod != nil {
			g = *a.GracePeriod
		}
		out.Delete = &g
	}
	return out
}

// ScriptError is what is wrong with a script file, or worth a warning:
// the file's line (0 when unknown), the field's path
// ("containers.proxy.runs[1].exitAfter"; empty when the error is not
// about one field) and what is wrong.
type ScriptError struct {
	Line int
	Path string
	Msg  string
}

// Error writes "line 5: containers.proxy.runs[1].exitAfter: what".
func (e *ScriptError) Error() string {
	s := e.Msg
	if e.Path != "" {
		s = e.Path + ": " + s
	}
	if e.Line > 0 {
		s = fmt.Sprintf("line %d: %s", e.Line, s)
	}
	return s
}

// Warnings are what ReadScript found acceptable but worth saying: a
// duration written as a bare number (read as seconds: "exitAfter: 30" is
// 30 s, not 30 ms), in the order of the file.
func (f *ScriptFile) Warnings() []ScriptError {
	if f == nil {
		return nil
	}
	return append([]ScriptError(nil), f.warnings...)
}

// Line returns the line of a field path ("actions[2].at") in the text f
// was read from: the line of the deepest part of the path found, 0 when
// none is (or f was not read by ReadScript, or is a JSON document on one
// line).
func (f *ScriptFile) Line(path string) int {
	if f == nil {
		return 0
	}
	return yamlLine(f.text, parsePath(path))
}

// PodScript returns the Script of pod: the behaviours of the file's
// containers that are pod's (init, regular and ephemeral containers, and
// the ephemeral containers the file's actions add), and the runtime's
// delays. A behaviour of a container pod does not have is left out: a
// file serves several pods; ReadScript has checked that each name is a
// container of one of them. A nil file or pod gives the zero Script.
func (f *ScriptFile) PodScript(pod *v1.Pod) Script {
	if f == nil || pod == nil {
		return Script{}
	}
	s := Script{Runtime: f.Runtime}
	take := func(name string) {
		if b, ok := f.Containers[name]; ok {
			if s.Containers == nil {
				s.Containers = map[string]Behaviour{}
			}
			s.Containers[name] = b
		}
	}
	for _, c := range keycheck.Containers(pod) {
		take(c.Name)
	}
	for _, a := range f.Actions {
		if a.AddEphemeral != nil {
			take(a.AddEphemeral.Name)
		}
	}
	s.Images = f.podImages(pod)
	return s
}

// ReadScript reads a script file (YAML or JSON, one document; see
// ScriptFile) and checks it against the pods it is for (one or more):
// every field known and of its type (an unknown field is an error naming
// the nearest field), apiVersion and kind as ScriptAPIVersion and
// ScriptKind or absent, every container named a container of some pod
// (else the nearest name), every probe outcome for a probe the container
// has, every hook time for a hook that runs for a scripted time, exit codes
// 0-255, probe steps in increasing order of age, exactly one kind per
// action (resize and resizePod together are one), a resizePod of cpu and
// memory only and only for pods with pod-level resources. An error is a
// *ScriptError with the line and the field's path. Durations written as
// bare numbers are read as seconds and reported as Warnings. Empty text
// is an empty script (every container runs until stopped).
//
// It mirrors no kubelet function: it reads this library's own format.
func ReadScript(data []byte, pods []*v1.Pod) (*ScriptFile, error) {
	if len(pods) == 0 {
		return nil, &ScriptError{Msg: "no pod to read the script for: a script names containers of the pods it is for"}
	}
	for _, p := range pods {
		if p == nil {
			return nil, &ScriptError{Msg: "a nil pod: a script names containers of the pods it is for"}
		}
	}
	text := string(data)
	js, err := yamljson.ToJSON(data)
	if err != nil {
		line, msg := explainYAML(err.Error())
		return nil, &ScriptError{Line: line, Msg: msg}
	}
	fail := func(path []pathSeg, format string, args ...any) error {
		return &ScriptError{Line: yamlLine(text, path), Path: pathString(path), Msg: fmt.Sprintf(format, args...)}
	}
	var raw any
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, &ScriptError{Msg: "not valid JSON or YAML: " + err.Error()}
	}
	if raw == nil {
		return &ScriptFile{text: text}, nil
	}
	if p, msg := checkShape(raw, reflect.TypeOf(ScriptFile{}), nil); msg != "" {
		return nil, fail(p, "%s", msg)
	}
	var s ScriptFile
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, &ScriptError{Msg: strings.TrimPrefix(err.Error(), "json: ")}
	}
	s.text = text
	if s.APIVersion != "" && s.APIVersion != ScriptAPIVersion {
		return nil, fail([]pathSeg{{key: "apiVersion"}}, "%q: this library reads %s (or a file without apiVersion, read as %s)", s.APIVersion, ScriptAPIVersion, ScriptAPIVersion)
	}
	if s.Kind != "" && s.Kind != ScriptKind {
		hint := ""
		if s.Kind == SimulationKind {
			hint = ": a Simulation is what simulate -o json prints (ReadSimulation reads it)"
		}
		return nil, fail([]pathSeg{{key: "kind"}}, "%q: want %s%s%s", s.Kind, ScriptKind, nearest.Suggest(s.Kind, []string{ScriptKind}), hint)
	}

	// Every container named is a container of some pod.
	specs := map[string][]*v1.Container{}
	var names []string
	for _, p := range pods {
		for _, c := range keycheck.Containers(p) {
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
		for _, p := range pods {
			ns = append(ns, p.Name)
		}
		return strings.Join(ns, ", ")
	}
	notAContainer := func(at []pathSeg, name string) error {
		return fail(at, "%q is not a container of pod %s%s (its containers: %s)", name, podNames(), nearest.Suggest(name, names), strings.Join(names, ", "))
	}
	for _, name := range keycheck.Sorted(s.Containers) {
		at := []pathSeg{{key: "containers"}, {key: name}}
		cs, ok := specs[name]
		if !ok {
			return nil, notAContainer(at, name)
		}
		for i, r := range s.Containers[name].Runs {
			run := append(at, pathSeg{key: "runs"}, pathSeg{index: i, isIndex: true})
			if msg := checkScriptRun(r, cs); msg != "" {
				field, text, _ := strings.Cut(msg, ": ")
				return nil, fail(append(run, pathSeg{key: field}), "%s", text)
			}
			for _, pr := range []struct {
				field string
				steps []ProbeStep
			}{{"liveness", r.Liveness}, {"readiness", r.Readiness}, {"startup", r.Startup}} {
				for j, st := range pr.steps {
					step := append(append([]pathSeg{}, run...), pathSeg{key: pr.field}, pathSeg{index: j, isIndex: true})
					if st.Result != vocab.ProbeSuccess && st.Result != vocab.ProbeFailure {
						return nil, fail(append(step, pathSeg{key: "result"}), "%q: want Success or Failure", st.Result)
					}
					if st.At < 0 {
						return nil, fail(append(step, pathSeg{key: "at"}), "%s: want an age of the run, 0s or later", st.At)
					}
					if st.Takes < 0 {
						return nil, fail(append(step, pathSeg{key: "takes"}), "%s: want how long the probe runs, 0s or more", st.Takes)
					}
				}
			}
		}
	}
	for i, a := range s.Actions {
		at := []pathSeg{{key: "actions"}, {index: i, isIndex: true}}
		kinds := 0
		// resize and resizePod together are one resize request.
		for _, set := range []bool{a.Delete, a.Remove, a.RemoveFinalizers, a.KillContainer != "", a.KillSandbox, a.AddEphemeral != nil, a.Resize != nil || a.ResizePod != nil,
			a.OtherRequests != nil, a.SetCondition != nil, a.RestartKubelet != nil, a.Evict != nil} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			return nil, fail(at, "want exactly one of delete, remove, removeFinalizers, killContainer, killSandbox, addEphemeral, resize (and/or resizePod), otherRequests, setCondition, restartKubelet, evict (it has %d)", kinds)
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
				return nil, notAContainer(append(at, pathSeg{key: "killContainer"}), n)
			}
		}
		for _, n := range keycheck.Sorted(a.Resize) {
			if _, ok := specs[n]; !ok {
				return nil, notAContainer(append(at, pathSeg{key: "resize"}, pathSeg{key: n}), n)
			}
		}
		if r := a.ResizePod; r != nil {
			if err := checkScriptResizePod(*r, pods, append(at, pathSeg{key: "resizePod"}), fail); err != nil {
				return nil, err
			}
		}
		if l := a.OtherRequests; l != nil {
			if err := checkOtherRequests(*l); err != nil {
				return nil, fail(append(at, pathSeg{key: "otherRequests"}), "%s", strings.TrimPrefix(err.Error(), "otherRequests: "))
			}
		}
		if d := a.RestartKubelet; d != nil && *d < 0 {
			return nil, fail(append(at, pathSeg{key: "restartKubelet"}), "%s: want a downtime, 0s or more", *d)
		}
		if e := a.Evict; e != nil && e.GracePeriod != nil && *e.GracePeriod < 0 {
			return nil, fail(append(at, pathSeg{key: "evict"}, pathSeg{key: "gracePeriod"}), "%d: want a grace period in seconds, 0 or more", *e.GracePeriod)
		}
		if c := a.SetCondition; c != nil && (c.Type == "" || c.Status == "") {
			return nil, fail(append(at, pathSeg{key: "setCondition"}), "a condition needs a type and a status")
		}
		if e := a.AddEphemeral; e != nil && (e.Name == "" || e.Image == "") {
			return nil, fail(append(at, pathSeg{key: "addEphemeral"}), "an ephemeral container needs a name and an image")
		}
	}
	if err := s.checkFileImages(pods, fail); err != nil {
		return nil, err
	}
	if err := s.checkFileMeaning(raw); err != nil {
		return nil, err
	}
	return &s, nil
}

// checkScriptResizePod checks a resizePod action against the pods the
// file is for: some request or limit, cpu and memory only, no claims, and
// every pod with pod-level resources to resize (spec.resources; adding
// them by a resize is not modelled). What the API server decides against
// the pod (the QoS class, the gate, the containers' requests) is checked
// when the simulation starts, as for resize.
func checkScriptResizePod(r v1.ResourceRequirements, pods []*v1.Pod, at []pathSeg, fail func([]pathSeg, string, ...any) error) error {
	if len(r.Claims) > 0 {
		return fail(append(at, pathSeg{key: "claims"}), "resource claims cannot be resized")
	}
	if len(r.Requests)+len(r.Limits) == 0 {
		return fail(at, "no request or limit: want requests and/or limits of cpu or memory, as {requests: {cpu: 300m}, limits: {cpu: 300m}}")
	}
	for _, l := range []struct {
		key  string
		list v1.ResourceList
	}{{"requests", r.Requests}, {"limits", r.Limits}} {
		for _, rn := range resourceNames(l.list) {
			if rn != v1.ResourceCPU && rn != v1.ResourceMemory {
				return fail(append(at, pathSeg{key: l.key}, pathSeg{key: string(rn)}), "only cpu and memory can be resized at pod level")
			}
			if q := l.list[rn]; q.Sign() < 0 {
				return fail(append(at, pathSeg{key: l.key}, pathSeg{key: string(rn)}), "%s: negative", q.String())
			}
		}
	}
	for _, p := range pods {
		if !podLevelSet(p.Spec.Resources) {
			return fail(at, "pod %s has no pod-level resources (spec.resources): resizePod changes them, and adding them by a resize is not modelled (use resize for its containers)", p.Name)
		}
	}
	return nil
}

// checkFileMeaning reports what the shape check lets through but changes
// what a script says, or says nothing a process does: an exit code outside
// 0-255, and probe steps not in increasing order of age (an error, with the
// line); a duration written as a bare number, read as seconds (a warning).
func (s *ScriptFile) checkFileMeaning(raw any) error {
	fail := func(path []pathSeg, format string, args ...any) error {
		return &ScriptError{Line: yamlLine(s.text, path), Path: pathString(path), Msg: fmt.Sprintf(format, args...)}
	}
	for _, name := range keycheck.Sorted(s.Containers) {
		for i, r := range s.Containers[name].Runs {
			run := []pathSeg{{key: "containers"}, {key: name}, {key: "runs"}, {index: i, isIndex: true}}
			at := func(more ...pathSeg) []pathSeg { return append(append([]pathSeg{}, run...), more...) }
			for _, c := range []struct {
				field string
				v     int32
			}{{"exitCode", r.ExitCode}, {"termExitCode", r.TermExitCode}} {
				if c.v < 0 || c.v > 255 {
					return fail(at(pathSeg{key: c.field}), "%d is not an exit code: a process exits with 0-255 (a signal gives 128+n: 137 for SIGKILL, 143 for SIGTERM)", c.v)
				}
			}
			for _, p := range []struct {
				field string
				steps []ProbeStep
			}{{"liveness", r.Liveness}, {"readiness", r.Readiness}, {"startup", r.Startup}} {
				for j := 1; j < len(p.steps); j++ {
					prev, cur := p.steps[j-1].At, p.steps[j].At
					if cur > prev {
						continue
					}
					where := at(pathSeg{key: p.field}, pathSeg{index: j, isIndex: true}, pathSeg{key: "at"})
					if cur == prev {
						return fail(where, "%s: the step before it has the same age, and would never decide (the last step the run's age has reached decides)", cur)
					}
					return fail(where, "%s is before the step before it (%s): list the steps in increasing order of age (the last step the run's age has reached decides, so out of order they say something else)", cur, prev)
				}
			}
		}
	}
	bare := bareNumbers(raw, reflect.TypeOf(ScriptFile{}), nil)
	// In the order of the file, not of the fields.
	sort.SliceStable(bare, func(i, j int) bool {
		return yamlLine(s.text, bare[i].path) < yamlLine(s.text, bare[j].path)
	})
	for _, u := range bare {
		d := time.Duration(u.secs * float64(time.Second))
		s.warnings = append(s.warnings, ScriptError{Line: yamlLine(s.text, u.path), Path: pathString(u.path),
			Msg: fmt.Sprintf("%s has no unit: read as %s seconds (%s); write %s to say so", u.text, u.text, d, d)})
	}
	return nil
}

// checkScriptRun returns "field: what is wrong" for a run that cannot mean
// what its writer meant, against the container's specs (one per pod that
// has a container of that name), or "".
func checkScriptRun(r Run, specs []*v1.Container) string {
	for _, d := range []struct {
		field string
		v     Duration
	}{{"exitAfter", r.ExitAfter}, {"termAfter", r.TermAfter}, {"termSpread", r.TermSpread}, {"termStep", r.TermStep}, {"preStop", r.PreStop}, {"oomAfter", r.OOMAfter}} {
		if d.v < 0 {
			return fmt.Sprintf("%s: %s: want 0s or more", d.field, d.v)
		}
	}
	if msg := checkScriptPostStart(r, specs); msg != "" {
		return msg
	}
	if r.ExitCode != 0 && r.ExitAfter == 0 {
		return fmt.Sprintf("exitCode: %d without exitAfter: the process never exits on its own (give exitAfter, or termExitCode for the exit on SIGTERM)", r.ExitCode)
	}
	if r.IgnoreSIGTERM && (r.TermAfter != 0 || r.TermSpread != 0 || r.TermStep != 0 || r.TermExitCode != 0) {
		field := "termAfter"
		if r.TermAfter == 0 {
			field = "termExitCode"
			if r.TermSpread != 0 {
				field = "termSpread"
			}
			if r.TermStep != 0 {
				field = "termStep"
			}
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
		steps []ProbeStep
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

// checkScriptPostStart returns "field: what is wrong" for a run that
// scripts a postStart hook the container's specs do not have as an exec
// or httpGet hook, or "".
func checkScriptPostStart(r Run, specs []*v1.Container) string {
	if r.PostStart < 0 {
		return fmt.Sprintf("postStart: %s: want 0s or more", r.PostStart)
	}
	if r.PostStart == 0 && !r.PostStartFails {
		return ""
	}
	field := "postStart"
	if r.PostStart == 0 {
		field = "postStartFails"
	}
	scriptable, has := false, false
	for _, c := range specs {
		if c.Lifecycle != nil && c.Lifecycle.PostStart != nil {
			has = true
			if c.Lifecycle.PostStart.Sleep == nil {
				scriptable = true
			}
		}
	}
	switch {
	case scriptable:
		return ""
	case has:
		return field + ": the container's postStart hook is a sleep: it runs for the seconds the spec gives and does not fail"
	}
	return field + ": the container has no postStart hook in its spec"
}

var reYAMLLine = regexp.MustCompile(`^(?:error converting YAML to JSON: )?yaml: line (\d+): (.*)$`)

// explainYAML turns an error of the YAML reader into a line and a message.
func explainYAML(msg string) (int, string) {
	if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, "not valid YAML: " + m[2]
	}
	return 0, strings.TrimPrefix(msg, "json: ")
}
