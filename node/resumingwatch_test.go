package node

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// ResumingPodWatch (a test helper, exported for the node_test package) lists the default namespace's pods matching opts, gives
// each to fn as Modified, then watches them from the list's version and
// gives fn every event, until ctx ends. The watch resumes after an API
// server restart from the last resourceVersion seen, or from a new list
// when that one is too old (410 Gone). TestFaults and TestLoadFaults
// restart the API server under it.
func ResumingPodWatch(ctx context.Context, c kubernetes.Interface, opts metav1.ListOptions, fn func(watch.EventType, *v1.Pod)) {
	list := func() string {
		for ctx.Err() == nil {
			pl, err := c.CoreV1().Pods("default").List(ctx, opts)
			if err == nil {
				for i := range pl.Items {
					fn(watch.Modified, &pl.Items[i])
				}
				return pl.ResourceVersion
			}
			time.Sleep(200 * time.Millisecond)
		}
		return ""
	}
	rv := list()
	go func() {
		for ctx.Err() == nil {
			o := opts
			o.ResourceVersion = rv
			w, err := c.CoreV1().Pods("default").Watch(ctx, o)
			if err != nil {
				time.Sleep(200 * time.Millisecond)
				if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
					rv = list()
				}
				continue
			}
			for ev := range w.ResultChan() {
				if ev.Type == watch.Error {
					if st, ok := ev.Object.(*metav1.Status); ok && st.Code == 410 {
						rv = list()
					}
					break
				}
				p, ok := ev.Object.(*v1.Pod)
				if !ok {
					continue
				}
				rv = p.ResourceVersion
				fn(ev.Type, p)
			}
			w.Stop()
		}
	}()
}
