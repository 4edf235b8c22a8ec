// Package nearest finds, for a name that matches nothing, the valid name
// it was most likely meant to be, so that an error can say "did you mean".
package nearest

import (
	"fmt"
	"sort"
	"strings"
)

// Name returns the name in known closest to s in edit distance (case
// ignored; ties go to the first in sorted order), when it is close enough
// to be a misspelling: at most max(2, len(s)/3) edits. Else "".
func Name(s string, known []string) string {
	best, bestD := "", -1
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	ls := strings.ToLower(s)
	for _, k := range sorted {
		d := Distance(ls, strings.ToLower(k))
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > max(2, len(s)/3) {
		return ""
	}
	return best
}

// Suggest returns ` (did you mean "x"?)` for the name x that Name finds,
// or "" when none is near.
func Suggest(s string, known []string) string {
	if n := Name(s, known); n != "" {
		return fmt.Sprintf(" (did you mean %q?)", n)
	}
	return ""
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
