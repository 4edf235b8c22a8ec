// Package kubeletlogic is the pod-lifecycle decision logic of the
// Kubernetes kubelet v1.37.2 (and of v1.36.3 and v1.35.4, chosen through
// the features.Set) as pure Go functions: given a pod spec and
// what the container runtime reports, they answer what the real kubelet
// would decide. This package holds no code; start here, then go to the
// package that answers your question.
//
// # Start here
//
// Inputs are what you hold:
//
//   - a pod: manifest.Pod / manifest.Read read `kubectl get pod -o yaml`
//     output (YAML or JSON), Lists, and workload manifests (Deployment,
//     Job, CronJob, … — their pod template); apidefaults.Pod fills in what
//     the API server would default, so a minimal hand-written pod works.
//     Call it on such a pod: the decision functions read the pod as given
//     (an unset terminationGracePeriodSeconds, 30 s once stored, gives
//     termination.Plan the 2 s minimum); sim.Next and sim.Simulate default
//     it themselves;
//   - what the runtime reports: runtimestate.FromYAML reads a state written
//     by hand with only what matters (instances without a hash were created
//     from the current spec);
//   - the node: a features.Set, whose zero value is kubelet v1.37.2 with its
//     default gates (features.Parse reads --feature-gates); every Options
//     struct that leaves Features out models a real v1.37.2 node. The Set
//     also carries the kubelet version: features.V1_36 and features.V1_35
//     model kubelet v1.36.3 and v1.35.4 (docs/versions.md lists what
//     differs and where);
//   - probe results: one map[string]vocab.ProbeResults keyed by container
//     instance ID, for podactions and podstatus alike (Options.Validate
//     reports a key that is a container name, or no instance's ID);
//   - time: always an argument (Options.Now, a now parameter); nothing
//     reads the clock.
//
// # Packages
//
// docs/architecture.md draws which package imports which, floor by floor
// (no package imports one above it), and maps each kubelet source file to
// the library file that mirrors it.
//
// The decisions, the mission's top level:
//   - [github.com/kubeletlogic/kubeletlogic/podactions]: computePodActions, what one
//     sync does to the sandbox and the containers (start, kill, reset);
//   - [github.com/kubeletlogic/kubeletlogic/restart]: whether and when a container
//     starts again (restart policy, restart rules, crash-loop back-off);
//   - [github.com/kubeletlogic/kubeletlogic/termination]: stopping a pod (grace
//     periods, sidecar order, the final delete, the pod worker's states);
//   - [github.com/kubeletlogic/kubeletlogic/phase]: the pod phase;
//   - [github.com/kubeletlogic/kubeletlogic/conditions]: the pod conditions.
//
// What the kubelet writes, and what kubectl shows of it:
//   - [github.com/kubeletlogic/kubeletlogic/apistatus]: the container status lists;
//   - [github.com/kubeletlogic/kubeletlogic/podstatus]: the whole .status of one sync;
//   - [github.com/kubeletlogic/kubeletlogic/kubectlstatus]: kubectl's STATUS, READY and
//     RESTARTS columns, from an API status.
//
// Over time:
//   - [github.com/kubeletlogic/kubeletlogic/sim]: a pod's life on a simulated node over
//     virtual time, and the whole next sync ([github.com/kubeletlogic/kubeletlogic/sim.Next]).
//
// Inputs:
//   - [github.com/kubeletlogic/kubeletlogic/manifest]: pods from kubectl output and workload manifests;
//   - [github.com/kubeletlogic/kubeletlogic/apidefaults]: the API server's defaults;
//   - [github.com/kubeletlogic/kubeletlogic/validation]: what the API server refuses;
//   - [github.com/kubeletlogic/kubeletlogic/runtimestate]: what the runtime reports;
//   - [github.com/kubeletlogic/kubeletlogic/features]: feature gates and the kubelet version;
//   - [github.com/kubeletlogic/kubeletlogic/vocab]: the shared words: probe results, kill reasons,
//     the kubelet's sandbox messages, reason-cache entries;
//   - [github.com/kubeletlogic/kubeletlogic/probe]: probe timing;
//   - [github.com/kubeletlogic/kubeletlogic/containerhash]: the container hash;
//   - [github.com/kubeletlogic/kubeletlogic/podgen]: random pods and states for property tests.
//
// Tools, outside the library's API: the command [github.com/kubeletlogic/kubeletlogic/cmd/kubeletlogic],
// the runnable examples [github.com/kubeletlogic/kubeletlogic/examples/crashloop] and
// [github.com/kubeletlogic/kubeletlogic/examples/sidecarkill]; the replay of captured kubelet runs
// ([github.com/kubeletlogic/kubeletlogic/tooling/replay], fixture format [github.com/kubeletlogic/kubeletlogic/tooling/captured]); the differential
// suite (module tooling/differential/), the capture program (module tooling/capture/) and
// mutation testing (tooling/mutation/).
//
// # Question to function
//
//	What does the kubelet do next (start, kill, reset)?   sim.Next (the whole sync, from the pod and its status)
//	  computePodActions alone (one step of SyncPod)?        podactions.Compute
//	Does a container restart after this exit?             restart.RestartsAfterExit
//	When is the next restart (crash-loop back-off)?        restart.BackOffConfig.Decide, .Schedule
//	Back-off from a kubectl status?                        restart.BackOffConfig.EntryFromStatus
//	Do RestartAllContainers rules fire?                    restart.ShouldAllContainersRestart, RestartingAllContainers
//	What status does the kubelet write?                    podstatus.Compute
//	Phase, conditions, STATUS from an API status?          podstatus.Recompute
//	Could a kubelet have written this status?             podstatus.Check
//	Does the status manager store it after the last one?  podstatus.CheckTransition
//	The pod phase alone?                                   phase.Compute, phase.Resolve
//	The conditions alone?                                  conditions.Generate
//	The container statuses alone?                          apistatus.Compute
//	kubectl's STATUS column?                               kubectlstatus.Compute
//	kubectl's READY, RESTARTS columns (the whole row)?     kubectlstatus.Ready, Restarts (Columns)
//	The runtime state from `kubectl get pod -o yaml`?      runtimestate.FromStatus (with probes, actuated: podstatus.RuntimeFromStatus)
//	Who gets SIGTERM / SIGKILL when, on deletion?          termination.Plan
//	The grace period of one kill?                          termination.ContainerGracePeriod, StopTimeout
//	When can a probe first kill (or start, ready) a        probe.ScheduleOf, FirstProbe, Commit
//	  container?
//	May the kubelet delete the API object now?             termination.CanBeDeleted
//	Pod-worker states during termination?                  termination.UpdatePod, Complete, Query
//	Would the API server accept this pod?                  validation.Pod
//	Random pods and states for my own property tests?      podgen
//	A pod's whole life over time (restarts, probes,        sim.Simulate
//	  deletion), as `kubectl get pod -w` shows it?
//	One kubelet sync, with what it remembers?              sim.Sync
//	Read a `simulate --script` file?                       sim.ReadScript
//	Replay a `simulate -o json` document?                  sim.ReadSimulation, Simulation.Replay, .Verify
//	Gates as text or JSON ("v1.36.3,Name=false")?          features.Set.MarshalText, UnmarshalText
//
// Every decision function says in its doc comment which kubelet function it
// mirrors; the differential suite (module tooling/differential/) compares each with
// that very function, compiled from k8s.io/kubernetes@v1.37.2 (and, in
// modules of their own, @v1.36.3 and @v1.35.4), on random
// inputs, and tooling/replay/ replays states captured from a real kubelet.
//
// # Rules every package follows
//
// One shape: a decision function takes the pod, then the runtime state
// when it reads one, then either an Options struct (its Features field
// holds the gates, Now the time, Probes the probe results, Cached the
// kubelet's last status) or, for the small functions without one, a
// features.Set argument. In both the zero Set is v1.37.2's defaults.
// docs/architecture.md lists the functions with another shape, and why.
// No exported function panics; a nil pod or runtime state has a documented
// answer. Runtime states list sandboxes and containers newest first.
// A name that matches nothing (a container name in an Options map, a probe
// result keyed by name instead of instance ID) is an error: sim.Simulate
// refuses it, and the decision functions that return no error document an
// Options.Validate (sim.SyncInput.Validate) that reports it.
// Feature gates and node settings are arguments. The examples of this
// package answer design-review questions end to end.
package kubeletlogic
