package conditions

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// The messages are built by hand into one buffer; they must read exactly as
// the kubelet's fmt.Sprintf and strings.Join text, for any names (long
// lists and long names included, past the stack buffers).
func TestMessagesAsKubeletFormatsThem(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.OneOf(rapid.String(), rapid.StringN(0, 300, -1), rapid.SampledFrom([]string{"app-0", "sidecar-1", `a"b`, "é\x00"}))
		// The names of a pod's containers (more than 64 of them at times,
		// past the bits of a posSet), split between init and regular
		// containers, and two sets of their positions.
		n := rapid.IntRange(0, 100).Draw(t, "containers")
		all := rapid.SliceOfN(name, n, n).Draw(t, "names")
		split := rapid.IntRange(0, len(all)).Draw(t, "init containers")
		spec := &v1.PodSpec{}
		for i, n := range all {
			if i < split {
				spec.InitContainers = append(spec.InitContainers, v1.Container{Name: n})
			} else {
				spec.Containers = append(spec.Containers, v1.Container{Name: n})
			}
		}
		var n1, n2 []string
		var set1, set2 posSet
		for i, n := range all {
			switch rapid.IntRange(0, 3).Draw(t, fmt.Sprint("in ", i)) {
			case 1:
				n1 = append(n1, n)
				set1.add(i)
			case 2:
				n2 = append(n2, n)
				set2.add(i)
			case 3:
				n1 = append(n1, n)
				set1.add(i)
				n2 = append(n2, n)
				set2.add(i)
			}
		}
		var want []string
		if len(n1) > 0 {
			want = append(want, fmt.Sprintf("containers with unknown status: %s", n1))
		}
		if len(n2) > 0 {
			want = append(want, fmt.Sprintf("containers with unready status: %s", n2))
		}
		if got := namesMessage(spec, "containers with unknown status: ", &set1, "containers with unready status: ", &set2); got != strings.Join(want, ", ") {
			t.Fatalf("namesMessage = %q, want %q", got, strings.Join(want, ", "))
		}

		// Readiness gates: missing, not True, True.
		gates := rapid.SliceOfN(name, 0, 30).Draw(t, "gates")
		pod := &v1.Pod{}
		var conds []v1.PodCondition
		for i, g := range gates {
			pod.Spec.ReadinessGates = append(pod.Spec.ReadinessGates, v1.PodReadinessGate{ConditionType: v1.PodConditionType(g)})
			if find(conds, v1.PodConditionType(g)) != nil {
				continue // a repeated gate reads the first condition
			}
			switch rapid.IntRange(0, 2).Draw(t, fmt.Sprint("gate ", i)) {
			case 0: // no condition
			case 1:
				st := v1.ConditionStatus(name.Draw(t, fmt.Sprint("status ", i)))
				if st == v1.ConditionTrue {
					st = v1.ConditionFalse
				}
				conds = append(conds, v1.PodCondition{Type: v1.PodConditionType(g), Status: st})
			case 2:
				conds = append(conds, v1.PodCondition{Type: v1.PodConditionType(g), Status: v1.ConditionTrue})
			}
		}
		// The kubelet's loop (GeneratePodReadyCondition), the oracle.
		var msgs []string
		for _, g := range pod.Spec.ReadinessGates {
			switch c := find(conds, g.ConditionType); {
			case c == nil:
				msgs = append(msgs, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", string(g.ConditionType)))
			case c.Status != v1.ConditionTrue:
				msgs = append(msgs, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", string(g.ConditionType), c.Status))
			}
		}
		got := ready(pod, nil, conds, v1.PodCondition{Status: v1.ConditionTrue}, features.V1_37())
		if want := strings.Join(msgs, ", "); got.Message != want {
			t.Fatalf("Ready message = %q, want %q", got.Message, want)
		}
	})
}
