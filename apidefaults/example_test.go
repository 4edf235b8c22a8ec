package apidefaults_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/validation"
)

// A pod as a user writes it: a name and one container with an image.
// validation.Pod rejects it as the API server never stores it that way;
// after apidefaults.Pod it is the pod the kubelet receives.
func Example() {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: v1.PodSpec{Containers: []v1.Container{{
			Name:  "app",
			Image: "nginx",
			LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{
				HTTPGet: &v1.HTTPGetAction{Port: intstr.FromInt32(8080)},
			}},
		}}},
	}
	fmt.Println("before:", validation.Pod(pod) != nil)

	apidefaults.Pod(pod)
	fmt.Println("after:", validation.Pod(pod))

	c := pod.Spec.Containers[0]
	p := c.LivenessProbe
	fmt.Println("restartPolicy:", pod.Spec.RestartPolicy)
	fmt.Println("terminationGracePeriodSeconds:", *pod.Spec.TerminationGracePeriodSeconds)
	fmt.Println("imagePullPolicy:", c.ImagePullPolicy)
	fmt.Printf("liveness: period %ds timeout %ds success %d failure %d, GET %s%s\n",
		p.PeriodSeconds, p.TimeoutSeconds, p.SuccessThreshold, p.FailureThreshold, p.HTTPGet.Scheme, p.HTTPGet.Path)
	// Output:
	// before: true
	// after: <nil>
	// restartPolicy: Always
	// terminationGracePeriodSeconds: 30
	// imagePullPolicy: Always
	// liveness: period 10s timeout 1s success 1 failure 3, GET HTTP/
}

// PodCopy leaves the pod it is given alone.
func ExamplePodCopy() {
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox:1.36"}}}}
	d := apidefaults.PodCopy(pod)
	fmt.Printf("%q %q\n", pod.Spec.Containers[0].ImagePullPolicy, d.Spec.Containers[0].ImagePullPolicy)
	// Output: "" "IfNotPresent"
}
