// Package containerhash computes the hash the kubelet stores on every
// container it creates (the io.kubernetes.container.hash annotation) and
// compares with the spec to decide that a container's definition changed.
package containerhash

import (
	"encoding/json"
	"hash/fnv"
	"strconv"

	v1 "k8s.io/api/core/v1"
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
	// encoding/json writes map keys sorted and escapes exactly as the
	// kubelet's json.Marshal does; a map of strings cannot fail to encode.
	js, _ := json.Marshal(map[string]string{"name": name, "image": image})

	text := make([]byte, 0, len("([]uint8)[]")+4*len(js))
	text = append(text, "([]uint8)["...)
	for i, b := range js {
		if i > 0 {
			text = append(text, ' ')
		}
		text = strconv.AppendUint(text, uint64(b), 10)
	}
	text = append(text, ']')

	h := fnv.New32a()
	h.Write(text)
	return uint64(h.Sum32())
}

// Changed reports whether a running instance whose stored hash is stored
// was created from a different definition than c (the kubelet's
// containerChanged in pkg/kubelet/kuberuntime/kuberuntime_manager.go). A
// missing annotation reads as 0 and therefore as changed.
func Changed(c *v1.Container, stored uint64) bool {
	return Of(c) != stored
}
