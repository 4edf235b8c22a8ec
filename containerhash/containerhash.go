// Package containerhash computes the hash the kubelet stores on every
// container it creates (the io.kubernetes.container.hash annotation) and
// compares with the spec to decide that a container's definition changed.
package containerhash

import (
	"encoding/json"
	"strconv"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Of returns the kubelet's hash of c. It mirrors HashContainer in
// pkg/kubelet/container/helpers.go of kubelet v1.37.2: only the name and
// the image take part. The kubelet encodes them as the JSON object
// {"image":…,"name":…}, renders that byte slice as text with go-spew
// (k8s.io/utils/dump.ForHash: "([]uint8)[" then each byte in decimal,
// separated by single spaces, then "]"), and hashes the text with 32-bit
// FNV-1a. Of writes the same bytes without go-spew. A nil container hashes
// like one with an empty name and image.
func Of(c *v1.Container) uint64 {
	var name, image string
	if c != nil {
		name, image = c.Name, c.Image
	}
	var buf [256]byte
	js := buf[:0]
	if plain(name) && plain(image) {
		// The bytes json.Marshal writes when neither string needs escaping.
		js = append(js, `{"image":"`...)
		js = append(js, image...)
		js = append(js, `","name":"`...)
		js = append(js, name...)
		js = append(js, `"}`...)
	} else {
		// encoding/json writes map keys sorted and escapes exactly as the
		// kubelet's json.Marshal does; a map of strings cannot fail to
		// encode.
		js, _ = json.Marshal(map[string]string{"name": name, "image": image})
	}

	// FNV-1a over the go-spew text, fed piece by piece without building
	// the text.
	h := add(offset32, "([]uint8)[")
	for i, b := range js {
		if i > 0 {
			h = (h ^ ' ') * prime32
		}
		h = add(h, decimal[b])
	}
	h = (h ^ ']') * prime32
	return uint64(h)
}

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
