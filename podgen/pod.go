package podgen

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// DefaultImages is the image pool of Pod when PodOptions.Images is empty. It
// is small on purpose: two containers often share an image, and a runtime
// instance created from another image of the pool reads as a definition
// change.
var DefaultImages = []string{
	"busybox:1.36",
	"busybox:1.37",
	"nginx:1.27",
	"registry.k8s.io/pause:3.10",
}

// RuleExitCodes are the exit codes restartPolicyRules are written with. The
// runtime states of RuntimeState draw from the same codes, so rules match
// often.
var RuleExitCodes = []int32{0, 1, 2, 42, 137, 143, 255}

var (
	cpuPool = []string{"100m", "250m", "500m", "1", "2"}
	memPool = []string{"64Mi", "128Mi", "256Mi", "512Mi"}
)

// PodOptions restrict what Pod generates. The zero value generates
// everything described on Pod; each field removes or bounds one part.
type PodOptions struct {
	// MaxContainers bounds the regular containers; there is always at least
	// one. Zero means 4.
	MaxContainers int
	// MaxInitContainers bounds the regular init containers (init containers
	// that are not sidecars). Zero means 3.
	MaxInitContainers int
	// MaxSidecars bounds the native sidecars (init containers with
	// restartPolicy Always). Zero means 3.
	MaxSidecars int
	// MaxEphemeral bounds the ephemeral containers. Zero means 2.
	MaxEphemeral int

	// NoInitContainers, NoSidecars and NoEphemeral leave out that kind of
	// container.
	NoInitContainers bool
	NoSidecars       bool
	NoEphemeral      bool

	// NoProbes leaves out liveness, readiness and startup probes.
	NoProbes bool
	// NoDeletion never sets deletionTimestamp.
	NoDeletion bool
	// NoHostNetwork never sets hostNetwork.
	NoHostNetwork bool
	// NoResources leaves out container resources, resizePolicy and
	// pod-level resources.
	NoResources bool
	// NoPodResources leaves out pod-level resources only.
	NoPodResources bool
	// NoResizePolicy leaves out container resizePolicy only.
	NoResizePolicy bool
	// NoVolumes leaves out emptyDir volumes.
	NoVolumes bool
	// NoRestartRules gives no regular container or regular init container a
	// restartPolicy, and no container restartPolicyRules: the pods an API
	// server with ContainerRestartRules off accepts. Sidecars keep their
	// restartPolicy Always.
	NoRestartRules bool
	// NoRestartAllContainers never uses the RestartAllContainers rule action
	// and gives sidecars no rules: the pods an API server with
	// RestartAllContainersOnContainerExits off accepts.
	NoRestartAllContainers bool

	// RestartPolicies are the pod restartPolicy values to draw from; empty
	// means Always, OnFailure and Never.
	RestartPolicies []v1.RestartPolicy
	// Images is the image pool; empty means DefaultImages.
	Images []string
}

