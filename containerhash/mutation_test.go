package containerhash

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// Every byte value inside a string that also holds a character
// encoding/json escapes, so that the escaping loop (not the plain fast
// path) writes it: the hash is still that of encoding/json plus go-spew
// plus FNV-1a, as the kubelet's HashContainer computes it. A plain string
// alone never reaches that loop, so TestOfMatchesJSONEveryByte does not
// check it for printable bytes.
func TestEscapingPathMatchesJSONEveryByte(t *testing.T) {
	for b := 0; b < 256; b++ {
		for _, escaped := range []string{"<", "\x01", "\"", "\u2028"} {
			for _, s := range []string{escaped + string([]byte{byte(b)}), string([]byte{byte(b)}) + escaped} {
				for _, c := range []*v1.Container{{Name: s, Image: "img"}, {Name: "app", Image: s}} {
					if got, want := Of(c), slowOf(c); got != want {
						t.Errorf("Of(%q, %q) = %#x, want %#x", c.Name, c.Image, got, want)
					}
				}
			}
		}
	}
}
