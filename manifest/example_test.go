package manifest_test

import (
	"fmt"
	"strings"

	"github.com/kubeletlogic/kubeletlogic/manifest"
)

// A Job manifest: its pod template becomes the pod the kubelet sees.
func ExampleRead() {
	items, err := manifest.Read(strings.NewReader(`
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: batch}
spec:
  template:
    spec:
      restartPolicy: Never
      initContainers: [{name: proxy, image: envoy, restartPolicy: Always}]
      containers: [{name: job, image: busybox}]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	p := items[0].Pod
	fmt.Println(items[0].Source, "->", p.Namespace+"/"+p.Name, p.Spec.RestartPolicy, len(p.Spec.InitContainers), "sidecar")

	_, err = manifest.Pod([]byte("apiVersion: v1\nkind: Pod\nspec: {restartPolicey: Never}\n"))
	fmt.Println(err)
	// Output:
	// document 0: Job/report -> batch/report Never 1 sidecar
	// manifest: document 0: Pod: json: unknown field "restartPolicey"
}
