// Package apidefaults fills in the fields a v1.37.2 API server fills in when
// a pod is stored, so that a pod written by hand with only what matters (a
// name and one container with an image) is accepted by validation.Pod and
// read by the decision functions as the kubelet would read it.
//
// A pod returned by `kubectl get pod -o yaml` is already defaulted; [Pod]
// leaves it unchanged. A manifest as written (`kubectl apply -f` input) is
// not: without defaulting it has no restartPolicy, no
// terminationGracePeriodSeconds, probes with zero periods and thresholds,
// and so on, and validation.Pod rejects it or the decisions read values the
// kubelet never sees.
//
// # What Pod mirrors
//
// Pod mirrors SetObjectDefaults_Pod of k8s.io/kubernetes v1.37.2
// (pkg/apis/core/v1: the generated zz_generated.defaults.go calling the
// SetDefaults_* functions of defaults.go), the defaulting the API server
// runs on every pod it decodes, with the API server's default feature
// gates. It fills in:
//
// Pod spec (SetDefaults_Pod, SetDefaults_PodSpec):
//   - restartPolicy Always, dnsPolicy ClusterFirst, schedulerName
//     default-scheduler, an empty securityContext, enableServiceLinks true;
//   - terminationGracePeriodSeconds 30 when unset, 1 when negative;
//   - serviceAccountName from the deprecated serviceAccount field, and
//     serviceAccount copied from serviceAccountName;
//   - with hostNetwork, each init and regular container port's hostPort
//     from its containerPort when unset.
//
// Every container, init, regular and ephemeral (SetDefaults_Container,
// SetDefaults_EphemeralContainer, SetDefaults_Probe,
// SetDefaults_HTTPGetAction, SetDefaults_ObjectFieldSelector):
//   - imagePullPolicy Always when the image has the tag latest (written or
//     implied: no tag and no digest), IfNotPresent otherwise, including
//     for images that are not valid references;
//   - terminationMessagePath /dev/termination-log, terminationMessagePolicy
//     File;
//   - ports' protocol TCP;
//   - probes' timeoutSeconds 1, periodSeconds 10, successThreshold 1,
//     failureThreshold 3 where 0; an httpGet handler's path "/" and scheme
//     HTTP (on probes and on postStart and preStop hooks); a grpc handler's
//     service "" where unset (exec, tcpSocket and sleep have no defaults);
//   - env valueFrom.fieldRef.apiVersion v1, valueFrom.fileKeyRef.optional
//     false;
//   - on init and regular containers, a request for every resource that has
//     a limit but no request, equal to the limit (a Pod, not a pod
//     template, is defaulted this way);
//   - every resource quantity rounded up to a whole milli-unit
//     (SetDefaults_ResourceList).
//
// Volumes (SetDefaults_Volume and the volume-source defaults): emptyDir when
// no source is set; defaultMode 0644 on secret, configMap, downwardAPI and
// projected sources; hostPath type ""; a projected service-account token's
// expirationSeconds 3600; downwardAPI fieldRef apiVersion v1; an image
// volume's pullPolicy by the same tag rule as containers; iSCSI, RBD,
// ScaleIO and AzureDisk source defaults; an ephemeral volume claim
// template's volumeMode Filesystem and rounded quantities.
//
// Status (SetDefaults_PodStatus): podIP and podIPs kept in step (podIP wins
// when both are set and differ); quantities in container statuses and the
// pod's status resources rounded up to a whole milli-unit. Spec overhead and
// spec.resources quantities are rounded too.
//
// # Feature gates
//
// The defaulting reads four API-server gates. None of the gates in
// features.Set changes the result, so Pod takes no gate set:
//   - ImageVolume (locked on in v1.37.2): an image volume's pullPolicy is
//     defaulted. Pod always does this.
//   - H2CContainerProbe (alpha, off by default): when on, an httpGet
//     handler's protocol would be defaulted to HTTP1. Pod never does this.
//   - PodLevelResources with PodLevelResourcesFixDefaulting: pod-level
//     requests (and hugepage limits) are defaulted here only when
//     PodLevelResources is on and PodLevelResourcesFixDefaulting is off. The
//     latter is on by default in v1.37.2 (the API server then defaults them
//     later, at create, after admission), and features.Set does not model
//     it, so Pod never defaults pod-level resources, whatever
//     features.PodLevelResources says.
//
// # What Pod does not do
//
// Pod is the defaulting step only. The create path of the API server does
// more after admission (PrepareForCreate in pkg/registry/core/pod): it
// resets the status to phase Pending with a QoS class, sets generation 1,
// defaults pod-level requests, and drops fields of disabled gates. Pod does
// none of that, and it does not validate: call validation.Pod afterwards.
package apidefaults
