// Package validation reports pod specs that no v1.37.2 API server would
// store, so that kubeletlogic's decision functions are never asked about a
// pod the kubelet cannot receive.
//
// Decision functions do not call [Pod]: on an invalid pod they still return
// without panicking, but their answer is then the kubelet's answer to a pod
// it never sees. Call Pod first on pods that were written by hand or
// generated; runtimestate.Pod.Validate does the same for the runtime side.
//
// # What is checked
//
// Pod applies a subset of the API server's pod validation
// (pkg/apis/core/validation/validation.go in k8s.io/kubernetes v1.37.2),
// with the API server's default feature gates, chosen for the fields the
// lifecycle decisions read. Each rule names the function it comes from.
//
// Containers (validateContainers, validateInitContainers,
// validateEphemeralContainers, validateContainerCommon):
//   - spec.containers is not empty;
//   - every container has a name that is a DNS-1123 label, unique across
//     containers, initContainers and ephemeralContainers;
//   - every container has an image without leading or trailing white space
//     (validateContainerOnlyForPod);
//   - an init container without restartPolicy Always (a regular init
//     container, not a sidecar) has no lifecycle hooks and no liveness,
//     readiness or startup probe, and no resizePolicy with restartPolicy
//     RestartContainer;
//   - an ephemeral container sets none of ports, resources, resizePolicy,
//     restartPolicy, restartPolicyRules, the three probes and lifecycle.
//
// Container restart policy and rules (validateContainerRestartPolicy,
// validateInitContainerRestartPolicy; ContainerRestartRules and
// RestartAllContainersOnContainerExits on):
//   - a regular or init container's restartPolicy, when set, is Always,
//     OnFailure or Never; on an init container Always makes a sidecar;
//   - restartPolicyRules need the container's restartPolicy set explicitly;
//     there are at most 20; each has action Restart or RestartAllContainers
//     (both allowed on regular, init and sidecar containers), and exitCodes
//     with operator In or NotIn and at most 255 values. The values may be
//     empty, repeated and unsorted, and no combination of restartPolicy and
//     action is forbidden: the API server checks none of this.
//
// Probes and hooks of regular containers and sidecars (validateProbe,
// validateLivenessProbe, validateReadinessProbe, validateStartupProbe,
// validateLifecycle, validateHandler, validateSleepAction):
//   - a probe or hook has exactly one handler;
//   - initialDelaySeconds, timeoutSeconds, periodSeconds, successThreshold
//     and failureThreshold are not negative;
//   - a probe's terminationGracePeriodSeconds is greater than 0, and is not
//     set on a readiness probe;
//   - a liveness or startup probe's successThreshold is 1 (or 0, which the
//     API server defaults to 1);
//   - a sleep hook lasts from 0 to terminationGracePeriodSeconds seconds.
//
// Resources (validateResourceRequirements, validateResizePolicy,
// validatePodResources):
//   - no quantity is negative; no request exceeds its limit; hugepages and
//     extended resources have a limit equal to the request;
//   - resizePolicy names cpu or memory once each, with restartPolicy
//     NotRequired or RestartContainer, and only NotRequired when the pod's
//     restartPolicy is Never;
//   - spec.resources names only cpu, memory and hugepages-*, sets no claims,
//     is not set on a Windows pod, and no container's limit exceeds the
//     pod's limit.
//
// Pod (ValidatePodSpec, validateRestartPolicy, validatePodMetadataAndSpec):
//   - spec.restartPolicy is Always, OnFailure or Never;
//   - spec.terminationGracePeriodSeconds is set and not negative;
//   - spec.activeDeadlineSeconds, when set, is from 1 to 2^31-1;
//   - metadata.deletionGracePeriodSeconds, when set, is not negative.
//
// # Defaulted fields
//
// The API server fills in some fields before it validates, and corrects
// some values, so a pod it stores never has them empty or negative. Pod
// reports such a field when a decision reads it and the kubelet reads the
// empty value differently from the default:
//   - an empty spec.restartPolicy (stored as Always): the kubelet treats ""
//     as Always in some places and not in others;
//   - an unset spec.terminationGracePeriodSeconds (stored as 30): the kubelet
//     would use 1 s for the pod and 2 s for each container;
//   - a negative spec.terminationGracePeriodSeconds or
//     metadata.deletionGracePeriodSeconds (stored as 1; the latter by the
//     graceful-delete path in k8s.io/apiserver, not by validation).
//
// Other defaulted fields are accepted empty: probe thresholds, periods and
// timeouts of 0, an empty imagePullPolicy or terminationMessagePolicy, and
// limits without requests.
//
// # What is not checked
//
// Everything else the API server validates, deliberately: volumes and
// volume mounts, environment variables, ports, security contexts, DNS,
// affinity, tolerations, resource claims, resource names, the details of
// each probe and hook handler (ports, paths, commands) and stopSignal: none
// of these changes a lifecycle decision. (An ephemeral container's
// targetContainerName is checked: it must name an init or regular
// container.) Nor is
// the check that spec.resources.requests covers the sum of the containers'
// requests made, as the sum the API server computes includes resources from
// DRA claims. The pod status is not checked.
//
// The rules are those of the default feature gates. With
// ContainerRestartRules off the API server forbids restartPolicy on regular
// containers and drops restartPolicyRules; with
// RestartAllContainersOnContainerExits off it rejects the
// RestartAllContainers action. Pod does not model those settings.
//
// Each error's path follows the API server's, and sometimes points one level
// deeper (to the resource or list index) where the API server names only the
// enclosing field.
package validation
