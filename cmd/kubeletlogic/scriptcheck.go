package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// scriptNotes are what readScript found acceptable but worth saying: each
// a warning that simulate and timeline print on standard error, in the
// style of inputError (file:line: field: what).
type scriptNotes struct {
	warnings []string
	text     string // the script, to find the line of a field
	file     string
}

func (n *scriptNotes) warn(path []pathSeg, format string, args ...any) {
	e := &inputError{file: n.file, line: yamlLine(n.text, path), msg: pathString(path) + ": " + fmt.Sprintf(format, args...)}
	n.warnings = append(n.warnings, e.Error())
}

// checkScriptMeaning reports what the shape check lets through but changes
// what a script says, or says nothing a process does: an exit code outside
// 0-255, and probe steps not in increasing order of age (an error, with
// the line); a duration written as a bare number, read as seconds (a
// warning: "exitAfter: 30" is 30 s, not 30 ms).
func checkScriptMeaning(s *scriptFile, raw any, data []byte, file string) error {
	s.notes = scriptNotes{text: string(data), file: file}
	fail := func(path []pathSeg, format string, args ...any) error {
		return &inputError{file: file, line: yamlLine(string(data), path), msg: pathString(path) + ": " + fmt.Sprintf(format, args...)}
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
				steps []sim.ProbeStep
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
	bare := bareNumbers(raw, reflect.TypeOf(scriptFile{}), nil)
	// In the order of the file, not of the fields.
	sort.SliceStable(bare, func(i, j int) bool {
		return yamlLine(s.notes.text, bare[i].path) < yamlLine(s.notes.text, bare[j].path)
	})
	for _, u := range bare {
		d := time.Duration(u.secs * float64(time.Second))
		s.notes.warn(u.path, "%s has no unit: read as %s seconds (%s); write %s to say so", u.text, u.text, d, d)
	}
	return nil
}

// bareNumber is a duration written as a number.
type bareNumber struct {
	path []pathSeg
	text string
	secs float64
}

// bareNumbers returns every duration of v (decoded JSON of type t) written
// as a non-zero number rather than as duration text. Zero is left alone:
// it is zero in every unit.
func bareNumbers(v any, t reflect.Type, path []pathSeg) []bareNumber {
	at := func(s pathSeg) []pathSeg { return append(append([]pathSeg{}, path...), s) }
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == durationType {
		if f, ok := v.(float64); ok && f != 0 {
			b, _ := json.Marshal(v)
			return []bareNumber{{path: path, text: string(b), secs: f}}
		}
		return nil
	}
	switch t.PkgPath() {
	case "", scriptPkg, durationType.PkgPath():
	default:
		return nil
	}
	var out []bareNumber
	switch t.Kind() {
	case reflect.Struct:
		m, _ := v.(map[string]any)
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if sub, ok := m[name]; ok && name != "" && name != "-" {
				out = append(out, bareNumbers(sub, f.Type, at(pathSeg{key: name}))...)
			}
		}
	case reflect.Map:
		m, _ := v.(map[string]any)
		for _, k := range keycheck.Sorted(m) {
			out = append(out, bareNumbers(m[k], t.Elem(), at(pathSeg{key: k}))...)
		}
	case reflect.Slice:
		l, _ := v.([]any)
		for i, e := range l {
			out = append(out, bareNumbers(e, t.Elem(), at(pathSeg{index: i, isIndex: true}))...)
		}
	}
	return out
}

// checkSimTimes reports what the flags and the script ask for after the end
// of the simulation: --delete-at or --remove-at not before --for is a
// usage error (the deletion would never be seen); a script action after
// it, a warning (the same script may serve a longer run).
func checkSimTimes(f *simFlags, s *scriptFile) (string, []string) {
	end := f.forDur.d
	for _, fl := range []struct {
		name string
		v    durationFlag
	}{{"--delete-at", f.deleteAt}, {"--remove-at", f.removeAt}} {
		if fl.v.set && fl.v.d >= end {
			return fmt.Sprintf("%s %s is not before the end of the simulation (--for %s): nothing of it would be seen; give a longer --for", fl.name, fl.v.d, end), nil
		}
	}
	var warnings []string
	for i, a := range s.Actions {
		if a.At.D() > end {
			path := []pathSeg{{key: "actions"}, {index: i, isIndex: true}, {key: "at"}}
			e := &inputError{file: s.notes.file, line: yamlLine(s.notes.text, path),
				msg: fmt.Sprintf("%s: %s is after the end of the simulation (--for %s): the action (%s) never happens", pathString(path), a.At, end, a.action())}
			warnings = append(warnings, e.Error())
		}
	}
	return "", warnings
}
