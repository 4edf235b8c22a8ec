package sim_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// ReadScript holds whole numbers to their field's size: an exit code
// (int32) outside the 32-bit range is refused as such, its least value
// is not; a grace period (int64) of 3e9 seconds is a whole number like
// any other.
func TestReadScriptWholeNumberSizes(t *testing.T) {
	pods := []*v1.Pod{apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})}
	for _, c := range []struct {
		text   string
		want32 bool // refused as "a 32-bit whole number"
	}{
		{"containers:\n  app:\n    runs:\n    - exitAfter: 1s\n      exitCode: 2147483648\n", true},
		{"containers:\n  app:\n    runs:\n    - exitAfter: 1s\n      exitCode: -2147483649\n", true},
		{"containers:\n  app:\n    runs:\n    - exitAfter: 1s\n      exitCode: -2147483648\n", false},
		{"containers:\n  app:\n    runs:\n    - exitAfter: 1s\n      exitCode: 2147483647\n", false},
		{"actions:\n- at: 5s\n  delete: true\n  gracePeriod: 3000000000\n", false},
	} {
		_, err := sim.ReadScript([]byte(c.text), pods)
		got := err != nil && strings.Contains(err.Error(), "a 32-bit whole number")
		if got != c.want32 {
			t.Errorf("%q: error %v; want refused as a 32-bit whole number: %v", c.text, err, c.want32)
		}
	}
}