// ForGates returns o further restricted to the pods an API server running
// with gates accepts on create: NoRestartRules without
// ContainerRestartRules, NoRestartAllContainers without
// RestartAllContainersOnContainerExits, NoPodResources without
// PodLevelResources, NoResizePolicy without InPlacePodVerticalScaling.
//
// A kubelet can still meet pods the API server accepted under other gates
// (version skew, gates changed later), so Case does not apply ForGates on
// its own.
func (o PodOptions) ForGates(gates features.Set) PodOptions {
	if !gates.Enabled(features.ContainerRestartRules) {
		o.NoRestartRules = true
	}
	if !gates.Enabled(features.RestartAllContainersOnContainerExits) {
		o.NoRestartAllContainers = true
	}
	if !gates.Enabled(features.PodLevelResources) {
		o.NoPodResources = true
	}
	if !gates.Enabled(features.InPlacePodVerticalScaling) {
		o.NoResizePolicy = true
	}
	return o
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

func (o PodOptions) images() []string {
	if len(o.Images) == 0 {
		return DefaultImages
	}
	return o.Images
}

func (o PodOptions) restartPolicies() []v1.RestartPolicy {
	if len(o.RestartPolicies) == 0 {
		return []v1.RestartPolicy{v1.RestartPolicyAlways, v1.RestartPolicyOnFailure, v1.RestartPolicyNever}
	}
	return o.RestartPolicies
}

// Pod returns a generator of pods the API server of v1.37.2 accepts on
// create, as the kubelet receives them (after defaulting):
//
//   - identity: UID, name, namespace, generation, nodeName;
//   - restartPolicy Always, OnFailure or Never; terminationGracePeriodSeconds
//     usually set (0 included), sometimes nil (defaulting never leaves it
//     nil, but the kubelet's code handles nil and so do hand-built pods);
//   - 0-3 regular init containers and 0-3 sidecars, interleaved in any
//     order; 1-4 regular containers; 0-2 ephemeral containers; names are
//     unique across all lists ("init-N", "sidecar-N", "app-N", "debug-N",
//     N the index in the container's list);
//   - images from a small pool (see DefaultImages), now and then (when
//     PodOptions.Images is empty) an image outside it, starting with
//     OddImagePrefix, whose text carries every character class the
//     container hash escapes; now and then a command, arguments, an env
//     value and a working directory with the same characters;
//   - container restartPolicy on regular containers (Always, OnFailure,
//     Never) and on regular init containers (OnFailure, Never), and
//     restartPolicyRules (actions Restart and RestartAllContainers,
//     operators In and NotIn over RuleExitCodes, sometimes with no values)
//     only where the container's own restartPolicy is set, including on
//     sidecars;
//   - liveness, readiness and startup probes on regular containers and
//     sidecars only, liveness and startup ones sometimes with their own
//     terminationGracePeriodSeconds;
//   - cpu and memory requests and limits (request <= limit), resizePolicy
//     (RestartContainer only where allowed), pod-level resources that
//     cover the containers;
//   - memory-backed and disk emptyDir volumes, with and without sizeLimit;
//   - hostNetwork sometimes; deletionTimestamp with
//     deletionGracePeriodSeconds sometimes.
//
// Status is left empty. See PodOptions for what can be turned off.
func Pod(opts PodOptions) *rapid.Generator[*v1.Pod] {
	return rapid.Custom(func(t *rapid.T) *v1.Pod { return drawPod(t, opts) })
}

// kind is the kind of a container in the pod spec.
type kind int

const (
	kindRegular kind = iota
	kindInit
	kindSidecar
	kindEphemeral
	kindStranger // an instance name the spec does not have
)

func (k kind) String() string {
	switch k {
	case kindRegular:
		return "container"
	case kindInit:
		return "init container"
	case kindSidecar:
		return "sidecar"
	case kindEphemeral:
		return "ephemeral container"
	}
	return "unknown container"
}

func drawPod(t *rapid.T, o PodOptions) *v1.Pod {
	n := rapid.IntRange(0, 999).Draw(t, "pod number")
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			UID:               types.UID(fmt.Sprintf("6f1c0000-0000-4000-8000-%012d", n)),
			Name:              fmt.Sprintf("pod-%d", n),
			Namespace:         pick(t, "namespace", []string{"default", "kube-system", "team-a"}),
			Generation:        int64(rapid.IntRange(1, 3).Draw(t, "generation")),
			CreationTimestamp: metav1.NewTime(Epoch),
		},
		Spec: v1.PodSpec{
			NodeName:        "node-a",
			RestartPolicy:   pick(t, "restartPolicy", o.restartPolicies()),
			DNSPolicy:       v1.DNSClusterFirst,
			SchedulerName:   v1.DefaultSchedulerName,
			SecurityContext: &v1.PodSecurityContext{},
		},
	}
	spec := &pod.Spec
	if !o.NoHostNetwork && chance(t, 20, "hostNetwork") {
		spec.HostNetwork = true
		spec.DNSPolicy = v1.DNSClusterFirstWithHostNet
	}
	switch weighted(t, "terminationGracePeriodSeconds", 40, 45, 15) {
	case 0:
		spec.TerminationGracePeriodSeconds = ptr(int64(v1.DefaultTerminationGracePeriodSeconds))
	case 1:
		spec.TerminationGracePeriodSeconds = ptr(pick(t, "terminationGracePeriodSeconds value", []int64{0, 1, 2, 5, 60}))
	}

	// Init containers: regular ones and sidecars, in any order.
	var initKinds []kind
	if !o.NoInitContainers {
		for range rapid.IntRange(0, orDefault(o.MaxInitContainers, 3)).Draw(t, "regular init containers") {
			initKinds = append(initKinds, kindInit)
		}
	}
	if !o.NoSidecars {
		for range rapid.IntRange(0, orDefault(o.MaxSidecars, 3)).Draw(t, "sidecars") {
			initKinds = append(initKinds, kindSidecar)
		}
	}
	if len(initKinds) > 1 {
		initKinds = rapid.Permutation(initKinds).Draw(t, "init container order")
	}
	for i, k := range initKinds {
		name := fmt.Sprintf("init-%d", i)
		if k == kindSidecar {
			name = fmt.Sprintf("sidecar-%d", i)
		}
		spec.InitContainers = append(spec.InitContainers, drawContainer(t, o, k, name, spec.RestartPolicy))
	}
	for i := range rapid.IntRange(1, orDefault(o.MaxContainers, 4)).Draw(t, "containers") {
		spec.Containers = append(spec.Containers, drawContainer(t, o, kindRegular, fmt.Sprintf("app-%d", i), spec.RestartPolicy))
	}
	if !o.NoEphemeral {
		for i := range rapid.IntRange(0, orDefault(o.MaxEphemeral, 2)).Draw(t, "ephemeral containers") {
			spec.EphemeralContainers = append(spec.EphemeralContainers, drawEphemeral(t, o, fmt.Sprintf("debug-%d", i), spec.Containers))
		}
	}

	if !o.NoResources && !o.NoPodResources && chance(t, 20, "pod-level resources") {
		spec.Resources = drawPodResources(t, spec)
	}
	if !o.NoVolumes {
		if chance(t, 25, "memory-backed emptyDir") {
			ed := &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory}
			if chance(t, 80, "memory emptyDir sizeLimit") {
				ed.SizeLimit = ptr(mustQuantity(pick(t, "memory emptyDir sizeLimit value", []string{"64Mi", "128Mi", "1Gi"})))
			}
			spec.Volumes = append(spec.Volumes, v1.Volume{Name: "shm", VolumeSource: v1.VolumeSource{EmptyDir: ed}})
		}
		if chance(t, 15, "disk emptyDir") {
			ed := &v1.EmptyDirVolumeSource{}
			if chance(t, 50, "disk emptyDir sizeLimit") {
				ed.SizeLimit = ptr(mustQuantity("1Gi"))
			}
			spec.Volumes = append(spec.Volumes, v1.Volume{Name: "scratch", VolumeSource: v1.VolumeSource{EmptyDir: ed}})
		}
	}

	if !o.NoDeletion && chance(t, 25, "deletionTimestamp") {
		at := metav1.NewTime(Epoch.Add(seconds(rapid.IntRange(3600, 7200).Draw(t, "deletionTimestamp offset"))))
		pod.DeletionTimestamp = &at
		grace := pick(t, "deletionGracePeriodSeconds", []int64{1, 2, 30})
		if g := spec.TerminationGracePeriodSeconds; g != nil && *g > 0 && chance(t, 50, "deletion uses the pod's grace period") {
			grace = *g
		}
		pod.DeletionGracePeriodSeconds = &grace
	}
	return pod
}

