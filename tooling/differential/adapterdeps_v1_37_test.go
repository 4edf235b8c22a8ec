//go:build kubeletlogic_overlay

package differential

// Imported only by the adapters of this kubelet version (see
// adapterdeps_test.go).
import _ "github.com/google/cadvisor/lib/model"
