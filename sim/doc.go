// Package sim composes the kubelet's decisions over virtual time: a pod's
// whole life on a simulated node running kubelet v1.37.2.
//
// Four entry points:
//
//   - Sync is one sync of one pod, as the pod worker runs SyncPod,
//     SyncTerminatingPod or SyncTerminatedPod (pkg/kubelet/kubelet.go): from
//     the pod, the kubelet's cached runtime state, the time and what the
//     kubelet remembers (Memory: pod-worker state, crash-loop back-off
//     records, the reason cache, probe results, the status manager's
//     status, actuated resources) it returns the CRI calls the kubelet
//     makes, the statuses it stores, how the worker requeues the pod, and
//     the new Memory. Pure: no clock, no goroutine, no global.
//   - Next is the front door to Sync for "what does the kubelet do next?":
//     it takes what a user holds (the pod, with its status when at hand, and
//     a runtime state), fills in the Memory a kubelet running the pod in
//     steady state holds, and runs Sync (see Next for what it assumes).
//   - Simulate runs a node: a deterministic discrete-event loop that drives
//     pods through their lives from a Script (what each container's process
//     does, run after run, and how long the runtime takes) and Actions (what
//     the outside does: delete, remove, kill a process or the sandbox, add
//     an ephemeral container). It returns a Timeline of CRI calls, process
//     exits, PLEG events, probe results, stored statuses (with kubectl's
//     READY, STATUS and RESTARTS) and API writes, which prints like
//     `kubectl get pod -w` (Timeline.Watch) and serialises to JSON.
//   - Node is the same simulation fed incrementally, for a driver that
//     does not know the events in advance (one watching a real API server
//     with the wall clock): NewNode, then AddPod, UpdatePod (the API
//     object's new version: ephemeral containers, a resize, finalizers, the
//     deletion), DeletePod and Do (any Action) at the time each happens,
//     AdoptPod for a pod the node ran before its kubelet started (its
//     runtime read off its API status, then a new kubelet's first sync), and
//     Advance(T), which runs what the kubelet does up to T and returns a
//     Report: the entries Simulate would list, the syncs, and Wake, when
//     the node next has something to do. Simulate is a loop over a Node,
//     and TestNodeMatchesSimulate checks that a driver advancing in steps
//     of random sizes gets Simulate's timeline.
//
// # Structure
//
// The files follow the kubelet's parts. Sync and its syncer are the pod
// worker's sync functions: sync.go (inputs, outputs, the status store),
// syncpod.go (SyncPod), syncterminating.go (SyncTerminatingPod,
// SyncTerminatedPod, TerminatePod, the kill), hooks.go, resize.go. The
// node around them: node.go (Node, its wake-up heap and reports),
// node_update.go (reading an API update as actions), simulate.go (Config,
// PodInput, Action, Simulate), pod.go (podSim, one pod's simulation, and
// what the outside does to it), podworker.go (UpdatePod, the freshness
// gate, requeues, the sync loop's tick), pleg.go (relists and the cache),
// prober.go (probe workers and the results manager), statusmanager.go
// (stored statuses, API writes, the final delete), housekeeping.go
// (container deletor, container GC, housekeeping), runtime.go (the fake
// container runtime carrying out CRI calls), entry.go and timeline.go (the
// output). The event loop and the clocks of the kubelet's periodic loops
// are in sim/internal/engine. Each pod has its own event loop, random
// stream (from the seed and the pod's index, the order pods reach the
// node) and entries; pods do not affect one another.
//
// # Formats
//
// [ReadScript] reads the script file of `kubeletlogic simulate --script`
// ([ScriptFile]: YAML or JSON, apiVersion kubeletlogic/v1alpha1, kind
// Script, both optional) against the pods it is for, with the line and
// field of each error ([ScriptError]); [ScriptFile.PodScript] and
// [ScriptAction.Action] turn it into PodInputs. [Simulation] is the
// document `simulate -o json` prints, the inputs and the timeline:
// [ReadSimulation] reads it, [Simulation.Replay] runs it again with
// Simulate alone and [Simulation.Verify] checks that this gives the
// timeline it holds. Config and its kubelet's gates are JSON (the text
// form of [features.Set]).
//
// # What wakes the kubelet, as modelled
//
// Each rule names the v1.37.2 source it comes from (paths under
// k8s.io/kubernetes/pkg/kubelet/).
//
//   - PLEG relist every second, the next one starting a period after the
//     previous ended (pleg/generic.go Start, relist; kubelet.go
//     genericPlegRelistPeriod). A relist diffs each container's and
//     sandbox's state with the previous relist (running, exited, unknown,
//     gone) and reports ContainerStarted, ContainerDied, ContainerRemoved;
//     a pod with events gets a fresh cache entry and, unless every event is
//     ContainerRemoved, a sync (kubelet.go syncLoopIteration,
//     isSyncPodWorthy).
//   - On-demand relist of the pod right after a SyncPod that made a runtime
//     call and did not fail (kubelet.go SyncPod, gate PLEGOnDemandRelist),
//     from v1.36 on; v1.35 has none, and waits for the periodic relist.
//   - The freshness gate: a sync starts only once the cache holds data
//     newer than the end of the pod's previous sync (pod_workers.go
//     podWorkerLoop, container/cache.go GetNewerThan).
//   - Coalescing: one pending update per pod, run when the current sync
//     ends (pod_workers.go UpdatePod, completeWork).
//   - Requeue after a sync (pod_workers.go completeWork): success
//     J(syncFrequency), a crash-loop back-off J(clamp(until - now, 0,
//     syncFrequency)), another error J(10 s), a phase change at once; J is
//     wait.Jitter with factor 0.5, drawn from the seed. Due work is picked
//     up by the sync loop's 1 s tick when strictly overdue (kubelet.go
//     syncLoop, getPodsToSync; util/queue/work_queue.go GetWork), which also
//     syncs a pod past its activeDeadlineSeconds (active_deadline.go).
//   - Crash-loop back-off through restart.BackOffConfig.Decide
//     (kuberuntime/kuberuntime_manager.go doBackOff): the message goes to
//     the reason cache, the container is not started, the earliest back-off
//     end decides the requeue.
//   - Probe workers (prober/worker.go): created at the pod's first SyncPod,
//     one per probe of a regular container or sidecar; first probe at once
//     (after a random part of the period when the kubelet started less than
//     a period ago), then every periodSeconds from there; initialDelay
//     against the whole-second startedAt; liveness and readiness wait for
//     started, startup stops at it; thresholds; on hold after a liveness
//     failure or any startup result until a new container ID; initial
//     results for a new ID (readiness Failure, liveness Success, startup
//     Unknown); a non-running container gives Failure; a readiness worker
//     of a started, running, not-ready container probes at once when a
//     SyncPod generates a status (prober_manager.go UpdatePodStatus).
//     Liveness and startup workers stop when termination starts, readiness
//     ones when the containers are stopped. A probe takes the time its
//     script step gives (ProbeStep.Takes; 0 by default): its result is
//     set when it returns, and one that reaches timeoutSeconds fails then
//     (prober.go runProbe, probe/exec/exec.go Probe); the worker's ticker
//     keeps its period meanwhile, so after a probe during which a tick
//     fell the next one starts at once, and later ones are back on the
//     ticker's times (worker.go run, time.Ticker).
//   - Probe results (kubelet.go syncLoopIteration): a liveness failure, and
//     any readiness or startup change, sync the pod; readiness and startup
//     changes are also patched into the stored status at once
//     (status/status_manager.go SetContainerReadiness,
//     SetContainerStartup).
//   - The status manager (status/status_manager.go): a status that takes a
//     container out of a terminated state its restart policy keeps it in
//     is refused and the cached one kept (checkContainerStateTransition,
//     podstatus.CheckTransition; the timeline logs "status update
//     aborted"), as when a new sandbox runs a completed init container of
//     an OnFailure pod again; a new status is stored when it differs;
//     times are cut to whole seconds, startTime is set
//     once, condition transition times kept when the status did not
//     change; OnPodSandboxReady stores PodReadyToStartContainers True right
//     after RunPodSandbox; a terminal phase reaches the API only once the
//     worker knows no container can run (the one SyncTerminatingPod
//     stores, when the sync returns and the worker completed it);
//     TerminatePod stores the final version; the API object is deleted
//     (grace 0) when canBeDeleted, after SyncTerminatedPod (so the last
//     phase shows until the relist after the kill, and for a pod with a
//     volume mounted into a container until the volume manager has
//     unmounted it: WaitForUnmount checks at once, then every 300 ms,
//     and the populator and reconciler, 100 ms loops each, unmount it
//     within 200 ms of SyncTerminatingPod's end), and stays while
//     finalizers hold it; the full sweep every 10 s deletes a pod deleted
//     after the kubelet had finished with it (syncBatch, needsUpdate).
//   - The API server (apiserver.go): a DELETE of a pod already Succeeded
//     or Failed gets grace 0 and the object is gone at once
//     (pkg/registry/core/pod/strategy.go CheckGracefulDelete); a second
//     DELETE may only shorten the grace (apiserver rest/delete.go
//     BeforeDelete); grace 0 with finalizers leaves the object until
//     they go (store.go ShouldDeleteDuringUpdate). A condition another
//     client sets (Action.SetCondition, a readiness gate's) is kept by the
//     status manager's writes (mergePodStatus) and syncs the pod when Ready
//     no longer fits the gates (HandlePodReconcile,
//     NeedToReconcilePodReadiness).
//   - A kubelet restart (Action.RestartKubelet, kubeletrestart.go): the
//     process's memory is lost (pod workers, back-off records, reason
//     cache, probe workers and results, the status manager's cache, the
//     PLEG record) and its loops get new phases; the containers keep
//     running. The new process relists at once (every container an
//     event), receives the pod again and derives its status from the API
//     object and the runtime (a static pod gets a new start time). A pod
//     removed while it was down is an orphan: its running containers are
//     killed with the 1 s override and no status (SyncTerminatingRuntimePod).
//   - Eviction by the kubelet (Action.Evict, eviction.go; eviction_manager.go
//     evictPod): a kill with the eviction's grace period override and the
//     status function that makes the first terminating status Failed,
//     Evicted, with DisruptionTarget (which reaches the API object with
//     the terminal phase only, mergePodStatus); critical pods refuse it.
//     Which pod and when (the node's pressure signals) are the action's.
//   - Node.AdoptPod (adopt.go) is a new kubelet process for a pod whose
//     runtime is known only from its API status (runtimestate.FromStatus):
//     running containers go on from their startedAt, terminated ones and
//     the last terminations are exited instances, restart counts continue.
//   - Termination (kuberuntime/kuberuntime_container.go killContainer,
//     killPodWithSyncResult; pod_workers.go): the grace period as the worker
//     computes it, preStop hooks, native-sidecar ordering and the 2 s floor
//     through termination.Plan; every sandbox stopped after the containers;
//     SyncTerminatingPod fails and is retried when a container still runs.
//   - Housekeeping every 2 s marks the worker of a pod that left the
//     kubelet's configuration deleted, and forgets it once finished
//     (pod_workers.go SyncKnownPods, removeTerminatedWorker).
//   - Dead containers (pod_container_deletor.go, kuberuntime/kuberuntime_gc.go):
//     on ContainerDied one exited instance per container name is kept, all
//     once the pod's content may be removed (then on a sandbox's
//     ContainerDied too: the deletor drops its ID filter); SyncPod prunes old init
//     container instances; container GC every minute (housekeeping.go
//     containerGC; kuberuntime_gc.go evictContainers, evictSandboxes) does
//     the same, then stops and removes (StopPodSandbox, RemovePodSandbox)
//     every sandbox that is not ready and has no container left, but the
//     newest while the pod's content may not be removed. A pod the
//     kubelet forgot stays in the runtime until that pass (its name is
//     free at once); Config.ContainerGC places the passes, and
//     Config.RelistPhase and Config.HousekeepingPhase the relist and
//     housekeeping that decide when the deletor may remove all.
//   - The phases of the relist, the 1 s tick, container GC and the status
//     manager's sweep relative to the pods are drawn from the seed: they
//     depend on when the kubelet started. Housekeeping ticks with every
//     second sync tick (kubelet.go syncLoop makes both tickers together).
//     Given Config.KubeletUptime, and after a kubelet restart, container
//     GC runs at the kubelet's start and every minute from it
//     (createAndInitKubelet, StartGarbageCollection). Config.RelistPhase
//     and Config.HousekeepingPhase place the relist and housekeeping (with
//     the sync tick) instead.
//   - Lifecycle hooks (kuberuntime_container.go startContainer,
//     killContainer; lifecycle/handlers.go): the postStart hook runs right
//     after StartContainer and the sync waits for it, so it holds back the
//     next container of the same sync; an exec hook is an ExecSync call
//     (timeout 0) lasting the hook's scripted time, an httpGet hook the
//     kubelet's request (no CRI call), a sleep hook the spec's seconds. A
//     failed postStart hook (Run.PostStartFails, or the process exiting
//     while an exec or httpGet hook runs) kills the container with reason
//     FailedPostStartHook (its grace, its preStop hook) and is a start
//     error PostStartHookError in the reason cache: the status shows the
//     container waiting with that reason, the sync is retried after
//     J(10 s) or on the next PLEG event, and the container restarts per
//     its policy through the crash-loop back-off. Exec preStop hooks are
//     ExecSync calls from the start of the kill.
//   - In-place resize (Action.Resize for containers, Action.ResizePod for
//     the pod-level spec.resources with gate
//     InPlacePodLevelResourcesVerticalScaling, off by default in v1.35;
//     allocation.go, resize.go): the pod
//     manager holds the resized pod, the worker syncs the allocated one;
//     the allocation manager admits a resize when the pod's requests fit
//     the node's allocatable (Config.Allocatable) next to the other pods'
//     requests (Action.OtherRequests), else PodResizePending Deferred
//     (allocation/allocation_manager.go handlePodResourcesResize,
//     lifecycle/predicate.go Admit), retried when the other pods release
//     requests and every 3 minutes; SyncPod keeps PodResizeInProgress
//     while an allocated resource differs from the actuated one
//     (IsPodResizeInProgress) and decides through podactions.Compute
//     against Memory.Actuated: a restart where the resizePolicy says
//     RestartContainer, otherwise UpdateContainerResources calls, memory
//     then cpu, each updating the actuated record, after which the PLEG
//     reinspects the pod and syncs it; containerStatuses[].resources are
//     what the runtime reports, allocatedResources the allocation. The
//     API server refuses a resize above the allocatable, one that changes
//     the QoS class, a pod-level request below the containers' aggregate
//     request, and any resize of a pod with pod-level resources while the
//     pod-level gate is off. A container without a limit of its own
//     follows a pod-level limit (GetLimits): a pod-level resize updates it
//     or restarts it per its resizePolicy.
//   - Image pulls (images.go; images/image_manager.go EnsureImageExists,
//     kuberuntime_container.go startContainer): Script.Images says which
//     images are missing and how each pull goes; imagePullPolicy Never,
//     IfNotPresent, Always; the image back-off (10 s to 300 s, keyed
//     "<pod UID>_<image>"); ErrImagePull, ImagePullBackOff and
//     ErrImageNeverPull through the reason cache; a pull holds the sync.
//     An image not listed is present and pulls take no time. Pods share
//     no images and the serial puller's queue across pods is not modelled.
//   - OOM kills (oom.go; Run.OOMAfter): exit 137, reason OOMKilled, a
//     failure like any other for restart rules and the back-off.
//   - The runtime's own time on a stop (RuntimeDelays.StopContainer,
//     default 30 ms): StopContainer returns that long after the process
//     ended; killContainer returns then, the containers waiting for it
//     (native-sidecar order) are released then and the sandbox stop
//     comes after the last return (termination.Options.StopReturnAfter);
//     the exit entry is at the return, ExitEntry.Ended and the
//     container's finishedAt at the process's end.
//     RuntimeDelays.StopContainerSpread makes that time vary from kill to
//     kill (one draw per sync, from the script's own stream of draws).
//   - A CreateContainer in a sandbox the container GC has already
//     removed (possible for an evicted pod, whose content may be removed
//     while a sync still pulls an image) is refused, and the
//     StartContainer after it (Call.Error).
//   - The runtime the pods share (contention.go; Config.RuntimeContention,
//     default 14 ms): a RunPodSandbox, StopPodSandbox, CreateContainer,
//     StartContainer, RemoveContainer or UpdateContainerResources takes
//     its delay plus 14 ms for every other such call of the node's syncs
//     that overlaps it, whichever started first (a call in flight is
//     lengthened when another starts, with everything its sync does
//     after it). Fitted to thirteen pods started at once on a 2-core node
//     (testdata/captured/burst-*: each app started 1.11 to 1.44 s after
//     the manifests, 0.4 s alone; simulated together, within 0.16 s of
//     each). Such a node runs its pods one instant at a time in time
//     order, not in parallel; RuntimeContention -1 turns the model off
//     (every call takes its delay whatever the other pods do).
//
// Not modelled: the image puller's queue across pods, the container GC's
// calls in the runtime's contention (they neither slow nor are slowed),
// the time to mount volumes (the unmount before the delete is
// modelled; the tear-down itself is taken as instant), start failures other than crash-loop back-off, image
// pulls and postStart hooks, other pods' requests unless given
// (Action.OtherRequests), UpdatePodSandboxResources and the pod cgroup
// writes of a resize, failed resizes, exec probes as ExecSync calls (the
// probe results are listed instead), the runtime-health gate, evented PLEG,
// the eviction manager's choice of pod and its pressure signals (an
// eviction is an action), and API latency (writes are instant). An action (a kill, a
// deletion) during a hook does not change the hook's outcome: each sync is
// decided when it starts.
//
// # Proof
//
// The replay package re-runs the 29 scenarios captured from a real
// kubelet v1.37.2 (testdata/captured) as simulations and checks that the statuses
// the real kubelet showed appear in the same order and the runtime-changing
// CRI calls are the same, within stated tolerances, for at least one seed.
// Property tests run random pods, scripts and actions.
package sim
