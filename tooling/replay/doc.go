// Package replay holds tests, and only tests, that replay what a real kubelet
// v1.37.2 did on a real node: the fixtures in ../../testdata/captured, written by
// the capture program (../capture, a separate module that is never a
// dependency of the library).
//
// Each fixture (format: package captured) is one pod run by a real kubelet
// on containerd, as a static pod or, in the API-server mode, through the
// API; round 2 adds OOM kills, image pulls, a pod network, an active
// deadline, kubelet restarts, a readiness gate and in-place resize; a
// fourth static run a back-off reset (with the kubelet's back-off cap
// lowered to 20 s, read from the fixture's environment) and a slow and a
// once-failing pull from a loopback registry. Named
// lists say where a fixture is not (fully) compared, and why:
// notSimulated and simDisagrees (sim_test.go), measuredRuntime (sim runs
// with the capture's own runtime delays) and inputGaps (fixture_test.go).
// Each fixture holds the pod as the kubelet held it, a time-ordered list of
// observations (the kubelet's .status from its read-only /pods endpoint and
// the runtime's view over CRI, converted to runtimestate.Pod), the
// kubelet's mutating CRI calls (recorded by a CRI proxy) and what the
// harness did by hand.
//
// The tests check, at each captured step, that:
//
//   - podstatus.Compute, from the observed spec and runtime state, reproduces
//     the observed status (phase, conditions, container statuses), up to the
//     normalisations listed in status_test.go; probe results (ready,
//     started) come from the kubelet's log of its probe results, never from
//     the status compared (probes_test.go); in the API-server fixtures the
//     conditions another client owns (a readiness gate's) come from the
//     recorded API object, the allocated resources and PodResizePending
//     from the allocation manager's log lines, and a status the kubelet did
//     not generate for the pod it sits on (the harness's condition PATCH
//     in it, or a generation the harness's resize or DELETE raised since)
//     is not compared (apiinputs_test.go);
//   - every CRI call the kubelet made for the pod before its removal
//     (RunPodSandbox with its attempt, StopContainer with its timeout,
//     StopPodSandbox, CreateContainer, reset removals) is, sync by sync,
//     exactly what podactions.Compute decided on the state at that call,
//     with the kill messages the kubelet logged (actions_test.go);
//   - crash-loop restarts happened when restart.BackOffConfig.Decide allows
//     them, no later than the kubelet's requeue granularity;
//   - termination.Plan gives the StopContainer timeouts and order the kubelet
//     used when the pod was removed.
//
// Run `go test ./tooling/replay/` (no cluster needed); see ../capture/README.md to
// capture the fixtures again.
package replay
