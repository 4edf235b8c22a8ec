// Package containerhash computes the hash the kubelet stores on every
// container it creates (the io.kubernetes.container.hash annotation) and
// compares with the spec to decide that a container's definition changed.
package containerhash

import (
	"strconv"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Of returns the kubelet's hash of c. It mirrors HashContainer in
// pkg/kubelet/container/helpers.go of kubelet v1.37.2: only the name and
// the image take part. The kubelet encodes them as the JSON object
// {"image":…,"name":…}, renders that byte slice as text with go-spew
// (k8s.io/utils/dump.ForHash: "([]uint8)[" then each byte in decimal,
// separated by single spaces, then "]"), and hashes the text with 32-bit
// FNV-1a. Of feeds the same bytes to FNV-1a one by one, escaping as
// encoding/json does, without building the JSON or the text: it allocates
// nothing. A nil container hashes like one with an empty name and image.
func Of(c *v1.Container) uint64 {
	var name, image string
	if c != nil {
		name, image = c.Name, c.Image
	}
	// FNV-1a over the go-spew text of the JSON bytes, fed byte by byte
	// without building either (no allocation), from the state after the
	// text's constant start.
	h := imageStart
	h.quoted(image)
	h.raw(`,"name":`)
	h.quoted(name)
	h.raw(`}`)
	return uint64((h.h ^ ']') * prime32)
}

// imageStart is the hash state after go-spew's opening and the JSON bytes
// before the image, the same for every container.
var imageStart = func() spew {
	h := spew{h: add(offset32, "([]uint8)["), first: true}
	h.raw(`{"image":`)
	return h
}()

// spew is FNV-1a over go-spew's text of a byte slice: each byte in
// decimal, separated by single spaces.
type spew struct {
	h     uint32
	first bool
}

// byte hashes one byte of the slice.
func (s *spew) byte(b byte) {
	if !s.first {
		s.h = (s.h ^ ' ') * prime32
	}
	s.first = false
	s.h = add(s.h, decimal[b])
}

// raw hashes the bytes of t.
func (s *spew) raw(t string) {
	for i := 0; i < len(t); i++ {
		s.byte(t[i])
	}
}

// quoted hashes the bytes encoding/json writes for the string t (json.Marshal
// escapes HTML characters): between quotes, t unchanged when plain says so,
// else with encoding/json's escapes (appendString in encoding/json/encode.go).
func (s *spew) quoted(t string) {
	s.byte('"')
	if plain(t) {
		s.raw(t)
		s.byte('"')
		return
	}
	for i := 0; i < len(t); {
		if b := t[i]; b < utf8.RuneSelf {
			switch {
			case b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&':
				s.byte(b)
			case b == '\\' || b == '"':
				s.byte('\\')
				s.byte(b)
			case b == '\b':
				s.raw(`\b`)
			case b == '\f':
				s.raw(`\f`)
			case b == '\n':
				s.raw(`\n`)
			case b == '\r':
				s.raw(`\r`)
			case b == '\t':
				s.raw(`\t`)
			default:
				s.raw(`\u00`)
				s.byte(hex[b>>4])
				s.byte(hex[b&0xF])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(t[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			s.raw(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			s.raw(`\u202`)
			s.byte(hex[r&0xF])
		default:
			s.raw(t[i : i+size])
		}
		i += size
	}
	s.byte('"')
}

const hex = "0123456789abcdef"

// decimal holds the decimal text of every byte value.
var decimal = func() (d [256]string) {
	for i := range d {
		d[i] = strconv.Itoa(i)
	}
	return d
}()

func add(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * prime32
	}
	return h
}

// The 32-bit FNV-1a parameters (hash/fnv).
const (
	offset32 = 2166136261
	prime32  = 16777619
)

// plain reports whether encoding/json writes s between quotes unchanged:
// printable ASCII other than the quote, the backslash and the three
// characters it escapes for HTML.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// Changed reports whether a running instance whose stored hash is stored
// was created from a different definition than c (the kubelet's
// containerChanged in pkg/kubelet/kuberuntime/kuberuntime_manager.go). A
// missing annotation reads as 0 and therefore as changed. This is the
// kubelet's comparison taken literally; the decisions use InstanceChanged.
func Changed(c *v1.Container, stored uint64) bool {
	return Of(c) != stored
}

// InstanceChanged is the kubelet's containerChanged for a runtime-state
// instance: an instance without a Hash (a hand-written state) was created
// from c as it is now, so it has not changed; one with HashMissing reads
// as hash 0, as the kubelet reads a missing annotation, and has changed;
// otherwise its Hash is compared with c's. A nil c or in has not changed.
func InstanceChanged(c *v1.Container, in *runtimestate.Container) bool {
	if c == nil || in == nil || (in.Hash == 0 && !in.HashMissing) {
		return false
	}
	return Changed(c, in.Hash)
}
