package node_test

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// inPlaceResize resizes a running pod through the API server's resize
// subresource, as `kubectl patch --subresource resize` does: cpu (policy
// NotRequired) then memory (policy RestartContainer). The node writes what
// the kubelet writes once it actuated each: the container's resources and
// allocatedResources, observedGeneration up to the pod's generation, no
// resize condition left; the cpu resize keeps the container, the memory
// one restarts it once (restartCount 1).
func inPlaceResize(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	pods := c.CoreV1().Pods("default")
	res := func(cpu, mem string) v1.ResourceRequirements {
		l := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
		return v1.ResourceRequirements{Requests: l, Limits: l.DeepCopy()}
	}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "resized", Namespace: "default"},
		Spec: v1.PodSpec{NodeName: "kp-0", Containers: []v1.Container{{Name: "app", Image: "busybox", Resources: res("100m", "64Mi"),
			ResizePolicy: []v1.ContainerResizePolicy{{ResourceName: v1.ResourceCPU, RestartPolicy: v1.NotRequired},
				{ResourceName: v1.ResourceMemory, RestartPolicy: v1.RestartContainer}}}}},
	}
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, func() (*v1.Pod, bool) {
		p, err := pods.Get(ctx, "resized", metav1.GetOptions{})
		return p, err == nil && p.Status.Phase == v1.PodRunning
	})
	for _, step := range []struct {
		cpu, mem string
		restarts int32
	}{{"200m", "64Mi", 0}, {"200m", "96Mi", 1}} {
		patch := []byte(`{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"` + step.cpu + `","memory":"` + step.mem +
			`"},"limits":{"cpu":"` + step.cpu + `","memory":"` + step.mem + `"}}}]}}`)
		p, err := pods.Patch(ctx, "resized", types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "resize")
		if err != nil {
			t.Fatalf("resize to cpu %s memory %s: %v", step.cpu, step.mem, err)
		}
		gen := p.Generation
		want := res(step.cpu, step.mem)
		got := waitFor(t, 30*time.Second, func() (*v1.Pod, bool) {
			p, err := pods.Get(ctx, "resized", metav1.GetOptions{})
			if err != nil || p.Status.ObservedGeneration < gen || len(p.Status.ContainerStatuses) != 1 {
				return p, false
			}
			cs := p.Status.ContainerStatuses[0]
			for _, cd := range p.Status.Conditions {
				if cd.Type == v1.PodResizeInProgress || cd.Type == v1.PodResizePending {
					return p, false
				}
			}
			return p, cs.Resources != nil && cs.Resources.Requests.Cpu().Cmp(*want.Requests.Cpu()) == 0 &&
				cs.Resources.Limits.Memory().Cmp(*want.Limits.Memory()) == 0 &&
				cs.AllocatedResources.Cpu().Cmp(*want.Requests.Cpu()) == 0 && cs.State.Running != nil && cs.Ready
		})
		cs := got.Status.ContainerStatuses[0]
		if cs.RestartCount != step.restarts {
			t.Errorf("after the resize to cpu %s memory %s: restartCount %d, want %d (cpu NotRequired, memory RestartContainer)",
				step.cpu, step.mem, cs.RestartCount, step.restarts)
		}
		t.Logf("resized to cpu %s memory %s: generation %d observed, restarts %d", step.cpu, step.mem, got.Status.ObservedGeneration, cs.RestartCount)
	}
}

// activeDeadline: a pod with activeDeadlineSeconds 4 whose container runs
// until stopped is failed by the kubelet at the deadline (active_deadline.go:
// reason DeadlineExceeded, its containers killed), counted from the
// status's startTime.
func activeDeadline(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	pods := c.CoreV1().Pods("default")
	ads := int64(4)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "deadline", Namespace: "default"},
		Spec: v1.PodSpec{NodeName: "kp-1", ActiveDeadlineSeconds: &ads, RestartPolicy: v1.RestartPolicyOnFailure,
			Containers: []v1.Container{{Name: "app", Image: "busybox"}}},
	}
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := waitFor(t, 30*time.Second, func() (*v1.Pod, bool) {
		p, err := pods.Get(ctx, "deadline", metav1.GetOptions{})
		return p, err == nil && p.Status.Phase == v1.PodFailed
	})
	if p.Status.Reason != "DeadlineExceeded" {
		t.Errorf("phase Failed with reason %q, want DeadlineExceeded", p.Status.Reason)
	}
	if p.Status.StartTime == nil || len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].State.Terminated == nil {
		t.Fatalf("status %+v: want a start time and the container terminated", p.Status)
	}
	// The container was killed at the deadline: it finished 4 s after the
	// start time at the earliest (whole seconds), and within 3 s of it
	// (the sync tick, the relist, the stop).
	fin := p.Status.ContainerStatuses[0].State.Terminated.FinishedAt.Time
	if d := fin.Sub(p.Status.StartTime.Time); d < 3*time.Second || d > 7*time.Second {
		t.Errorf("container finished %s after the pod's start time, want about the 4 s deadline", d)
	}
}
