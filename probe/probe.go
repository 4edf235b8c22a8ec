// Package probe holds the one type every package shares for probe results:
// what the kubelet's probe results managers (pkg/kubelet/prober/results)
// hold for a container instance.
package probe

// Result is a probe result. The empty Result means the manager holds no
// entry for the instance, which the kubelet reads differently from
// Unknown.
type Result string

// The probe results.
const (
	NoResult Result = ""
	Success  Result = "Success"
	Failure  Result = "Failure"
	Unknown  Result = "Unknown"
)