func drawContainer(t *rapid.T, o PodOptions, k kind, name string, podPolicy v1.RestartPolicy) v1.Container {
	c := v1.Container{
		Name:                     name,
		Image:                    drawImage(t, o, name),
		ImagePullPolicy:          v1.PullIfNotPresent,
		TerminationMessagePath:   v1.TerminationMessagePathDefault,
		TerminationMessagePolicy: v1.TerminationMessageReadFile,
	}
	drawOddRuntimeFields(t, name, &c)
	if chance(t, 15, name+" FallbackToLogsOnError") {
		c.TerminationMessagePolicy = v1.TerminationMessageFallbackToLogsOnError
	}

	// Container restartPolicy: Always makes an init container a sidecar;
	// regular init containers may only say OnFailure or Never.
	switch k {
	case kindSidecar:
		c.RestartPolicy = ptr(v1.ContainerRestartPolicyAlways)
	case kindRegular:
		if !o.NoRestartRules && chance(t, 40, name+" restartPolicy") {
			c.RestartPolicy = ptr(pick(t, name+" restartPolicy value", []v1.ContainerRestartPolicy{
				v1.ContainerRestartPolicyAlways, v1.ContainerRestartPolicyOnFailure, v1.ContainerRestartPolicyNever}))
		}
	case kindInit:
		if !o.NoRestartRules && chance(t, 35, name+" restartPolicy") {
			c.RestartPolicy = ptr(pick(t, name+" restartPolicy value", []v1.ContainerRestartPolicy{
				v1.ContainerRestartPolicyOnFailure, v1.ContainerRestartPolicyNever}))
		}
	}
	// Rules need the container's own restartPolicy; on sidecars the API
	// server accepts them only with RestartAllContainersOnContainerExits.
	rulesAllowed := c.RestartPolicy != nil && !o.NoRestartRules && (k != kindSidecar || !o.NoRestartAllContainers)
	rulePct := 60
	if k == kindSidecar {
		rulePct = 25
	}
	if rulesAllowed && chance(t, rulePct, name+" restartPolicyRules") {
		c.RestartPolicyRules = drawRules(t, name, !o.NoRestartAllContainers)
	}

	// Probes are forbidden on init containers that are not sidecars.
	if (k == kindRegular || k == kindSidecar) && !o.NoProbes {
		if chance(t, 30, name+" livenessProbe") {
			c.LivenessProbe = drawProbe(t, name+" livenessProbe", true)
		}
		if chance(t, 30, name+" startupProbe") {
			c.StartupProbe = drawProbe(t, name+" startupProbe", true)
		}
		if chance(t, 30, name+" readinessProbe") {
			c.ReadinessProbe = drawProbe(t, name+" readinessProbe", false)
		}
	}

	if !o.NoResources {
		if chance(t, 50, name+" resources") {
			c.Resources = drawResources(t, name)
		}
		if !o.NoResizePolicy && chance(t, 25, name+" resizePolicy") {
			// RestartContainer is rejected for regular init containers and
			// for pods with restartPolicy Never.
			restartOK := k != kindInit && podPolicy != v1.RestartPolicyNever
			for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
				if !chance(t, 60, fmt.Sprintf("%s resizePolicy %s", name, r)) {
					continue
				}
				p := v1.NotRequired
				if restartOK && chance(t, 50, fmt.Sprintf("%s resizePolicy %s RestartContainer", name, r)) {
					p = v1.RestartContainer
				}
				c.ResizePolicy = append(c.ResizePolicy, v1.ContainerResizePolicy{ResourceName: r, RestartPolicy: p})
			}
		}
	}
	return c
}

