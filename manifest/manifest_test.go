package manifest

import (
	"os"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestReadKubectlPod(t *testing.T) {
	data, err := os.ReadFile("testdata/kubectl-pod.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pod, err := Pod(data)
	if err != nil {
		t.Fatal(err)
	}
	if pod.Name != "web-0" || pod.Namespace != "shop" || pod.UID != "6f1c2d4e-0000-4000-8000-000000000001" {
		t.Errorf("metadata = %s/%s %s", pod.Namespace, pod.Name, pod.UID)
	}
	if got := pod.Spec.Containers[0].Resources.Limits[v1.ResourceCPU]; got.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("cpu limit = %v, want 1 (a YAML number)", got.String())
	}
	st := pod.Status.InitContainerStatuses
	if len(st) != 1 || st[0].RestartCount != 3 || st[0].State.Waiting == nil || st[0].State.Waiting.Reason != "CrashLoopBackOff" {
		t.Errorf("init status = %+v", st)
	}
	if lt := st[0].LastTerminationState.Terminated; lt == nil || lt.ExitCode != 1 || lt.FinishedAt.IsZero() {
		t.Errorf("lastState = %+v", st[0].LastTerminationState)
	}
}

func TestReadJSON(t *testing.T) {
	pod, err := Pod([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if pod.Name != "p" || len(pod.Spec.Containers) != 1 {
		t.Errorf("pod = %+v", pod)
	}
}

const workloads = `# several documents, as kubectl apply -f takes them
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: nginx}]
---
# a comment-only document is skipped
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never
      initContainers: [{name: proxy, image: envoy, restartPolicy: Always}]
      containers: [{name: job, image: busybox}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: backup, image: busybox}]
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: a}
  spec: {containers: [{name: c, image: i}]}
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db}
  spec:
    selector: {matchLabels: {app: db}}
    serviceName: db
    template:
      metadata: {name: db-0, labels: {app: db}}
      spec: {containers: [{name: db, image: postgres}]}
`

func TestReadWorkloads(t *testing.T) {
	items, err := Read(strings.NewReader(workloads))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.Source.String()+" -> "+it.Pod.Namespace+"/"+it.Pod.Name+" "+string(it.Pod.Spec.RestartPolicy))
	}
	want := []string{
		"document 0: Deployment/web -> shop/web ",
		"document 2: Job/migrate -> /migrate Never",
		"document 3: CronJob/nightly -> /nightly OnFailure",
		"document 4, item 0: Pod/a -> /a ",
		"document 4, item 1: StatefulSet/db -> /db-0 ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p := items[1].Pod; len(p.Spec.InitContainers) != 1 || p.Spec.InitContainers[0].RestartPolicy == nil {
		t.Errorf("job's native sidecar lost: %+v", p.Spec.InitContainers)
	}
	if items[0].Pod.Labels["app"] != "web" {
		t.Errorf("template labels lost: %v", items[0].Pod.Labels)
	}
}

// TestReadErrors: each mistake is an error naming where it is.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"typo in a field", "apiVersion: v1\nkind: Pod\nspec:\n  restartPolicey: Never\n", `document 0: Pod: json: unknown field "restartPolicey"`},
		{"typo in a workload", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: i, imagePulPolicy: Never}]\n", `document 0: Deployment: json: unknown field "imagePulPolicy"`},
		{"no kind", "metadata: {name: p}\n", "no kind"},
		{"a kind without pods", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n", `kind "Service" holds no pod`},
		{"empty", "# nothing\n", "no pod found"},
		{"two pods where one is wanted", "kind: Pod\n---\nkind: Pod\n", "2 pods found"},
		{"bad yaml", "kind: Pod\nspec: [\n", "document 0"},
		{"wrong type", "kind: Pod\nspec: {terminationGracePeriodSeconds: soon}\n", "document 0: Pod"},
		{"cronjob without template", "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\n", "no pod template"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Pod([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// ReadSkipping takes what kubectl apply -f takes: objects that hold no pod
// (a Service, a ConfigMap) beside workloads are skipped and named, in
// documents and in List items; Read still refuses them.
func TestReadSkipping(t *testing.T) {
	const bundle = `apiVersion: v1
kind: ServiceAccount
metadata: {name: sa}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers: [{name: c, image: i}]
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: svc}
- apiVersion: v1
  kind: Pod
  metadata: {name: p}
  spec:
    containers: [{name: c, image: i}]
`
	items, skipped, err := ReadSkipping(strings.NewReader(bundle))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.Source.String())
	}
	if want := "document 2: Deployment/web; document 3, item 1: Pod/p"; strings.Join(got, "; ") != want {
		t.Errorf("pods from %q, want %q", strings.Join(got, "; "), want)
	}
	got = nil
	for _, s := range skipped {
		got = append(got, s.String())
	}
	if want := "document 0: ServiceAccount/sa; document 1: ConfigMap/cm; document 3, item 0: Service/svc"; strings.Join(got, "; ") != want {
		t.Errorf("skipped %q, want %q", strings.Join(got, "; "), want)
	}
	if _, err := Read(strings.NewReader(bundle)); err == nil || !strings.Contains(err.Error(), `kind "ServiceAccount" holds no pod`) {
		t.Errorf("Read: error %v, want the ServiceAccount refused", err)
	}
	// No pod at all: the error Read gives, for the first object.
	_, _, err = ReadSkipping(strings.NewReader("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\nkind: ConfigMap\nmetadata: {name: c}\n"))
	if err == nil || !strings.Contains(err.Error(), `document 0: Service/s: kind "Service" holds no pod`) {
		t.Errorf("no pod: error %v", err)
	}
	// Other errors are errors still.
	_, _, err = ReadSkipping(strings.NewReader("kind: Service\n---\nkind: Pod\nspec:\n  restartPolicey: Never\n"))
	if err == nil || !strings.Contains(err.Error(), `unknown field "restartPolicey"`) {
		t.Errorf("typo beside a Service: error %v", err)
	}
}
