// Package probe holds the timing of a probe worker
// (pkg/kubelet/prober/worker.go): when it first probes a container
// instance ([FirstProbe], [EarliestProbe]) and when it commits a result after
// its threshold ([Commit], [ScheduleOf]), so when a liveness or startup probe
// can first have the container killed, a startup probe let it count as
// started, a readiness probe make it ready. Time is an argument ([Clock],
// [Instance]); nothing reads the wall clock. The probe results themselves
// are [github.com/kubeletlogic/kubeletlogic/vocab.ProbeResult] and
// [github.com/kubeletlogic/kubeletlogic/vocab.ProbeResults].
package probe
