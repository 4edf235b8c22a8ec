package features

import (
	"fmt"
	"strings"
)

// Version is a kubelet release whose decisions the library models. The
// zero value is the newest, v1.37.2. Pass a version through a Set
// (V1_35, V1_36, ForVersion, ParseFor): every decision that differs
// between versions reads it from the Set it already takes, next to the
// gates.
//
// Only one patch release per minor is modelled: the one the Go module proxy
// serves (v1.35.4, v1.36.3, v1.37.2), which is the code each version's
// differential suite runs against.
type Version uint8

// The kubelet versions modelled.
const (
	V1_37_2 Version = iota // the default (the zero Version)
	V1_36_3
	V1_35_4
	numVersions = 3
)

// Versions lists the versions modelled, newest first.
func Versions() []Version { return []Version{V1_37_2, V1_36_3, V1_35_4} }

func (v Version) valid() bool { return v < numVersions }

// Minor returns the minor version (37 for v1.37.2), or 0 for a Version this
// package does not model.
func (v Version) Minor() int {
	if !v.valid() {
		return 0
	}
	return 37 - int(v)
}

// String renders v as "v1.37.2".
func (v Version) String() string {
	switch v {
	case V1_37_2:
		return "v1.37.2"
	case V1_36_3:
		return "v1.36.3"
	case V1_35_4:
		return "v1.35.4"
	}
	return fmt.Sprintf("Version(%d)", uint8(v))
}

// ParseVersion reads a kubelet version: "1.35", "v1.35", or the exact
// modelled patch, "1.35.4" / "v1.35.4". Another patch of a modelled minor
// is an error that names the patch modelled (patch releases can carry
// fixes this package has not compared against), as is any other minor.
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	for _, v := range Versions() {
		full := strings.TrimPrefix(v.String(), "v")
		minor := full[:strings.LastIndexByte(full, '.')]
		switch {
		case t == full || t == minor:
			return v, nil
		case strings.HasPrefix(t, minor+"."):
			return 0, fmt.Errorf("features: kubelet %q: only %s of %s is modelled; pass %q to accept its answers", s, v, minor, minor)
		}
	}
	return 0, fmt.Errorf("features: kubelet version %q is not modelled (known: 1.35, 1.36, 1.37)", s)
}

// Has reports whether kubelet v has gate g.
func (v Version) Has(g Gate) bool {
	i := index(g)
	return i >= 0 && v.valid() && gates[i].has[v]
}

// Default reports g's default in kubelet v; a gate v does not have, or an
// unknown gate, reads as off.
func (v Version) Default(g Gate) bool {
	i := index(g)
	return i >= 0 && v.valid() && gates[i].def[v]
}

// Locked reports whether kubelet v refuses to change g from its default.
func (v Version) Locked(g Gate) bool {
	i := index(g)
	return i >= 0 && v.valid() && gates[i].locked[v]
}

// Gates lists the gates kubelet v has, in the order of the package's Gates.
func (v Version) Gates() []Gate {
	var out []Gate
	for _, g := range Gates() {
		if v.Has(g) {
			out = append(out, g)
		}
	}
	return out
}
