package runtimestate

import (
	"errors"
	"fmt"
	"sort"
)

// Normalize sorts p's sandboxes and containers into the order the kubelet
// builds them in: sandboxes by attempt descending, then creation time
// descending, then ID ascending; containers by creation time descending.
// Containers created at the same instant keep their relative order (the
// kubelet's own sort leaves such ties in no defined order).
func (p *Pod) Normalize() {
	if p == nil {
		return
	}
	sort.SliceStable(p.Sandboxes, func(i, j int) bool { return sandboxNewer(&p.Sandboxes[i], &p.Sandboxes[j]) })
	sort.SliceStable(p.Containers, func(i, j int) bool {
		return p.Containers[i].CreatedAt.After(p.Containers[j].CreatedAt)
	})
}

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
// containers out of the newest-first order. Decision functions do not call
// Validate: on an invalid Pod they still return without panicking, but
// their answer is the kubelet's answer to a state it never sees.
func (p *Pod) Validate() error {
	if p == nil {
		return nil
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
		switch s.NetworkMode {
		case "", NamespacePod, NamespaceContainer, NamespaceNode, NamespaceTarget:
		default:
			errs = append(errs, fmt.Errorf("sandboxes[%d]: unknown network mode %q", i, s.NetworkMode))
		}
		if i > 0 && sandboxNewer(&s, &p.Sandboxes[i-1]) {
			errs = append(errs, fmt.Errorf("sandboxes[%d] (%s) is newer than sandboxes[%d] (%s): sandboxes must be newest first", i, s.ID, i-1, p.Sandboxes[i-1].ID))
		}
	}
	seenC := map[string]bool{}
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
	}
	return errors.Join(errs...)
}
