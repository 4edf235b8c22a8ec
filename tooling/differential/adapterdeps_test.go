//go:build kubeletlogic_overlay

package differential

// Packages imported only by the overlay adapters in _adapters/. The go tool
// never reads _adapters/, so without these imports `go mod tidy` and
// `go mod vendor` would leave them out and the overlay build would fail.
import (
	_ "go.opentelemetry.io/otel/trace/noop"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/apimachinery/pkg/api/resource"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1"
	_ "k8s.io/client-go/tools/record"
	_ "k8s.io/client-go/util/flowcontrol"
	_ "k8s.io/cri-api/pkg/apis/testing"
	_ "k8s.io/klog/v2"
	_ "k8s.io/kubernetes/pkg/kubelet"
	_ "k8s.io/kubernetes/pkg/kubelet/allocation/state"
	_ "k8s.io/kubernetes/pkg/kubelet/apis/config"
	_ "k8s.io/kubernetes/pkg/kubelet/container"
	_ "k8s.io/kubernetes/pkg/kubelet/container/testing"
	_ "k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	_ "k8s.io/kubernetes/pkg/kubelet/prober/results"
)
