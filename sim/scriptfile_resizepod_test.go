package sim

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestReadScriptResizePod: resizePod reads into Action.ResizePod, alone or
// with resize in the same action (one resize request); what is wrong with
// it is an error on its line: a resource other than cpu and memory, no
// request or limit, a pod the file is for without pod-level resources,
// resizePod beside another kind of action.
func TestReadScriptResizePod(t *testing.T) {
	q := resource.MustParse
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}},
		Resources: &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: q("200m")}, Limits: v1.ResourceList{v1.ResourceCPU: q("200m")}}})
	text := `actions:
- at: 30s
  resizePod:
    requests: {cpu: 300m}
    limits: {cpu: 300m}
- {at: 40s, resize: {app: {requests: {cpu: 100m}}}, resizePod: {requests: {memory: 64Mi}}}
`
	f, err := ReadScript([]byte(text), []*v1.Pod{pod})
	if err != nil {
		t.Fatal(err)
	}
	a, b := f.Actions[0].Action(), f.Actions[1].Action()
	if a.ResizePod == nil || a.ResizePod.Limits.Cpu().String() != "300m" || a.Resize != nil || a.String() != "resize pod-level requests.cpu=300m,limits.cpu=300m" {
		t.Errorf("actions[0]: %s (%+v)", a, a.ResizePod)
	}
	if b.ResizePod == nil || b.Resize == nil || b.String() != "resize app requests.cpu=100m; pod-level requests.memory=64Mi" {
		t.Errorf("actions[1]: %s", b)
	}
	for _, tc := range []struct {
		text string
		pods []*v1.Pod
		line int
		path string
		msg  string
	}{
		{"actions:\n- at: 5s\n  resizePod:\n    limits:\n      hugepages-2Mi: 2Mi\n", []*v1.Pod{pod}, 5, "actions[0].resizePod.limits.hugepages-2Mi", "only cpu and memory can be resized at pod level"},
		{"actions:\n- {at: 5s, delete: true}\n- {at: 6s, resizePod: {}}\n", []*v1.Pod{pod}, 3, "actions[1].resizePod", "no request or limit"},
		{"actions:\n- {at: 5s, delete: true}\n- {at: 6s, resizePod: {requests: {cpu: 1}}}\n", append([]*v1.Pod{pod}, scriptPods()...), 3, "actions[1].resizePod", "pod web has no pod-level resources (spec.resources)"},
		{"actions:\n- {at: 6s, killSandbox: true, resizePod: {requests: {cpu: 1}}}\n", []*v1.Pod{pod}, 2, "actions[0]", "resize (and/or resizePod)"},
		{"actions:\n- {at: 6s, resizepod: {requests: {cpu: 1}}}\n", []*v1.Pod{pod}, 2, "actions[0].resizepod", `(did you mean "resizePod"?)`},
	} {
		_, err := ReadScript([]byte(tc.text), tc.pods)
		var se *ScriptError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v, want a *ScriptError", tc.text, err)
			continue
		}
		if se.Line != tc.line || se.Path != tc.path || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%q:\n got line %d path %q: %s\nwant line %d path %q: …%s…", tc.text, se.Line, se.Path, se.Msg, tc.line, tc.path, tc.msg)
		}
	}
}
