package node

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// nodeStatusUpdateRetry is the kubelet's number of tries per status update
// (pkg/kubelet/kubelet.go).
const nodeStatusUpdateRetry = 5

// statusReporter is one node's status loop: registration, then the status
// heartbeat (pkg/kubelet/kubelet_node_status.go).
type statusReporter struct {
	s          *Standalone
	spec       NodeSpec
	registered bool
	// lastReport and delay are the kubelet's lastStatusReportTime and
	// delayAfterNodeStatusChange.
	lastReport time.Time
	delay      time.Duration
}

// sync mirrors syncNodeStatus: register first if needed, then update.
func (r *statusReporter) sync(ctx context.Context) {
	if !r.registered {
		if !r.register(ctx) {
			return
		}
	}
	if err := r.update(ctx); err != nil {
		r.s.o.Logf("node %s: %v", r.spec.Name, err)
	}
}

// register mirrors registerWithAPIServer: try every 100 ms doubling to 7 s
// (wall clock) until the node is created or found; false when ctx ended.
func (r *statusReporter) register(ctx context.Context) bool {
	step := 100 * time.Millisecond
	for {
		if !sleep(ctx, step) {
			return false
		}
		step = min(2*step, 7*time.Second)
		if r.tryRegister(ctx, initialNode(r.spec, r.s.o.Features, r.s.o.Clock.Now())) {
			r.registered = true
			return true
		}
	}
}

// tryRegister mirrors tryRegisterWithAPIServer: create the node; if it
// exists, put the kubelet's default labels back (updateDefaultLabels) and
// take it over.
func (r *statusReporter) tryRegister(ctx context.Context, n *v1.Node) bool {
	nodes := r.s.client.CoreV1().Nodes()
	_, err := nodes.Create(ctx, n, metav1.CreateOptions{})
	if err == nil {
		return true
	}
	if !apierrors.IsAlreadyExists(err) {
		r.s.o.Logf("node %s: unable to register: %v", n.Name, err)
		return false
	}
	existing, err := nodes.Get(ctx, n.Name, metav1.GetOptions{})
	if err != nil {
		r.s.o.Logf("node %s: unable to register, error getting the existing node: %v", n.Name, err)
		return false
	}
	orig := existing.DeepCopy()
	changed := false
	for _, k := range []string{v1.LabelHostname, v1.LabelOSStable, v1.LabelArchStable, labelBetaOS, labelBetaArch} {
		if existing.Labels[k] != n.Labels[k] {
			if existing.Labels == nil {
				existing.Labels = map[string]string{}
			}
			existing.Labels[k] = n.Labels[k]
			changed = true
		}
	}
	if changed {
		if _, err := r.patchStatus(ctx, orig, existing); err != nil {
			r.s.o.Logf("node %s: unable to reconcile the existing node: %v", n.Name, err)
			return false
		}
	}
	return true
}

// update mirrors updateNodeStatus: up to five tries.
func (r *statusReporter) update(ctx context.Context) error {
	for i := range nodeStatusUpdateRetry {
		err := r.tryUpdate(ctx)
		if err == nil {
			return nil
		}
		r.s.o.Logf("node %s: error updating node status (try %d): %v", r.spec.Name, i+1, err)
	}
	return fmt.Errorf("update node status exceeds retry count")
}

// tryUpdate mirrors tryUpdateNodeStatus: compute the status; patch it when
// it changed (heartbeat times aside) or when the report period, plus the
// random delay drawn after a change or the first report, has passed. (The
// kubelet reads the node from its informer on the first try and from the
// API server on retries; this reads the API server every time.)
func (r *statusReporter) tryUpdate(ctx context.Context) error {
	orig, err := r.s.client.CoreV1().Nodes().Get(ctx, r.spec.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("error getting node %q: %v", r.spec.Name, err)
	}
	n := orig.DeepCopy()
	labelsMissing := false
	for k, v := range map[string]string{v1.LabelOSStable: r.spec.OS, v1.LabelArchStable: r.spec.Arch} {
		if n.Labels[k] != v {
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			n.Labels[k] = v
			labelsMissing = true
		}
	}
	setNodeStatus(n, r.spec, r.s.o.Features, r.s.o.Clock.Now())
	changed := nodeStatusHasChanged(&orig.Status, &n.Status) || labelsMissing
	if !changed && !r.periodExpired() {
		return nil
	}
	if changed || r.lastReport.IsZero() {
		r.delay = time.Duration(float64(r.s.o.StatusReportFrequency) * (-0.5 + r.s.rand01()))
	} else {
		r.delay = 0
	}
	if _, err := r.patchStatus(ctx, orig, n); err != nil {
		return err
	}
	r.lastReport = r.s.o.Clock.Now()
	return nil
}

// periodExpired mirrors isUpdateStatusPeriodExpired.
func (r *statusReporter) periodExpired() bool {
	return r.s.o.Clock.Since(r.lastReport) >= r.s.o.StatusReportFrequency+r.delay
}

// patchStatus mirrors component-helpers node/util/status.go:
// PatchNodeStatus: a two-way strategic merge patch from old to new (the
// spec held at old's), sent to the status subresource; changed addresses
// are replaced whole (fixupPatchForNodeStatusAddresses), since the
// addresses' merge key would merge them.
func (r *statusReporter) patchStatus(ctx context.Context, old, cur *v1.Node) (*v1.Node, error) {
	oldData, err := json.Marshal(old)
	if err != nil {
		return nil, err
	}
	replaceAddresses := len(old.Status.Addresses) > 0 && !apiequality.Semantic.DeepEqual(old.Status.Addresses, cur.Status.Addresses)
	diff := cur.DeepCopy()
	diff.Spec = old.Spec
	if replaceAddresses {
		diff.Status.Addresses = old.Status.Addresses
	}
	newData, err := json.Marshal(diff)
	if err != nil {
		return nil, err
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldData, newData, v1.Node{})
	if err != nil {
		return nil, err
	}
	if replaceAddresses {
		var m map[string]any
		if err := json.Unmarshal(patch, &m); err != nil {
			return nil, err
		}
		st, _ := m["status"].(map[string]any)
		if st == nil {
			st = map[string]any{}
			m["status"] = st
		}
		list := []any{map[string]any{"$patch": "replace"}}
		for _, a := range cur.Status.Addresses {
			list = append(list, a)
		}
		st["addresses"] = list
		if patch, err = json.Marshal(m); err != nil {
			return nil, err
		}
	}
	n, err := r.s.client.CoreV1().Nodes().Patch(ctx, old.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return nil, fmt.Errorf("failed to patch status %q for node %q: %v", patch, old.Name, err)
	}
	return n, nil
}
