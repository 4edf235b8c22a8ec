package kuberuntime

import (
	cadvisorapi "github.com/google/cadvisor/info/v1"

	"k8s.io/apimachinery/pkg/api/resource"
)

// kubeletlogicMachineInfo is the node the adapters' runtime managers run
// on: only its memory capacity is read by the decisions compared. The
// cadvisor package holding MachineInfo moved between kubelet minors, so
// each kubelet version has its own copy of this file.
func kubeletlogicMachineInfo(mem resource.Quantity) *cadvisorapi.MachineInfo {
	return &cadvisorapi.MachineInfo{MemoryCapacity: uint64(mem.Value())}
}
