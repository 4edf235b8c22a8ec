package apistatus

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/vocab"
)

func TestOptionsValidate(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{InitContainers: []v1.Container{{Name: "setup"}}, Containers: []v1.Container{{Name: "app"}}}}
	pod.Name = "web"
	if err := (Options{StartFailures: map[string]vocab.StartFailure{"setup": {}, "app": {}}}).Validate(pod); err != nil {
		t.Fatalf("valid: %v", err)
	}
	err := (Options{StartFailures: map[string]vocab.StartFailure{"stup": {Reason: "CrashLoopBackOff"}}}).Validate(pod)
	if err == nil || !strings.Contains(err.Error(), `StartFailures["stup"]: "stup" is not a container of pod web (did you mean "setup"?)`) {
		t.Errorf("misspelt: %v", err)
	}
	if (Options{StartFailures: map[string]vocab.StartFailure{"x": {}}}).Validate(nil) != nil {
		t.Error("nil pod")
	}
}
