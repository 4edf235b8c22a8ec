//go:build kubeletlogic_overlay

package differential

// Packages imported only by the apistatus and kubectlstatus adapters and
// tests (see adapterdeps_test.go).
import (
	_ "k8s.io/apimachinery/pkg/util/sets"
	_ "k8s.io/apiserver/pkg/util/feature"
	_ "k8s.io/kubernetes/pkg/apis/core/v1"
	_ "k8s.io/kubernetes/pkg/features"
	_ "k8s.io/kubernetes/pkg/printers"
	_ "k8s.io/kubernetes/pkg/printers/internalversion"
)
