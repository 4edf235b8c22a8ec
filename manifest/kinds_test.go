package manifest

import (
	"fmt"
	"strings"
	"testing"
)

// Every kind that holds a pod is read, each giving its pod with the
// template's spec and the owner's name; a List or PodList gives its items.
func TestReadEveryKind(t *testing.T) {
	spec := "spec: {restartPolicy: OnFailure, containers: [{name: c, image: i}]}"
	tmpl := "metadata: {labels: {app: x}}\n    " + spec
	docs := map[string]string{
		"Pod":                   "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n" + spec + "\n",
		"PodTemplate":           "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: p}\ntemplate:\n    " + tmpl + "\n",
		"ReplicationController": "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: p}\nspec:\n  template:\n    " + tmpl + "\n",
		"Deployment":            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: p}\nspec:\n  template:\n    " + tmpl + "\n",
		"ReplicaSet":            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: p}\nspec:\n  template:\n    " + tmpl + "\n",
		"StatefulSet":           "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: p}\nspec:\n  template:\n    " + tmpl + "\n",
		"DaemonSet":             "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: p}\nspec:\n  template:\n    " + tmpl + "\n",
		"Job":                   "apiVersion: batch/v1\nkind: Job\nmetadata: {name: p}\nspec:\n  template:\n    " + tmpl + "\n",
		"CronJob":               "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: p}\nspec:\n  schedule: '* * * * *'\n  jobTemplate:\n    spec:\n      template:\n        metadata: {labels: {app: x}}\n        " + spec + "\n",
		"List":                  "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  " + spec + "\n",
		"PodList":               "apiVersion: v1\nkind: PodList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  " + spec + "\n",
	}
	for kind, doc := range docs {
		items, err := Read(strings.NewReader(doc))
		if err != nil {
			t.Errorf("%s: %v\n%s", kind, err, doc)
			continue
		}
		if len(items) != 1 {
			t.Errorf("%s: %d items, want 1", kind, len(items))
			continue
		}
		p := items[0].Pod
		got := fmt.Sprintf("%s %s %d", p.Name, p.Spec.RestartPolicy, len(p.Spec.Containers))
		if want := "p OnFailure 1"; got != want {
			t.Errorf("%s: pod %q, want %q", kind, got, want)
		}
	}
}
