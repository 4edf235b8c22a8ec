package sim

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/internal/nearest"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// The field paths of a script file, how its decoded JSON is checked
// against the Go types before decoding (to name the field and the line of
// the first thing wrong), and how a path's line is found in the text.

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
	durationType = reflect.TypeOf(Duration(0))
	probePkg     = reflect.TypeOf(vocab.ProbeResult("")).PkgPath()
)

// checkShape walks a decoded JSON value against the Go type it is to be
// decoded into, and returns the path of the first value that does not fit
// and what is wrong with it (unknown field, wrong type, bad duration), or
// "". Types outside this package and package probe (the Kubernetes API's)
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
		var d Duration
		if err := d.UnmarshalJSON(b); err != nil {
			return path, fmt.Sprintf("%s is not a duration (like 90s, 1m30s, 200ms, or a number of seconds)", b)
		}
		return nil, ""
	}
	switch t.PkgPath() {
	case "", durationType.PkgPath(), probePkg:
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
				if sg := nearest.Suggest(k, names); sg != "" {
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
				ind, rest, dash := content(lines[i])
				if blank(rest) && dash < 0 {
					continue
				}
				if ind <= parent || (dash >= 0 && dash <= parent && i > from) {
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
	case "", durationType.PkgPath():
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

// parsePath reads a path as pathString writes it ("actions[2].at").
func parsePath(s string) []pathSeg {
	var out []pathSeg
	for _, part := range strings.Split(s, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key != "" {
			out = append(out, pathSeg{key: key})
		}
		for rest != "" {
			n, after, ok := strings.Cut(rest, "]")
			i, err := strconv.Atoi(n)
			if !ok || err != nil {
				return out
			}
			out = append(out, pathSeg{index: i, isIndex: true})
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return out
}
