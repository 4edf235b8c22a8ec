//go:build kubeletlogic_overlay

package differential

// Test libraries the differential suites use; imported here so the module
// keeps requiring them before the first suite that uses them is written.
import (
	_ "github.com/google/go-cmp/cmp"
	_ "pgregory.net/rapid"
)
