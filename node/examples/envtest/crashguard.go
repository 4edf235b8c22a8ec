// Package example shows kubeletlogic's fake nodes in a controller-runtime
// envtest suite: envtest brings an API server and etcd but no kubelet, so a
// pod never starts, never crashes and never restarts, and a controller that
// reacts to what a kubelet writes cannot be tested there. With
// node.NewStandalone running in the test process, the pods bound to its
// nodes live as on a kubelet v1.37.2: containers start, exit, restart after
// the kubelet's back-off, show CrashLoopBackOff, and the status and Events
// are the kubelet's.
//
// CrashGuard is the controller under test, a stand-in for the user's own:
// it annotates a pod once one of its containers has restarted Threshold
// times. crashguard_test.go is the suite (see ../../README.md, "Use it with
// envtest").
package example

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Annotation is what CrashGuard writes on a pod whose container restarted
// Threshold times: "<container>=<restartCount>", as it saw it.
const Annotation = "crashguard.example.com/restarted"

// CrashGuard is a small pod controller: when a container of a pod reports
// a restartCount of at least Threshold, it annotates the pod (once).
type CrashGuard struct {
	Client    client.Client
	Threshold int32
}

// Reconcile annotates the pod named by req if one of its containers (init,
// regular or ephemeral) restarted Threshold times or more.
func (g *CrashGuard) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var pod corev1.Pod
	if err := g.Client.Get(ctx, req.NamespacedName, &pod); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if _, done := pod.Annotations[Annotation]; done {
		return ctrl.Result{}, nil
	}
	all := append(append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...),
		pod.Status.ContainerStatuses...), pod.Status.EphemeralContainerStatuses...)
	for _, cs := range all {
		if cs.RestartCount < g.Threshold {
			continue
		}
		patch := client.MergeFrom(pod.DeepCopy())
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[Annotation] = fmt.Sprintf("%s=%d", cs.Name, cs.RestartCount)
		return ctrl.Result{}, g.Client.Patch(ctx, &pod, patch)
	}
	return ctrl.Result{}, nil
}

// SetupWithManager registers the controller: it reconciles every pod.
func (g *CrashGuard) SetupWithManager(mgr ctrl.Manager) error {
	if g.Threshold < 1 {
		return fmt.Errorf("crashguard: threshold %d: want at least 1", g.Threshold)
	}
	return ctrl.NewControllerManagedBy(mgr).Named("crashguard").For(&corev1.Pod{}).Complete(g)
}
