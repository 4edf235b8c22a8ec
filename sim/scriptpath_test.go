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

// A list item written as a dash alone on its line, its fields on the lines
// below (valid block YAML), is found by the line numbers of warnings and
// errors: the bare number of actions[1].at is on line 6.
func TestReadScriptLineAfterADashAlone(t *testing.T) {
	pods := []*v1.Pod{apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})}
	text := "actions:\n-\n  at: 2s\n  killContainer: app\n-\n  at: 5\n  killContainer: app\n"
	f, err := sim.ReadScript([]byte(text), pods)
	if err != nil {
		t.Fatal(err)
	}
	w := f.Warnings()
	if len(w) != 1 || w[0].Line != 6 || w[0].Path != "actions[1].at" {
		t.Fatalf("warnings %+v, want one for actions[1].at on line 6", w)
	}
	if got := f.Line("actions[1].killContainer"); got != 7 {
		t.Errorf("Line(actions[1].killContainer) = %d, want 7", got)
	}
}

// A list written in flow style has no item lines: a warning about one of
// its items points at the list's key, not at an item of a list further
// down (the search for items stops where the key's block ends).
func TestReadScriptLineOfAFlowList(t *testing.T) {
	pods := []*v1.Pod{apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})}
	text := "actions: [{at: 5, killContainer: app}]\ncontainers:\n  app:\n    runs:\n    - exitAfter: 1s\n"
	f, err := sim.ReadScript([]byte(text), pods)
	if err != nil {
		t.Fatal(err)
	}
	w := f.Warnings()
	if len(w) != 1 || w[0].Line != 1 || w[0].Path != "actions[0].at" {
		t.Fatalf("warnings %+v, want one for actions[0].at on line 1", w)
	}
}

// An item holding a block list of its own (an ephemeral container's
// command) does not shift the count of the list's items: the warning about
// actions[1].at is on that item's line.
func TestReadScriptLineAfterANestedList(t *testing.T) {
	pods := []*v1.Pod{apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})}
	text := "actions:\n- at: 1s\n  addEphemeral:\n    name: dbg\n    image: busybox\n    command:\n    - sh\n- at: 5\n  killContainer: app\n"
	f, err := sim.ReadScript([]byte(text), pods)
	if err != nil {
		t.Fatal(err)
	}
	w := f.Warnings()
	if len(w) != 1 || w[0].Line != 8 || w[0].Path != "actions[1].at" {
		t.Fatalf("warnings %+v, want one for actions[1].at on line 8", w)
	}
}

// A mapping written in flow style on its key's line has no block below it:
// the search for one of its fields stops at the next sibling, and does not
// take the same field of that sibling's block. The bare number of app's
// exitAfter is on line 2, not on side's exitAfter (line 5).
func TestReadScriptLineOfAFlowMapping(t *testing.T) {
	pods := []*v1.Pod{apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}, {Name: "side", Image: "busybox"}}})}
	text := "containers:\n  app: {runs: [{exitAfter: 5}]}\n  side:\n    runs:\n    - exitAfter: 1s\n"
	f, err := sim.ReadScript([]byte(text), pods)
	if err != nil {
		t.Fatal(err)
	}
	w := f.Warnings()
	if len(w) != 1 || w[0].Line != 2 || w[0].Path != "containers.app.runs[0].exitAfter" {
		t.Fatalf("warnings %+v, want one for containers.app.runs[0].exitAfter on line 2", w)
	}
}

// Line of a field the file does not have is the line of the deepest part
// found: a key at the same indentation as the parent's ends the parent's
// block, so runtime's missing field "app" is not the container app of the
// next top-level key (line 4) but runtime's own line, 1.
func TestScriptLineOfAMissingField(t *testing.T) {
	pods := []*v1.Pod{apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})}
	text := "runtime:\n  createContainer: 1s\ncontainers:\n  app:\n    runs:\n    - exitAfter: 1s\n"
	f, err := sim.ReadScript([]byte(text), pods)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Line("runtime.app"); got != 1 {
		t.Errorf("Line(runtime.app) = %d, want 1", got)
	}
	if got := f.Line("containers.app"); got != 4 {
		t.Errorf("Line(containers.app) = %d, want 4", got)
	}
}

// A list item written in flow style has no fields on lines of its own: the
// search for one of its fields stops at the next item's dash (alone on its
// line or not), and does not take that item's field. The bare number of
// actions[0].at is on line 2, not on actions[1]'s lines.
func TestReadScriptLineOfAFlowItem(t *testing.T) {
	pods := []*v1.Pod{apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}})}
	for _, text := range []string{
		"actions:\n- {at: 5, killContainer: app}\n- at: 2s\n  killContainer: app\n",
		"actions:\n- {at: 5, killContainer: app}\n-\n  at: 2s\n  killContainer: app\n",
	} {
		f, err := sim.ReadScript([]byte(text), pods)
		if err != nil {
			t.Fatal(err)
		}
		w := f.Warnings()
		if len(w) != 1 || w[0].Line != 2 || w[0].Path != "actions[0].at" {
			t.Errorf("%q: warnings %+v, want one for actions[0].at on line 2", text, w)
		}
	}
}
