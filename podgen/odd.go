package podgen

import (
	"strings"

	"pgregory.net/rapid"
)

// OddImagePrefix starts every image Pod draws outside the pool: an image
// whose text carries characters the container hash escapes.
const OddImagePrefix = "registry.example/odd-"

// oddPieces are the character classes encoding/json (and therefore the
// kubelet's container hash, see package containerhash) treats specially,
// plus plain text around them: HTML-escaped < > &, the quote and the
// backslash, U+2028 and U+2029, control characters (those with a short
// escape and those without), DEL (above the printable range yet written
// unescaped), non-ASCII text, U+FFFD, and invalid UTF-8 (a stray
// continuation byte, a truncated sequence, 0xff), which encoding/json
// writes as U+FFFD. An API server accepts all of them in an image,
// command, argument, env value or working directory: only an image's
// leading and trailing white space is rejected, and a client that speaks
// protobuf passes invalid UTF-8 through.
var oddPieces = []string{
	"<", ">", "&", `"`, `\`, "\u2028", "\u2029",
	"\x00", "\x01", "\b", "\f", "\n", "\r", "\t", "\x1f", "\x7f",
	"é", "日本", "\U0001F600", "\ufffd",
	"\x80", "\xc3", "\xff",
	"a", "-", "/", ":", ".", " ",
}

// oddText draws a short text of oddPieces with at least one piece that is
// not plain printable ASCII.
func oddText(t *rapid.T, label string) string {
	pieces := rapid.SliceOfN(rapid.SampledFrom(oddPieces), 1, 4).Draw(t, label)
	s := strings.Join(pieces, "")
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || strings.IndexByte(`<>&"\`, c) >= 0 {
			return s
		}
	}
	return s + "<"
}

// oddImage draws an image outside the pool: OddImagePrefix, odd text, and
// a tag, so that it never starts or ends with white space.
func oddImage(t *rapid.T, label string) string {
	return OddImagePrefix + oddText(t, label) + ":1"
}
