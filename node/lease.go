package node

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Lease renewal limits of component-helpers apimachinery/lease/controller.go.
const (
	maxLeaseUpdateRetries = 5
	maxLeaseBackoff       = 7 * time.Second
)

// leaseRenewer is one node's lease controller, as the kubelet runs it
// (component-helpers apimachinery/lease/controller.go: controller, with
// pkg/kubelet/util/nodelease.go: SetNodeOwnerFunc as its post-processing).
type leaseRenewer struct {
	s      *Standalone
	name   string
	latest *coordinationv1.Lease
}

// sync mirrors controller.sync: update from the last written lease without
// a GET; when that fails, get or create the lease and update it.
func (l *leaseRenewer) sync(ctx context.Context) {
	if l.latest != nil {
		err := l.retryUpdate(ctx, l.latest)
		if err == nil {
			return
		}
		l.s.o.Logf("node %s: lease update from the last written lease failed, getting it: %v", l.name, err)
	}
	lease, created := l.backoffEnsure(ctx)
	l.latest = lease
	if !created && lease != nil {
		if err := l.retryUpdate(ctx, lease); err != nil {
			l.s.o.Logf("node %s: lease update failed, next try in %s: %v", l.name, l.s.RenewInterval(), err)
		}
	}
}

// backoffEnsure mirrors controller.backoffEnsureLease: ensure until it
// succeeds, sleeping from 200 ms doubling to 7 s on the wall clock.
func (l *leaseRenewer) backoffEnsure(ctx context.Context) (*coordinationv1.Lease, bool) {
	d := 100 * time.Millisecond
	for {
		lease, created, err := l.ensure(ctx)
		if err == nil {
			return lease, created
		}
		d = min(2*d, maxLeaseBackoff)
		l.s.o.Logf("node %s: lease get or create failed, retry in %s: %v", l.name, d, err)
		if !sleep(ctx, d) {
			return nil, false
		}
	}
}

// ensure mirrors controller.ensureLease. A lease that cannot be built (the
// node to own it not found) is not created this time, and that is not an
// error.
func (l *leaseRenewer) ensure(ctx context.Context) (*coordinationv1.Lease, bool, error) {
	leases := l.s.client.CoordinationV1().Leases(v1.NamespaceNodeLease)
	lease, err := leases.Get(ctx, l.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		fresh, err := l.newLease(ctx, nil)
		if err != nil {
			return nil, false, nil
		}
		lease, err := leases.Create(ctx, fresh, metav1.CreateOptions{})
		if err != nil {
			return nil, false, err
		}
		return lease, true, nil
	} else if err != nil {
		return nil, false, err
	}
	return lease, false, nil
}

// retryUpdate mirrors controller.retryUpdateLease: up to five updates, a
// conflict fetching the newer lease first.
func (l *leaseRenewer) retryUpdate(ctx context.Context, base *coordinationv1.Lease) error {
	leases := l.s.client.CoordinationV1().Leases(v1.NamespaceNodeLease)
	for range maxLeaseUpdateRetries {
		next, err := l.newLease(ctx, base)
		if err != nil {
			l.s.o.Logf("node %s: lease not prepared: %v", l.name, err)
			continue
		}
		lease, err := leases.Update(ctx, next, metav1.UpdateOptions{})
		if err == nil {
			l.latest = lease
			return nil
		}
		l.s.o.Logf("node %s: lease update failed: %v", l.name, err)
		if apierrors.IsConflict(err) {
			base, _ = l.backoffEnsure(ctx)
		}
	}
	return fmt.Errorf("failed %d attempts to update lease", maxLeaseUpdateRetries)
}

// newLease mirrors controller.newLease with the kubelet's owner reference
// (SetNodeOwnerFunc): a new lease held by the node, or a copy of base, with
// the duration and renew time set; the owner reference to the Node is
// added while missing, and an error getting the Node is returned with the
// lease.
func (l *leaseRenewer) newLease(ctx context.Context, base *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	var lease *coordinationv1.Lease
	if base == nil {
		holder := l.name
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: l.name, Namespace: v1.NamespaceNodeLease},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder},
		}
	} else {
		lease = base.DeepCopy()
	}
	d := l.s.o.LeaseDurationSeconds
	lease.Spec.LeaseDurationSeconds = &d
	lease.Spec.RenewTime = &metav1.MicroTime{Time: l.s.o.Clock.Now()}
	if len(lease.OwnerReferences) == 0 {
		n, err := l.s.client.CoreV1().Nodes().Get(ctx, l.name, metav1.GetOptions{})
		if err != nil {
			return lease, err
		}
		lease.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: l.name, UID: n.UID}}
	}
	return lease, nil
}
