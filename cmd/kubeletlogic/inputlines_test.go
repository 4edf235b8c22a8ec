package main

import (
	"strings"
	"testing"
)

// An error whose line is not known names the file alone: a missing file
// reads "FILE: no such file or directory", never "FILE:0: ...".
func TestInputErrorWithoutLine(t *testing.T) {
	const f = "testdata/bad/nosuch.yaml"
	_, errOut, code := runCmd([]string{"explain", "-f", f}, "")
	if code != exitBadInput {
		t.Errorf("exit %d, want %d", code, exitBadInput)
	}
	if want := "kubeletlogic explain: " + f + ": no such file or directory\n"; errOut != want {
		t.Errorf("stderr:\n%q\nwant\n%q", errOut, want)
	}
}

// The objects of a List that hold no pod are each named with the line of
// their own item, the first item as well as the later ones (not the
// List's "kind: List").
func TestListSkipsNamedWithItemLine(t *testing.T) {
	const in = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings}
- apiVersion: v1
  kind: Pod
  metadata: {name: web}
  spec: {containers: [{name: app, image: nginx}]}
- apiVersion: v1
  kind: Service
  metadata: {name: web}
`
	out, errOut, code := runCmd([]string{"explain", "-f", "-"}, in)
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	if !strings.Contains(out, "Pod web, from Pod/web (List item 1) in <stdin>") {
		t.Errorf("stdout lacks the List's pod:\n%s", out)
	}
	want := "kubeletlogic explain: <stdin>:4: ConfigMap/settings holds no pod: skipped\n" +
		"kubeletlogic explain: <stdin>:11: Service/web holds no pod: skipped\n"
	if errOut != want {
		t.Errorf("stderr:\n%s\nwant\n%s", errOut, want)
	}
}

// A pod that is a List's first item is said to be item 0.
func TestListFirstItemNamed(t *testing.T) {
	const in = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: web}\n  spec: {containers: [{name: app, image: nginx}]}\n"
	out, errOut, code := runCmd([]string{"explain", "-f", "-"}, in)
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	if !strings.Contains(out, "Pod web, from Pod/web (List item 0) in <stdin>\n") {
		t.Errorf("stdout does not name item 0:\n%s", out)
	}
}

// Each kind of manifest error names the line a person would go to, and the
// kind of object it is in; an error placed on no field names the object's
// first line.
func TestManifestErrorLines(t *testing.T) {
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers: [{name: c, image: i}]\n"
	for _, tc := range []struct {
		name, in, want string
	}{
		{"unknown field in a Deployment", "", "testdata/bad/unknown-field.yaml:9: Deployment: unknown field \"restartPolicey\" (the Kubernetes API has no such field here; check its spelling and indentation)"},
		{"a workload without a template, second document",
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {}\n",
			"<stdin>:5: Deployment: no pod template (its template has no containers)"},
		{"unknown field after a leading ---",
			"---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containerz: []\n",
			"<stdin>:6: Pod: unknown field \"containerz\" (the Kubernetes API has no such field here; check its spelling and indentation)"},
		// A bad quantity is found past a good emptyDir sizeLimit.
		{"bad quantity after a good sizeLimit",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers: [{name: c, image: i}]\n  volumes:\n  - name: scratch\n    emptyDir: {sizeLimit: 1Gi}\n  - name: data\n    ephemeral:\n      volumeClaimTemplate:\n        spec:\n          accessModes: [ReadWriteOnce]\n          resources:\n            requests: {storage: lots}\n",
			"<stdin>:15: Pod: spec.volumes[1].ephemeral.volumeClaimTemplate.spec.resources.requests.storage: \"lots\" is not a quantity (like 500m, 1, 128Mi)"},
		{"bad sizeLimit",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers: [{name: c, image: i}]\n  volumes:\n  - name: scratch\n    emptyDir: {sizeLimit: lots}\n",
			"<stdin>:8: Pod: spec.volumes[0].emptyDir.sizeLimit: \"lots\" is not a quantity (like 500m, 1, 128Mi)"},
		// Keys nested in a flow mapping are on the line of their parent:
		// the cpu limit is found there, not in the next container.
		{"bad quantity in a flow mapping",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - name: a\n    image: i\n    resources: {limits: {cpu: lots}}\n  - name: b\n    image: i\n    resources:\n      limits:\n        cpu: 1\n",
			"<stdin>:8: Pod: spec.containers[0].resources.limits.cpu: \"lots\" is not a quantity (like 500m, 1, 128Mi)"},
		// The cpu limit is found below "limits:", not in the requests
		// just above it.
		{"bad cpu limit below a cpu request",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - name: a\n    image: i\n    resources:\n      requests:\n        cpu: 1\n      limits:\n        cpu: lots\n",
			"<stdin>:12: Pod: spec.containers[0].resources.limits.cpu: \"lots\" is not a quantity (like 500m, 1, 128Mi)"},
		// The YAML reader keeps a "---" it meets before any other line of
		// a document: the parser's line 1 is then that "---".
		{"YAML syntax after a leading ---",
			"---\nkind: Pod\nmetadata:\n  name: a\n   x: 1\n",
			"<stdin>:5: not valid YAML: mapping values are not allowed in this context"},
		{"YAML syntax after a doubled ---",
			pod + "---\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n   x: 1\n",
			"<stdin>:12: not valid YAML: mapping values are not allowed in this context"},
		// A third "---" ends the document the second began: the reader
		// counts it, empty as it is.
		{"unknown field after a tripled ---",
			pod + "---\n---\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec:\n  containerz: []\n",
			"<stdin>:13: Pod: unknown field \"containerz\" (the Kubernetes API has no such field here; check its spelling and indentation)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"explain", "-f", "-"}
			if tc.in == "" {
				args[2] = "testdata/bad/unknown-field.yaml"
			}
			_, errOut, code := runCmd(args, tc.in)
			if code != exitBadInput {
				t.Errorf("exit %d, want %d", code, exitBadInput)
			}
			if want := "kubeletlogic explain: " + tc.want + "\n"; errOut != want {
				t.Errorf("stderr:\n%s\nwant\n%s", errOut, want)
			}
		})
	}
}

// In a List written in block style, the object skipped is named with the
// line of its own item (here a dash alone on its line): the lists inside an
// item (its containers), the blank lines and comments between items are
// not items and do not end the list.
func TestListSkipsNamedPastNestedLists(t *testing.T) {
	const in = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: web}
  spec:
    containers:
    - name: app
      image: nginx

# the Service in front of it
-
  apiVersion: v1
  kind: Service
  metadata: {name: web}
`
	_, errOut, code := runCmd([]string{"explain", "-f", "-"}, in)
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	if want := "kubeletlogic explain: <stdin>:13: Service/web holds no pod: skipped\n"; errOut != want {
		t.Errorf("stderr:\n%s\nwant\n%s", errOut, want)
	}
}
