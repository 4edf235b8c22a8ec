//go:build kubeletlogic_overlay

package differential

import "github.com/kubeletlogic/kubeletlogic/features"

// kubeletVersion is the kubelet this module compiles against (go.mod:
// k8s.io/kubernetes v1.35.4). See ../setup.sh (KUBELET=1.35).
const kubeletVersion = features.V1_35_4
