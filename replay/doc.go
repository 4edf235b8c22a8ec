// Package replay holds tests, and only tests, that replay what a real kubelet
// v1.37.2 did on a real node: the fixtures in ../testdata/captured, written by
// the capture program (../capture, a separate module that is never a
// dependency of the library).
//
// Each fixture is one static pod run by a standalone kubelet on containerd:
// the pod as the kubelet held it, a time-ordered list of observations (the
// kubelet's .status from its read-only /pods endpoint and the runtime's view
// over CRI, converted to runtimestate.Pod), the kubelet's mutating CRI calls
// (recorded by a CRI proxy) and what the harness did by hand.
//
// The tests check, at each captured step, that:
//
//   - podstatus.Compute, from the observed spec and runtime state, reproduces
//     the observed status (phase, conditions, container statuses), up to the
//     normalisations listed in status_test.go;
//   - podactions.Compute on step N predicts the first container or sandbox
//     the kubelet created after it;
//   - crash-loop restarts happened when restart.BackOffConfig.Decide allows
//     them, no later than the kubelet's requeue granularity;
//   - termination.Plan gives the StopContainer timeouts and order the kubelet
//     used when the pod was removed.
//
// Run `go test ./replay/` (no cluster needed); see ../capture/README.md to
// capture the fixtures again.
package replay
