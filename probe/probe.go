// Package probe holds the one type every package shares for probe results:
// what the kubelet's probe results managers (pkg/kubelet/prober/results)
// hold for a container instance; and the timing of a probe worker
// (pkg/kubelet/prober/worker.go): when it first probes a container
// instance ([FirstProbe], [EarliestProbe]) and when it commits a result after
// its threshold ([Commit], [ScheduleOf]), so when a liveness or startup probe
// can first have the container killed, a startup probe let it count as
// started, a readiness probe make it ready. Time is an argument ([Clock],
// [Instance]); nothing reads the wall clock.
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

// Results are the results the kubelet's three results managers hold for
// one container instance. One map of them, keyed by container ID, feeds
// every package: podactions reads Liveness and Startup (readiness never
// changes what the kubelet does next), podstatus reads Readiness and
// Startup (liveness never reaches the status).
type Results struct {
	Liveness  Result `json:"liveness,omitempty"`
	Readiness Result `json:"readiness,omitempty"`
	Startup   Result `json:"startup,omitempty"`
}
