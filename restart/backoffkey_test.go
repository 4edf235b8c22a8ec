package restart

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// backOffKeyJoined is GetBackoffKey as the kubelet writes it: FNV-64a over
// the parts joined by "/", resources in their generated text. BackOffKey
// hashes in place and must give the same key.
func backOffKeyJoined(pod *v1.Pod, c *v1.Container) string {
	h := fnv.New64a()
	h.Write([]byte(strings.Join([]string{
		pod.Name, pod.Namespace, string(pod.UID), c.Name, c.Image, c.Resources.String(),
	}, "/")))
	return strconv.FormatUint(h.Sum64(), 16)
}

func drawResourceList(t *rapid.T, label string) v1.ResourceList {
	switch rapid.IntRange(0, 2).Draw(t, label+" shape") {
	case 0:
		return nil
	case 1:
		return v1.ResourceList{}
	}
	l := v1.ResourceList{}
	for i := range rapid.IntRange(1, 3).Draw(t, label+" entries") {
		name := rapid.SampledFrom([]v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, "ephemeral-storage", "example.com/gpu"}).Draw(t, fmt.Sprint(label, " name ", i))
		l[name] = resource.MustParse(rapid.SampledFrom([]string{"0", "1", "100m", "1Gi", "128Mi", "1e3", "2.5"}).Draw(t, fmt.Sprint(label, " value ", i)))
	}
	return l
}

// TestBackOffKeyIsJoinedHash checks BackOffKey against the joined form on
// every shape of input: names with "/" and multi-byte text, resources
// nil, empty, set, and claims.
func TestBackOffKeyIsJoinedHash(t *testing.T) {
	text := rapid.SampledFrom([]string{"", "web", "a/b", "default", "ü-1", "busybox:1.36", "/"})
	rapid.Check(t, func(t *rapid.T) {
		pod := &v1.Pod{}
		pod.Name, pod.Namespace = text.Draw(t, "name"), text.Draw(t, "namespace")
		pod.UID = types.UID(text.Draw(t, "uid"))
		c := &v1.Container{Name: text.Draw(t, "container"), Image: text.Draw(t, "image")}
		c.Resources.Limits = drawResourceList(t, "limits")
		c.Resources.Requests = drawResourceList(t, "requests")
		switch rapid.IntRange(0, 2).Draw(t, "claims") {
		case 1:
			c.Resources.Claims = []v1.ResourceClaim{}
		case 2:
			c.Resources.Claims = []v1.ResourceClaim{{Name: text.Draw(t, "claim")}}
		}
		if got, want := BackOffKey(pod, c), backOffKeyJoined(pod, c); got != want {
			t.Fatalf("BackOffKey = %s, joined hash %s (resources %s)", got, want, c.Resources.String())
		}
	})
	if got, want := BackOffKey(nil, nil), backOffKeyJoined(&v1.Pod{}, &v1.Container{}); got != want {
		t.Errorf("BackOffKey(nil, nil) = %s, joined hash %s", got, want)
	}
}

// TestBackOffKeyAllocs guards BackOffKey's allocations for a container
// without resources: the key's text only.
func TestBackOffKeyAllocs(t *testing.T) {
	pod := &v1.Pod{}
	pod.Name, pod.Namespace, pod.UID = "web", "default", "uid-1"
	c := &v1.Container{Name: "app", Image: "busybox"}
	if n := testing.AllocsPerRun(20, func() { BackOffKey(pod, c) }); n > 1 {
		t.Errorf("BackOffKey allocates %v times, budget 1", n)
	}
}
