//go:build kubeletlogic_overlay

package differential

import "github.com/kubeletlogic/kubeletlogic/features"

// kubeletVersion is the kubelet this module compiles against (go.mod:
// k8s.io/kubernetes v1.36.3). See ../setup.sh (KUBELET=1.36).
const kubeletVersion = features.V1_36_3
