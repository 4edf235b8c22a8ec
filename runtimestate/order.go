package runtimestate

import (
	"errors"
	"fmt"
	"sort"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// Normalize sorts p's sandboxes and containers into the order kubelet
// v1.37.2 (and v1.36.3) builds them in: sandboxes by attempt descending,
// then creation time descending, then ID ascending; containers by creation
// time descending. Containers created at the same instant keep their
// relative order (the kubelet's own sort leaves such ties in no defined
// order). NormalizeFor sorts for another kubelet version.
func (p *Pod) Normalize() { p.NormalizeFor(features.V1_37_2) }

// NormalizeFor sorts p as kubelet v builds it. Kubelet v1.35.4 orders
// sandboxes by attempt only (difference D14 of the version notes): ties
// keep the order the runtime listed them in, as the kubelet's sort does
// for the few sandboxes a pod has (Go's sort.Sort is an insertion sort,
// which is stable, below 13 elements). Later versions break ties by
// creation time, then ID.
func (p *Pod) NormalizeFor(v features.Version) {
	if p == nil {
		return
	}
	newer := sandboxNewer
	if v.Minor() == 35 {
		newer = sandboxNewerV135
	}
	sort.SliceStable(p.Sandboxes, func(i, j int) bool { return newer(&p.Sandboxes[i], &p.Sandboxes[j]) })
	sort.SliceStable(p.Containers, func(i, j int) bool {
		return p.Containers[i].CreatedAt.After(p.Containers[j].CreatedAt)
	})
}

// sandboxNewerV135 is v1.35's sandbox order: a higher attempt first.
func sandboxNewerV135(a, b *Sandbox) bool { return a.Attempt > b.Attempt }

func sandboxNewer(a, b *Sandbox) bool {
	if a.Attempt != b.Attempt {
		return a.Attempt > b.Attempt
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID < b.ID
}

// Validate reports what no container runtime can report about a pod: an
// empty or repeated sandbox or container ID, a container without a name, a
// state or namespace mode that is not one of the constants, or sandboxes and
// containers out of the newest-first order of kubelet v1.37.2 (see
// Normalize): by creation time, or, for instances of one container created
// at the same instant (a hand-written state that leaves createdAt out), by
// restart count, a newer instance counting more; a network status both
// reported without an IP (noIP) and absent or with an IP. Decision
// functions do not call Validate: on an invalid Pod they still return
// without panicking, but their answer is the kubelet's answer to a state
// it never sees (an instance listed after an older one of its container is
// not the one they read as the newest). Call Validate on a Pod written in
// Go, or Normalize it when it gives createdAt; FromYAML and FromJSON call
// it. ValidateFor checks the order of another kubelet version.
func (p *Pod) Validate() error { return p.ValidateFor(features.V1_37_2) }

// ValidateFor is Validate with the sandbox order of kubelet v (see
// NormalizeFor).
func (p *Pod) ValidateFor(v features.Version) error {
	if p == nil {
		return nil
	}
	newer := sandboxNewer
	if v.Minor() == 35 {
		newer = sandboxNewerV135
	}
	var errs []error
	seen := map[string]bool{}
	for i, s := range p.Sandboxes {
		switch {
		case s.ID == "":
			errs = append(errs, fmt.Errorf("sandboxes[%d]: empty id", i))
		case seen[s.ID]:
			errs = append(errs, fmt.Errorf("sandboxes[%d]: duplicate id %q", i, s.ID))
		}
		seen[s.ID] = true
		if s.NoIP && s.IP != "" {
			errs = append(errs, fmt.Errorf("sandboxes[%d] (%s): noIP with ip %q", i, s.ID, s.IP))
		}
		if s.NoIP && s.NoNetworkStatus {
			errs = append(errs, fmt.Errorf("sandboxes[%d] (%s): noIP (a network status with no IP) with noNetworkStatus (no network status)", i, s.ID))
		}
		switch s.NetworkMode {
		case "", NamespacePod, NamespaceContainer, NamespaceNode, NamespaceTarget:
		default:
			errs = append(errs, fmt.Errorf("sandboxes[%d]: unknown network mode %q", i, s.NetworkMode))
		}
		if i > 0 && newer(&s, &p.Sandboxes[i-1]) {
			errs = append(errs, fmt.Errorf("sandboxes[%d] (%s) is newer than sandboxes[%d] (%s): sandboxes must be newest first", i, s.ID, i-1, p.Sandboxes[i-1].ID))
		}
	}
	seenC := map[string]bool{}
	newerOf := map[string]int{} // the last instance listed of each name
	for i, c := range p.Containers {
		switch {
		case c.ID == "":
			errs = append(errs, fmt.Errorf("containers[%d]: empty id", i))
		case seenC[c.ID]:
			errs = append(errs, fmt.Errorf("containers[%d]: duplicate id %q", i, c.ID))
		}
		seenC[c.ID] = true
		if c.Name == "" {
			errs = append(errs, fmt.Errorf("containers[%d] (%s): empty name", i, c.ID))
		}
		if c.HashMissing && c.Hash != 0 {
			errs = append(errs, fmt.Errorf("containers[%d] (%s): hashMissing with hash %d", i, c.ID, c.Hash))
		}
		switch c.State {
		case Created, Running, Exited, Unknown:
		default:
			errs = append(errs, fmt.Errorf("containers[%d] (%s): unknown state %q", i, c.ID, c.State))
		}
		if c.RestartCount < 0 {
			errs = append(errs, fmt.Errorf("containers[%d] (%s): negative restartCount %d", i, c.ID, c.RestartCount))
		}
		if i > 0 && c.CreatedAt.After(p.Containers[i-1].CreatedAt) {
			errs = append(errs, fmt.Errorf("containers[%d] (%s) was created after containers[%d] (%s): containers must be newest first", i, c.ID, i-1, p.Containers[i-1].ID))
		}
		// Without creation times (equal: usually both left out), the
		// restart counts of one container's instances tell the order: a
		// new instance counts one more than the newest before it.
		if prev, ok := newerOf[c.Name]; ok && c.CreatedAt.Equal(p.Containers[prev].CreatedAt) && c.RestartCount > p.Containers[prev].RestartCount {
			errs = append(errs, fmt.Errorf("containers[%d] (%s) has restartCount %d, more than containers[%d] (%s) listed before it (%d): instances must be newest first (give createdAt, or list them newest first)", i, c.ID, c.RestartCount, prev, p.Containers[prev].ID, p.Containers[prev].RestartCount))
		}
		newerOf[c.Name] = i
	}
	return errors.Join(errs...)
}
