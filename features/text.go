package features

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubeletlogic/kubeletlogic/internal/nearest"
)

// MarshalText writes s as its kubelet version followed by the gates that
// differ from that version's defaults, in the --feature-gates syntax and
// sorted by name: "v1.37.2" for the zero Set, "v1.35.4,PodLevelResources=false"
// for v1.35.4 with one gate changed. UnmarshalText reads it back, so a Set
// is a JSON string wherever it is a field (Options.Features and the like).
func (s Set) MarshalText() ([]byte, error) {
	if !s.ver.valid() {
		return nil, fmt.Errorf("features: unknown kubelet version %d (known: %v)", uint8(s.ver), Versions())
	}
	return []byte(strings.Join(append([]string{s.ver.String()}, s.Diff()...), ",")), nil
}

// UnmarshalText reads what MarshalText writes: an optional kubelet version
// first (as ParseVersion reads it: "v1.36.3", "1.36"; without one,
// v1.37.2), then Name=true or Name=false items, comma-separated, applied to
// that version's defaults as With applies them. Spaces around items are
// allowed; the empty text is the zero Set (v1.37.2 defaults). An unknown
// gate is an error naming the nearest known gate; so is a gate given twice,
// a value other than true or false, and turning on a gate the version does
// not have. On error s is left unchanged.
func (s *Set) UnmarshalText(b []byte) error {
	items := strings.Split(string(b), ",")
	out := Set{}
	first := strings.TrimSpace(items[0])
	if first != "" && !strings.Contains(first, "=") {
		v, err := ParseVersion(first)
		if err != nil {
			return err
		}
		out.ver = v
		items = items[1:]
	}
	seen := map[string]bool{}
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		name, val, ok := strings.Cut(it, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return fmt.Errorf("features: %q: want Name=true or Name=false (after an optional kubelet version first)", it)
		}
		on, err := strconv.ParseBool(strings.TrimSpace(val))
		if err != nil || (strings.TrimSpace(val) != "true" && strings.TrimSpace(val) != "false") {
			return fmt.Errorf("features: %q: the value must be true or false", it)
		}
		if index(Gate(name)) < 0 {
			known := make([]string, len(gates))
			for i, e := range gates {
				known[i] = string(e.g)
			}
			return fmt.Errorf("features: unknown gate %q%s (known: %v)", name, nearest.Suggest(name, known), Gates())
		}
		if seen[name] {
			return fmt.Errorf("features: gate %s given twice", name)
		}
		seen[name] = true
		if out, err = out.With(Gate(name), on); err != nil {
			return err
		}
	}
	*s = out
	return nil
}
