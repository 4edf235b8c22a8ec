// Package restart answers whether, and when, the kubelet starts a container
// again.
//
// It mirrors the restart decisions of kubelet v1.37.2:
//
//   - [ShouldContainerBeRestarted]: the kubelet's function of that name in
//     pkg/kubelet/container/helpers.go, over a [runtimestate.Pod].
//   - [ContainerShouldRestart], [MatchRule], [IsContainerRestartable] and
//     [AllContainersCouldRestart]: the container-level restartPolicy and
//     restartPolicyRules helpers of pkg/api/v1/pod/util.go.
//   - [IsInitContainerFailed]: when a regular init container counts as failed
//     (pkg/kubelet/kuberuntime/helpers.go).
//   - [KindOf], [EffectivePolicy] and [RestartsAfterExit]: for any container of a
//     pod (regular, regular init, native sidecar, ephemeral), what the
//     kubelet does when an instance of it exits.
//   - [ShouldAllContainersRestart], [AllContainersRestartCleanedUp] and
//     [RestartingAllContainers]: the chain by which the kubelet decides to
//     reset every container of a pod after a RestartAllContainers rule
//     matched (pkg/kubelet/container/helpers.go,
//     pkg/kubelet/status/generate.go, Kubelet.SyncPod in
//     pkg/kubelet/kubelet.go).
//   - [BackOffConfig], [BackOffKey] and Decide: crash-loop back-off, the delay
//     the kubelet waits before each restart (newCrashLoopBackOff in
//     pkg/kubelet/kubelet.go, doBackOff in
//     pkg/kubelet/kuberuntime/kuberuntime_manager.go, and
//     k8s.io/client-go/util/flowcontrol.Backoff). Time is always an
//     argument.
//
// Every function takes the gates it depends on as a [features.Set]. None
// panics: a nil pod, container or runtime state has a documented answer.
package restart