func drawRules(t *rapid.T, name string, allowRestartAll bool) []v1.ContainerRestartRule {
	var rules []v1.ContainerRestartRule
	for i := range rapid.IntRange(1, 3).Draw(t, name+" rules") {
		l := fmt.Sprintf("%s rule %d", name, i)
		r := v1.ContainerRestartRule{
			Action:    v1.ContainerRestartRuleActionRestart,
			ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn},
		}
		if allowRestartAll && chance(t, 50, l+" RestartAllContainers") {
			r.Action = v1.ContainerRestartRuleActionRestartAllContainers
		}
		if chance(t, 40, l+" NotIn") {
			r.ExitCodes.Operator = v1.ContainerRestartRuleOnExitCodesOpNotIn
		}
		if !chance(t, 8, l+" no values") {
			r.ExitCodes.Values = rapid.SliceOfNDistinct(rapid.SampledFrom(RuleExitCodes), 1, 3, rapid.ID[int32]).Draw(t, l+" values")
		}
		rules = append(rules, r)
	}
	return rules
}

func drawProbe(t *rapid.T, l string, withGrace bool) *v1.Probe {
	p := &v1.Probe{
		ProbeHandler:     v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}},
		TimeoutSeconds:   1,
		PeriodSeconds:    10,
		SuccessThreshold: 1,
		FailureThreshold: 3,
	}
	// Readiness probes may not set terminationGracePeriodSeconds.
	if withGrace && chance(t, 30, l+" terminationGracePeriodSeconds") {
		p.TerminationGracePeriodSeconds = ptr(pick(t, l+" terminationGracePeriodSeconds value", []int64{1, 5, 10, 45}))
	}
	return p
}

// drawResources draws cpu and memory requests and limits with request <=
// limit; a limit always comes with a request, as after defaulting.
func drawResources(t *rapid.T, name string) v1.ResourceRequirements {
	var rr v1.ResourceRequirements
	for _, r := range []struct {
		name v1.ResourceName
		pool []string
	}{{v1.ResourceCPU, cpuPool}, {v1.ResourceMemory, memPool}} {
		l := fmt.Sprintf("%s %s", name, r.name)
		shape := weighted(t, l, 40, 30, 30) // none, request, request and limit
		if shape == 0 {
			continue
		}
		i := rapid.IntRange(0, len(r.pool)-1).Draw(t, l+" request")
		if rr.Requests == nil {
			rr.Requests = v1.ResourceList{}
		}
		rr.Requests[r.name] = mustQuantity(r.pool[i])
		if shape == 2 {
			j := rapid.IntRange(i, len(r.pool)-1).Draw(t, l+" limit")
			if rr.Limits == nil {
				rr.Limits = v1.ResourceList{}
			}
			rr.Limits[r.name] = mustQuantity(r.pool[j])
		}
	}
	return rr
}

