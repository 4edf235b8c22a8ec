//go:build kubeletlogic_overlay

package differential

import "github.com/kubeletlogic/kubeletlogic/features"

// kubeletVersion is the kubelet this module compiles against (go.mod:
// k8s.io/kubernetes v1.37.2). The modules for older kubelets (setup.sh,
// KUBELET=1.36 or 1.35) replace this file with their own.
const kubeletVersion = features.V1_37_2
