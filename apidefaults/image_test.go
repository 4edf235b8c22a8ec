package apidefaults

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSimpleReference checks that parseReference, which reads simple
// references without the regular expressions, answers as
// parseReferenceRE does: on hand-picked edges, on every string of up to 4
// characters over an alphabet of the grammar's classes, and on a million
// random strings up to 24 long over the same alphabet, and that the
// simple path does take the commonest references.
func TestSimpleReference(t *testing.T) {
	check := func(s string) {
		t.Helper()
		gotTag, gotDigest, gotOK := parseReference(s)
		tag, digest, ok := parseReferenceRE(s)
		if gotTag != tag || gotDigest != digest || gotOK != ok {
			t.Fatalf("parseReference(%q) = %q, %q, %v; the regular expressions say %q, %q, %v", s, gotTag, gotDigest, gotOK, tag, digest, ok)
		}
	}
	for _, s := range []string{"nginx", "nginx:latest", "busybox:1.36", "crash:1", "a", "a:b", "a__b", "a___b", "a_.b", "a--b:x", "a.b.c",
		"-a", "a-", "a.", ".a", "_a", "a_", "a:", ":a", "a:.b", "a:-b", "a:_b", "a:B", "A", "aB", "a:b:c", "a@b", "a/b", "localhost",
		strings.Repeat("a", 247), strings.Repeat("a", 248), strings.Repeat("a", 300),
		"a:" + strings.Repeat("b", 128), "a:" + strings.Repeat("b", 129),
		strings.Repeat("ab", 32), strings.Repeat("ab", 32) + ":1", strings.Repeat("0", 64), strings.Repeat("0", 63), strings.Repeat("0", 65),
		strings.Repeat("A", 64), "nginx@sha256:" + strings.Repeat("a", 64)} {
		check(s)
	}
	const alphabet = "ab0Z._-:@/"
	var walk func(prefix string)
	walk = func(prefix string) {
		check(prefix)
		if len(prefix) == 4 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			walk(prefix + alphabet[i:i+1])
		}
	}
	walk("")
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 0, 24)
	for range 1000000 {
		b = b[:0]
		for range r.IntN(25) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		check(string(b))
	}
	for _, s := range []string{"nginx", "busybox:1.36", "crash:1", "my-app:v2.0_rc-1"} {
		if _, ok := simpleReference(s); !ok {
			t.Errorf("simpleReference(%q) leaves it to the regular expressions", s)
		}
	}
}
