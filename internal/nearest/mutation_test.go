package nearest

import (
	"strings"
	"testing"
)

// The contract: a name at most max(2, len(s)/3) edits away is a
// misspelling; one edit more is not. Checked at the boundary for every
// length of s from 1 to 15.
func TestNameThresholdBoundary(t *testing.T) {
	for n := 1; n <= 15; n++ {
		s := strings.Repeat("a", n)
		limit := max(2, n/3)
		at := strings.Repeat("b", limit) + s[min(limit, n):] // exactly limit edits
		if d := Distance(s, at); d != limit {
			t.Fatalf("setup: Distance(%q, %q) = %d, want %d", s, at, d, limit)
		}
		if got := Name(s, []string{at}); got != at {
			t.Errorf("Name(%q, [%q]) = %q: %d edits is within the limit %d", s, at, got, limit, limit)
		}
		beyond := strings.Repeat("b", limit+1) + s[min(limit+1, n):]
		if Distance(s, beyond) != limit+1 {
			continue // s too short to be limit+1 edits away this way
		}
		if got := Name(s, []string{beyond}); got != "" {
			t.Errorf("Name(%q, [%q]) = %q: %d edits is beyond the limit %d", s, beyond, got, limit+1, limit)
		}
	}
}

// The contract: among names equally near, the first in sorted order wins,
// whatever the order of known; and an exact match beats any later name.
func TestNameTiesGoToFirstSorted(t *testing.T) {
	for _, known := range [][]string{
		{"abx", "aby", "abz"}, {"abz", "aby", "abx"}, {"aby", "abz", "abx"},
	} {
		if got := Name("abc", known); got != "abx" {
			t.Errorf("Name(%q, %q) = %q, want %q (first sorted of the ties)", "abc", known, got, "abx")
		}
	}
	for _, known := range [][]string{{"abc", "abd"}, {"abd", "abc"}, {"ABC", "abd"}} {
		if got := Name("abc", known); strings.ToLower(got) != "abc" {
			t.Errorf("Name(%q, %q) = %q, want the exact match", "abc", known, got)
		}
	}
}