// drawPodResources draws pod-level requests no smaller than the sum of all
// container requests (which bounds the aggregate the API server checks
// against) and limits no smaller than the requests and than any container
// limit.
func drawPodResources(t *rapid.T, spec *v1.PodSpec) *v1.ResourceRequirements {
	all := append(append([]v1.Container(nil), spec.InitContainers...), spec.Containers...)
	rr := &v1.ResourceRequirements{}
	for _, r := range []struct {
		name  v1.ResourceName
		extra []string
	}{{v1.ResourceCPU, []string{"0", "100m", "500m"}}, {v1.ResourceMemory, []string{"0", "64Mi", "256Mi"}}} {
		l := fmt.Sprintf("pod-level %s", r.name)
		shape := weighted(t, l, 30, 35, 35) // none, request, request and limit
		if shape == 0 {
			continue
		}
		var sum, maxLimit resource.Quantity
		for _, c := range all {
			if q, ok := c.Resources.Requests[r.name]; ok {
				sum.Add(q)
			}
			if q, ok := c.Resources.Limits[r.name]; ok && q.Cmp(maxLimit) > 0 {
				maxLimit = q.DeepCopy()
			}
		}
		extras := r.extra
		if sum.IsZero() {
			extras = extras[1:]
		}
		req := sum.DeepCopy()
		req.Add(mustQuantity(pick(t, l+" request headroom", extras)))
		if rr.Requests == nil {
			rr.Requests = v1.ResourceList{}
		}
		rr.Requests[r.name] = req
		if shape == 2 {
			lim := req.DeepCopy()
			if maxLimit.Cmp(lim) > 0 {
				lim = maxLimit.DeepCopy()
			}
			lim.Add(mustQuantity(pick(t, l+" limit headroom", r.extra)))
			if rr.Limits == nil {
				rr.Limits = v1.ResourceList{}
			}
			rr.Limits[r.name] = lim
		}
	}
	if rr.Requests == nil && rr.Limits == nil {
		return nil
	}
	return rr
}

func drawEphemeral(t *rapid.T, o PodOptions, name string, targets []v1.Container) v1.EphemeralContainer {
	ec := v1.EphemeralContainer{
		EphemeralContainerCommon: v1.EphemeralContainerCommon{
			Name:                     name,
			Image:                    drawImage(t, o, name),
			ImagePullPolicy:          v1.PullIfNotPresent,
			TerminationMessagePath:   v1.TerminationMessagePathDefault,
			TerminationMessagePolicy: v1.TerminationMessageReadFile,
		},
	}
	drawOddRuntimeFields(t, name, (*v1.Container)(&ec.EphemeralContainerCommon))
	if chance(t, 40, name+" targetContainerName") {
		ec.TargetContainerName = pick(t, name+" target", targets).Name
	}
	return ec
}

// drawImage draws a container image: from the pool, or (now and then, when
// the caller gave no pool of its own) an odd image.
func drawImage(t *rapid.T, o PodOptions, name string) string {
	if len(o.Images) == 0 && chance(t, 15, name+" odd image") {
		return oddImage(t, name+" odd image text")
	}
	return pick(t, name+" image", o.images())
}

// drawOddRuntimeFields now and then gives c a command, arguments, an env
// value and a working directory with odd characters. None of them takes
// part in the container hash; they are there so that a hash that read them
// would be seen.
func drawOddRuntimeFields(t *rapid.T, name string, c *v1.Container) {
	if !chance(t, 10, name+" odd command, args, env, workingDir") {
		return
	}
	c.Command = []string{"sh", "-c", oddText(t, name+" odd command")}
	c.Args = []string{oddText(t, name+" odd arg")}
	c.Env = []v1.EnvVar{{Name: "ODD", Value: oddText(t, name+" odd env value")}}
	c.WorkingDir = "/work/" + oddText(t, name+" odd workingDir")
}
